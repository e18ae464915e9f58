"""The configuration space: `integrate`, `difference` and their Jacobians (NumPy engine, generated C, CasADi).

rbdgen's floating base moves on R3 x SO(3) (world omega held for dt), Pinocchio's free flyer on SE(3)
(a body twist held): the references (`rbdgen.testing.PinocchioReference`) compose Pinocchio 4's own
pin.integrate and pin.difference from a pure rotation about the base origin and a pure translation, where
the two agree, and take the Jacobians' rotation blocks from its SO(3) maps (exp3, Jexp3, Jlog3) and the
joints' from pin.dIntegrate and pin.dDifference. Also checked: the round trips integrate(x0, difference(x0,
x1), 1) = x1 and difference(x, integrate(x, v, dt)) = v dt, analytic small and near-pi angles, and central
differences of every Jacobian along tangent vectors.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import rbdgen
from rbdgen.codegen.generator import CONFIGURATION_OPERATIONS

from helpers import assert_close, model, pinocchio, random_states
from test_mimic import _small

STATES = 5
DT = 0.05
EPS = np.finfo(float).eps
JACOBIANS = {"integrate_derivatives": ("dx_next_dx", "dx_next_dv", "dx_next_ddt"),
             "difference_derivatives": ("dv_dx0", "dv_dx1")}


def _states(name, seed):
    """Two random batches of states (x0 with its velocity nu, and x1) of robot ``name``."""
    return random_states(model(name), STATES, seed), random_states(model(name), STATES, seed + 1)


def _unit(quat):
    """A quaternion of the same rotation as ``quat``, scaled to unit norm and w >= 0 (for comparisons)."""
    quat = np.asarray(quat, dtype=float) / np.linalg.norm(quat)
    return quat if quat[3] >= 0 else -quat


def _moved(engine, st, i, v, dt):
    """engine.integrate at state i: ``(translation, quaternion, q)`` (a fixed base: ``q``)."""
    if not st.floating:
        return engine.integrate(st.q[i], v, dt)
    base, q = engine.integrate(st.state_base(i), st.q[i], v, dt)
    return base.translation, base.rotation_xyzw, q


def _check_against_pinocchio(engine, name, seed):
    ref = pinocchio(name)
    st, other = _states(name, seed)
    for i in range(st.n):
        nu = st.velocities()[i] * (i + 1)  # N(0, 1) times up to 5: with dt = 1.3, beyond pi too
        for dt in (DT, 1.3):
            got, want = _moved(engine, st, i, nu, dt), ref.integrate(st.ref_base(i), st.q[i], nu, dt)
            if st.floating:
                assert_close(got[0], want[0], 1e-14, f"{name} integrate translation, state {i}")
                assert_close(_unit(got[1]), _unit(want[1]), 1e-14, f"{name} integrate rotation, state {i}")
                got, want = got[2], want[2]
            assert_close(got, want, 1e-14, f"{name} integrate q, state {i}")
            jac = engine.integrate_derivatives(*st.head(i), st.q[i], nu, dt)
            for key, value in ref.integrate_derivatives(st.ref_base(i), st.q[i], nu, dt).items():
                assert_close(jac[key], value, 1e-13, f"{name} integrate {key}, state {i}")
        args = (*st.head(i), st.q[i], *other.head(i), other.q[i])
        want = ref.difference(st.ref_base(i), st.q[i], other.ref_base(i), other.q[i])
        assert_close(engine.difference(*args), want, 1e-13, f"{name} difference, state {i}")
        jac = engine.difference_derivatives(*args)
        for key, value in ref.difference_derivatives(st.ref_base(i), st.q[i], other.ref_base(i), other.q[i]).items():
            assert_close(jac[key], value, 1e-12, f"{name} difference {key}, state {i}")


@pytest.mark.parametrize("name", ["panda", "ur5", "solo12"])
def test_numpy_engine_matches_pinocchio(name):
    _check_against_pinocchio(rbdgen.NumpySolver(model(name)), name, seed=20)


def test_pinocchio_se3_integrate_agrees_only_for_a_pure_rotation_or_translation():
    """The documented difference of conventions: pin.integrate (the SE(3) exponential of a body twist) gives
    rbdgen's integrate for a rotation about the base origin and for a translation, not for both at once."""
    ref, engine = pinocchio("solo12"), rbdgen.NumpySolver(model("solo12"))
    st, _ = _states("solo12", 26)
    for i in range(st.n):
        nu = st.velocities()[i]
        for keep, same in (((0, 1, 2), True), ((3, 4, 5), True), ((0, 1, 2, 3, 4, 5), False)):
            v = nu.copy()
            v[[k for k in range(6) if k not in keep]] = 0.0
            got, want = _moved(engine, st, i, v, 0.5), ref.se3_integrate(st.ref_base(i), st.q[i], v, 0.5)
            error = max(np.linalg.norm(got[0] - want[0]), np.linalg.norm(_unit(got[1]) - _unit(want[1])))
            assert (error < 1e-14) == same, (i, keep, error)
            assert_close(got[2], want[2], 1e-15, f"joints, state {i}")


def _compiled(build_model, name):
    return build_model(model(name), prefix=f"{name}_configuration", ops=list(CONFIGURATION_OPERATIONS))


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_generated_c_matches_pinocchio_and_numpy(name, build_model):
    solver = _compiled(build_model, name)
    _check_against_pinocchio(solver, name, seed=21)
    numpy = rbdgen.NumpySolver(model(name))
    st, other = _states(name, 22)
    head, head1 = st.head(), other.head()
    integrated = [e.integrate(*head, st.q, st.velocities(), DT * np.arange(1, st.n + 1)) for e in (solver, numpy)]
    if st.floating:  # a batch: the BaseState's fields and q, exactly as NumPy's but for rounding
        for a, b in zip(*integrated):
            assert_close(a if isinstance(a, np.ndarray) else np.concatenate([a.translation, a.rotation_xyzw], 1),
                         b if isinstance(b, np.ndarray) else np.concatenate([b.translation, b.rotation_xyzw], 1),
                         1e-15, f"{name} integrate batch")
    else:
        assert_close(*integrated, 1e-15, f"{name} integrate batch")
    pair = (*head, st.q, *head1, other.q)
    assert_close(solver.difference(*pair), numpy.difference(*pair), 1e-14, f"{name} difference batch")
    for op, args in (("integrate_derivatives", (*head, st.q, st.velocities(), DT)),
                     ("difference_derivatives", pair)):
        got, want = getattr(solver, op)(*args), getattr(numpy, op)(*args)
        for key in JACOBIANS[op]:
            assert_close(got[key], want[key], 1e-14, f"{name} {op} {key} batch")
    assert solver.validate(samples=4)["difference_derivatives"] < 1e-14


def _retract(st, i, delta):
    """State i moved along the tangent vector ``delta`` = [dtheta_W, dp_W, dq]: ``(head, q)``."""
    if not st.floating:
        return (), st.q[i] + delta
    quat = (Rotation.from_rotvec(delta[:3]) * Rotation.from_quat(st.quat[i])).as_quat()
    base = rbdgen.BaseState(st.translation[i] + delta[3:6], quat, st.velocity[i], st.acceleration[i])
    return (base,), st.q[i] + delta[6:]


def _step(engine, x, v, dt):
    """engine.integrate from the state ``x = (head, q)``, as a state ``(head, q)``."""
    moved = engine.integrate(*x[0], x[1], v, dt)
    return ((moved[0],), moved[1]) if x[0] else ((), moved)


def _log(engine, x0, x1):
    """The tangent vector from state x0 to x1 (engine.difference)."""
    return engine.difference(*x0[0], x0[1], *x1[0], x1[1])


def _central(f, G, h):
    """The central difference of ``f(delta)`` (a tangent vector, zero at delta = 0) along each axis: G columns."""
    columns = []
    for k in range(G):
        e = np.zeros(G)
        e[k] = h
        columns.append((f(e) - f(-e)) / (2 * h))
    return np.stack(columns, axis=-1)


@pytest.mark.parametrize("name", ["ur5", "solo12"])
def test_jacobians_are_central_differences(name):
    """Every column of every Jacobian against a central difference along a tangent vector, read through
    `difference` (h = 1e-6: truncation ~h^2 and rounding ~eps/h ~ 1e-10 of values of order 1)."""
    engine, h = rbdgen.NumpySolver(model(name)), 1e-6
    st, other = _states(name, 23)
    G = model(name).generalized_count
    for i in range(2):
        nu = 3 * st.velocities()[i]
        x, x1 = (st.head(i), st.q[i]), (other.head(i), other.q[i])
        end = _step(engine, x, nu, DT)
        jac = engine.integrate_derivatives(*x[0], x[1], nu, DT)
        fd = {"dx_next_dx": _central(lambda d: _log(engine, end, _step(engine, _retract(st, i, d), nu, DT)), G, h),
              "dx_next_dv": _central(lambda d: _log(engine, end, _step(engine, x, nu + d, DT)), G, h),
              "dx_next_ddt": _central(lambda d: _log(engine, end, _step(engine, x, nu, DT + d[0])), 1, h)[:, 0]}
        for key, value in fd.items():
            assert_close(jac[key], value, 1e-8, f"{name} {key}, state {i}")
        jac = engine.difference_derivatives(*x[0], x[1], *x1[0], x1[1])
        v = _log(engine, x, x1)
        assert_close(jac["dv_dx0"], _central(lambda d: _log(engine, _retract(st, i, d), x1) - v, G, h), 1e-8,
                     f"{name} dv_dx0, state {i}")
        assert_close(jac["dv_dx1"], _central(lambda d: _log(engine, x, _retract(other, i, d)) - v, G, h), 1e-8,
                     f"{name} dv_dx1, state {i}")


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_round_trips(name):
    """integrate(x0, difference(x0, x1), 1) = x1 and difference(x, integrate(x, v, dt)) = v dt (rotations
    below pi: v's base rotation times dt up to ~2.5 rad)."""
    engine = rbdgen.NumpySolver(model(name))
    st, other = _states(name, 24)
    for i in range(st.n):
        x, x1 = (st.head(i), st.q[i]), (other.head(i), other.q[i])
        back = _step(engine, x, _log(engine, x, x1), 1.0)
        assert_close(back[1], x1[1], 1e-14, f"{name} q back, state {i}")
        if st.floating:
            assert_close(back[0][0].translation, x1[0][0].translation, 1e-15, f"{name} translation back, state {i}")
            assert_close(_unit(back[0][0].rotation_xyzw), _unit(x1[0][0].rotation_xyzw), 1e-14,
                         f"{name} rotation back, state {i}")
        nu = st.velocities()[i]
        dt = 2.5 / max(np.linalg.norm(nu[:3]) if st.floating else 1.0, 1.0)
        assert_close(_log(engine, x, _step(engine, x, nu, dt)), nu * dt, 1e-13, f"{name} v back, state {i}")


@pytest.mark.parametrize("angle", [0.0, 1e-300, 1e-30, 1e-12, 1e-6, 0.3, np.pi - 1e-3, np.pi - 1e-9, np.pi])
def test_small_and_near_pi_angles(angle, build_model):
    """Rotations by ``angle`` about one axis: the exact rotation vector, quaternion and Jacobians (analytic: J_l
    and its inverse about a fixed axis u are I + (1 - cos t)/t [u x] + (1 - sin t / t) [u x]^2 and
    I - t/2 [u x] + (1 - t/2 cot(t/2)) [u x]^2, their limits at 0), in NumPy and in the generated C."""
    axis = np.array([2.0, -3.0, 6.0]) / 7.0
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    t = angle
    a, b = ((1 - np.cos(t)) / t, 1 - np.sin(t) / t) if t > 1e-3 else (t / 2 - t**3 / 24, t**2 / 6 - t**4 / 120)
    Jl = np.eye(3) + a * K + b * K @ K
    c = 1 - (t / 2) / np.tan(t / 2) if t > 1e-3 else t**2 / 12 + t**4 / 720
    Jl_inv = np.eye(3) - t / 2 * K + c * K @ K
    turned = np.concatenate([np.sin(t / 2) * axis, [np.cos(t / 2)]])  # exp(t axis): R1 R0^T with R0 = I
    x0 = (rbdgen.BaseState([1, 2, 3], [0, 0, 0, 1]), np.zeros(12))
    x1 = (rbdgen.BaseState([1, 2, 3], turned), np.zeros(12))
    nu = np.concatenate([axis * t / DT, np.zeros(15)])
    for engine in (rbdgen.NumpySolver(model("solo12")), _compiled(build_model, "solo12")):
        v = engine.difference(x0[0], x0[1], x1[0], x1[1])
        assert np.linalg.norm(v[:3] - t * axis) <= 8 * EPS * t, (v[:3], t * axis)
        jac = engine.difference_derivatives(x0[0], x0[1], x1[0], x1[1])
        assert_close(jac["dv_dx1"][:3, :3], Jl_inv, 1e-14, f"J_l^-1 at {t}")
        assert_close(jac["dv_dx0"][:3, :3], -Jl_inv.T, 1e-14, f"-J_r^-1 at {t}")
        base, _ = engine.integrate(x0[0], x0[1], nu, DT)
        assert_close(base.rotation_xyzw, turned, 1e-15, f"exp at {t}")
        jac = engine.integrate_derivatives(x0[0], x0[1], nu, DT)
        assert_close(jac["dx_next_dv"][:3, :3], DT * Jl, 1e-14, f"J_l at {t}")


def test_fixed_base_is_plain_arithmetic():
    """A fixed base: q + qd dt, q1 - q0 and identity Jacobians, a batch with one dt per state."""
    engine = rbdgen.NumpySolver(model("panda"))
    q, v, q1 = np.arange(7.0), np.linspace(-1, 1, 7), np.ones(7)
    assert np.array_equal(engine.integrate(q, v, 0.5), q + 0.5 * v)
    assert np.array_equal(engine.difference(q, q1), q1 - q)
    dts = np.array([0.0, 1.0, 2.0])
    assert np.array_equal(engine.integrate(q, v, dts), q + dts[:, None] * v)
    jac = engine.integrate_derivatives(q, v, 0.5)
    assert np.array_equal(jac["dx_next_dx"], np.eye(7)) and np.array_equal(jac["dx_next_dv"], 0.5 * np.eye(7))
    assert np.array_equal(jac["dx_next_ddt"], v)
    jac = engine.difference_derivatives(q, q1)
    assert np.array_equal(jac["dv_dx0"], -np.eye(7)) and np.array_equal(jac["dv_dx1"], np.eye(7))
    with pytest.raises(ValueError, match=r"^dt: expected a number or shape \(N,\), got \(2, 1\)$"):
        engine.integrate(q, v, np.ones((2, 1)))
    with pytest.raises(ValueError, match="^dt: contains a non-finite value$"):
        engine.integrate(q, v, np.nan)


def test_mimic_joints_integrate_the_independent_coordinates(build_model):
    """Reduced coordinates: q and v are the J independent ones, in NumPy and in the C."""
    m = rbdgen.load_urdf_string(_small("gripper"))
    J = m.joint_count
    q, v = np.linspace(0.1, 0.2, J), np.linspace(-1, 1, J)
    for engine in (rbdgen.NumpySolver(m), build_model(m, prefix="mimic_configuration",
                                                     ops=list(CONFIGURATION_OPERATIONS))):
        assert_close(engine.integrate(q, v, 0.1), q + 0.1 * v, 1e-16, "mimic integrate")
        assert_close(engine.difference(q, q + v), v, 1e-15, "mimic difference")
        assert engine.integrate_derivatives(q, v, 0.1)["dx_next_dv"].shape == (J, J)


def test_a_second_base_must_be_a_base_state():
    engine = rbdgen.NumpySolver(model("solo12"))
    base = rbdgen.BaseState(np.zeros(3), [0, 0, 0, 1])
    with pytest.raises(TypeError, match="^base1: expected a rbdgen.BaseState, got ndarray$"):
        engine.difference(base, np.zeros(12), np.zeros(19), np.zeros(12))
    with pytest.raises(ValueError, match="^base1 rotation_xyzw: zero quaternion$"):
        engine.difference(base, np.zeros(12), rbdgen.BaseState(np.zeros(3), np.zeros(4)), np.zeros(12))
    with pytest.raises(ValueError, match=r"^base1: fields have different batch sizes: \[2, 3\]$"):
        engine.difference(base, np.zeros(12), rbdgen.BaseState(np.zeros((2, 3)), np.ones((3, 4))), np.zeros(12))
    with pytest.raises(ValueError, match=r"^arguments have different batch sizes: \[2, 3\]$"):
        engine.difference(base, np.zeros((3, 12)), rbdgen.BaseState(np.zeros((2, 3)), [0, 0, 0, 1]), np.zeros(12))


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_casadi_matches_numpy(name):
    """The CasADi functions (the same algorithms on SX) give the NumPy engine's values."""
    generated = rbdgen.generate(model(name), ops=list(CONFIGURATION_OPERATIONS), prefix=f"{name}_cfg")
    engine = rbdgen.NumpySolver(model(name))
    st, other = _states(name, 25)
    i = 0
    x, x1 = (st.head(i), st.q[i]), (other.head(i), other.q[i])
    base = [np.concatenate([b.translation, b.rotation_xyzw, b.velocity, b.acceleration]) for b in (x[0] + x1[0])]
    nu = st.velocities()[i]
    inputs = {"integrate": [*base[:1], x[1], nu, DT], "integrate_derivatives": [*base[:1], x[1], nu, DT],
              "difference": [*base[:1], x[1], *base[1:], x1[1]],
              "difference_derivatives": [*base[:1], x[1], *base[1:], x1[1]]}
    for op in CONFIGURATION_OPERATIONS:
        f = generated.casadi(op)
        out = f.call(inputs[op])
        if op == "integrate":
            moved = engine.integrate(*x[0], x[1], nu, DT)
            want = [np.concatenate([moved[0].translation, moved[0].rotation_xyzw, moved[0].velocity,
                                    moved[0].acceleration]), moved[1]] if st.floating else [moved]
        elif op == "difference":
            want = [engine.difference(*x[0], x[1], *x1[0], x1[1])]
        else:
            args = (*x[0], x[1], nu, DT) if op == "integrate_derivatives" else (*x[0], x[1], *x1[0], x1[1])
            result = getattr(engine, op)(*args)
            want = [result[k] for k in JACOBIANS[op]]
        for got, value in zip(out, want):
            assert_close(np.asarray(got, dtype=float).reshape(np.shape(value)), value, 1e-14, f"{name} casadi {op}")
