"""What controllers build from M, C qd and g: the Coriolis matrix, M^-1, the energies and the momentum.

References: Pinocchio 4 (`computeCoriolisMatrix`, `computeMinverse`, `computeKineticEnergy`,
`computePotentialEnergy`, M v from `crba`), converted to rbdgen's conventions (world-axis base
velocity, angular first: `rbdgen.testing.PinocchioReference`), for the NumPy engine and the
generated C; and physical identities: C qd is the velocity-product forces, Mdot = C + C^T (a
central difference of M along the motion), M^-1 M = I, T = 1/2 nu^T M nu, p = M nu, and the power
balance d/dt (T + V) = qd^T tau along forward dynamics.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import rbdgen
from rbdgen.codegen.generator import CONTROL_OPERATIONS

from helpers import LOOSE, TIGHT, assert_close, model, pinocchio, random_states, rel_error
from test_mimic import _small

ROBOT_NAMES = ["panda", "ur5", "solo12"]
STATES = 6

#: Pinocchio's M^-1 comes from its own factorisation: as loose as forward dynamics.
TOLERANCE = {"coriolis_matrix": TIGHT, "mass_matrix_inverse": LOOSE, "kinetic_energy": TIGHT,
             "potential_energy": TIGHT, "momentum": TIGHT}
TAKES_QD = {"coriolis_matrix", "kinetic_energy", "momentum"}


def _args(st, op, i):
    return st.head(i) + (st.q[i],) + ((st.qd[i],) if op in TAKES_QD else ())


def _check_against_pinocchio(engine, name, st):
    ref = pinocchio(name)
    for op in CONTROL_OPERATIONS:
        for i in range(st.n):
            want = getattr(ref, op)(st.ref_base(i), *_args(st, op, i)[len(st.head(i)):])
            got = getattr(engine, op)(*_args(st, op, i))
            if np.ndim(want) == 0:  # an energy: relative to the robot's scale, not to a value that may pass 0
                scale = max(abs(want), 1.0)
                assert abs(got - want) <= TOLERANCE[op] * scale, f"{name} {op} state {i}: {got} vs {want}"
            else:
                assert_close(got, want, TOLERANCE[op], f"{name} {op} state {i}")


@pytest.mark.parametrize("name", ROBOT_NAMES)
def test_numpy_engine_matches_pinocchio(name):
    _check_against_pinocchio(rbdgen.NumpySolver(model(name)), name, random_states(model(name), STATES, seed=4))


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_generated_c_matches_pinocchio(name, build_model):
    solver = build_model(model(name), prefix=f"{name}_control", ops=list(CONTROL_OPERATIONS))
    st = random_states(model(name), STATES, seed=5)
    _check_against_pinocchio(solver, name, st)
    numpy = rbdgen.NumpySolver(model(name))
    for op in CONTROL_OPERATIONS:  # batches, and the NumPy engine's batch
        args = st.head() + (st.q,) + ((st.qd,) if op in TAKES_QD else ())
        assert_close(getattr(solver, op)(*args), getattr(numpy, op)(*args), TOLERANCE[op], f"{name} {op} batch")


def _turned(quat, w, h):
    """The base quaternion after turning at the world-axis rate w for time h."""
    return (Rotation.from_rotvec(np.asarray(w) * h) * Rotation.from_quat(quat)).as_quat()


def _mass_matrix_along(solver, st, i, h):
    """M at time h along the motion of state i (base moving with its velocity, joints with qd)."""
    q = st.q[i] + h * st.qd[i]
    if not st.floating:
        return solver.mass_matrix(q)
    w, pdot = st.velocity[i][:3], st.velocity[i][3:]
    return solver.mass_matrix(rbdgen.BaseState(st.translation[i] + h * pdot, _turned(st.quat[i], w, h)), q)


def _identities(solver, st):
    h = 1e-6
    for i in range(st.n):
        head = st.head(i)
        q, qd = st.q[i], st.qd[i]
        nu = np.concatenate([st.velocity[i], qd]) if st.floating else qd
        M = solver.mass_matrix(*head, q)
        C = solver.coriolis_matrix(*head, q, qd)
        assert_close(C @ nu, solver.velocity_product_forces(*head, q, qd), TIGHT, f"C qd, state {i}")
        Mdot = (_mass_matrix_along(solver, st, i, h) - _mass_matrix_along(solver, st, i, -h)) / (2 * h)
        assert_close(C + C.T, Mdot, 1e-7, f"Mdot = C + C^T, state {i}")     # central difference: O(h^2)
        assert not np.allclose(C, C.T)                                       # C itself is not symmetric
        assert_close(solver.mass_matrix_inverse(*head, q) @ M, np.eye(len(M)), LOOSE, f"Minv M, state {i}")
        assert abs(solver.kinetic_energy(*head, q, qd) - 0.5 * nu @ M @ nu) <= TIGHT * (nu @ M @ nu)
        assert_close(solver.momentum(*head, q, qd), M @ nu, TIGHT, f"p = M nu, state {i}")


@pytest.mark.parametrize("name", ROBOT_NAMES)
def test_identities(name):
    _identities(rbdgen.NumpySolver(model(name)), random_states(model(name), STATES, seed=6))


@pytest.mark.parametrize("case", ["gripper", "chain", "cross"])
def test_identities_with_mimic_joints(case):
    """Reduced coordinates (C = P^T C_full P); "cross" leaves M no tree pattern: M^-1 by dense solves."""
    mimic = rbdgen.load_urdf_string(_small(case))
    assert mimic.joint_count < len(mimic.joints)
    _identities(rbdgen.NumpySolver(mimic), random_states(mimic, STATES, seed=7))


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_power_balance_along_forward_dynamics(name):
    """d/dt (T + V) = qd^T tau: the state at t +- h from a second-order step of forward dynamics."""
    solver = rbdgen.NumpySolver(model(name))
    st = random_states(model(name), STATES, seed=8)
    h = 1e-5
    for i in range(st.n):
        q, qd, tau = st.q[i], st.qd[i], st.tau[i]
        qdd = solver.forward_dynamics(q, qd, tau)

        def energy(s):
            qs, qds = q + s * qd + 0.5 * s * s * qdd, qd + s * qdd
            return solver.kinetic_energy(qs, qds) + solver.potential_energy(qs)

        power = (energy(h) - energy(-h)) / (2 * h)
        assert abs(power - qd @ tau) <= 1e-6 * max(abs(qd @ tau), 1.0), f"{name} state {i}"


def test_potential_energy_of_a_lifted_base():
    """Raising a floating robot by dz adds m g dz (the base counts; gravity 9.80665 along -z)."""
    solver = rbdgen.NumpySolver(model("solo12"))
    q = np.zeros(model("solo12").joint_count)
    low = solver.potential_energy(rbdgen.BaseState([0, 0, 0.1], [0, 0, 0, 1]), q)
    high = solver.potential_energy(rbdgen.BaseState([0, 0, 0.6], [0, 0, 0, 1]), q)
    assert high - low == pytest.approx(model("solo12").total_mass * 9.80665 * 0.5, rel=1e-14)


def test_casadi_functions_agree():
    """CasADi traces the same records (a consistency check; the references are above)."""
    generated = rbdgen.generate(model("solo12"), ops=list(CONTROL_OPERATIONS), prefix="solo_control")
    numpy = rbdgen.NumpySolver(model("solo12"))
    st = random_states(model("solo12"), 2, seed=9)
    for op in CONTROL_OPERATIONS:
        f = generated.casadi(op)
        args = _args(st, op, 0)
        base = args[0]
        flat = [np.concatenate([base.translation, base.rotation_xyzw, base.velocity, base.acceleration])] + list(args[1:])
        got = np.asarray(f(*flat)).ravel(order="F")
        want = np.ravel(getattr(numpy, op)(*args), order="F")
        assert rel_error(got, want) <= TOLERANCE[op], op
