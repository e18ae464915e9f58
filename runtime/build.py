"""Compile generated C through cffi (API mode) into a content-addressed cache, and load it.

The cache key hashes the sources (which embed the generator version and the
model digest), the cffi declarations, the compiler flags, cffi's and NumPy's
versions and the Python ABI. A build happens in a private temporary folder inside the cache
and is installed with one ``os.rename``: two processes building the same robot
at once both succeed, and a reader never sees a half-written module.

Only numpy and cffi are needed (plus setuptools on Python >= 3.12, which cffi
compiles with), so `rbdgen.load` works without the code-generation extra.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

#: Flags for builds where speed matters; tests pass -O1 where it does not.
DEFAULT_FLAGS = ("-O2", "-g0", "-std=c99", "-fno-math-errno")


def cache_dir() -> Path:
    """``$RBDGEN_CACHE`` or the user cache folder (platformdirs)."""
    env = os.environ.get("RBDGEN_CACHE")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("rbdgen"))


def build_key(files: dict, cdef: str, flags) -> str:
    import cffi
    import numpy  # the entry points compile against NumPy's C API

    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name].encode() + b"\0")
    for part in (cdef, " ".join(flags), cffi.__version__, numpy.__version__, sys.implementation.cache_tag,
                 sys.platform):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()[:24]


def module_name(prefix: str, key: str) -> str:
    return f"_rbdgen_{prefix}_{key}"


def compile_module(files: dict, prefix: str, cdef: str, flags=DEFAULT_FLAGS, cache=None) -> Path:
    """Build (or find in the cache) the extension for ``files``; returns its folder.

    Every ``.c`` in ``files`` is compiled into it, with NumPy's headers on the include path.
    """
    import cffi
    import numpy

    flags = tuple(flags)
    key = build_key(files, cdef, flags)
    root = Path(cache) if cache is not None else cache_dir()
    target = root / key
    if (target / "module").is_file():
        log.debug("cache hit %s", target)
        return target
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".build-{key}-", dir=root))
    try:
        src = work / "src"
        src.mkdir()
        for name, text in files.items():
            (src / name).write_text(text)
        ffi = cffi.FFI()
        ffi.cdef(cdef)
        name = module_name(prefix, key)
        ffi.set_source(
            name,
            f'#include "{prefix}.h"\n{cdef}',  # cdef: C prototypes, some defined outside the header
            sources=[str(src / n) for n in sorted(files) if n.endswith(".c")],
            include_dirs=[str(src), numpy.get_include()],
            extra_compile_args=list(flags),
        )
        log.info("compiling %s (%s)", prefix, " ".join(flags))
        built = Path(ffi.compile(tmpdir=str(work / "build"), verbose=False))
        final = work / "final"
        final.mkdir()
        shutil.copy2(built, final / built.name)
        (final / "module").write_text(built.name)
        try:
            os.rename(final, target)
        except OSError:
            if not (target / "module").is_file():
                raise
            log.debug("another process installed %s first", target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def load_module(folder: Path):
    """Import the compiled extension installed in ``folder`` (once per process)."""
    path = folder / (folder / "module").read_text().strip()
    name = path.name.split(".")[0]  # the module name cffi built, e.g. _rbdgen_panda_<key>
    if name in sys.modules:
        return sys.modules[name]
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules[name] = module
    return module
