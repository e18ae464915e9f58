"""A generated folder's manifest (``<prefix>.json``) and the files it names: what `rbdgen.load` reads, and
what ties the manifest to the sources.

A folder is untrusted input. Its manifest sizes the buffers handed to the generated C and the CPython
entry points, so a manifest that does not describe the sources beside it (another robot's with the same
prefix, or one left by an interrupted write) would make the C write past them. `interface_key` hashes
everything of a manifest that sizes a buffer or a call: the prefix, the precision, the model digest, the
sizes and shapes, the sources, each function's inputs and outputs, and the cffi declarations. The
generator writes that key into the header (``RBDGEN_<prefix>_INTERFACE``); every generated source
refuses to compile against a header with another key (``#error``); and `load` compiles `key_source` into
the extension and compares the key the compiled header reports with the manifest's before any
generated function is called. The manifest's model must also have the manifest's digest and sizes
(`check_model`). Files are read only if they are regular files (`read_text`): no symbolic link, FIFO or
device is followed or compiled.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from . import c_sources
from .errors import ManifestError

#: What `load` needs from a manifest.
MANIFEST_KEYS = ("prefix", "precision", "digest", "sources", "operations", "cdef", "model", "sizes", "shapes")

#: The parts of a manifest that `interface_key` hashes, and of each of its operations.
INTERFACE = ("prefix", "precision", "digest", "sizes", "shapes", "sources", "cdef")
OPERATION_INTERFACE = ("inputs", "outputs", "operation", "link")

#: Regenerating is the way out of every problem with a folder.
REGENERATE = "regenerate the folder with `rbdgen generate ... --force`"


def interface_key(manifest: dict) -> str:
    """16 hex digits of the SHA-256 of ``manifest``'s interface (`INTERFACE`, `OPERATION_INTERFACE`)."""
    interface = {name: manifest[name] for name in INTERFACE}
    interface["operations"] = {function: {k: info[k] for k in OPERATION_INTERFACE if k in info}
                               for function, info in manifest["operations"].items()}
    text = json.dumps(interface, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def key_function(prefix: str) -> str:
    """The function `key_source` defines: it returns the compiled header's interface key."""
    return f"{prefix}_interface_key"


def key_source(prefix: str) -> tuple:
    """``({file name: text}, cdef)`` of the function that reports the compiled header's interface key (0 for a
    header without one: a folder written by an older rbdgen)."""
    function = key_function(prefix)
    text, cdef = c_sources.key_function(prefix, function)
    return {f"{function}.c": text}, cdef


def check_key(manifest: dict, reported: int, where: str):
    """A `ManifestError` unless the compiled header's key ``reported`` is the manifest's."""
    expected = interface_key(manifest)
    if reported != int(expected, 16):
        sources = f"{reported:016x}" if reported else "none (written by an older rbdgen)"
        raise ManifestError(f"{where}: the manifest does not describe the sources beside it (interface key "
                            f"{expected} in the manifest, {sources} in {manifest['prefix']}.h: another robot's or "
                            f"another run's files); {REGENERATE}")


def check_model(manifest: dict, where: str):
    """``(model, tree)`` the manifest describes (`RobotModel`; its `Tree` with the declared contacts and parametric
    bodies); a `ManifestError` unless the model has the manifest's digest and sizes."""
    from .algorithms.operations import sizes
    from .contacts import ContactModel
    from .parameters import parametric_tree
    from .model import RobotModel

    try:
        model = RobotModel.from_dict(manifest["model"])
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"{where}: the manifest's model cannot be read ({exc}); {REGENERATE}") from None
    if model.digest != manifest["digest"]:
        raise ManifestError(f"{where}: the manifest's model is not the one its digest names; {REGENERATE}")
    options = manifest.get("options") or {}
    try:
        contacts = ContactModel.from_dict(model, options)
    except (KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"{where}: the manifest's contacts cannot be read ({exc}); {REGENERATE}") from None
    try:
        tree = parametric_tree(model, options.get("parameters"), contacts)
    except ValueError as exc:
        raise ManifestError(f"{where}: the manifest's parametric bodies are not its model's ({exc}); {REGENERATE}") from None
    if sizes(tree, len(model.links), options.get("ops", ())) != manifest["sizes"]:
        raise ManifestError(f"{where}: the manifest's sizes are not its model's; {REGENERATE}")
    # the shapes reach the entry source (`fastpath.entry_files`): numbers only, each of its output's size
    shapes = manifest.get("shapes")
    if not (isinstance(shapes, dict) and all(
            name in manifest["sizes"] and isinstance(dims, list) and len(dims) == 2
            and all(type(d) is int and d >= 0 for d in dims) and dims[0] * dims[1] == manifest["sizes"][name]
            for name, dims in shapes.items())):
        raise ManifestError(f"{where}: the manifest's shapes are not its sizes' matrices; {REGENERATE}")
    return model, tree


def read_text(path: Path, kind: str = "a generated file") -> str:
    """The text of ``path`` if it is a regular file; otherwise (a symbolic link, a FIFO, a device, a folder) a
    `ManifestError` naming it. A FIFO is never waited on."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise OSError("a symbolic link")
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ManifestError(f"{path}: not a regular file ({exc.strerror or exc}); a generated folder holds plain "
                            f"files only: {REGENERATE}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ManifestError(f"{path}: not a regular file (a FIFO, device or folder); a generated folder holds "
                                f"plain files only: {REGENERATE}")
        data = handle.read()
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path}: not {kind} ({exc}); {REGENERATE}") from None


def read(folder: Path) -> tuple:
    """``(path, manifest)``: the one manifest (``*.json``) of ``folder``, with every key `load` needs."""
    manifests = sorted(folder.glob("*.json"))
    if len(manifests) != 1:
        raise FileNotFoundError(f"{folder}: expected one rbdgen manifest (*.json), found {len(manifests)}")
    path = manifests[0]
    try:
        manifest = json.loads(read_text(path, "an rbdgen manifest"))
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{path}: not an rbdgen manifest ({exc}); {REGENERATE}") from None
    missing = [key for key in MANIFEST_KEYS if not isinstance(manifest, dict) or key not in manifest]
    if missing:
        raise ManifestError(f"{path}: not an rbdgen manifest (no {', '.join(missing)}); {REGENERATE}")
    return path, manifest
