"""The Python API's type hints are consistent: mypy (the ``test`` extra) checks the modules
listed under ``[tool.mypy]`` in pyproject.toml, and the package ships ``py.typed``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import rbdgen

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_clean():
    pytest.importorskip("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_package_is_marked_typed():
    assert (Path(rbdgen.__file__).parent / "py.typed").is_file()


def test_public_signatures():
    """The operations have real signatures: positional state (and link), keyword-only options."""
    import inspect

    fixed, floating = rbdgen.FixedBaseSolver, rbdgen.FloatingBaseSolver
    for op in rbdgen.DYNAMICS + rbdgen.KINEMATICS:
        a = inspect.signature(getattr(fixed, op)).parameters
        b = inspect.signature(getattr(floating, op)).parameters
        assert list(b)[:2] == ["self", "base"] and list(b)[2:] == list(a)[1:]
        keyword_only = [n for n, p in a.items() if p.kind is p.KEYWORD_ONLY]
        assert keyword_only[-3:] == ["out", "mask", "threads"]
        assert all(a[n].default is None for n in keyword_only)
        doc = getattr(fixed, op).__doc__
        for section in ("Parameters", "Returns", "Raises"):
            assert f"\n{section}\n" in doc, (op, section)
        assert all(f"\n{n} : " in doc for n in list(a)[1:])
    ik = inspect.signature(fixed.inverse_kinematics).parameters
    assert list(ik) == ["self", "q0", "link", "target_pose", "options", "out"] and ik["out"].kind is ik["out"].KEYWORD_ONLY
    assert all(f"\n{n} : " in fixed.inverse_kinematics.__doc__ for n in list(ik)[1:])


def test_derivative_signatures():
    """The Jacobians take the state of the operation they differentiate, then loads, mask and threads."""
    import inspect

    for op, third in (("inverse_dynamics_derivatives", "qdd"), ("forward_dynamics_derivatives", "tau")):
        for cls, head in ((rbdgen.FixedBaseSolver, []), (rbdgen.FloatingBaseSolver, ["base"])):
            params = inspect.signature(getattr(cls, op)).parameters
            assert list(params) == ["self", *head, "q", "qd", third, "loads", "mask", "threads"], (cls, op)
            assert [n for n, p in params.items() if p.kind is p.KEYWORD_ONLY] == ["loads", "mask", "threads"]
            doc = getattr(cls, op).__doc__
            for section in ("Parameters", "Returns", "Raises"):
                assert f"\n{section}\n" in doc, (op, section)
            assert all(f"\n{n} : " in doc for n in [*head, "q", "qd", third, "loads", "mask", "threads"])
            assert (f'``"d{op[0] == "i" and "tau" or "acc"}_dbase_rotation"``' in doc) == bool(head)



def test_the_stub_is_in_step_with_the_records():
    """``operation_methods.pyi`` declares the methods `rbdgen.signatures` builds from the records."""
    from rbdgen import signatures

    assert signatures.STUB.read_text() == signatures.stub(), (
        f"{signatures.STUB.name} is out of date; write it again: {signatures.STUB_COMMAND}")


def test_mypy_checks_calls_through_the_stub(tmp_path):
    """The methods built at import are typed for callers: mypy reports a wrong call and a wrong result type."""
    pytest.importorskip("mypy")
    calls = tmp_path / "calls.py"
    calls.write_text(
        "import numpy as np\n"
        "from runtime.signatures import FixedBaseSolver, FloatingBaseSolver\n\n\n"
        "def use(fixed: FixedBaseSolver, floating: FloatingBaseSolver) -> None:\n"
        "    M: np.ndarray = fixed.mass_matrix([0.0])\n"
        "    fixed.passive_terms([0.0], [0.0], coriolis=False)['mass_matrix'].sum()\n"
        "    fixed.mass_matrix([0.0], [0.0])\n"                       # line 8: one positional argument too many
        "    floating.integrate(None, [0.0], [0.0], 0.1)\n"           # line 9: no BaseState
        "    n: int = fixed.jacobian([0.0], 'hand')\n")               # line 10: an array, not an int
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", str(calls)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    lines = {int(m) for m in re.findall(r"calls\.py:(\d+): error", proc.stdout)}
    assert lines == {8, 9, 10}, proc.stdout + proc.stderr
