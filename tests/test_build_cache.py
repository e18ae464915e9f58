"""The build cache (`rbdgen.build`), `rbdgen.load` without the code-generation extra,
and `Generated.write`.

All builds are of the double pendulum (the quickest robot), into per-test cache folders.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import cffi
import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import solver
from rbdgen import build

NAME = "double_pendulum"
TESTS = Path(__file__).resolve().parent
Q = np.array([[0.3, -0.7], [1.1, 0.2]])


def _entries(cache: Path) -> list:
    """Installed cache entries (folders with a module)."""
    return sorted(p for p in cache.iterdir() if (p / "module").is_file())


def _temporaries(cache: Path) -> list:
    return sorted(p.name for p in cache.iterdir() if p.name.startswith("."))


def _no_compiler(monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError("the C compiler was called (cache miss)")

    monkeypatch.setattr(cffi.FFI, "compile", refuse)


def test_second_compile_is_a_cache_hit(tmp_path, monkeypatch, generated):
    g = generated(NAME)
    cache = tmp_path / "cache"
    first = g.compile(flags=TEST_FLAGS, cache=cache, samples=2)
    assert len(_entries(cache)) == 1 and not _temporaries(cache)
    _no_compiler(monkeypatch)
    again = g.compile(flags=TEST_FLAGS, cache=cache, samples=2)
    assert np.array_equal(again.mass_matrix(Q), first.mass_matrix(Q))
    # the same sources loaded from a folder: a hit too
    folder = g.write(tmp_path / "src")
    loaded = rbdgen.load(folder, TEST_FLAGS, cache)
    assert np.array_equal(loaded.mass_matrix(Q), first.mass_matrix(Q))
    assert len(_entries(cache)) == 1
    # other flags or other sources are another key: the (refused) compiler is called
    with pytest.raises(AssertionError, match="cache miss"):
        g.compile(flags=TEST_FLAGS + ("-DRBDGEN_TEST_OTHER_KEY",), cache=cache, validate=False)
    c = folder / f"{NAME}_mass_matrix.c"
    c.write_text(c.read_text() + "/* a comment changes the key */\n")
    with pytest.raises(AssertionError, match="cache miss"):
        rbdgen.load(folder, TEST_FLAGS, cache)
    # a failed build leaves no temporary folder behind
    assert len(_entries(cache)) == 1 and not _temporaries(cache)


def test_key_covers_sources_cdef_and_flags():
    files = {"a.c": "int x;", "a.h": ""}
    key = build.build_key(files, "int f(void);", TEST_FLAGS)
    assert key == build.build_key(dict(files), "int f(void);", tuple(TEST_FLAGS))
    assert key != build.build_key({**files, "a.c": "int y;"}, "int f(void);", TEST_FLAGS)
    assert key != build.build_key(files, "int g(void);", TEST_FLAGS)
    assert key != build.build_key(files, "int f(void);", TEST_FLAGS[:-1])


def test_rbdgen_cache_chooses_the_folder(tmp_path, monkeypatch, generated):
    folder = tmp_path / "from-env"
    monkeypatch.setenv("RBDGEN_CACHE", str(folder))
    assert build.cache_dir() == folder
    s = generated(NAME).compile(flags=TEST_FLAGS, samples=2)  # no cache argument: $RBDGEN_CACHE
    assert len(_entries(folder)) == 1
    assert np.array_equal(s.mass_matrix(Q), solver(NAME).mass_matrix(Q))
    monkeypatch.delenv("RBDGEN_CACHE")
    assert build.cache_dir() != folder


BUILDER = textwrap.dedent("""\
    import json, os, sys, time
    sys.path.insert(0, {tests!r})
    import rbdgen
    from robots import ROBOTS

    cache, go = sys.argv[1], sys.argv[2]
    g = rbdgen.generate(ROBOTS[{name!r}].path, prefix={name!r})
    print("READY", flush=True)
    deadline = time.time() + 60
    while not os.path.exists(go) and time.time() < deadline:
        time.sleep(0.005)
    s = g.compile(flags={flags!r}, cache=cache, samples=2)
    print(json.dumps(s.mass_matrix([[0.3, -0.7], [1.1, 0.2]]).tolist()))
""")


def test_two_processes_build_the_same_robot(tmp_path):
    """Two processes start the same build at the same moment into an empty cache: both
    succeed, and the cache holds one installed entry and no temporary folders."""
    cache, go = tmp_path / "cache", tmp_path / "go"
    script = tmp_path / "builder.py"
    script.write_text(BUILDER.format(tests=str(TESTS), name=NAME, flags=TEST_FLAGS))
    procs = [subprocess.Popen([sys.executable, str(script), str(cache), str(go)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        for p in procs:  # both have generated their sources: release them together
            line = p.stdout.readline()
            assert line.strip() == "READY", line + p.stderr.read()
        go.touch()
        results = [p.communicate(timeout=240) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        assert np.array_equal(np.array(json.loads(out.strip().splitlines()[-1])), solver(NAME).mass_matrix(Q)), out
    assert len(_entries(cache)) == 1
    assert not _temporaries(cache), _temporaries(cache)
    assert [p.name for p in cache.iterdir()] == [_entries(cache)[0].name]


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
