"""``mass_matrix_inverse`` by Carpentier's articulated-body recursion (`rbdgen.algorithms.minv_aba`) and the
generated C's choice between it and the tree-sparse LTDL factor.

References: Pinocchio's ``computeMinverse`` (converted to rbdgen's conventions by
`rbdgen.testing.PinocchioReference`) and the identity M^-1 M = I with Pinocchio's ``crba``; the choice against
the cost model's own estimates (`optimize.estimated_cycles`) of both traced algorithms.
"""

from __future__ import annotations

import numpy as np
import pytest

import rbdgen
from rbdgen.algorithms.kinematics import Tree
from rbdgen.algorithms.minv_aba import mass_matrix_inverse_aba
from rbdgen.backends import NumpyOps
from rbdgen.codegen import c, generator
from rbdgen.ir.optimize import estimated_cycles, schedule

from helpers import LOOSE, assert_close, model, pinocchio, random_states
from robots import ROBOTS

STATES = 5


def _minv_aba(robot: rbdgen.RobotModel, st) -> np.ndarray:
    """``(N, G, G)``: the recursion on the NumPy backend over the batch ``st``."""
    quat = [st.quat[:, k] for k in range(4)] if st.floating else None
    rows = mass_matrix_inverse_aba(Tree.from_model(robot), NumpyOps(), [st.q[:, j] for j in range(robot.joint_count)],
                                   quat)
    return np.stack([np.stack([np.broadcast_to(x, (st.n,)) for x in row], axis=-1) for row in rows], axis=1)


@pytest.mark.parametrize("name", ["panda", "ur5", "solo12", "g1"])
def test_recursion_matches_pinocchio_and_inverts_m(name):
    robot, ref = model(name), pinocchio(name)
    st = random_states(robot, STATES, seed=11)
    got = _minv_aba(robot, st)
    for i in range(st.n):
        b, q = st.ref_base(i), st.q[i]
        assert_close(got[i], ref.mass_matrix_inverse(b, q), LOOSE, f"{name} M^-1 state {i}")
        assert_close(got[i] @ ref.mass_matrix(b, q), np.eye(len(got[i])), LOOSE, f"{name} M^-1 M state {i}")
        assert np.array_equal(got[i], got[i].T), "one scalar for [r][c] and [c][r]"


def test_mimic_joints_are_refused():
    robot = rbdgen.load_urdf(ROBOTS["talos"].path, floating=True)
    st = random_states(robot, 1, seed=1)
    with pytest.raises(ValueError, match="mimic joints"):
        _minv_aba(robot, st)


def _cost(robot: rbdgen.RobotModel, algorithm) -> float:
    kernel = generator.trace_operation(robot, "mass_matrix_inverse", algorithm=algorithm)
    return estimated_cycles(kernel, schedule(kernel, optional=c.optional_inputs(kernel)))


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_the_c_takes_the_cheaper_and_says_which(name):
    robot = model(name)
    algorithms = rbdgen.algorithms.operations.OPERATIONS["mass_matrix_inverse"].algorithms
    cost = {label: _cost(robot, fn) for label, fn in algorithms}
    generated = rbdgen.generate(robot, ops=["mass_matrix_inverse"])
    assert generated.manifest["operations"]["mass_matrix_inverse"]["algorithm"] == min(cost, key=cost.get)


def test_mimic_joints_take_ltdl():
    robot = ROBOTS["talos"]
    generated = rbdgen.generate(robot.path, floating=robot.floating, ops=["mass_matrix_inverse"])
    assert generated.manifest["operations"]["mass_matrix_inverse"]["algorithm"] == "ltdl"


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_generated_c_of_the_recursion_matches_pinocchio(name, build_model, monkeypatch):
    """The recursion's C (taken whatever the cost model says) against Pinocchio, one state and a batch."""
    choose = generator.trace_cheapest
    monkeypatch.setattr(generator, "trace_cheapest", lambda model_, tree, record, choices, prefer, margin=1.0:
                        choose(model_, tree, record, ["aba"], prefer, margin))
    robot, ref = model(name), pinocchio(name)
    solver = build_model(robot, prefix=f"{name}_minv_aba", ops=["mass_matrix_inverse"])
    assert solver.manifest["operations"]["mass_matrix_inverse"]["algorithm"] == "aba"
    st = random_states(robot, STATES, seed=12)
    batch = solver.mass_matrix_inverse(*st.head(), st.q)
    for i in range(st.n):
        want = ref.mass_matrix_inverse(st.ref_base(i), st.q[i])
        assert_close(solver.mass_matrix_inverse(*st.head(i), st.q[i]), want, LOOSE, f"{name} C M^-1 state {i}")
        assert_close(batch[i], want, LOOSE, f"{name} C M^-1 batch state {i}")
