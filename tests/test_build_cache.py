"""The build cache (`rbdgen.build`), `rbdgen.load` without the code-generation extra,
and `Generated.write`.

Solver builds are of the double pendulum (the quickest robot), into per-test cache
folders; the compiler's plumbing is tested on a few lines of C. A damaged entry is
loaded in a subprocess: a library that reached the dynamic loader truncated would
kill the process with SIGBUS.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import solver
from rbdgen import build

NAME = "double_pendulum"
TESTS = Path(__file__).resolve().parent
Q = np.array([[0.3, -0.7], [1.1, 0.2]])

#: A two-file extension: the compiler's plumbing without a robot.
TINY = {"tiny.h": "int tiny_a(int x);\nint tiny_b(int x);\n",
        "a.c": '#include "tiny.h"\nint tiny_a(int x) { return tiny_b(x) + 1; }\n',
        "b.c": '#include "tiny.h"\nint tiny_b(int x) { return 2 * x; }\n'}
TINY_CDEF = "int tiny_a(int x);\nint tiny_b(int x);\n"


def _entries(cache: Path) -> list:
    """Installed cache entries (folders with a record)."""
    return sorted(p for p in cache.iterdir() if (p / build.RECORD).is_file())


def _temporaries(cache: Path) -> list:
    return sorted(p.name for p in cache.iterdir() if p.name.startswith("."))


def _library(entry: Path) -> Path:
    return entry / json.loads((entry / build.RECORD).read_text())["library"]


def _no_compiler(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the C compiler was called (cache miss)")

    monkeypatch.setattr(build, "_compile", refuse)


def _unique_flags(request) -> tuple:
    """`TEST_FLAGS` plus a macro naming the test: a key no other test (or earlier import) has."""
    return TEST_FLAGS + (f"-DRBDGEN_TEST_{abs(hash(request.node.nodeid))}",)


def test_second_compile_is_a_cache_hit(tmp_path, monkeypatch, generated, request):
    g = generated(NAME)
    cache = tmp_path / "cache"
    flags = _unique_flags(request)  # not imported earlier by this process, so the first compile builds
    first = g.compile(flags=flags, cache=cache, samples=2)
    assert len(_entries(cache)) == 1 and not _temporaries(cache)
    _no_compiler(monkeypatch)
    again = g.compile(flags=flags, cache=cache, samples=2)
    assert np.array_equal(again.mass_matrix(Q), first.mass_matrix(Q))
    # the same sources loaded from a folder: a hit too
    folder = g.write(tmp_path / "src")
    loaded = rbdgen.load(folder, flags, cache)
    assert np.array_equal(loaded.mass_matrix(Q), first.mass_matrix(Q))
    assert len(_entries(cache)) == 1
    # other flags or other sources are another key: the (refused) compiler is called
    with pytest.raises(AssertionError, match="cache miss"):
        g.compile(flags=TEST_FLAGS + ("-DRBDGEN_TEST_OTHER_KEY",), cache=cache, validate=False)
    c = folder / f"{NAME}_mass_matrix.c"
    c.write_text(c.read_text() + "/* a comment changes the key */\n")
    with pytest.raises(AssertionError, match="cache miss"):
        rbdgen.load(folder, flags, cache)
    # a failed build leaves no temporary folder behind
    assert len(_entries(cache)) == 1 and not _temporaries(cache)


def test_key_covers_sources_cdef_flags_and_compiler(monkeypatch):
    files = {"a.c": "int x;", "a.h": ""}
    key = build.build_key(files, "int f(void);", TEST_FLAGS)
    assert key == build.build_key(dict(files), "int f(void);", tuple(TEST_FLAGS))
    assert key != build.build_key({**files, "a.c": "int y;"}, "int f(void);", TEST_FLAGS)
    assert key != build.build_key({**files, "b.c": ""}, "int f(void);", TEST_FLAGS)
    assert key != build.build_key(files, "int g(void);", TEST_FLAGS)
    assert key != build.build_key(files, "int f(void);", TEST_FLAGS[:-1])
    monkeypatch.setenv("CC", "clang")
    assert key != build.build_key(files, "int f(void);", TEST_FLAGS)


def test_rbdgen_cache_chooses_the_folder(tmp_path, monkeypatch, generated, request):
    folder = tmp_path / "from-env"
    monkeypatch.setenv("RBDGEN_CACHE", str(folder))
    assert build.cache_dir() == folder
    s = generated(NAME).compile(flags=_unique_flags(request), samples=2)  # no cache argument: $RBDGEN_CACHE
    assert len(_entries(folder)) == 1
    assert np.array_equal(s.mass_matrix(Q), solver(NAME).mass_matrix(Q))
    monkeypatch.delenv("RBDGEN_CACHE")
    assert build.cache_dir() != folder


# -- compiling -----------------------------------------------------------------------------------
def test_every_translation_unit_is_compiled_and_linked(tmp_path, request):
    """Two .c files (one calls the other) become one extension; the entry's record matches its library."""
    module = build.load_extension(TINY, "tiny", TINY_CDEF, _unique_flags(request), tmp_path)
    assert module.lib.tiny_b(20) == 40 and module.lib.tiny_a(20) == 41
    [entry] = _entries(tmp_path)
    record = json.loads((entry / build.RECORD).read_text())
    library = _library(entry)
    assert record["bytes"] == library.stat().st_size
    assert record["sha256"] == build._sha256(library)
    assert sorted(p.name for p in entry.iterdir()) == sorted([build.RECORD, library.name])
    assert not _temporaries(tmp_path)


def test_every_compiler_process_is_logged(tmp_path, request, caplog):
    """Each translation unit's compiler and the link log their CPU time and peak memory (``rbdgen -v``, and
    what benchmarks/build_time.py reports)."""
    caplog.set_level(logging.DEBUG, logger="rbdgen.build")
    build.load_extension(TINY, "tiny", TINY_CDEF, _unique_flags(request), tmp_path)
    units = {r.unit: r for r in caplog.records if hasattr(r, "unit")}
    assert {"a.c", "b.c", "link"} <= set(units) and len(units) == 4, sorted(units)  # and cffi's wrapper
    assert all(r.cpu > 0 and r.peak_mib > 1 for r in units.values())


def test_sources_are_compiled_one_process_each(tmp_path):
    """The parallel `compile` hands each source to its own call and returns the objects in source order."""
    sizes = {"small.c": 10, "large.c": 1000, "medium.c": 100}
    sources = []
    for name, size in sizes.items():
        (tmp_path / name).write_text("x" * size)
        sources.append(str(tmp_path / name))
    calls = []

    def compile_serially(batch, **options):
        calls.append((batch, options))
        return [batch[0][:-2] + ".o"]

    objects = build._in_parallel(compile_serially)(sources, output_dir="out", extra_postargs=["-O1"])
    assert objects == [s[:-2] + ".o" for s in sources]
    assert sorted(batch for batch, _ in calls) == sorted([s] for s in sources)
    assert all(options == {"output_dir": "out", "extra_postargs": ["-O1"]} for _, options in calls)


def test_compilers_run_at_once_up_to_rbdgen_jobs(tmp_path, monkeypatch):
    """With RBDGEN_JOBS=3, three sources are compiled at the same moment (each call waits for the
    other two at a barrier); with RBDGEN_JOBS=1 never two at once."""
    sources = []
    for i in range(3):
        (tmp_path / f"{i}.c").write_text("")
        sources.append(str(tmp_path / f"{i}.c"))
    barrier, lock, running = threading.Barrier(3, timeout=60), threading.Lock(), []

    def meet(batch, **options):
        barrier.wait()
        return batch

    monkeypatch.setenv("RBDGEN_JOBS", "3")
    assert build.jobs() == 3
    assert build._in_parallel(meet)(sources) == sources

    def alone(batch, **options):
        with lock:
            running.append(1)
            assert len(running) == 1
        time.sleep(0.01)
        with lock:
            running.pop()
        return batch

    monkeypatch.setenv("RBDGEN_JOBS", "1")
    assert build._in_parallel(alone)(sources) == sources
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("RBDGEN_JOBS", bad)
        with pytest.raises(rbdgen.SettingError, match=f"RBDGEN_JOBS must be a positive whole number, got '{bad}'"):
            build.jobs()
    monkeypatch.delenv("RBDGEN_JOBS")
    assert build.jobs() >= 1


def test_no_compiler_is_one_line(tmp_path, monkeypatch, request):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    with pytest.raises(rbdgen.CompilerNotFoundError) as info:
        build.load_extension(TINY, "tiny", TINY_CDEF, _unique_flags(request), tmp_path / "cache")
    message = str(info.value)
    assert "\n" not in message and "no-such-cc" in message and "$CC" in message
    assert "install" in message and "rbdgen.NumpySolver works without a compiler" in message
    assert info.value.__cause__ is None  # no chained cffi/setuptools traceback
    assert info.value.__context__ is None or info.value.__suppress_context__
    assert not _entries(tmp_path / "cache") and not _temporaries(tmp_path / "cache")


def test_no_python_headers_is_one_line(tmp_path, monkeypatch, request):
    real = build.sysconfig.get_paths

    monkeypatch.setattr(build.sysconfig, "get_paths", lambda *a, **k: {**real(*a, **k), "include": str(tmp_path)})
    with pytest.raises(rbdgen.CompilerNotFoundError, match=r"Python.h.*python3-dev.*NumpySolver") as info:
        build.load_extension(TINY, "tiny", TINY_CDEF, _unique_flags(request), tmp_path / "cache")
    assert "\n" not in str(info.value)


def test_a_compiler_error_is_a_build_error(tmp_path, request, capfd):
    broken = {**TINY, "b.c": "int tiny_b(int x) { return x +; }\n"}
    with pytest.raises(rbdgen.BuildError, match=r"compiling tiny failed: .*messages are above") as info:
        build.load_extension(broken, "tiny", TINY_CDEF, _unique_flags(request), tmp_path)
    assert "\n" not in str(info.value) and type(info.value) is rbdgen.BuildError
    assert "b.c" in capfd.readouterr().err  # the compiler's own message
    assert not _entries(tmp_path) and not _temporaries(tmp_path)


# -- unusable cache folders ----------------------------------------------------------------------
def _unusable(tmp_path, case) -> Path:
    if case == "a file":
        (tmp_path / "cache").write_text("not a folder")
        return tmp_path / "cache"
    if case == "inside a file":
        (tmp_path / "file").write_text("not a folder")
        return tmp_path / "file" / "cache"
    if case == "under /proc":
        if not Path("/proc/self").is_dir():
            pytest.skip("no /proc")
        return Path("/proc/rbdgen-cache")
    assert case == "unwritable"
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache").chmod(0o555)
    return tmp_path / "cache"


@pytest.mark.parametrize("case", ["a file", "inside a file", "under /proc", "unwritable"])
def test_an_unusable_cache_is_one_line(tmp_path, generated, request, case):
    """Each ends in a working solver (an unwritable folder is writable for root) or one `CacheError`
    line naming the folder and RBDGEN_CACHE."""
    cache = _unusable(tmp_path, case)
    try:
        s = generated(NAME).compile(flags=_unique_flags(request), cache=cache, samples=2)
    except rbdgen.CacheError as exc:
        message = str(exc)
        assert "\n" not in message and str(cache) in message and "set RBDGEN_CACHE" in message, message
        if "file" in case:
            assert "it is a file, or inside a file, not a folder" in message
    else:
        assert case == "unwritable" and os.access(cache, os.W_OK)
        assert np.array_equal(s.mass_matrix(Q), solver(NAME).mass_matrix(Q))
    finally:
        if case == "unwritable":
            cache.chmod(0o755)


# -- damaged entries -----------------------------------------------------------------------------
def _rewrite_record(entry: Path, **changes):
    path = entry / build.RECORD
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def _not_a_library(entry: Path):
    """Random bytes with a matching record: only the import check can catch it."""
    data = os.urandom(_library(entry).stat().st_size)
    _library(entry).write_bytes(data)
    _rewrite_record(entry, sha256=hashlib.sha256(data).hexdigest())


DAMAGE = {
    "truncated": lambda e: os.truncate(_library(e), _library(e).stat().st_size // 2),
    "random bytes": lambda e: _library(e).write_bytes(os.urandom(_library(e).stat().st_size)),
    "empty": lambda e: _library(e).write_bytes(b""),
    "library missing": lambda e: _library(e).unlink(),
    "record missing": lambda e: (e / build.RECORD).unlink(),
    "random record": lambda e: (e / build.RECORD).write_bytes(os.urandom(300)),
    "record names another file": lambda e: _rewrite_record(e, library="../../elsewhere.so"),
    "not a library": _not_a_library,
}

LOAD = textwrap.dedent("""\
    import json, os, sys, time
    import rbdgen

    folder, cache, go = sys.argv[1:4]
    if go != "-":  # wait for the sibling process(es)
        print("READY", flush=True)
        deadline = time.time() + 60
        while not os.path.exists(go) and time.time() < deadline:
            time.sleep(0.005)
    s = rbdgen.load(folder, {flags!r}, cache)
    print(json.dumps(s.mass_matrix([[0.3, -0.7], [1.1, 0.2]]).tolist()))
""")


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory, generated):
    """(written folder, a cache holding its one entry, the loader script). The flags make a key
    of their own: an extension this process has imported is not looked up in the cache again."""
    base = tmp_path_factory.mktemp("pendulum")
    folder = generated(NAME).write(base / NAME)
    cache = base / "cache"
    flags = TEST_FLAGS + ("-DRBDGEN_TEST_DAMAGED_ENTRIES",)
    rbdgen.load(folder, flags, cache)
    script = base / "load.py"
    script.write_text(LOAD.format(flags=flags))
    return folder, cache, script


def _load_in_processes(pendulum, cache: Path, count: int, go: Path = None) -> list:
    """Load the pendulum from ``cache`` in ``count`` processes (released together by the file ``go``)."""
    folder, _, script = pendulum
    procs = [subprocess.Popen([sys.executable, str(script), str(folder), str(cache), str(go or "-")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(count)]
    try:
        if go is not None:
            for p in procs:  # all have imported rbdgen: release them together
                line = p.stdout.readline()
                assert line.strip() == "READY", line + p.stderr.read()
            go.touch()
        results = [p.communicate(timeout=240) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, f"exit {p.returncode}: {err}"
        M = np.array(json.loads(out.strip().splitlines()[-1]))
        assert np.array_equal(M, solver(NAME).mass_matrix(Q)), out
    return [err for _, err in results]


def _one_good_entry(cache: Path) -> Path:
    [entry] = _entries(cache)
    assert [p.name for p in cache.iterdir()] == [entry.name], _temporaries(cache)  # nothing else left
    name = _library(entry).name.split(".")[0]
    assert build._verified(entry, name, entry.parent) == _library(entry)
    return entry


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_entry_is_found(tmp_path, pendulum, damage):
    cache = tmp_path / "cache"
    shutil.copytree(pendulum[1], cache)
    [entry] = _entries(cache)
    name = _library(entry).name.split(".")[0]
    assert build._verified(entry, name, entry.parent) == _library(entry)
    DAMAGE[damage](entry)
    if damage == "not a library":  # only importing it tells
        assert build._verified(entry, name, entry.parent) == _library(entry)
    else:
        with pytest.raises(build._Broken):
            build._verified(entry, name, entry.parent)


@pytest.mark.parametrize("damage", ["truncated", "random bytes", "empty", "library missing", "not a library"])
def test_a_damaged_entry_is_rebuilt(tmp_path, pendulum, damage):
    """A damaged entry never reaches the dynamic loader (a truncated library would SIGBUS): the
    next process logs one warning naming the entry, rebuilds it and works."""
    cache = tmp_path / "cache"
    shutil.copytree(pendulum[1], cache)
    [entry] = _entries(cache)
    DAMAGE[damage](entry)
    [err] = _load_in_processes(pendulum, cache, 1)
    assert err.count("rebuilding the cache entry") == 1 and str(entry) in err, err
    assert _one_good_entry(cache).name == entry.name


def test_an_empty_entry_folder_is_rebuilt(tmp_path, pendulum):
    cache = tmp_path / "cache"
    shutil.copytree(pendulum[1], cache)
    [entry] = _entries(cache)
    shutil.rmtree(entry)
    entry.mkdir()
    _load_in_processes(pendulum, cache, 1)
    assert _one_good_entry(cache).name == entry.name


def test_a_read_only_cache_with_a_good_entry_loads(tmp_path, pendulum):
    cache = tmp_path / "cache"
    shutil.copytree(pendulum[1], cache)
    folders = [cache, *_entries(cache)]
    for folder in folders:
        folder.chmod(0o555)
    try:
        [err] = _load_in_processes(pendulum, cache, 1)
    finally:
        for folder in folders:
            folder.chmod(0o755)
    assert err == ""
    _one_good_entry(cache)


@pytest.mark.parametrize("start", ["empty cache", "truncated entry"])
def test_two_processes_race(tmp_path, pendulum, start):
    """Two processes load the same robot at the same moment, into an empty cache or one whose
    entry is truncated: both work, and the cache ends with one good entry and nothing else."""
    cache = tmp_path / "cache"
    if start == "truncated entry":
        shutil.copytree(pendulum[1], cache)
        DAMAGE["truncated"](_entries(cache)[0])
    _load_in_processes(pendulum, cache, 2, go=tmp_path / "go")
    _one_good_entry(cache)


LOADER = textwrap.dedent("""\
    import importlib.abc, json, sys

    BLOCKED = ("jinja2", "casadi", "rbdgen.codegen")

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ImportError(f"{{name}} is blocked in this test")
            return None

    sys.meta_path.insert(0, Block())
    try:
        import jinja2  # noqa: F401
    except ImportError:
        pass
    else:
        raise SystemExit("the import blocker does not work")

    import rbdgen

    s = rbdgen.load(sys.argv[1], {flags!r}, sys.argv[2])
    worst = s.validate(samples=2)
    assert not any(m == b or m.startswith(b + ".") for m in sys.modules for b in BLOCKED), sorted(sys.modules)
    print(json.dumps({{"M": s.mass_matrix([[0.3, -0.7], [1.1, 0.2]]).tolist(), "ops": sorted(worst)}}))
""")


@pytest.mark.parametrize("cached", [False, True], ids=["compiles", "cache-hit"])
def test_load_needs_no_codegen(tmp_path, generated, build_cache, cached):
    """`rbdgen.load` builds (or finds) and runs a written folder with jinja2, casadi and
    rbdgen.codegen unimportable: the runtime needs numpy and cffi only."""
    folder = generated(NAME).write(tmp_path / NAME)
    cache = build_cache if cached else tmp_path / "empty-cache"
    if cached:
        rbdgen.load(folder, TEST_FLAGS, cache)
    script = tmp_path / "loader.py"
    script.write_text(LOADER.format(flags=TEST_FLAGS))
    result = subprocess.run([sys.executable, str(script), str(folder), str(cache)], capture_output=True, text=True,
                            timeout=240)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert np.array_equal(np.array(data["M"]), solver(NAME).mass_matrix(Q))
    assert "mass_matrix" in data["ops"]
    assert len(_entries(cache)) >= 1


# -- Generated.write ---------------------------------------------------------------------------
def test_write_refuses_to_overwrite_a_differing_file(tmp_path, generated):
    g = generated(NAME)
    folder = g.write(tmp_path / "out")
    assert sorted(p.name for p in folder.iterdir()) == sorted(g.files)
    for name, text in g.files.items():
        assert (folder / name).read_text() == text
    stats = {name: (folder / name).stat() for name in g.files}
    time.sleep(0.01)
    # identical files are left alone (not rewritten)
    assert g.write(folder) == folder
    for name in g.files:
        now = (folder / name).stat()
        assert (now.st_ino, now.st_mtime_ns) == (stats[name].st_ino, stats[name].st_mtime_ns), name
    # a differing file: FileExistsError naming it, nothing written (not even the missing files)
    c, h = folder / f"{g.prefix}_gravity.c", folder / f"{g.prefix}.h"
    c.write_text("/* edited by hand */\n")
    h.unlink()
    with pytest.raises(FileExistsError, match=rf"{g.prefix}_gravity\.c") as info:
        g.write(folder)
    assert f"{g.prefix}.h" not in str(info.value) and f"{g.prefix}.json" not in str(info.value)
    assert c.read_text() == "/* edited by hand */\n"
    assert not h.exists()
    # overwrite=True replaces it (and writes the missing one); no temporary file is left
    g.write(folder, overwrite=True)
    for name, text in g.files.items():
        assert (folder / name).read_text() == text
    assert sorted(p.name for p in folder.iterdir()) == sorted(g.files)


def test_write_creates_the_folder(tmp_path, generated):
    g = generated(NAME)
    folder = g.write(tmp_path / "a" / "b")
    assert folder.is_dir() and (folder / f"{g.prefix}.json").is_file()
    assert os.path.samefile(folder, tmp_path / "a" / "b")


# -- programs (the benchmarks' C and C++ loops) go through the same cache ------------------------------
PROGRAM = {"main.c": '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n'}


def _program(cache: Path):
    from benchmarks.builds import compile_program

    return compile_program(cache, "hello", PROGRAM, ["gcc", "-O1", "-o", "hello", "main.c"])


def test_a_program_is_a_verified_cache_entry(tmp_path):
    """A program is built once (the second call is a hit: 0 s), installed with a record like an extension."""
    cache = tmp_path / "cache"
    exe, seconds = _program(cache)
    assert seconds > 0 and subprocess.run([exe], capture_output=True, text=True).stdout == "built\n"
    entry = _one_good_entry(cache)
    assert exe == _library(entry) and exe.name == "hello"
    assert _program(cache) == (exe, 0.0)


@pytest.mark.parametrize("damage", ["truncated", "random bytes", "library missing"])
def test_a_damaged_program_is_rebuilt(tmp_path, damage, caplog):
    cache = tmp_path / "cache"
    exe, _ = _program(cache)
    DAMAGE[damage](_entries(cache)[0])
    again, seconds = _program(cache)
    assert again == exe and seconds > 0, "rebuilt"
    assert caplog.text.count("rebuilding the cache entry") == 1
    assert subprocess.run([again], capture_output=True, text=True).stdout == "built\n"
    _one_good_entry(cache)


def test_a_program_that_does_not_compile_is_a_build_error(tmp_path):
    from benchmarks.builds import compile_program

    with pytest.raises(rbdgen.BuildError, match="broken does not compile: .*error"):
        compile_program(tmp_path, "broken", {"main.c": "int main(void) { return x; }\n"},
                        ["gcc", "-o", "broken", "main.c"])
    assert _entries(tmp_path) == [] and _temporaries(tmp_path) == []
