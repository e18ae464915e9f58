"""Expand a ``.xacro`` robot description to URDF text with the ``xacro`` package (``rbdgen[xacro]``).

``$(find pkg)`` resolves through ``package_paths`` ({package name: its folder,
the one holding ``package.xml``}) first, then through a ROS 2 installation
(``ament_index_python``) where there is one; a package found by neither is a
`ModelError` naming it and the ``package_paths=`` option.

xacro evaluates the Python expressions a file holds (``${...}``), and its
sandbox does not hold: an expression can run any code (a shell command) with the
user's rights. So rbdgen expands xacro only when the caller says the file is
trusted (``trust_xacro=True``, ``--trust-xacro``; `require_trust` is the check):
looking at an untrusted robot file never executes it. The expanded text is then
parsed like any URDF (DTDs refused). xacro keeps its state in module globals, so
one expansion runs at a time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading

from .errors import ModelError

__all__ = ["expand_xacro", "is_xacro", "require_trust"]

logger = logging.getLogger(__name__)

_LOCK = threading.Lock()


def is_xacro(path) -> bool:
    return os.fspath(path).endswith(".xacro")


def require_trust(path, trust_xacro: bool, xacro_options: bool) -> bool:
    """Whether to expand the file at ``path`` as xacro: a ``*.xacro`` file, or any file given
    ``xacro_options`` (xacro_args or package_paths); a `ModelError` saying how to opt in when
    that is asked without ``trust_xacro``."""
    path = os.fspath(path)
    if not (is_xacro(path) or xacro_options):
        return False
    if not trust_xacro:
        what = "is a xacro file" if is_xacro(path) else "was given xacro_args or package_paths (xacro options)"
        raise ModelError(f"{path} {what}: expanding xacro runs the Python expressions the file holds, which can "
                         f"execute any command, so rbdgen does it only for a file you trust: if you trust this "
                         f"one, pass trust_xacro=True (command line: --trust-xacro)")
    return True


def expand_xacro(path, xacro_args=None, package_paths=None) -> str:
    """The URDF text of the xacro file at ``path``; ``xacro_args``: {name: value} for ``$(arg name)``.

    This runs the file's code: call it only on a trusted file (see `require_trust`)."""
    try:
        import xacro
        from xacro import substitution_args
    except ImportError:
        raise ImportError(f"{os.fspath(path)} is a xacro file: expanding it needs the xacro package; "
                          f"install it with pip install 'rbdgen[xacro]'") from None
    path = os.fspath(path)
    mappings = {str(k): str(v) for k, v in (xacro_args or {}).items()}
    packages = {str(k): os.fspath(v) for k, v in (package_paths or {}).items()}
    missing = []

    def find(package):
        if package in packages:
            return packages[package]
        try:
            from ament_index_python.packages import get_package_share_directory

            return get_package_share_directory(package)
        except (ImportError, LookupError):  # no ROS 2, or one without the package
            missing.append(package)
            raise

    with _LOCK, _replaced(substitution_args, "_eval_find", find):
        try:
            document = xacro.process_file(path, mappings=mappings)
        except Exception as exc:  # xacro raises many kinds (XacroException, NameError, OSError, ...)
            if missing:
                raise ModelError(f"{path}: $(find {missing[0]}) names a package rbdgen cannot locate: pass its "
                                 f"folder as package_paths={{{missing[0]!r}: '/path/to/{missing[0]}'}}") from None
            raise ModelError(f"{path}: xacro could not expand it: {type(exc).__name__}: {exc}") from None
    logger.debug("expanded xacro %s with arguments %s", path, mappings)
    return document.toxml()


@contextlib.contextmanager
def _replaced(module, name, value):
    original = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, original)
