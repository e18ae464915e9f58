"""What controllers build from M, C qd and g: the Coriolis matrix, Mdot, M^-1, the energies, the momentum,
passivity-based torques, a link's task-space inertia and the dynamically consistent inverse.

References: Pinocchio 4 (`computeCoriolisMatrix`, `computeMinverse`, `computeKineticEnergy`,
`computePotentialEnergy`, Mdot = C + C^T from `computeCoriolisMatrix`, M v from `crba`, and Lambda = (J M^-1 J^T)^-1 from its frame Jacobian),
converted to rbdgen's conventions (world-axis base
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
from rbdgen.testing import MimicReference
from test_mimic import _small

ROBOT_NAMES = ["panda", "ur5", "solo12"]
STATES = 6

#: A link per robot for the task-space operations (a hand, a tool flange, a foot).
TASK_LINK = {"panda": "panda_hand", "ur5": "ee_link", "solo12": "FL_FOOT"}

#: Solves (M^-1, Lambda) against Pinocchio's own factorisation: as loose as forward dynamics.
TOLERANCE = {"coriolis_matrix": TIGHT, "mass_matrix_derivative": TIGHT, "mass_matrix_inverse": LOOSE, "kinetic_energy": TIGHT,
             "potential_energy": TIGHT, "momentum": TIGHT, "passivity_forces": TIGHT,
             "operational_space_inertia": LOOSE, "dynamically_consistent_inverse": LOOSE}


TASK_SPACE = ("operational_space_inertia", "dynamically_consistent_inverse")
EPS = np.finfo(float).eps


def _args(st, op, i, name):
    """``op``'s arguments at state ``i`` after the base (reference motions: the state's qdd and tau reused)."""
    G = st.tau.shape[1]
    qd_ref = np.linspace(-1, 1, G) * (i + 1)
    rest = {"coriolis_matrix": (st.qd[i],), "mass_matrix_derivative": (st.qd[i],), "kinetic_energy": (st.qd[i],), "momentum": (st.qd[i],),
            "passivity_forces": (st.qd[i], qd_ref, st.tau[i] / 10),
            "operational_space_inertia": (TASK_LINK[name],), "dynamically_consistent_inverse": (TASK_LINK[name],)}
    return (st.q[i],) + rest.get(op, ())


def _check_against_pinocchio(engine, name, st):
    ref = pinocchio(name)
    for op in CONTROL_OPERATIONS:
        for i in range(st.n):
            want = getattr(ref, op)(st.ref_base(i), *_args(st, op, i, name))
            got = getattr(engine, op)(*st.head(i), *_args(st, op, i, name))
            tol = TOLERANCE[op]
            if op in TASK_SPACE:  # an inverse: its error grows with the condition number of Lambda
                Lam = ref.operational_space_inertia(st.ref_base(i), *_args(st, op, i, name))
                tol = max(tol, 50 * EPS * np.linalg.cond(Lam))
            if np.ndim(want) == 0:  # an energy: relative to the robot's scale, not to a value that may pass 0
                scale = max(abs(want), 1.0)
                assert abs(got - want) <= tol * scale, f"{name} {op} state {i}: {got} vs {want}"
            else:
                assert_close(got, want, tol, f"{name} {op} state {i}")


@pytest.mark.parametrize("name", ROBOT_NAMES)
def test_numpy_engine_matches_pinocchio(name):
    _check_against_pinocchio(rbdgen.NumpySolver(model(name)), name, random_states(model(name), STATES, seed=4))


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_generated_c_matches_pinocchio(name, build_model):
    solver = build_model(model(name), prefix=f"{name}_control", ops=list(CONTROL_OPERATIONS))
    worst = solver.validate()  # what compile() and `rbdgen generate` run: every input of every operation drawn
    assert set(worst) == set(CONTROL_OPERATIONS) and max(worst.values()) <= 1e-10, worst
    st = random_states(model(name), STATES, seed=5)
    _check_against_pinocchio(solver, name, st)
    numpy = rbdgen.NumpySolver(model(name))
    for op in CONTROL_OPERATIONS:  # a batch, against the NumPy engine's
        args = st.head() + tuple(np.stack(a) if not isinstance(a[0], str) else a[0]
                                 for a in zip(*(_args(st, op, i, name) for i in range(st.n))))
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
        assert_close(solver.mass_matrix_derivative(*head, q, qd), Mdot, 1e-7, f"mass_matrix_derivative, state {i}")
        assert not np.allclose(C, C.T)                                       # C itself is not symmetric
        assert_close(solver.mass_matrix_inverse(*head, q) @ M, np.eye(len(M)), LOOSE, f"Minv M, state {i}")
        assert abs(solver.kinetic_energy(*head, q, qd) - 0.5 * nu @ M @ nu) <= TIGHT * (nu @ M @ nu)
        assert_close(solver.momentum(*head, q, qd), M @ nu, TIGHT, f"p = M nu, state {i}")
        nu_r, nudot_r = np.cos(np.arange(len(nu))), np.sin(np.arange(len(nu)))
        assert_close(solver.passivity_forces(*head, q, qd, nu_r, nudot_r),
                     M @ nudot_r + C @ nu_r + solver.gravity(*head, q), TIGHT, f"passivity, state {i}")
        nudot = np.concatenate([st.acceleration[i], st.qdd[i]]) if st.floating else st.qdd[i]
        assert_close(solver.passivity_forces(*head, q, qd, nu, nudot, loads=st.loads[i]),
                     solver.inverse_dynamics(*head, q, qd, st.qdd[i], loads=st.loads[i]), TIGHT,
                     f"passivity at the actual motion is inverse dynamics, state {i}")


@pytest.mark.parametrize("name", ROBOT_NAMES)
def test_identities(name):
    _identities(rbdgen.NumpySolver(model(name)), random_states(model(name), STATES, seed=6))


@pytest.mark.parametrize("case", ["gripper", "chain", "cross"])
def test_identities_with_mimic_joints(case):
    """Reduced coordinates (C = P^T C_full P); "cross" leaves M no tree pattern: M^-1 by dense solves."""
    mimic = rbdgen.load_urdf_string(_small(case))
    assert mimic.joint_count < len(mimic.joints)
    _identities(rbdgen.NumpySolver(mimic), random_states(mimic, STATES, seed=7))


@pytest.mark.parametrize("case,floating", [("chain", False), ("cross", False), ("mixed", True)])
def test_mimic_joints_against_reduced_pinocchio(case, floating, tmp_path):
    """The NumPy engine in reduced coordinates against Pinocchio's full model reduced by the mimic
    map (`rbdgen.testing.MimicReference`: C = P^T C_full P, M^-1 = (P^T M_full P)^-1); the
    task-space inertia where the link can move in six directions (the floating base)."""
    text = _small(case)
    mimic = rbdgen.load_urdf_string(text, floating=floating)
    path = tmp_path / "robot.urdf"
    path.write_text(text)
    ref = MimicReference(path, floating, joint_names=list(mimic.joint_names))
    engine, st = rbdgen.NumpySolver(mimic), random_states(mimic, STATES, seed=8)
    for i in range(st.n):
        b, q, qd = st.ref_base(i), st.q[i], st.qd[i]
        assert_close(engine.coriolis_matrix(*st.head(i), q, qd), ref.coriolis_matrix(b, q, qd), TIGHT, f"C {i}")
        assert_close(engine.mass_matrix_inverse(*st.head(i), q), ref.mass_matrix_inverse(b, q), LOOSE, f"M^-1 {i}")
        assert abs(engine.potential_energy(*st.head(i), q) - ref.potential_energy(b, q)) < TIGHT
        if floating:
            assert_close(engine.operational_space_inertia(*st.head(i), q, "v"), ref.operational_space_inertia(b, q, "v"),
                         LOOSE, f"Lambda {i}")


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


@pytest.mark.parametrize("name", ROBOT_NAMES)
def test_task_space_identities(name):
    """Lambda J M^-1 J^T = I, J J# = I, and J# J projects: (J# J)^2 = J# J."""
    solver = rbdgen.NumpySolver(model(name))
    st = random_states(model(name), STATES, seed=10)
    link = TASK_LINK[name]
    for i in range(st.n):
        head, q = st.head(i), st.q[i]
        J = solver.jacobian(*head, q, link)
        Lam = solver.operational_space_inertia(*head, q, link)
        assert_close(Lam @ J @ solver.mass_matrix_inverse(*head, q) @ J.T, np.eye(6), LOOSE, f"Lambda, state {i}")
        Jsharp = solver.dynamically_consistent_inverse(*head, q, link)
        assert_close(J @ Jsharp, np.eye(6), LOOSE, f"J J#, state {i}")
        N = Jsharp @ J
        assert_close(N @ N, N, LOOSE, f"J# J projects, state {i}")


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_a_singular_task_is_a_solver_error(name):
    """At q = 0 the Panda's and the UR5's axes line up: the hand cannot move in every direction."""
    solver = rbdgen.NumpySolver(model(name))
    q = np.zeros(model(name).joint_count)
    assert np.linalg.svd(solver.jacobian(q, TASK_LINK[name]), compute_uv=False)[-1] < 1e-12
    for op in ("operational_space_inertia", "dynamically_consistent_inverse"):
        with pytest.raises(rbdgen.SolverError, match="task-space inertia"):
            getattr(solver, op)(q, TASK_LINK[name])


def test_a_singular_task_is_a_status_in_c(build_model):
    solver = build_model(model("ur5"), prefix="ur5_task", ops=["operational_space_inertia"])
    q = np.zeros(model("ur5").joint_count)
    with pytest.raises(rbdgen.SingularError, match="operational_space_inertia: .*task-space inertia"):
        solver.operational_space_inertia(q, TASK_LINK["ur5"])
    result = solver.operational_space_inertia(np.stack([q, q + 0.3]), TASK_LINK["ur5"], mask=np.array([False, True]))
    assert np.all(result[0] == 0) and np.all(np.isfinite(result[1]))


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
    base = st.state_base(0)
    flat_base = np.concatenate([base.translation, base.rotation_xyzw, base.velocity, base.acceleration])
    for op in CONTROL_OPERATIONS:
        args = _args(st, op, 0, "solo12")
        link = args[-1] if isinstance(args[-1], str) else None
        f = generated.casadi(op, link)
        arrays = [a for a in args if not isinstance(a, str)] + ([np.zeros(6 * len(model("solo12").links))]
                                                                 if op == "passivity_forces" else [])
        got = np.asarray(f(flat_base, *arrays)).ravel(order="F")
        want = np.ravel(getattr(numpy, op)(base, *args), order="F")
        assert rel_error(got, want) <= TOLERANCE[op], op


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_casadi_mass_matrix_derivative_matches_pinocchio(name):
    """The CasADi function of Mdot (traced from the same algorithm as the C) against Pinocchio's C + C^T."""
    ca = pytest.importorskip("casadi")
    f = rbdgen.generate(model(name), ops=["mass_matrix"]).casadi("mass_matrix_derivative")
    st, ref = random_states(model(name), STATES, seed=11), pinocchio(name)
    flat = st.flat()
    for i in range(st.n):
        got = np.asarray(ca.densify(f(**{n: flat[n][i] for n in f.name_in()})["Mdot"]).full())
        assert_close(got, ref.mass_matrix_derivative(st.ref_base(i), st.q[i], st.qd[i]), TIGHT, f"{name} state {i}")
