"""Who may write the build cache: entries another user could have planted are refused, never loaded;
a rebuilt library is loaded from a path the dynamic loader has not opened before.

The extensions are a few lines of C (`TINY`); `rbdgen check` runs on the double pendulum.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import rbdgen
from conftest import TEST_FLAGS
from rbdgen import build

#: Two sources; a constructor logs every library the dynamic loader initialises (to $RBDGEN_TEST_INIT_LOG).
TINY = {"tiny.h": "int tiny_a(int x);\n",
        "a.c": '#include "tiny.h"\nint tiny_a(int x) { return x + 1; }\n',
        "init.c": '#include <stdio.h>\n#include <stdlib.h>\n'
                  '__attribute__((constructor)) static void tiny_init(void) {\n'
                  '    const char *log = getenv("RBDGEN_TEST_INIT_LOG");\n'
                  '    FILE *f = log ? fopen(log, "a") : NULL;\n'
                  '    if (f) { fputs("init\\n", f); fclose(f); }\n}\n'}
CDEF = "int tiny_a(int x);\n"
POSIX_OWNERS = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners")


def _flags(request) -> tuple:
    return TEST_FLAGS + (f"-DRBDGEN_TEST_{abs(hash(request.node.nodeid))}",)


def _entry(cache: Path) -> Path:
    [entry] = [p for p in cache.iterdir() if (p / build.RECORD).is_file()]
    return entry


def _library(entry: Path) -> Path:
    return entry / json.loads((entry / build.RECORD).read_text())["library"]


@POSIX_OWNERS
def test_a_new_cache_is_private_whatever_the_umask(tmp_path, request):
    """Under umask 000 the cache folder is created 0700 and its entry, record and library are writable by
    their owner only."""
    cache = tmp_path / "new" / "cache"
    old = os.umask(0)
    try:
        module = build.load_extension(TINY, "tiny", CDEF, _flags(request), cache)
    finally:
        os.umask(old)
    assert module.lib.tiny_a(41) == 42
    entry = _entry(cache)
    assert stat.S_IMODE(cache.stat().st_mode) == stat.S_IMODE(cache.parent.stat().st_mode) == 0o700  # both made here
    for path in (entry, entry / build.RECORD, _library(entry)):
        assert stat.S_IMODE(path.stat().st_mode) & 0o022 == 0, (path, oct(path.stat().st_mode))
        assert path.stat().st_uid == os.geteuid()


def _built(tmp_path, request) -> Path:
    cache = tmp_path / "cache"
    build.load_extension(TINY, "tiny", CDEF, _flags(request), cache)
    return cache


def _load(cache: Path, request):
    """Load in a fresh process (this one has imported the extension): the output and the exit code."""
    script = ("import sys; from rbdgen import build\n"
              f"m = build.load_extension({TINY!r}, 'tiny', {CDEF!r}, {_flags(request)!r}, sys.argv[1])\n"
              "print(m.lib.tiny_a(1))\n")
    result = subprocess.run([sys.executable, "-c", script, str(cache)], capture_output=True, text=True, timeout=120)
    return result


@POSIX_OWNERS
@pytest.mark.parametrize("where", ["cache folder", "entry", "record", "library"])
def test_a_cache_others_can_write_is_refused(tmp_path, request, where):
    """A cache folder, entry, record or library writable by group or others is refused with one line naming
    it (the entry is not rebuilt in place either)."""
    cache = _built(tmp_path, request)
    entry = _entry(cache)
    path = {"cache folder": cache, "entry": entry, "record": entry / build.RECORD, "library": _library(entry)}[where]
    path.chmod(stat.S_IMODE(path.stat().st_mode) | 0o022)
    before = {p.name: p.stat().st_mtime_ns for p in entry.iterdir()}
    result = _load(cache, request)
    assert result.returncode == 1 and result.stdout == ""
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("rbdgen.errors.CacheError: refusing the build cache")
    assert "writable by group or others" in last
    assert str(path) in last or where == "cache folder", last
    assert {p.name: p.stat().st_mtime_ns for p in entry.iterdir()} == before  # nothing rebuilt or touched


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give files away")
@pytest.mark.parametrize("where", ["cache folder", "entry", "library"])
def test_a_cache_of_another_user_is_refused(tmp_path, request, where):
    """An entry planted by another user (here: given to uid 65534), with a matching record, is refused; so is a
    cache folder that belongs to another user."""
    cache = _built(tmp_path, request)
    entry = _entry(cache)
    path = {"cache folder": cache, "entry": entry, "library": _library(entry)}[where]
    os.chown(path, 65534, 65534)
    result = _load(cache, request)
    assert result.returncode == 1, result.stdout
    assert "belongs to another user (uid 65534, not 0)" in result.stderr.strip().splitlines()[-1]


@POSIX_OWNERS
def test_rbdgen_check_refuses_a_shared_cache_with_exit_3(tmp_path, generated):
    folder = generated("double_pendulum").write(tmp_path / "pendulum")
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    result = subprocess.run([sys.executable, "-m", "rbdgen", "check", str(folder), "-q"], capture_output=True,
                            text=True, timeout=120, env={**os.environ, "RBDGEN_CACHE": str(cache)})
    assert result.returncode == 3, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"rbdgen: cannot build: refusing the build cache {cache}: the cache folder is writable by group or others "
        f"(mode 0777; `chmod go-w {cache}` if you trust its content), so it could hold another user's code; use a "
        "folder only you can write (set RBDGEN_CACHE, or pass cache=)"]
    assert list(cache.iterdir()) == []


def test_a_library_that_fails_to_initialise_is_rebuilt_at_a_fresh_path(tmp_path, request, monkeypatch):
    """An entry whose library is another module's (its init fails: no PyInit of this name; record rewritten
    to match) is rebuilt, and the new library is loaded from its own path: before, the dynamic loader handed
    the old library back three times and the load ended in a BuildError."""
    cache = tmp_path / "cache"
    other = tmp_path / "other"
    build.load_extension(TINY, "tiny", CDEF, TEST_FLAGS + ("-DRBDGEN_TEST_OTHER_MODULE",), other)
    flags = _flags(request)
    module_name = build.module_name("tiny", build.build_key(TINY, CDEF, flags))
    entry = cache / build.build_key(TINY, CDEF, flags)
    entry.mkdir(parents=True, mode=0o700)
    planted = _library(_entry(other)).read_bytes()
    library = entry / f"{module_name}{importlib.machinery.EXTENSION_SUFFIXES[0]}"  # where setuptools builds it
    library.write_bytes(planted)
    (entry / build.RECORD).write_text(json.dumps({"library": library.name, "bytes": len(planted),
                                                  "sha256": hashlib.sha256(planted).hexdigest()}))
    log = tmp_path / "init.log"
    monkeypatch.setenv("RBDGEN_TEST_INIT_LOG", str(log))
    module = build.load_extension(TINY, "tiny", CDEF, flags, cache)
    assert module.lib.tiny_a(1) == 2
    assert log.read_text() == "init\n" * 2  # the planted library, then the rebuilt one: each initialised once
    assert _library(_entry(cache)) != library and module.__file__ == str(_library(_entry(cache)))


def test_a_library_built_now_that_does_not_import_is_one_build_error(tmp_path, request, monkeypatch):
    """No retries of a library this process has just built: building it again gives the same library."""
    calls = []

    def refuse(name, path):
        calls.append(path)
        raise ImportError("init failed")

    monkeypatch.setattr(build, "_import", refuse)
    with pytest.raises(rbdgen.BuildError, match="the library built for .* does not import: init failed"):
        build.load_extension(TINY, "tiny", CDEF, _flags(request), tmp_path / "cache")
    assert len(calls) == 1
