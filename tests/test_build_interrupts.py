"""Interrupted builds and the environment: Ctrl-C and SIGTERM stop a build at once and kill its
compilers; what a killed build leaves is removed by the next one; malformed environment variables
are one line (exit 3 on the command line).

The compiler is a shell script that logs its pid and sleeps (it never finishes on its own).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import rbdgen
from conftest import TEST_FLAGS
from rbdgen import build

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg") or not Path("/proc/self").is_dir(),
                                reason="POSIX process groups and /proc")

#: Three translation units; with RBDGEN_JOBS=1 the second waits for the first.
#: SIGINT gets Python's handler first, as a terminal's Ctrl-C finds it: a job started in the background by
#: a non-interactive shell (`make test &`, a CI script's `&`) inherits SIGINT ignored.
BUILD = textwrap.dedent("""\
    import signal
    import sys
    from rbdgen import build
    signal.signal(signal.SIGINT, signal.default_int_handler)
    files = {"t.h": "int ta(int x);\\n", "a.c": "int ta(int x) { return x; }\\n",
             "b.c": "int tb(void) { return 1; }\\n", "c.c": "int tc(void) { return 2; }\\n"}
    build.load_extension(files, "t", "int ta(int x);\\n", cache=sys.argv[1])
""")


def _hanging_compiler(tmp_path) -> Path:
    cc = tmp_path / "hanging-cc"
    cc.write_text('#!/bin/sh\necho $$ >> "$RBDGEN_TEST_CC_LOG"\nexec sleep 60\n')
    cc.chmod(0o755)
    return cc


def _alive(pid: str) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_stops_the_build_and_its_compilers(tmp_path, signum):
    """Before: after Ctrl-C the queued compilers kept starting (here: two more of 60 s each) and a hanging
    compiler kept the build alive; SIGTERM left the build's private folder. Now the process ends within a
    second or two, no other compiler starts, the hanging one is dead and the cache holds nothing."""
    log, cache = tmp_path / "cc.log", tmp_path / "cache"
    env = {**os.environ, "CC": str(_hanging_compiler(tmp_path)), "RBDGEN_JOBS": "1", "RBDGEN_TEST_CC_LOG": str(log)}
    process = subprocess.Popen([sys.executable, "-c", BUILD, str(cache)], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not log.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert log.exists(), "the compiler never started"
        time.sleep(0.1)
        process.send_signal(signum)
        process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == (-signal.SIGINT if signum == signal.SIGINT else 128 + signal.SIGTERM)
    [pid] = log.read_text().split()  # no compiler started after the interrupt
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _alive(pid)
    assert list(cache.iterdir()) == []  # no .build-* folder left


def test_a_killed_builds_folder_is_removed_by_the_next_build(tmp_path, request, monkeypatch):
    """A ``.build-*`` folder left by a killed process (old, unlocked) is removed by the next build in the
    cache; one whose build still runs (locked) or that is new is kept."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    stale, running, young = (cache / f".build-{name}-x" for name in ("stale", "running", "young"))
    for folder in (stale, running, young):
        (folder / "build").mkdir(parents=True)
        (folder / build.LOCK).touch()
    old = time.time() - build.STALE_SECONDS - 10
    for folder in (stale, running):
        os.utime(folder, (old, old))
    lock = build._lock(running / build.LOCK)  # as a running build holds it
    try:
        files = {"t.h": "int ta(int x);\n", "a.c": '#include "t.h"\nint ta(int x) { return x; }\n'}
        flags = TEST_FLAGS + (f"-DRBDGEN_TEST_{abs(hash(request.node.nodeid))}",)
        assert build.load_extension(files, "t", "int ta(int x);\n", flags, cache).lib.ta(3) == 3
    finally:
        lock.close()
    assert sorted(p.name for p in cache.iterdir() if p.name.startswith(".")) == [running.name, young.name]


def test_malformed_compiler_settings_are_one_line(monkeypatch):
    monkeypatch.setenv("CC", "gcc '")
    with pytest.raises(rbdgen.SettingError, match=r"""^CC="gcc '" is not a command line \(No closing quotation\)"""):
        build.build_key({"a.c": ""}, "", TEST_FLAGS)


def test_rbdgen_cache_expands_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RBDGEN_CACHE", "~/rbdgen-cache")
    assert build.cache_dir() == tmp_path / "rbdgen-cache"
    monkeypatch.setenv("RBDGEN_CACHE", "~no-such-user-rbdgen/c")
    with pytest.raises(rbdgen.SettingError, match="^RBDGEN_CACHE='~no-such-user-rbdgen/c': cannot expand"):
        build.cache_dir()


@pytest.mark.parametrize("variable, value, message", [
    ("CC", "gcc '", """CC="gcc '" is not a command line (No closing quotation); fix its quoting or unset it"""),
    ("RBDGEN_THREADS", "abc", "RBDGEN_THREADS='abc': expected a positive integer (the threads a batch may use); "
                              "fix it or unset it"),
    ("RBDGEN_JOBS", "x", "RBDGEN_JOBS must be a positive whole number, got 'x'"),
])
def test_the_command_line_gives_one_line_and_exit_3(tmp_path, generated, build_cache, variable, value, message):
    """Before: exit 4 ('internal error, please report') and a traceback."""
    folder = generated("double_pendulum").write(tmp_path / "pendulum")
    env = {**os.environ, "RBDGEN_CACHE": str(tmp_path / "cache"), variable: value}
    result = subprocess.run([sys.executable, "-m", "rbdgen", "check", str(folder), "-q", "--samples", "2"],
                            capture_output=True, text=True, timeout=240, env=env)
    assert result.returncode == 3, result.stderr
    assert result.stderr.strip().splitlines() == [f"rbdgen: {message}"]
