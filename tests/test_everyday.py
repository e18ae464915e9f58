"""Everyday use: version, ``python -m rbdgen``, reprs, quiet and pipe-safe output, one cache
entry per model, the cache folder shown, the license, and the README's short tour."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import rbdgen
from rbdgen.codegen import cli
from robots import ROBOTS

ROOT = Path(__file__).resolve().parents[1]
PANDA = ROBOTS["panda"].path


def _rbdgen(*argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rbdgen", *map(str, argv)], capture_output=True, text=True,
                          cwd=ROOT, **kw)


def test_version_and_python_m():
    proc = _rbdgen("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"rbdgen {rbdgen.__version__}"
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert rbdgen.__version__ == meta["version"]
    proc = _rbdgen("info", PANDA)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("panda: fixed base") and "J = 7 moving joints" in proc.stdout


def test_reprs(compiled):
    model = rbdgen.load_urdf(ROBOTS["solo12"].path, floating=True)
    assert repr(model) == f"<RobotModel solo: J=12, G=18, L={len(model.links)}, floating base>"
    engine = rbdgen.NumpySolver(model)  # the floating-base class of the NumPy engine
    assert repr(engine) == f"<FloatingNumpySolver solo: J=12, G=18, {len(engine.operations)} ops, double>"
    assert repr(compiled("panda")) == "<FixedCompiledSolver panda: J=7, G=7, 7 ops, double>"


def test_output_to_a_closed_pipe_is_quiet():
    """`rbdgen info X | head`: the reader leaves early; no traceback, SIGPIPE's exit status."""
    long_chain = ROBOTS["hand"].path  # any robot: stdout is a pipe nobody reads
    proc = subprocess.Popen([sys.executable, "-m", "rbdgen", "info", long_chain], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.close()  # before it writes anything
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert err == ""


def test_quiet_prints_nothing(capsys, tmp_path):
    assert cli.main(["-q", "info", str(PANDA)]) == 0
    assert capsys.readouterr() == ("", "")
    assert cli.main(["-q", "generate", str(PANDA), "-o", str(tmp_path), "--no-compile"]) == 0
    assert capsys.readouterr() == ("", "")
    assert cli.main(["-q", "info", str(tmp_path / "missing.urdf")]) == 2  # errors still show
    assert "missing.urdf" in capsys.readouterr().err


def test_info_shows_the_cache_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("RBDGEN_CACHE", str(tmp_path / "here"))
    assert cli.main(["info", str(PANDA)]) == 0
    assert f"build cache: {tmp_path / 'here'} (set RBDGEN_CACHE" in capsys.readouterr().out


def test_one_cache_entry_for_the_command_line_and_python(capsys, tmp_path, monkeypatch):
    """The command writes a folder; Python builds the same model from a file and from a `RobotModel`."""
    flags = ("-O1", "-g0", "-std=c99")
    cache = tmp_path / "cache"
    assert cli.main(["-q", "generate", str(PANDA), "-o", str(tmp_path / "out"), "--no-compile"]) == 0
    from_folder = rbdgen.load(tmp_path / "out", flags=flags, cache=cache)
    from_model = rbdgen.generate(rbdgen.load_urdf(PANDA))
    from_path = rbdgen.generate(PANDA)
    sources = [{n: t for n, t in g.files.items() if n.endswith((".c", ".h"))} for g in (from_model, from_path)]
    assert sources[0] == sources[1]  # the manifests differ: only the one from a file names it
    built = [from_folder] + [g.compile(flags=flags, cache=cache, validate=False) for g in (from_model, from_path)]
    assert built[0]._module is built[1]._module is built[2]._module  # one build, one loaded extension
    if cache.exists():  # (empty when this process had already loaded that build from another cache)
        assert len([p for p in cache.iterdir() if not p.name.startswith(".")]) <= 1


def test_license_matches_the_metadata():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["license"]["text"] == "BSD-3-Clause"
    assert (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause License\n")
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## {meta['version']}" in changelog


NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]\d+)?|-?\d+")


def _numbers_and_words(text: str):
    return [float(n) for n in NUMBER.findall(text)], NUMBER.sub("#", re.sub(r"-?0\.(?=\s|\])", "0.", text)).split()


def test_readme_tour_prints_what_the_readme_says(tmp_path):
    readme = (ROOT / "README.md").read_text()
    tour = readme.split("## A short tour", 1)[1]
    code = re.search(r"```python\n(.*?)```", tour, flags=re.S).group(1)
    expected = re.search(r"```text\n(.*?)```", tour, flags=re.S).group(1)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "RBDGEN_CACHE": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    got_numbers, got_words = _numbers_and_words(proc.stdout)
    want_numbers, want_words = _numbers_and_words(expected)
    assert got_words == want_words
    np.testing.assert_allclose(got_numbers, want_numbers, rtol=0, atol=1.5e-3)  # printed with 3 decimals
