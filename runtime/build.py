"""Compile generated C through cffi (API mode) into a content-addressed cache, and load it.

The cache key hashes the sources (which embed the generator version and the
model digest), the cffi declarations, the compiler flags, the compiler settings
taken from the environment (``CC``, ``CFLAGS``, ...), cffi's and NumPy's
versions, the Python ABI and the entry layout.

An entry is a folder ``<cache>/<key>`` holding the built library and a record
(``entry.json``) of its file name, size in bytes and SHA-256. An entry is used
only if the library matches its record (checked before the library is opened, so
a truncated or overwritten file never reaches the dynamic loader) and imports. A
missing, broken or unimportable entry is built again: the build happens in a
private temporary folder inside the cache, the broken entry is first moved aside
(renamed, then deleted) and the new one is installed with one ``os.rename``. Two
processes building the same entry at once both succeed with one installed
artifact (the first rename wins, the other process loads the winner), and a
reader never sees a half-written entry. `cached` is that mechanism for any one
built file (the benchmarks' C and C++ programs use it too).

Every translation unit (the generated ``.c`` files and cffi's wrapper) is
compiled to an object by its own compiler process, as many at once as the cores
this process may use (or ``$RBDGEN_JOBS``, e.g. to bound the compilers' memory),
and the objects are linked into one extension (setuptools does the compiling and
linking, with Python's flags for extensions).

An entry's record says what its writer built, not who wrote it: only the owner may
write to the cache. A cache folder rbdgen creates is private (mode 0700, whatever
the umask), its entries and libraries are writable by their owner only, and a
cache folder, entry, record or library owned by another user or writable by
group or others is refused with a `CacheError` (never loaded, never rebuilt in
place). A library is installed under a name of its own (``<module>.<random>.so``):
an entry rebuilt after its library failed to initialise is loaded from a fresh path,
never from the one the dynamic loader has already opened, and a library this
process has just built that does not import is a `BuildError` at once.

Each compiler runs in its own process group; an interrupt (Ctrl-C, or SIGTERM
where nothing else handles it) kills the running compilers, starts no more and
removes the build's private folder. Such folders left by a killed process
(``.build-*``, ``.broken-*``: not locked by a running build, older than
`STALE_SECONDS`) are removed by the next build in the same cache.

When the cache folder cannot be used (it is a file, cannot be created or is not
writable) the build stops with a `CacheError` whose one-line message names the
folder and says to set ``RBDGEN_CACHE``: a silent fallback to a temporary
folder would compile again in every process. A read-only cache whose entries are
valid still loads. No C compiler, no Python headers or no setuptools raise
`CompilerNotFoundError`, a compiler failure `BuildError`, a malformed
``RBDGEN_CACHE``, ``RBDGEN_JOBS`` or compiler variable (``CC``...) `SettingError`.

Needs numpy and cffi, and setuptools to compile (not jinja2 or CasADi), so
`rbdgen.load` works without the code-generation extra wherever setuptools is
installed; it loads cached entries without setuptools.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import io
import json
import logging
import os
import secrets
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import c_sources
from .errors import BuildError, CacheError, CompilerNotFoundError, SettingError

log = logging.getLogger(__name__)

#: Flags for builds where speed matters; tests pass -O1 where it does not.
DEFAULT_FLAGS = ("-O2", "-g0", "-std=c99", "-fno-math-errno")

#: The record of an entry's library (file name, size, SHA-256).
RECORD = "entry.json"

#: Part of the key: entries of another layout are never looked at.
LAYOUT = "entry.json 1"

#: Environment variables that change what setuptools compiles with (part of the key).
COMPILER_ENVIRONMENT = ("CC", "CFLAGS", "CPPFLAGS", "LDSHARED", "LDFLAGS", "ARCHFLAGS")

#: Attempts to find or build a working entry (each one after another process broke it).
ATTEMPTS = 3

#: A build's private folder older than this, and not locked by its build, was left by a killed process.
STALE_SECONDS = 600

#: The lock file a build holds in its private folder while it runs.
LOCK = ".lock"

_NO_COMPILER_HINT = "rbdgen.NumpySolver works without a compiler"


def cache_dir() -> Path:
    """``$RBDGEN_CACHE`` (``~`` expanded) or the user cache folder (platformdirs)."""
    env = os.environ.get("RBDGEN_CACHE")
    if env:
        folder = os.path.expanduser(env)
        if folder.startswith("~"):
            raise SettingError(f"RBDGEN_CACHE={env!r}: cannot expand {Path(env).parts[0]!r} (no such user, or "
                               "no home folder); set it to an absolute folder")
        return Path(folder)
    import platformdirs

    return Path(platformdirs.user_cache_dir("rbdgen"))


def digest(*parts) -> str:
    """A short SHA-256 of ``parts`` (bytes, or anything with a ``str``): a cache key."""
    sha = hashlib.sha256()
    for part in parts:
        sha.update(part if isinstance(part, bytes) else str(part).encode())
        sha.update(b"\0")
    return sha.hexdigest()[:24]


def build_key(files: dict, cdef: str, flags) -> str:
    import cffi
    import numpy  # the entry points compile against NumPy's C API

    compiler = " ".join(f"{v}={value}" for v, value in compiler_settings().items())
    return digest(*(part for name in sorted(files) for part in (name, files[name])), cdef, " ".join(flags), compiler,
                  cffi.__version__, numpy.__version__, sys.implementation.cache_tag, sys.platform, LAYOUT)


def compiler_settings() -> dict:
    """``{variable: value}`` of `COMPILER_ENVIRONMENT` (empty where unset); a `SettingError` for a value that is
    not a command line (setuptools would fail on it with a traceback)."""
    settings = {v: os.environ.get(v, "") for v in COMPILER_ENVIRONMENT}
    for variable, value in settings.items():
        try:
            shlex.split(value)
        except ValueError as exc:
            raise SettingError(f"{variable}={value!r} is not a command line ({exc}); fix its quoting or unset "
                               f"it") from None
    return settings


def module_name(prefix: str, key: str) -> str:
    return f"_rbdgen_{prefix}_{key}"


def load_extension(files: dict, prefix: str, cdef: str, flags=DEFAULT_FLAGS, cache=None):
    """The compiled extension of ``files``: imported from the cache, or built, installed and imported.

    Every ``.c`` in ``files`` is compiled into it, with NumPy's headers on the include
    path; ``cdef`` declares what cffi exposes. ``cache`` defaults to `cache_dir`. A
    process imports an extension once: later calls with the same key return it.
    Raises `CompilerNotFoundError`, `CacheError` or `BuildError` (one-line messages).
    """
    flags = tuple(flags)
    key = build_key(files, cdef, flags)
    name = module_name(prefix, key)
    if name in sys.modules:
        return sys.modules[name]
    root = Path(cache) if cache is not None else cache_dir()

    def make(folder: Path) -> Path:
        with _cache_access(root):  # an OSError there, such as a full disk, is a CacheError
            library = _compile(files, prefix, cdef, flags, name, folder)
            fresh = library.with_name(f"{name}.{secrets.token_hex(8)}{library.name[len(name):]}")
            os.rename(library, fresh)  # a path the dynamic loader has never opened
            return fresh

    return cached(root, key, name, make, use=lambda library: _import(name, library))


def cached(root, key: str, name: str, make, use=None):
    """``use(path)`` (default: the path) of the file ``name`` in the cache entry ``<root>/<key>``, built first
    if the entry is missing, does not match its record, or ``use`` raises ImportError.

    ``key`` must hash everything the file is made from (`digest`). ``make(folder)`` builds the file in an
    empty private ``folder`` of the cache and returns its path, whose name is ``name`` or starts with
    ``name + "."``; the entry is installed with one rename (see the module's docstring). Raises `CacheError`
    (also for a cache folder or entry that another user owns or others can write: `_check_private`), what
    ``make`` raises, or `BuildError` when `ATTEMPTS` builds give no usable entry or the library just built
    does not import.
    """
    root = Path(root)
    entry = root / key
    problem = "no entry was installed"
    built = False  # by this call, just now
    for _ in range(ATTEMPTS):
        try:
            _check_private(root, root)
            path = _verified(entry, name, root)
            return use(path) if use else path
        except _Absent:
            pass
        except (_Broken, ImportError) as exc:
            problem = f"it does not import: {exc}" if isinstance(exc, ImportError) else str(exc)
            if built and isinstance(exc, ImportError):  # building it again would give the same library
                raise BuildError(f"the library built for {entry} does not import: {exc}") from None
            log.warning("rebuilding the cache entry %s: %s", entry, problem)
            _discard(entry, root)
        _build(root, entry, make)
        built = True
    raise BuildError(f"the cache entry {entry} is broken after {ATTEMPTS} builds ({problem}); "
                     f"delete it, or set RBDGEN_CACHE to another folder")


# -- entries -------------------------------------------------------------------------------------
class _Absent(Exception):
    """There is no entry."""


class _Broken(Exception):
    """The entry's library does not match its record (the message says how)."""


def _verified(entry: Path, name: str, root: Path) -> Path:
    """The file ``name`` (or ``name.<suffix>``: an extension's library) of ``entry``, checked against its
    record without opening it; raises `_Absent` or `_Broken`, or a `CacheError` where the entry, its record
    or its library is another user's or writable by others (`_check_private`)."""
    if not os.path.lexists(entry):
        raise _Absent
    _check_private(entry, root)
    try:
        _check_private(entry / RECORD, root)
        record = json.loads((entry / RECORD).read_text())
        library, size, sha256 = record["library"], record["bytes"], record["sha256"]
    except (OSError, ValueError, KeyError, TypeError) as exc:  # missing, unreadable, not JSON, not a record
        raise _Broken(f"no valid record ({type(exc).__name__}: {exc})") from None
    if not (isinstance(library, str) and (library == name or library.startswith(name + "."))
            and Path(library).name == library):
        raise _Broken(f"the record names {library!r}, not a library of this entry")
    path = entry / library
    try:
        _check_private(path, root)
        actual = path.stat().st_size
        if actual != size:
            raise _Broken(f"the library has {actual} bytes, the record says {size}")
        if _sha256(path) != sha256:
            raise _Broken("the library's SHA-256 differs from the record's")
    except OSError as exc:
        raise _Broken(f"the library cannot be read ({exc})") from None
    return path


def _check_private(path: Path, root: Path):
    """Nothing, if ``path`` (``root`` itself: where it leads) does not exist, or is owned by this process's user
    and writable by that user only (and is no symbolic link); otherwise a one-line `CacheError`: whoever else
    can write there can hand this process a library with a matching record."""
    if not hasattr(os, "geteuid"):  # no POSIX owners (Windows): the folder's ACL decides
        return
    try:
        info = os.stat(path) if path == root else os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _cache_error(root, exc) from None
    what = "the cache folder" if path == root else str(path)
    if stat.S_ISLNK(info.st_mode):
        problem = f"{what} is a symbolic link"
    elif info.st_uid != os.geteuid():
        problem = f"{what} belongs to another user (uid {info.st_uid}, not {os.geteuid()})"
    elif info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        problem = (f"{what} is writable by group or others (mode {stat.S_IMODE(info.st_mode):04o}; "
                   f"`chmod go-w {path}` if you trust its content)")
    else:
        return
    raise CacheError(f"refusing the build cache {root}: {problem}, so it could hold another user's code; use a "
                     f"folder only you can write (set RBDGEN_CACHE, or pass cache=)")


def _sha256(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def _import(name: str, path: Path):
    """Import the extension ``name`` from the library ``path`` (registered in ``sys.modules``)."""
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules[name] = module
    return module


def _discard(entry: Path, root: Path):
    """Move a broken entry aside and delete it (another process may have done so first)."""
    with _cache_access(root):
        trash = Path(tempfile.mkdtemp(prefix=f".broken-{entry.name}-", dir=root))
    try:
        os.rename(entry, trash / "entry")
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise _cache_error(root, exc) from None
    finally:
        shutil.rmtree(trash, ignore_errors=True)


def _install(folder: Path, entry: Path):
    """Rename the complete entry ``folder`` to ``entry``; if another process installed one first, keep that."""
    try:
        os.rename(folder, entry)
    except OSError as exc:
        if not entry.exists():
            raise _cache_error(entry.parent, exc) from None
        log.debug("another process installed %s first", entry)


@contextlib.contextmanager
def _cache_access(root: Path):
    """Turns an `OSError` on the cache folder into a one-line `CacheError`."""
    try:
        yield
    except OSError as exc:
        raise _cache_error(root, exc) from None


def _cache_error(root: Path, exc: OSError) -> CacheError:
    if root.is_file() or any(p.is_file() for p in root.parents):
        reason = "it is a file, or inside a file, not a folder"
    else:
        reason = exc.strerror or str(exc)
    return CacheError(f"cannot use the build cache {root}: {reason}; set RBDGEN_CACHE (or pass cache=) "
                      f"to a writable folder")


# -- building ------------------------------------------------------------------------------------
def _build(root: Path, entry: Path, make):
    """``make`` the file in a private folder of the cache and install it, with its record, as ``entry``: the
    folder and the file writable by their owner only, whatever the umask."""
    with _cache_access(root):
        for folder in reversed([root, *root.parents]):  # the folders it creates private too, not only the last
            if not folder.is_dir():
                folder.mkdir(mode=0o700, exist_ok=True)
        _check_private(root, root)
        _sweep(root)
        work = Path(tempfile.mkdtemp(prefix=f".build-{entry.name}-", dir=root))  # mode 0700
    lock = None
    try:
        with _cache_access(root):
            lock = _lock(work / LOCK)
            (work / "build").mkdir()
        built = make(work / "build")
        with _cache_access(root):
            final = work / "entry"
            final.mkdir(mode=0o755)
            library = final / built.name
            os.rename(built, library)
            library.chmod(stat.S_IMODE(library.stat().st_mode) & 0o755)
            record = {"library": built.name, "bytes": library.stat().st_size, "sha256": _sha256(library)}
            (final / RECORD).write_text(json.dumps(record) + "\n")
            (final / RECORD).chmod(0o644)
            _install(final, entry)
    finally:
        if lock is not None:
            lock.close()
        shutil.rmtree(work, ignore_errors=True)


def _lock(path: Path):
    """The open file ``path``, locked (``flock``) while it stays open: `_sweep` leaves its folder alone."""
    handle = open(path, "w")
    with contextlib.suppress(ImportError):
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def _sweep(root: Path):
    """Remove the private folders (``.build-*``, ``.broken-*``) that killed processes left in ``root``: those
    older than `STALE_SECONDS` whose lock no running build holds."""
    now = time.time()
    for folder in root.iterdir():
        if not folder.name.startswith((".build-", ".broken-")):
            continue
        try:
            if now - folder.lstat().st_mtime < STALE_SECONDS or _locked(folder / LOCK):
                continue
        except FileNotFoundError:  # another process removed it
            continue
        log.info("removing %s, left by a build that did not finish", folder)
        shutil.rmtree(folder, ignore_errors=True)


def _locked(path: Path) -> bool:
    """True while a build holds the lock ``path``."""
    try:
        import fcntl
    except ImportError:  # no flock: the age alone decides
        return False
    try:
        with open(path, "rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except FileNotFoundError:
        return False
    except BlockingIOError:
        return True
    return False


def _compile(files: dict, prefix: str, cdef: str, flags: tuple, name: str, work: Path) -> Path:
    """Build the extension ``name`` in ``work``: one compiler process per translation unit, then one link."""
    import cffi
    import numpy

    try:
        from setuptools import Distribution, Extension
        from setuptools.command.build_ext import build_ext
        from setuptools.errors import CompileError, LinkError
    except ImportError as exc:
        raise CompilerNotFoundError(f"setuptools is needed to compile ({exc}); `pip install setuptools`; "
                                    f"{_NO_COMPILER_HINT}") from None
    src = work / "src"
    src.mkdir()
    for file, text in files.items():
        (src / file).write_text(text)
    ffi = cffi.FFI()
    ffi.cdef(cdef)
    ffi.set_source(name, c_sources.wrapper(prefix, cdef))
    wrapper = src / f"{name}.c"
    with contextlib.redirect_stdout(io.StringIO()):  # cffi prints "generating <file>"
        ffi.emit_c_code(str(wrapper))
    sources = [str(wrapper)] + [str(src / n) for n in sorted(files) if n.endswith(".c")]
    extension = Extension(name, sources=sources, include_dirs=[str(src), numpy.get_include()],
                          extra_compile_args=list(flags))

    compilers = _Compilers()

    class ParallelBuild(build_ext):
        def build_extensions(self):
            _require_compiler(self.compiler)
            self.compiler.compile = _in_parallel(self.compiler.compile, compilers)
            _run_commands(self.compiler, compilers)
            super().build_extensions()

    command = ParallelBuild(Distribution({"ext_modules": [extension]}))
    command.build_lib = command.build_temp = str(work / "build")
    command.ensure_finalized()
    log.info("compiling %s: %d translation units (%s)", prefix, len(sources), " ".join(flags))
    try:
        with _terminate_as_exit():
            command.run()
    except (CompileError, LinkError) as exc:
        raise BuildError(f"compiling {prefix} failed: {exc} (the compiler's messages are above)") from None
    [library] = command.get_outputs()
    return Path(library)


class _Compilers:
    """The compiler processes of one build, each the leader of its own process group (so that the group, with
    whatever the compiler started, can be killed): `stop` kills them all and starts no more."""

    def __init__(self):
        self.running = set()
        self.stopped = False
        self.lock = threading.Lock()

    def start(self, command, env=None) -> subprocess.Popen:
        with self.lock:
            if self.stopped:
                raise BuildError("the build was stopped")
            process = subprocess.Popen(command, env=env, start_new_session=True)
            self.running.add(process)
            return process

    def wait(self, process: subprocess.Popen):
        """``(exit code, resource usage or None)`` of ``process``; an interrupt while waiting `stop`s the build."""
        try:
            if hasattr(os, "wait4"):
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
            else:
                process.wait()
                usage = None
        except BaseException:
            self.stop()
            raise
        finally:
            with self.lock:
                self.running.discard(process)
        return process.returncode, usage

    def stop(self):
        with self.lock:
            self.stopped = True
            for process in self.running:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    if hasattr(os, "killpg"):
                        os.killpg(process.pid, signal.SIGKILL)
                    else:
                        process.kill()


@contextlib.contextmanager
def _terminate_as_exit():
    """SIGTERM raises SystemExit(143) meanwhile (so the compilers are killed and the private folder removed),
    where this is the main thread and SIGTERM has its default action."""
    if (threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM")
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def terminate(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _in_parallel(compile_serially, compilers: "_Compilers" = None):
    """``CCompiler.compile`` running one compiler process per source, largest first, on all usable cores. The
    first error or interrupt stops the other compilers (``compilers``) and starts no more."""

    def compile(sources, **options):
        pool = ThreadPoolExecutor(max(min(len(sources), jobs()), 1))
        try:
            objects = {s: pool.submit(compile_serially, [s], **options)
                       for s in sorted(sources, key=os.path.getsize, reverse=True)}
            return [obj for s in sources for obj in objects[s].result()]
        except BaseException:
            if compilers is not None:
                compilers.stop()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    return compile


def _run_commands(compiler, compilers: _Compilers):
    """Make setuptools' ``compiler`` run each compiler (or linker) command through ``compilers`` and log its wall
    time, CPU time (user + system, its child processes included) and peak memory at DEBUG (``rbdgen -v``,
    `benchmarks.build_time`). setuptools runs commands through ``call`` (raising CalledProcessError or OSError),
    older versions through ``spawn`` (raising ExecError): the same errors come out here."""
    from setuptools.errors import ExecError

    def run(command, env=None, spawned=False):
        command = [str(a) for a in command]
        start = time.perf_counter()
        try:
            process = compilers.start(command, env)
        except OSError as exc:
            if spawned:
                raise ExecError(f"command {command[0]!r} failed: {exc}") from None
            raise
        returncode, usage = compilers.wait(process)
        if usage is not None:
            unit = next((Path(a).name for a in command if a.endswith(".c")), "link")
            cpu = usage.ru_utime + usage.ru_stime
            peak = usage.ru_maxrss / (2**20 if sys.platform == "darwin" else 2**10)
            log.debug("%s: %.2f s, %.2f s CPU, %.0f MiB", unit, time.perf_counter() - start, cpu, peak,
                      extra={"unit": unit, "cpu": cpu, "peak_mib": peak})
        if returncode and spawned:
            raise ExecError(f"command {command[0]!r} failed with exit code {returncode}")
        if returncode:
            raise subprocess.CalledProcessError(returncode, command)

    if hasattr(compiler, "call"):
        compiler.call = lambda command, env=None, **_: run(command, env)
    else:
        compiler.spawn = lambda command, **_: run(command, spawned=True)


def jobs() -> int:
    """Compiler processes run at once: ``$RBDGEN_JOBS``, or the cores this process may use."""
    env = os.environ.get("RBDGEN_JOBS", "").strip()
    if env:
        if not (env.isascii() and env.isdigit()) or int(env) < 1:
            raise SettingError(f"RBDGEN_JOBS must be a positive whole number, got {env!r}")
        return int(env)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _require_compiler(compiler):
    """Raise `CompilerNotFoundError` if the compiler setuptools chose, or Python's headers, are missing."""
    command = getattr(compiler, "compiler_so", None)  # Unix compilers; MSVC is found by setuptools itself
    if command and shutil.which(command[0]) is None:
        origin = " (from $CC)" if os.environ.get("CC") else ""
        raise CompilerNotFoundError(f"no C compiler: {command[0]!r}{origin} was not found; install gcc or clang "
                                    f"(e.g. `apt install build-essential`) or set CC; {_NO_COMPILER_HINT}")
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        raise CompilerNotFoundError(f"Python's C headers are missing ({include / 'Python.h'}); install the Python "
                                    f"development package (e.g. `apt install python3-dev`); {_NO_COMPILER_HINT}")
