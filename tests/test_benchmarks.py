"""`python -m benchmarks.bench --quick`: the benchmark harness runs and every tool's results
agree with independent results (the NumPy engine and Pinocchio).

One quick run (Panda, two rounds, small batches, no Pinocchio C++ build) in a
subprocess, with its own output and build-cache folders; the tests read what it
wrote. It checks the harness, never speed. Optional peers (MuJoCo, adam, matplotlib,
from the ``bench`` extra) are checked only where installed. The consistency check
itself is tested on made-up peers.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks.bench import check
from benchmarks.case import OPS

ROOT = Path(__file__).resolve().parents[1]
LABELS = ("ID", "M", "FD", "g", "C qd")
RBDGEN_COLUMNS = ("rbdgen_c", "rbdgen_py", "rbdgen_batch", "rbdgen_batch_c")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench-out")
    cache = tmp_path_factory.mktemp("bench-cache")
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench", "--quick", "--out", str(out), "--cache", str(cache)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, f"bench.py --quick failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return out, json.loads((out / "results.json").read_text()), proc.stdout


def _peer(results, key):
    return results["robots"]["panda"]["peers"][key]


def test_outputs_exist(quick):
    out, results, _ = quick
    assert (out / "results.md").is_file()
    assert (out / "results.json").is_file()
    assert results["meta"]["quick"] is True
    assert list(results["robots"]) == ["panda"]
    if importlib.util.find_spec("matplotlib") is not None:
        assert (out / "results.png").stat().st_size > 1000


def test_every_operation_reported(quick):
    out, results, _ = quick
    text = (out / "results.md").read_text()
    for label in LABELS:
        assert f"| Panda | {label} |" in text
    rec = results["robots"]["panda"]
    assert set(rec["operation_counts"]) >= set(OPS)
    for key in RBDGEN_COLUMNS + ("numpy_batch",):
        entry = _peer(results, key)
        assert entry["status"] == "ok", entry
        for op in OPS:
            item = entry["ops"][op]
            assert item["check"] == "ok", (key, op, item)
            assert item["us"] > 0 and len(item["rounds"]) == results["meta"]["rounds"], (key, op, item)


def test_consistency_checks_passed(quick):
    out, results, stdout = quick
    assert results["consistent"] is True
    assert "all checks passed: True" in stdout
    assert "All checks passed: **yes**" in (out / "results.md").read_text()
    checked = 0
    for key, entry in results["robots"]["panda"]["peers"].items():
        if entry["status"] != "ok":
            assert entry["reason"], key  # a skipped tool says why
            continue
        for op, item in entry["ops"].items():
            assert item["check"] in ("ok", "unsupported"), (key, op, item)
            if item["check"] == "ok":
                assert item["error"] <= 1e-8, (key, op, item)
                checked += 1
    assert checked >= 4 * len(OPS)


def test_rbdgen_columns_checked_against_independent_results(quick):
    """Every rbdgen column against the NumPy engine and Pinocchio; the NumPy engine against Pinocchio only."""
    _, results, _ = quick
    pinocchio = importlib.util.find_spec("pinocchio") is not None
    for key in RBDGEN_COLUMNS + ("numpy_batch",):
        expected = ({"numpy"} if key != "numpy_batch" else set()) | ({"pinocchio"} if pinocchio else set())
        for op in OPS:
            item = _peer(results, key)["ops"][op]
            assert set(item["errors"]) == expected, (key, op, item)
            assert item["error"] == max(item["errors"].values()) <= 1e-8, (key, op, item)
    if pinocchio:  # Pinocchio's columns are checked against the NumPy engine, not against Pinocchio
        assert set(_peer(results, "pinocchio_py")["ops"]["mass_matrix"]["errors"]) == {"numpy"}


class _Peer:
    """A made-up peer: ``results`` are the NumPy engine's times ``1 + scale``."""

    full_coordinates = False

    def __init__(self, implementation, scale):
        self.implementation, self.scale = implementation, scale

    def results(self, op):
        return self.case.references["numpy"][op] * (1 + self.scale)


def _case():
    rng = np.random.default_rng(0)
    numpy = {op: rng.normal(size=(4, 3, 3) if op == "mass_matrix" else (4, 3)) for op in OPS}
    return SimpleNamespace(references={"numpy": numpy, "pinocchio": {op: v.copy() for op, v in numpy.items()}})


@pytest.mark.parametrize("scale, verdict", [(0.0, "ok"), (1e-9, "ok"), (1e-6, "WRONG"), (np.nan, "WRONG")])
def test_check_marks_a_wrong_peer(scale, verdict):
    peer = _Peer("rbdgen", scale)
    peer.case = _case()
    item = check(peer, "inverse_dynamics", peer.case)
    assert item["check"] == verdict and set(item["errors"]) == {"numpy", "pinocchio"}


def test_check_never_compares_a_peer_with_itself():
    peer = _Peer("numpy", 0.0)
    peer.case = _case()
    peer.case.references["pinocchio"]["gravity"] = peer.case.references["pinocchio"]["gravity"] * 2  # disagrees
    item = check(peer, "gravity", peer.case)
    assert item["check"] == "WRONG" and set(item["errors"]) == {"pinocchio"}
    del peer.case.references["pinocchio"]
    assert check(peer, "gravity", peer.case)["check"] == "failed"  # nothing independent left


def test_quick_mode_skips_pinocchio_cpp(quick):
    _, results, _ = quick
    entry = _peer(results, "pinocchio_cpp")
    assert entry["status"] == "unavailable" and "--quick" in entry["reason"]
    assert results["meta"]["cxx_flags"] is None


@pytest.mark.parametrize("key, module", [("pinocchio_py", "pinocchio"), ("dynibo_py", "dynibo"),
                                         ("mujoco_py", "mujoco"), ("adam_py", "adam"), ("adam_c", "adam")])
def test_optional_peer_agrees(quick, key, module):
    pytest.importorskip(module)
    _, results, _ = quick
    entry = _peer(results, key)
    assert entry["status"] == "ok", entry.get("reason")
    for op in OPS:
        item = entry["ops"][op]
        if item["check"] == "unsupported":  # adam's ABA is floating-base only; Panda is fixed
            assert key.startswith("adam") and op == "forward_dynamics"
            continue
        assert item["check"] == "ok" and item["us"] > 0, (op, item)


def test_targets_listed(quick):
    _, results, _ = quick
    targets = {row["target"] for row in results["targets"]}
    assert targets >= {"C vs Pinocchio C++", "Python vs dynibo", "batch vs C loop", "batch vs C loop, same states"}


@pytest.mark.parametrize("key, module", [("pinocchio_py", "pinocchio"), ("dynibo_py", "dynibo"), ("mujoco_py", "mujoco")])
def test_peers_on_a_robot_with_mimic_joints(tmp_path, key, module):
    """Talos (twelve mimic joints, floating): the tools without mimic joints run the URDF without the
    tags (`Case.full`), and their results, reduced (`Case.reduce`), pass the check against the NumPy
    engine and Pinocchio (reduced by `rbdgen.testing.MimicReference`) for every operation."""
    pytest.importorskip(module)
    import rbdgen
    from benchmarks.case import Case
    from benchmarks.peers import ALL_PEERS
    from rbdgen.testing import random_states
    from robots import ROBOTS

    robot = ROBOTS["talos"]
    engine = rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=True))  # the case's solver, duck-typed
    check_states = random_states(engine, 2, seed=3, base_wrench=False)
    case = Case("talos", robot.path, True, None, engine, check_states, check_states, (), tmp_path, tmp_path)
    case.compute_references()
    assert case.full.J == 44 and case.J == 32 and case.full.check.q.shape == (2, 44)
    peer = next(cls for cls in ALL_PEERS if cls.key == key)()
    assert peer.full_coordinates
    peer.setup(case.full)
    for op in OPS:
        item = check(peer, op, case)
        assert item["check"] == "ok", (op, item)
        assert set(item["errors"]) == {"numpy", "pinocchio"} - {peer.implementation}
        # without the reduction the results are not even of the right size
        assert np.shape(peer.results(op))[1] == 44 + 6


# -- Pinocchio's generated code (benchmarks.codegen_peer): its checks, without the three-minute build
def test_codegen_peer_check_catches_a_wrong_entry(tmp_path):
    from benchmarks import codegen_peer
    from robots import ROBOTS

    model = codegen_peer.pinocchio_model(ROBOTS["solo12"])
    states = codegen_peer.pinocchio_states(model, floating=True)
    right = codegen_peer.pinocchio_outputs(model, states)
    dump = tmp_path / "dump.bin"
    np.concatenate([r.ravel() for r in right.values()]).tofile(dump)
    assert codegen_peer.check_peer(dump, model, states) < 1e-14
    nv = model.nv
    right["forward_dynamics_derivatives"][5, 2 * nv * nv + 1] += 1e-3  # M^-1[0, 1]: the compared triangle
    np.concatenate([r.ravel() for r in right.values()]).tofile(dump)
    with pytest.raises(AssertionError, match="forward_dynamics_derivatives differs from Pinocchio at state 5"):
        codegen_peer.check_peer(dump, model, states)


def test_codegen_peer_says_what_is_missing(monkeypatch, capsys):
    import importlib.metadata

    from benchmarks import codegen_peer

    real = importlib.metadata.distribution

    def without_cppadcg(name):
        if name == "cmeel-cppadcodegen":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "distribution", without_cppadcg)
    assert codegen_peer.main(["--robots", "panda"]) == 3
    assert 'cmeel-cppadcodegen is not installed: pip install -e ".[bench]"' in capsys.readouterr().err


def test_codegen_peer_builds_only_when_asked(tmp_path, capsys):
    """A cache without Pinocchio's side (its taping program: minutes and gigabytes; a humanoid's taped C: up to
    half an hour) stops the run with exit 3 and a message, unless --build-peer asks for the build; a program the
    cache holds is used as it is."""
    from benchmarks import codegen_peer
    from benchmarks.builds import compile_program
    from rbdgen import build

    code = codegen_peer.main(["--robots", "panda", "--cache", str(tmp_path / "empty")])
    err = capsys.readouterr().err
    if "is not installed" not in err:  # with the [bench] extra: the taping program is missing from the cache
        assert code == 3 and "is not in the cache" in err and "--build-peer" in err
    files, command = {"p.c": "int main(void) { return 0; }\n"}, ["gcc", "-o", "p", "p.c"]
    with pytest.raises(build.BuildError, match="p is not in the cache .*: ask first"):
        compile_program(tmp_path, "p", files, command, missing="ask first")
    exe, _ = compile_program(tmp_path, "p", files, command)
    assert compile_program(tmp_path, "p", files, command, missing="ask first") == (exe, 0.0)
