"""Regressors (`rbdgen.algorithms.regressor`) and base parameters (`rbdgen.identification`) against
Pinocchio's computeJointTorqueRegressor and energy regressors, and against inverse dynamics and the
energies of models with other inertial parameters (`rbdgen.parameters.with_parameters`)."""

from __future__ import annotations

import numpy as np
import pytest

import rbdgen
from rbdgen import identification, parameters
from rbdgen.testing import MimicReference, random_states
from helpers import load_reference, model as robot_model
from robots import ROBOTS
from test_mimic import _small

pytest.importorskip("pinocchio")

OPS = ["inverse_dynamics_regressor", "inverse_dynamics_base_regressor", "inverse_dynamics_known_forces",
       "energy_regressor"]
CASES = ["panda", "ur5", "solo12", "mimic"]


def _case(name, tmp_path_factory):
    """(model, reference) of a registry robot or of the floating mimic chain of test_mimic."""
    if name != "mimic":
        robot = ROBOTS[name]
        model = robot_model(name)
        return model, load_reference(robot.path, robot.floating, joint_names=list(model.joint_names))
    text = _small("chain")
    path = tmp_path_factory.mktemp("mimic") / "chain.urdf"
    path.write_text(text)
    model = rbdgen.load_urdf_string(text, floating=True)
    return model, MimicReference(path, True, joint_names=list(model.joint_names))


def _random_parameters(model, rng):
    """Physically consistent random inertial parameters (10 per body)."""
    pi = []
    for _ in range(parameters.body_count(model)):
        m, c = rng.uniform(0.5, 3.0), rng.uniform(-0.2, 0.2, 3)
        A = rng.normal(size=(3, 3))
        Ic = 0.01 * (A @ A.T + np.eye(3))
        pi.append(parameters.from_inertia(rbdgen.Inertia(m, tuple(c), tuple(map(tuple, Ic)))))
    return np.concatenate(pi)


@pytest.fixture(scope="module")
def solvers(build_model, tmp_path_factory):
    """name -> (model, reference, NumpySolver, CompiledSolver with the regressors)."""
    out = {}
    for name in CASES:
        model, ref = _case(name, tmp_path_factory)
        out[name] = (model, ref, rbdgen.NumpySolver(model), build_model(model, prefix=f"regressor_{name}",
                                                                       ops=OPS + ["inverse_dynamics"]))
    return out


@pytest.mark.parametrize("name", CASES)
def test_regressor_matches_pinocchio(solvers, name):
    model, ref, numpy_solver, compiled = solvers[name]
    st = random_states(model, 3, seed=11)
    for i in range(3):
        args = st.head(i) + (st.q[i], st.qd[i], st.qdd[i])
        expected = ref.inverse_dynamics_regressor(st.ref_base(i), st.q[i], st.qd[i], st.qdd[i])
        scale = max(1.0, np.abs(expected).max())
        for solver in (numpy_solver, compiled):
            Y = solver.inverse_dynamics_regressor(*args)
            assert Y.shape == (model.generalized_count, 10 * parameters.body_count(model))
            np.testing.assert_allclose(Y, expected, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("name", CASES)
def test_regressor_times_parameters_is_inverse_dynamics(solvers, name):
    """Y pi equals the inverse dynamics of the model with parameters pi (random, and the model's own)."""
    model, _, _, compiled = solvers[name]
    rng = np.random.default_rng(5)
    st = random_states(model, 4, seed=12)
    Y = compiled.inverse_dynamics_regressor(*st.head(), st.q, st.qd, st.qdd)
    for pi in (parameters.parameter_vector(model), _random_parameters(model, rng)):
        other = rbdgen.NumpySolver(parameters.with_parameters(model, pi))
        tau = other.inverse_dynamics(*st.head(), st.q, st.qd, st.qdd)
        np.testing.assert_allclose(Y @ pi, tau, rtol=0, atol=1e-12 * max(1.0, np.abs(tau).max()))


@pytest.mark.parametrize("name", CASES)
def test_known_forces_complete_inverse_dynamics(solvers, name):
    """Y pi + inverse_dynamics_known_forces (loads on every link) is Pinocchio's inverse dynamics with those loads."""
    model, ref, numpy_solver, compiled = solvers[name]
    st = random_states(model, 3, seed=16, load_links=model.link_names)
    pi = parameters.parameter_vector(model)
    for i in range(3):
        q, qd, qdd = st.q[i], st.qd[i], st.qdd[i]
        expected = ref.inverse_dynamics(st.ref_base(i), q, qd, qdd, st.load_lists[i])
        for solver in (numpy_solver, compiled):
            known = solver.inverse_dynamics_known_forces(*st.head(i), q, qdd, loads=st.loads[i])
            got = solver.inverse_dynamics_regressor(*st.head(i), q, qd, qdd) @ pi + known
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * max(1.0, np.abs(expected).max()))


def test_known_forces_hold_the_armature():
    """Solo12 with rotor inertias: the known part is armature qdd (no loads), as Pinocchio's model.armature adds."""
    robot, armature = ROBOTS["solo12"], {"FR_KFE": 0.25, "HL_HAA": 0.5}
    model = rbdgen.load_urdf(robot.path, floating=True, armature=armature)
    ref = load_reference(robot.path, True, joint_names=list(model.joint_names), armature=armature)
    solver = rbdgen.NumpySolver(model)
    st = random_states(model, 2, seed=17)
    for i in range(2):
        q, qd, qdd = st.q[i], st.qd[i], st.qdd[i]
        known = solver.inverse_dynamics_known_forces(*st.head(i), q, qdd)
        np.testing.assert_allclose(known[6:], [armature.get(n, 0.0) * a for n, a in zip(model.joint_names, qdd)],
                                   rtol=0, atol=1e-15)
        got = solver.inverse_dynamics_regressor(*st.head(i), q, qd, qdd) @ parameters.parameter_vector(model) + known
        expected = ref.inverse_dynamics(st.ref_base(i), q, qd, qdd)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * np.abs(expected).max())


@pytest.mark.parametrize("name", CASES)
def test_energy_regressor(solvers, name):
    """Against Pinocchio's kinetic and potential energy regressors, and times pi the energies."""
    model, ref, numpy_solver, compiled = solvers[name]
    st = random_states(model, 3, seed=13)
    pi = _random_parameters(model, np.random.default_rng(6))
    other = rbdgen.NumpySolver(parameters.with_parameters(model, pi))
    for i in range(3):
        args = st.head(i) + (st.q[i], st.qd[i])
        expected = ref.energy_regressor(st.ref_base(i), st.q[i], st.qd[i])
        for solver in (numpy_solver, compiled):
            E = solver.energy_regressor(*args)
            np.testing.assert_allclose(E, expected, rtol=0, atol=1e-12 * max(1.0, np.abs(expected).max()))
        np.testing.assert_allclose(E @ pi, [other.kinetic_energy(*args), other.potential_energy(*args[:-1])],
                                   rtol=1e-12, atol=1e-12)


def test_regressor_casadi_equals_c(generated, solvers):
    """The CasADi function traced from the same algorithm gives the C's values (Panda)."""
    model, _, _, compiled = solvers["panda"]
    function = rbdgen.generate(model, ops=["inverse_dynamics_regressor"], prefix="panda").casadi(
        "inverse_dynamics_regressor")
    st = random_states(model, 2, seed=14)
    for i in range(2):
        Y = np.array(function(st.q[i], st.qd[i], st.qdd[i]))
        np.testing.assert_allclose(Y, compiled.inverse_dynamics_regressor(st.q[i], st.qd[i], st.qdd[i]),
                                   rtol=0, atol=1e-12 * np.abs(Y).max())


@pytest.mark.parametrize("name", CASES)
def test_base_parameters(solvers, name):
    """The rank is the numerical rank (SVD) of the full regressor stacked at other states, and
    Y_base pi_base reproduces Y pi and the inverse dynamics of random parameters."""
    model, _, _, compiled = solvers[name]
    found = identification.identifiable(model)
    st = random_states(model, 60, seed=15)
    Y = compiled.inverse_dynamics_regressor(*st.head(), st.q, st.qd, st.qdd)
    W = Y.reshape(-1, Y.shape[-1])
    singular = np.linalg.svd(W, compute_uv=False)
    assert found.rank == int(np.sum(singular > max(W.shape) * np.finfo(float).eps * singular[0]))
    assert found.rank < W.shape[1]
    Yb = compiled.inverse_dynamics_base_regressor(*st.head(), st.q, st.qd, st.qdd)
    assert Yb.shape == Y.shape[:2] + (found.rank,)
    np.testing.assert_array_equal(Yb, Y[..., list(found.columns)])
    pi = _random_parameters(model, np.random.default_rng(7))
    tau = rbdgen.NumpySolver(parameters.with_parameters(model, pi)).inverse_dynamics(*st.head(), st.q, st.qd, st.qdd)
    np.testing.assert_allclose(Yb @ found.base_parameters(pi), tau, rtol=0, atol=1e-10 * np.abs(tau).max())


def test_double_pendulum_base_parameters():
    """A planar double pendulum about x: what gravity and inertia leave identifiable, in closed form
    (link 2 hangs 0.1 m down link 1's z axis: its mass adds m2 0.1 to link 1's first moment and
    m2 0.1^2 to link 1's inertia about the joint axis)."""
    found = identification.identifiable(robot_model("double_pendulum"))
    assert found.base_names == ("link1.mcy", "link1.mcz + 0.1 link2.m", "link1.Ixx + 0.01 link2.m", "link2.mcy",
                                "link2.mcz", "link2.Ixx")


def test_parameter_layout_round_trip():
    model = robot_model("solo12")
    pi = parameters.parameter_vector(model)
    assert len(pi) == len(parameters.parameter_names(model)) == 130
    assert parameters.parameter_names(model)[:3] == ("base_link.m", "base_link.mcx", "base_link.mcy")
    again = parameters.with_parameters(model, pi)
    np.testing.assert_allclose(parameters.parameter_vector(again), pi, rtol=1e-15, atol=1e-15)
    bad = pi.copy()
    bad[10] = -1.0
    with pytest.raises(rbdgen.ModelError, match="mass -1.0 is negative"):
        parameters.with_parameters(model, bad)
    with pytest.raises(ValueError, match="expected 130 values"):
        parameters.with_parameters(model, pi[:-1])
