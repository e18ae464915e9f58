"""Fault injection: every runtime check of the generated C and of the NumPy engine fires on a fault.

A check that never fires in a test can be deleted unnoticed (the behavioural tests run
on healthy states, where it passes). Here a fault is planted in a correct build: the
written C is edited (a factor perturbed, a pivot negated, an output made infinite), the
folder loaded again (`rbdgen.load`), and the call on an ordinary state must come back with
the status of the check that guards against that fault. The NumPy engine's checks get
the same faults through its algorithms (monkeypatched). Deleting or disabling the
targeted check turns each test red (docs/testing.md: how to plant such a bug).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import random_states
from robots import path
from test_mimic import _small

PANDA = "panda"


def _defined(text: str, var: str) -> re.Match:
    """The statement defining ``var`` in generated C."""
    match = re.search(rf"const double {var} = (.*);", text)
    assert match, var
    return match


def _checked(text: str, comment: str) -> str:
    """The variable a guard with trailing ``comment`` tests (``!<prefix>_positive(tN)``)."""
    match = re.search(rf"_positive\((t\d+)\)\) status = \w+;  /\* {re.escape(comment)} \*/", text)
    assert match, comment
    return match.group(1)


def scaled(comment: str, factor: str):
    """A patch: the value the guard with ``comment`` tests, at its definition, times ``factor``."""

    def patch(text):
        d = _defined(text, _checked(text, comment))
        return text[:d.start(1)] + f"({d.group(1)}) * {factor}" + text[d.end(1):]

    return patch


def replaced(old: str, new: str):
    """A patch: every ``old`` of the written C replaced by ``new`` (at least one)."""

    def patch(text):
        assert old in text, old
        return text.replace(old, new)

    return patch


def _panda():
    return rbdgen.load_urdf(path(PANDA))


def _cross():
    return rbdgen.load_urdf_string(_small("cross"))


#: name -> (model, operation, patch of its C, expected error, what the fault is)
FAULTS = {
    # tree-sparse LTDL of forward_dynamics_crba: a negative pivot, a negative equilibrated pivot (no residual:
    # `rbdgen.algorithms.ltdl`)
    "ltdl_positivity": (_panda, "forward_dynamics_crba",
                        scaled("mass matrix is not positive definite (pivot 3)", "-1.0"), rbdgen.SingularError),
    "ltdl_conditioning": (_panda, "forward_dynamics_crba",
                          scaled("mass matrix is ill-conditioned (equilibrated pivot 2 <= sqrt(eps))", "-1.0"),
                          rbdgen.IllConditionedError),
    # ABA: a negative articulated inertia
    "aba_positivity": (_panda, "forward_dynamics",
                       scaled("articulated inertia of joint 'panda_joint4' is not positive", "-1.0"),
                       rbdgen.SingularError),
    # dense Cholesky (mimic joints coupling branches): a factor 0.1 % off, a negative pivot
    "cholesky_residual": (_cross, "forward_dynamics", replaced("cj[j] = ljj;", "cj[j] = ljj * 1.001;"),
                          rbdgen.IllConditionedError),
    "cholesky_positivity": (_cross, "forward_dynamics", replaced("d = cj[j];", "d = -cj[j];"), rbdgen.SingularError),
    # FD derivatives: the checks of M's factor, which every solve of the operation uses
    "fd_derivatives_positivity": (_panda, "forward_dynamics_derivatives",
                                  scaled("mass matrix (forward-dynamics derivatives) is not positive definite "
                                         "(pivot 4)", "-1.0"), rbdgen.SingularError),
    "fd_derivatives_conditioning": (_panda, "forward_dynamics_derivatives",
                                    scaled("mass matrix (forward-dynamics derivatives) is ill-conditioned "
                                           "(equilibrated pivot 1 <= sqrt(eps))", "-1.0"), rbdgen.IllConditionedError),
    # the outputs' finiteness check (inverse dynamics keeps it: its velocities are squared; the mass matrix's
    # entries are bounded, `rbdgen.ir.ranges`, and it has none)
    "output_finiteness": (_panda, "inverse_dynamics", lambda text: re.sub(r"(\n +tau\[0\] = \w+);",
                                                                          r"\1 + HUGE_VAL;", text, count=1),
                          rbdgen.NonFiniteError),
}


def faulty(name, tmp_path, build_cache):
    """The build of ``FAULTS[name]`` with its fault planted, and its operation."""
    make, op, patch, _ = FAULTS[name]
    # forward_dynamics by ABA, whichever algorithm the cost model would pick for the robot (the ABA checks)
    folder = rbdgen.generate(make(), ops=[op], prefix=f"fault_{name}", fd_algorithm="aba").write(tmp_path / name)
    changed = 0
    for source in folder.glob("*.c"):
        text = source.read_text()
        try:
            new = patch(text)
        except AssertionError:  # not in this file
            continue
        changed += new != text
        source.write_text(new)
    assert changed, f"{name}: the fault was planted nowhere"
    return rbdgen.load(folder, TEST_FLAGS, build_cache), op


def arguments(solver, op):
    """``op``'s arguments at one random state (no loads)."""
    return random_states(solver, 1, seed=11).args(op, 0)


@pytest.mark.parametrize("name", list(FAULTS))
def test_c_check_fires_on_its_fault(name, tmp_path, build_cache):
    solver, op = faulty(name, tmp_path, build_cache)
    error = FAULTS[name][3]
    with pytest.raises(error, match=rf"^{op}: .*\(state 0\)$"):
        getattr(solver, op)(*arguments(solver, op))


# -- the NumPy engine: the same faults through its algorithms -----------------------------------------------
def test_numpy_cholesky_residual(monkeypatch):
    from rbdgen.algorithms import cholesky

    engine = rbdgen.NumpySolver(_cross())
    original = cholesky._cholesky

    def perturbed(As):  # the factor 0.1 % off
        L, pivot, value = original(As)
        return L * 1.001, pivot, value

    monkeypatch.setattr(cholesky, "_cholesky", perturbed)
    with pytest.raises(rbdgen.IllConditionedError, match="residual check failed"):
        engine.forward_dynamics(*arguments(engine, "forward_dynamics"))


@pytest.mark.parametrize("op, error, message", [
    ("forward_dynamics", rbdgen.SingularError, "articulated inertia of joint 'panda_joint4' is not positive"),
    ("forward_dynamics_crba", rbdgen.SingularError, "not positive definite"),
    ("forward_dynamics_derivatives", rbdgen.SingularError, "not positive definite"),
])
def test_numpy_positivity(op, error, message):
    """Joint 4's inertia along its axis made negative (an armature of -1e3 kg m^2): ABA's articulated
    inertia and the LTDL's pivot checks (forward dynamics by CRBA, FD derivatives) fire."""
    import dataclasses

    engine = rbdgen.NumpySolver(_panda())
    armature = list(engine.tree.armature)
    armature[3] = -1e3
    engine.tree = dataclasses.replace(engine.tree, armature=tuple(armature))
    with pytest.raises(error, match=re.escape(message)):
        getattr(engine, op)(*arguments(engine, op))


def test_numpy_output_finiteness():
    engine = rbdgen.NumpySolver(_panda())
    args = arguments(engine, "forward_dynamics")
    with pytest.raises(rbdgen.NonFiniteError, match=r"non-finite result \(state 0\)"):
        engine.forward_dynamics(args[0], args[1] * 1e200, args[2])
