"""The NumPy engine's straight-line path for single states and small batches (`rbdgen.ir.emit_python`).

Once an operation has had `NumpySolver.trace_after` calls on few states, it runs as
Python traced from the same algorithms: its results must be those of the NumPy pass
over a batch, to the bit, and a failing state must raise the same error naming the
same state.
"""

from __future__ import annotations

import numpy as np
import pytest

import rbdgen
from helpers import model, random_states
from robots import LOAD_LINKS

#: Operations with the arguments after the state (a link for those on a link).
CASES = [(op, loads) for op in rbdgen.DYNAMICS + ("inverse_dynamics_derivatives", "forward_dynamics_derivatives")
         for loads in (False, True) if not loads or rbdgen.algorithms.operations.OPERATIONS[op].loads]


def _equal(a, b) -> bool:
    """Bit-identical arrays, or dicts of them (the Jacobians)."""
    return all(np.array_equal(a[k], b[k]) for k in b) if isinstance(b, dict) else np.array_equal(a, b)


def _engines(name):
    """A NumpySolver that traces at once, and one that never does (the NumPy pass)."""
    fast, batched = rbdgen.NumpySolver(model(name)), rbdgen.NumpySolver(model(name))
    fast.trace_after, batched.small = 1, 0
    return fast, batched


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_single_states_equal_the_numpy_pass(name):
    fast, batched = _engines(name)
    st = random_states(fast, 3, seed=4, load_links=LOAD_LINKS[name])
    for op, loads in CASES:
        whole = st.call(batched, op, loads=loads)
        for i in range(st.n):
            row = {k: v[i] for k, v in whole.items()} if isinstance(whole, dict) else whole[i]
            assert _equal(st.call(fast, op, i, loads=loads), row), (op, loads, i)
        assert _equal(st.call(fast, op, loads=loads), whole), (op, loads)  # a small batch
        terms = fast.passive_terms(*st.head(0), st.q[0], st.qd[0])
        for key, value in batched.passive_terms(*st.head(0), st.q[0], st.qd[0]).items():
            assert np.array_equal(terms[key], value), key
    assert any(k is not None for k in fast._kernels.values())  # the straight-line path ran


def test_kinematics_on_a_link_equal_the_numpy_pass():
    fast, batched = _engines("panda")
    st = random_states(fast, 2, seed=5)
    for op in ("forward_kinematics", "jacobian", "jacobian_derivative", "forward_acceleration_kinematics"):
        args = {"forward_kinematics": (st.q,), "jacobian": (st.q,), "jacobian_derivative": (st.q, st.qd),
                "forward_acceleration_kinematics": (st.q, st.qd, st.qdd)}[op]
        whole = getattr(batched, op)(*args, "panda_hand")
        for i in range(st.n):
            assert np.array_equal(getattr(fast, op)(*(a[i] for a in args), "panda_hand"), whole[i]), op
    assert np.array_equal(fast.center_of_mass(st.q[0]), batched.center_of_mass(st.q[:1])[0])


def test_a_failing_state_raises_the_numpy_pass_error():
    """A state that overflows (|qd| ~ 1e200) in a small batch: the same NonFiniteError, the same state."""
    fast, batched = _engines("panda")
    st = random_states(fast, 3, seed=6)
    qd = st.qd.copy()
    qd[1] = 1e200
    for engine in (fast, batched):
        with pytest.raises(rbdgen.NonFiniteError, match=r"\(state 1\)$"):
            engine.inverse_dynamics(st.q, qd, st.qdd)
    fast.inverse_dynamics(st.q[0], st.qd[0], st.qdd[0])  # and the engine goes on


def test_a_check_that_fails_at_every_state_raises():
    """A massless moving tip: forward dynamics is singular for every state, on either path."""
    inertia = ((0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1))
    tip = (rbdgen.RobotBuilder("tip").add_link("base").add_link("arm", 1.0, rotational=inertia).add_link("tip")
           .add_joint("j1", "revolute", "base", "arm", axis=(0, 0, 1))
           .add_joint("j2", "revolute", "arm", "tip", xyz=(0, 0, 0.5), axis=(0, 1, 0)).build())
    engine = rbdgen.NumpySolver(tip)
    engine.trace_after = 1
    for _ in range(2):
        with pytest.raises(rbdgen.SingularError, match=r"\(state 0\)$"):
            engine.forward_dynamics(np.zeros(2), np.zeros(2), np.zeros(2))


def test_a_failed_state_is_named_in_the_whole_batch(compiled):
    """Past the NumPy pass's first `chunk` of states, and under a mask: the state's index in the whole
    batch, as the compiled solver names it."""
    engine = rbdgen.NumpySolver(model("panda"))
    bad = engine.chunk + 3
    st = random_states(engine, engine.chunk + 10, seed=7)
    qd = st.qd.copy()
    qd[bad] = 1e200
    mask = np.ones(st.n, bool)
    mask[:5] = False
    for solver in (engine, compiled("panda")):
        for options in ({}, {"mask": mask}, {"mask": mask, "threads": 1}):
            with pytest.raises(rbdgen.NonFiniteError, match=rf"\(state {bad}\)$"):
                solver.inverse_dynamics(st.q, qd, st.qdd, **options)
