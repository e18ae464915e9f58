"""Derivatives of inverse and forward dynamics: the generated C and the CasADi functions.

On panda (fixed base) and solo12 (floating base), at random states with loads on
several links, both ``CompiledSolver.inverse_dynamics_derivatives`` /
``forward_dynamics_derivatives`` (C, built once per session with both derivative
operations in one build), ``Generated.casadi("..._derivatives")`` (CasADi's AD) and the
NumPy engine's (``NumpySolver.inverse_dynamics_derivatives`` ..., the same analytic
algorithms on NumPy arrays) are compared:

1. with central finite differences of the NumPy engine (Richardson-extrapolated,
   error O(h^4) + O(eps / h); h = 1e-3 for the nonlinear inputs q and the base
   rotation, 1e-2 for the velocities (quadratic) and the inputs ID and FD are
   linear in): every column, the floating base's included: base velocity, base
   acceleration, and the base rotation as a world-frame rotation vector
   (quaternion ``q -> exp(dtheta / 2) (x) q``, i.e. ``R -> exp(dtheta x) R``);
   normwise relative error <= 1e-6 (measured: 3e-10 at worst);
2. with Pinocchio's ``computeRNEADerivatives`` / ``computeABADerivatives`` (loads as
   ``fext``), every column, converted as derived in `pinocchio_jacobians`; <= 1e-9;
3. C against CasADi: <= 1e-10; and the identities dtau/dqdd = M, dacc/dtau = M^-1;
4. status: forward-dynamics derivatives of a singular model raise SingularError from C.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import LOAD_LINKS, random_states, rel_error, solver
from helpers import pinocchio as pinocchio_reference
from models import body, chain, point_mass_wrist
from robots import ROBOTS

ca = pytest.importorskip("casadi")
from test_casadi import casadi_map  # noqa: E402

NAMES = ["panda", "solo12"]
OPS = ("inverse_dynamics_derivatives", "forward_dynamics_derivatives")
SAMPLES = 4
BACKENDS = ("c", "casadi", "numpy")

#: Step of the finite differences per differentiated input (see the module docstring).
STEPS = {"q": 1e-3, "base_rotation": 1e-3, "qd": 1e-2, "base_velocity": 1e-2,
         "qdd": 1e-2, "base_acceleration": 1e-2, "tau": 1e-2}
FD_TOLERANCE = 1e-6
PINOCCHIO_TOLERANCE = 1e-9
CASADI_TOLERANCE = 1e-10


# -- builds and states ---------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def derivative_builds(build_cache):
    """``get(name)`` -> (Generated, CompiledSolver) with both derivative operations (built once)."""
    memo = {}

    def get(name):
        if name not in memo:
            robot = ROBOTS[name]
            gen = rbdgen.generate(robot.path, ops=list(OPS), prefix=f"{name}_derivatives", floating=robot.floating)
            # validate=False: see test_validate_with_derivative_operations
            memo[name] = gen, gen.compile(flags=TEST_FLAGS, cache=build_cache, validate=False)
        return memo[name]

    return get


@functools.lru_cache(maxsize=None)
def states(name: str):
    return random_states(solver(name), SAMPLES, seed=700 + NAMES.index(name), load_links=LOAD_LINKS[name])


_RESULTS = {}


def jacobians(builds, name: str, backend: str, op: str) -> dict:
    """``{output: (N, G, cols)}`` of ``op`` on `states(name)` from one batched call of ``backend``."""
    key = (name, backend, op)
    if key not in _RESULTS:
        gen, compiled = builds(name)
        st = states(name)
        if backend in ("c", "numpy"):  # the compiled C, and the NumPy engine (`rbdgen.NumpySolver`)
            engine = compiled if backend == "c" else solver(name)
            third = st.qdd if op == OPS[0] else st.tau
            _RESULTS[key] = getattr(engine, op)(*st.head(), st.q, st.qd, third, loads=st.loads)
        else:
            _RESULTS[key] = casadi_map(gen.casadi(op), st.flat())
    return _RESULTS[key]


# -- finite differences -------------------------------------------------------------------------------
def quaternion_product(a, b):
    """Hamilton product of xyzw quaternions (broadcasting)."""
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def rotation_quaternion(theta):
    """exp(theta / 2) as xyzw quaternions, ``theta`` (K, 3) rotation vectors."""
    angle = np.linalg.norm(theta, axis=-1, keepdims=True)
    safe = np.where(angle > 0, angle, 1.0)
    return np.concatenate([np.where(angle > 0, np.sin(angle / 2) / safe, 0.5) * theta, np.cos(angle / 2)], axis=-1)


def finite_difference(fun, n: int, h: float) -> np.ndarray:
    """Jacobian (m, n) of ``fun`` at 0 by Richardson-extrapolated central differences.

    ``fun`` maps a batch of offsets (K, n) to outputs (K, m); one call for all columns.
    """
    eye = np.eye(n)
    y = fun(np.concatenate([h * eye, -h * eye, h / 2 * eye, -h / 2 * eye]))
    wide = (y[:n] - y[n:2 * n]) / (2 * h)
    narrow = (y[2 * n:3 * n] - y[3 * n:]) / h
    return ((4 * narrow - wide) / 3).T


def perturbation(st, i: int, names: tuple, wrt: str, call):
    """``(evaluate, n)``: ``evaluate(dx)`` is ``call(head, *inputs)`` at state ``i`` of ``st`` for a batch of
    offsets dx (K, n) of input ``wrt`` (``names``: the joint inputs passed; the base rotation as a world
    rotation vector), ``head`` the `BaseState` batch of a floating base (else ``()``)."""
    x = {n: getattr(st, n)[i] for n in names}
    if st.floating:
        x.update(translation=st.translation[i], quat=st.quat[i], base_velocity=st.velocity[i],
                 base_acceleration=st.acceleration[i])

    def evaluate(dx):
        xs = {k: np.repeat(v[None], dx.shape[0], axis=0) for k, v in x.items()}
        if wrt == "base_rotation":
            xs["quat"] = quaternion_product(rotation_quaternion(dx), xs["quat"])
        else:
            xs[wrt] = xs[wrt] + dx
        head = ()
        if st.floating:
            head = (rbdgen.BaseState(xs["translation"], xs["quat"], xs["base_velocity"], xs["base_acceleration"]),)
        return call(head, *(xs[n] for n in names))

    return evaluate, 3 if wrt == "base_rotation" else x[wrt].shape[0]


def numeric_jacobian(name: str, op: str, i: int, wrt: str) -> np.ndarray:
    """d op(state i) / d wrt of the NumPy engine (op = the differentiated operation)."""
    s, st = solver(name), states(name)
    third = "qdd" if op == "inverse_dynamics" else "tau"

    def call(head, q, qd, x3):
        return getattr(s, op)(*head, q, qd, x3, loads=np.repeat(st.loads[i][None], q.shape[0], axis=0))

    evaluate, n = perturbation(st, i, ("q", "qd", third), wrt, call)
    return finite_difference(evaluate, n, STEPS[wrt])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_against_finite_differences(derivative_builds, name, backend, op):
    got = jacobians(derivative_builds, name, backend, op)
    base_op = op[: -len("_derivatives")]
    expected = {"dtau_dq", "dtau_dqd", "dtau_dqdd"} if op == OPS[0] else {"dacc_dq", "dacc_dqd", "dacc_dtau"}
    if ROBOTS[name].floating:
        expected |= ({"dtau_dbase_velocity", "dtau_dbase_acceleration", "dtau_dbase_rotation"} if op == OPS[0]
                     else {"dacc_dbase_velocity", "dacc_dbase_rotation"})
    assert set(got) == expected
    for key, value in got.items():
        wrt = key.split("_d", 1)[1]
        for i in range(states(name).n):
            err = rel_error(value[i], numeric_jacobian(name, base_op, i, wrt))
            assert err <= FD_TOLERANCE, f"{name} {backend} {key} state {i}: relative error {err:.3e}"


# -- Pinocchio ---------------------------------------------------------------------------------------
def skew(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def pinocchio_jacobians(name: str, op: str, i: int) -> dict:
    """Pinocchio's analytical derivatives at state ``i``, converted to rbdgen's conventions.

    With T the orthogonal map ``nu_pin = T nu`` of conventions.md (joint permutation and,
    for a floating base, ``[omega_W, pdot_W] -> [R^T pdot, R^T omega]``):

    * fixed base: ``d/dq = T^T D_q T``, ``d/dqd = T^T D_v T``, ``d/dqdd = T^T D_a T``, and for
      forward dynamics ``dacc/dtau = T^T D_tau T`` (D: Pinocchio's Jacobians);
    * floating base: Pinocchio differentiates with its velocity ``v_pin`` and acceleration
      ``a_pin`` held fixed and the configuration moved along its local tangent
      ``delta = [delta_p_B, delta_theta_B, delta_q]``; rbdgen holds the *world-frame*
      velocity and the classical acceleration fixed. So by the chain rule, for each rbdgen
      input x: ``d tau/dx = T^T (D_q ddelta/dx + D_v dv_pin/dx + D_a da_pin/dx) + (dT^T/dx) tau_pin``
      with ``v_pin = T nu``, ``a_pin = T nudot + [-omega_B x v_B; 0]``. For the world-frame
      rotation ``R -> exp(dtheta x) R`` (position fixed): ``delta_theta_B = R^T dtheta``,
      ``d(R^T y)/dtheta = R^T [y]x`` for any fixed world vector y, ``d(R z)/dtheta = -[R z]x``
      for any fixed body vector z; the bias ``-omega_B x v_B = -R^T (omega x pdot)`` gives the
      extra velocity and rotation terms. Forward dynamics likewise, with
      ``acc = T^T (aba(q, v_pin, T tau) - bias)`` and ``tau_pin = T tau`` depending on R.

    Every column is compared, the base columns included.
    """
    import pinocchio as pin

    ref, st = pinocchio_reference(name), states(name)
    model, data = ref.model, ref.data
    b = st.ref_base(i)
    ps = ref.pinocchio_state(b, st.q[i], st.qd[i], st.qdd[i])
    qp, T, bias, v = ps.q, ps.T, ps.bias, ps.v
    fext = ref.external_forces(st.load_lists[i])
    G, J = solver(name).generalized_count, solver(name).joint_count
    joint = T[:, G - J:]  # joint columns: the permutation

    def full(x):  # some Pinocchio versions fill only the upper triangle of symmetric results
        x = np.array(x)
        return np.triu(x) + np.triu(x, 1).T if np.allclose(np.tril(x, -1), 0) else x

    out = {}
    if ROBOTS[name].floating:
        R = T[0:3, 3:6].T
        w, pd = st.velocity[i][:3], st.velocity[i][3:]
        wd, pdd = st.acceleration[i][:3], st.acceleration[i][3:]
        ddelta_dth = np.zeros((model.nv, 3))
        ddelta_dth[3:6] = R.T
        dv_dth = np.zeros((model.nv, 3))
        dv_dth[0:3], dv_dth[3:6] = R.T @ skew(pd), R.T @ skew(w)
        dbias_dnu = np.zeros((model.nv, 6))  # bias = R^T (pdot x omega)
        dbias_dnu[0:3, 0:3], dbias_dnu[0:3, 3:6] = R.T @ skew(pd), -R.T @ skew(w)
        dbias_dth = np.zeros((model.nv, 3))
        dbias_dth[0:3] = R.T @ skew(-np.cross(w, pd))

        def explicit(y):  # d(T^T y_pin)/dtheta with y_pin fixed: -[R z]x for each body triple
            e = np.zeros((G, 3))
            e[0:3], e[3:6] = -skew(y[0:3]), -skew(y[3:6])
            return e

    if op == "inverse_dynamics":
        a = ps.a
        Dq, Dv, Da = (full(x) for x in pin.computeRNEADerivatives(model, data, qp, v, a, fext))
        out["dtau_dq"] = T.T @ Dq @ joint
        out["dtau_dqd"] = T.T @ Dv @ joint
        out["dtau_dqdd"] = T.T @ Da @ joint
        if ROBOTS[name].floating:
            tau = T.T @ np.array(pin.rnea(model, data, qp, v, a, fext))
            da_dth = np.zeros((model.nv, 3))
            da_dth[0:3], da_dth[3:6] = R.T @ skew(pdd - np.cross(w, pd)), R.T @ skew(wd)
            out["dtau_dbase_velocity"] = T.T @ (Dv @ T[:, :6] + Da @ dbias_dnu)
            out["dtau_dbase_acceleration"] = T.T @ Da @ T[:, :6]
            out["dtau_dbase_rotation"] = T.T @ (Dq @ ddelta_dth + Dv @ dv_dth + Da @ da_dth) + explicit(tau)
    else:
        tau = st.tau[i]
        Dq, Dv, Dt = (full(x) for x in pin.computeABADerivatives(model, data, qp, v, T @ tau, fext))
        out["dacc_dq"] = T.T @ Dq @ joint
        out["dacc_dqd"] = T.T @ Dv @ joint
        out["dacc_dtau"] = T.T @ Dt @ T
        if ROBOTS[name].floating:
            acc = T.T @ (np.array(pin.aba(model, data, qp, v, T @ tau, fext)) - bias)
            dtau_dth = np.zeros((model.nv, 3))  # tau_pin = [R^T f_W, R^T n_W]
            dtau_dth[0:3], dtau_dth[3:6] = R.T @ skew(tau[3:6]), R.T @ skew(tau[0:3])
            out["dacc_dbase_velocity"] = T.T @ (Dv @ T[:, :6] - dbias_dnu)
            out["dacc_dbase_rotation"] = T.T @ (Dq @ ddelta_dth + Dv @ dv_dth + Dt @ dtau_dth - dbias_dth) \
                + explicit(acc)
    return out


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_against_pinocchio(derivative_builds, name, backend, op):
    """Every Jacobian, base columns included, against Pinocchio (see `pinocchio_jacobians`)."""
    pytest.importorskip("pinocchio")
    got = jacobians(derivative_builds, name, backend, op)
    base_op = op[: -len("_derivatives")]
    for i in range(states(name).n):
        ref = pinocchio_jacobians(name, base_op, i)
        assert set(ref) == set(got)
        for key, value in ref.items():
            err = rel_error(got[key][i], value)
            assert err <= PINOCCHIO_TOLERANCE, f"{name} {backend} {key} state {i}: relative error {err:.3e}"


def test_pinocchio_conversion_is_not_vacuous():
    """The floating-base conversion matters: Pinocchio's raw base-rotation columns (local tangent,
    local velocities held fixed) are far from rbdgen's, converted ones agree with finite differences."""
    pytest.importorskip("pinocchio")
    ref = pinocchio_jacobians("solo12", "inverse_dynamics", 0)["dtau_dbase_rotation"]
    numeric = numeric_jacobian("solo12", "inverse_dynamics", 0, "base_rotation")
    assert rel_error(ref, numeric) <= FD_TOLERANCE
    import pinocchio as pin

    pref, st = pinocchio_reference("solo12"), states("solo12")
    b = st.ref_base(0)
    ps = pref.pinocchio_state(b, st.q[0], st.qd[0], st.qdd[0])
    raw = pin.computeRNEADerivatives(pref.model, pref.data, ps.q, ps.v, ps.a, pref.external_forces(st.load_lists[0]))[0]
    assert rel_error(ps.T.T @ np.array(raw)[:, 3:6], numeric) > 1e-2


# -- C against CasADi, identities -----------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", ["casadi", "numpy"])
def test_c_equals_casadi_and_numpy(derivative_builds, name, op, other):
    c, them = jacobians(derivative_builds, name, "c", op), jacobians(derivative_builds, name, other, op)
    assert set(c) == set(them)
    for key in c:
        assert c[key].shape == them[key].shape
        for i in range(states(name).n):
            err = rel_error(c[key][i], them[key][i])
            assert err <= CASADI_TOLERANCE, f"{name} {other} {key} state {i}: relative error {err:.3e}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_identities(derivative_builds, name, backend):
    """dtau/dqdd (and dtau/dbase_acceleration) = M's columns; dacc/dtau = M^-1, exactly symmetric from the C and
    the NumPy engine (each pair of entries one solved scalar, `minv.mirrored`; CasADi's AD has no such pairing)."""
    st, s = states(name), solver(name)
    M = s.mass_matrix(*st.head(), st.q)
    G, J = s.generalized_count, s.joint_count
    d_id = jacobians(derivative_builds, name, backend, OPS[0])
    d_fd = jacobians(derivative_builds, name, backend, OPS[1])
    for i in range(st.n):
        assert rel_error(d_id["dtau_dqdd"][i], M[i][:, G - J:]) <= 1e-12
        if st.floating:
            assert rel_error(d_id["dtau_dbase_acceleration"][i], M[i][:, :6]) <= 1e-12
        assert rel_error(d_fd["dacc_dtau"][i] @ M[i], np.eye(G)) <= 1e-9
        if backend != "casadi":
            assert np.array_equal(d_fd["dacc_dtau"][i], d_fd["dacc_dtau"][i].T)


def test_single_state_and_mask(derivative_builds):
    """One state (no batch axis) gives the batch's slice; a mask zeroes the unselected states."""
    _, c = derivative_builds("solo12")
    st = states("solo12")
    batch = jacobians(derivative_builds, "solo12", "c", OPS[1])
    one = c.forward_dynamics_derivatives(*st.head(1), st.q[1], st.qd[1], st.tau[1], loads=st.loads[1])
    for key in batch:
        assert np.array_equal(one[key], batch[key][1])
    mask = np.array([True, False, True, False])
    masked = c.forward_dynamics_derivatives(*st.head(), st.q, st.qd, st.tau, loads=st.loads, mask=mask)
    for key in batch:
        assert np.array_equal(masked[key][mask], batch[key][mask])
        assert np.all(masked[key][~mask] == 0)


def test_statuses_of_the_mass_matrix_factor(build_model):
    """Every solve of the FD derivatives is by M's tree-sparse factor, guarded by its pivot checks alone (a
    residual could not fail once they pass: `rbdgen.algorithms.ltdl`): the point mass turned onto the elbow's
    axis (wrist = 0: M singular) gives status 2 / SingularError, the floating body of rotational inertia 1e-12
    with its centre of mass 0.1 m off its origin (positive definite, cond ~ 1e11) status 3 /
    IllConditionedError, from the C and the NumPy engine alike; the state beside the singular one is fine."""
    base = rbdgen.BaseState((1.0, 2.0, 3.0), (0.0, 0.0, 0.0, 1.0), (0.1, 0.2, 0.3, 1.0, 2.0, 3.0))
    cases = ((point_mass_wrist("wrist_status"), False, np.array([[0.3, 0.0], [0.3, 0.7]]), rbdgen.SingularError),
             (body(1, (1e-12, 1e-12, 1e-12), "0.1 0 0", "tiny_inertia"), True, np.zeros((2, 0)),
              rbdgen.IllConditionedError))
    for urdf, floating, q, error in cases:
        robot = rbdgen.load_urdf_string(urdf, floating=floating)
        c, s = build_model(robot, ops=[OPS[1]]), rbdgen.NumpySolver(robot)
        head = (base,) if floating else ()
        assert np.linalg.cond(s.mass_matrix(*head, q[0])) > 1e10
        tau = np.ones(q.shape[1] + (6 if floating else 0))
        messages = ((c, "forward_dynamics_derivatives: "), (s, "mass matrix (forward-dynamics derivatives) "))
        for solver, message in messages:
            with pytest.raises(error, match=rf"^{re.escape(message)}.*\(state 0\)$"):
                solver.forward_dynamics_derivatives(*head, q[0], np.ones_like(q[0]), tau)
        if not floating:  # the fine state beside it: the Jacobians of both engines agree
            one = c.forward_dynamics_derivatives(q, np.ones_like(q), np.tile(tau, (2, 1)), mask=np.array([False, True]))
            ref = s.forward_dynamics_derivatives(q[1], np.ones_like(q[1]), tau)
            for key, value in one.items():
                assert np.all(value[0] == 0)
                assert rel_error(value[1], ref[key]) <= 1e-12, key


# -- library bug: validate() --------------------------------------------------------------------------
def test_validate_with_derivative_operations(build_cache):
    robot = ROBOTS["panda"]
    # the sources of `derivative_builds("panda")`: the cache has them, only validate() runs
    gen = rbdgen.generate(robot.path, ops=list(OPS), prefix="panda_derivatives", floating=robot.floating)
    gen.compile(flags=TEST_FLAGS, cache=build_cache, validate=True, samples=2)


# -- status ---------------------------------------------------------------------------------------------
# Models from `models`: a two-link arm whose tip moves no mass (M singular for every q) and a
# point mass that a wrist turns onto the elbow's axis (M singular at wrist = 0 only).


def test_massless_tip_raises_singular_error(build_model):
    model = rbdgen.load_urdf_string(chain("massless_tip"))
    with pytest.raises(rbdgen.SingularError):
        rbdgen.NumpySolver(model).forward_dynamics(np.zeros(2), np.zeros(2), np.ones(2))
    c = build_model(model, prefix="massless_tip_derivatives", ops=list(OPS))
    q, qd, tau = np.array([[0.3, -0.4], [0.0, 0.0]]), np.ones((2, 2)), np.ones((2, 2))
    with pytest.raises(rbdgen.SingularError, match=r"^forward_dynamics_derivatives: .*\(state 0\)$"):
        c.forward_dynamics_derivatives(q, qd, tau)


def test_singular_configuration_raises_singular_error(build_model):
    """Status 2 from the C at the singular state only (SingularError naming it); the other states'
    Jacobians are finite and match the CasADi function, which gives non-finite values at the
    singular state (a CasADi graph has no status)."""
    model = rbdgen.load_urdf_string(point_mass_wrist("point_mass_wrist"))
    c = build_model(model, prefix="point_mass_wrist_derivatives", ops=list(OPS))
    q = np.array([[0.3, 0.7], [0.3, 0.0], [-1.0, 2.0]])
    qd, tau = np.array([[0.5, 0.1]] * 3), np.array([[1.0, 0.5]] * 3)
    with pytest.raises(rbdgen.SingularError, match=r"^forward_dynamics_derivatives: .*\(state 1\)$"):
        c.forward_dynamics_derivatives(q, qd, tau)
    with pytest.raises(rbdgen.SingularError):
        rbdgen.NumpySolver(model).forward_dynamics(q[1], qd[1], tau[1])
    ok = np.array([True, False, True])
    good = c.forward_dynamics_derivatives(q, qd, tau, mask=ok)
    f = rbdgen.generate(model, ops=["mass_matrix"]).casadi(OPS[1])
    loads = np.zeros((3, 6 * len(model.links)))
    ref = casadi_map(f, {"q": q, "qd": qd, "tau": tau, "loads": loads})
    for key, value in good.items():
        assert np.all(np.isfinite(value[ok]))
        for i in (0, 2):
            assert rel_error(value[i], ref[key][i]) <= CASADI_TOLERANCE
    assert not np.all(np.isfinite(ref["dacc_dtau"][1]))
    # inverse-dynamics derivatives are fine everywhere
    d = c.inverse_dynamics_derivatives(q, qd, tau)
    assert all(np.all(np.isfinite(v)) for v in d.values())
