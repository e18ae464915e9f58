"""Identities the dynamics must satisfy, and closed-form cases.

* each mass-matrix column is the inverse dynamics of a unit acceleration (no gravity);
* forward dynamics inverts inverse dynamics (compared with Pinocchio's own round trip);
* M is symmetric positive definite and 0.5 nu^T M nu is Pinocchio's kinetic energy;
* g(q) = ID(q, 0, 0) and the two forward-dynamics paths (ABA, CRBA + Cholesky) agree;
* a single pendulum and a prismatic joint on an arbitrary axis match their closed forms;
* a hypothesis property test of the ID -> FD round trip on the double pendulum.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import pytest

pytest.importorskip("pinocchio")

import rbdgen  # noqa: E402
from helpers import (  # noqa: E402
    FIXED_NAMES,
    FLOATING_NAMES,
    LOAD_LINKS,
    LOOSE,
    NAMES,
    TIGHT,
    assert_close,
    call,
    pinocchio,
    random_states,
    roundtrip_errors,
    solver,
)
from robots import ROBOTS  # noqa: E402

G0 = 9.80665  # standard gravity (m/s^2), along -z
SAMPLES = {"talos": 12, "g1": 16}


def samples(name: str) -> int:
    return SAMPLES.get(name, 32)


@functools.lru_cache(maxsize=None)
def gravity_free_solver(name: str) -> rbdgen.NumpySolver:
    robot = ROBOTS[name]
    return rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=robot.floating, gravity=(0.0, 0.0, 0.0)))


def at_rest(st):
    """The same states with zero joint velocities/accelerations and a motionless base."""
    z = np.zeros_like(st.q)
    if not st.floating:
        return dataclasses.replace(st, qd=z, qdd=z)
    z6 = np.zeros_like(st.velocity)
    return dataclasses.replace(st, qd=z, qdd=z, velocity=z6, acceleration=z6)


# -- mass matrix ------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_mass_matrix_columns_are_inverse_dynamics_of_unit_accelerations(name):
    """M e_i = ID(q, 0, e_i) - ID(q, 0, 0) without gravity (floating: base acceleration e_i, i < 6)."""
    s = gravity_free_solver(name)
    J, G = s.joint_count, s.generalized_count
    st = random_states(s, 3, seed=20)
    M = call(s, "mass_matrix", st)
    unit = np.eye(G)
    for k in range(st.n):
        # one batch of G states: q broadcast, the accelerations batched
        head, zero_head = (), ()
        if st.floating:
            head = (rbdgen.BaseState(st.translation[k], st.quat[k], 0.0, unit[:, :6]),)
            zero_head = (rbdgen.BaseState(st.translation[k], st.quat[k]),)
        columns = s.inverse_dynamics(*head, st.q[k], np.zeros(J), unit[:, G - J:])
        offset = s.inverse_dynamics(*zero_head, st.q[k], np.zeros(J), np.zeros(J))
        np.testing.assert_array_equal(offset, np.zeros(G))  # no gravity, no motion
        assert_close((columns - offset).T, M[k], TIGHT, f"{name} state {k}")


@pytest.mark.parametrize("name", NAMES)
def test_mass_matrix_is_symmetric_positive_definite(name):
    s = solver(name)
    st = random_states(s, samples(name), seed=21)
    M = call(s, "mass_matrix", st)
    assert M.shape == (st.n, s.generalized_count, s.generalized_count)
    # exactly symmetric, floating base included: H_ij and H_ji are the same scalar, and the
    # base block's rotational inertia (spatial.rigid_xform_back) is mirrored from its upper
    # triangle (dynibo's floating-base mass matrix is not exactly symmetric)
    np.testing.assert_array_equal(M, np.swapaxes(M, 1, 2))
    eigenvalues = np.linalg.eigvalsh(M)
    assert np.all(eigenvalues > 0), f"smallest eigenvalue {eigenvalues.min():.3e}"
    # and positive with a margin: the smallest eigenvalue is far above rounding
    assert np.all(eigenvalues[:, 0] > 1e-10 * eigenvalues[:, -1])


@pytest.mark.parametrize("name", NAMES)
def test_kinetic_energy_matches_pinocchio(name):
    s, p = solver(name), pinocchio(name)
    st = random_states(s, samples(name) // 2, seed=22)
    M = call(s, "mass_matrix", st)
    nu = np.concatenate([st.velocity, st.qd], axis=1) if st.floating else st.qd
    energy = 0.5 * np.einsum("ni,nij,nj->n", nu, M, nu)
    for k in range(st.n):
        expected = p.kinetic_energy(st.ref_base(k), st.q[k], st.qd[k])
        assert expected > 0
        assert abs(energy[k] - expected) <= TIGHT * expected, f"{name} state {k}"


# -- inverse and forward dynamics ---------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_forward_dynamics_inverts_inverse_dynamics(name, record_property):
    s = solver(name)
    st = random_states(s, samples(name), seed=23, load_links=LOAD_LINKS[name])
    worst, pin_worst = roundtrip_errors(s, pinocchio(name), st)
    for op, err in worst.items():
        record_property(f"{op}_roundtrip", err)
    record_property("pinocchio_roundtrip", pin_worst)
    print(f"{name}: FD(ID) worst {worst}, Pinocchio aba(rnea) worst {pin_worst:.2e}")
    for op, err in worst.items():
        assert err < 1e-9, f"{op}: {err:.2e}"
        assert err <= 100 * max(pin_worst, np.finfo(float).eps), f"{op}: {err:.2e} vs Pinocchio {pin_worst:.2e}"


@pytest.mark.parametrize("name", NAMES)
def test_gravity_is_inverse_dynamics_at_rest(name):
    """g(q) = ID(q, 0, 0) with a motionless base, with and without loads."""
    s = solver(name)
    st = random_states(s, samples(name), seed=24, load_links=LOAD_LINKS[name])
    rest = at_rest(st)
    for loads in (False, True):
        g = call(s, "gravity", st, loads=loads)  # gravity ignores the base velocity/acceleration
        assert_close(g, call(s, "inverse_dynamics", rest, loads=loads), 1e-15, f"{name} loads={loads}")
        np.testing.assert_array_equal(g, call(s, "gravity", rest, loads=loads))


@pytest.mark.parametrize("name", FIXED_NAMES)
def test_manipulator_equation(name):
    """Fixed base: ID(q, qd, qdd) = M qdd + C(q, qd) qd + g(q)."""
    s = solver(name)
    st = random_states(s, samples(name), seed=25)
    M = call(s, "mass_matrix", st)
    rhs = np.einsum("nij,nj->ni", M, st.qdd) + call(s, "velocity_product_forces", st) + call(s, "gravity", st)
    tau = call(s, "inverse_dynamics", st)
    for k in range(st.n):
        assert_close(tau[k], rhs[k], TIGHT, f"{name} state {k}")


@pytest.mark.parametrize("name", FLOATING_NAMES)
def test_manipulator_equation_floating(name):
    """Floating base: ID = M [omegadot_W; pddot_W; qdd] + C nu + g with dynibo's classical base
    acceleration (C nu is ID at zero classical acceleration, so it holds the omega x pdot term)."""
    s = solver(name)
    st = random_states(s, samples(name), seed=26)
    nudot = np.concatenate([st.acceleration, st.qdd], axis=1)
    M = call(s, "mass_matrix", st)
    rhs = np.einsum("nij,nj->ni", M, nudot) + call(s, "velocity_product_forces", st) + call(s, "gravity", st)
    tau = call(s, "inverse_dynamics", st)
    for k in range(st.n):
        assert_close(tau[k], rhs[k], TIGHT, f"{name} state {k}")


@pytest.mark.parametrize("name", NAMES)
def test_aba_equals_crba_forward_dynamics(name):
    s = solver(name)
    st = random_states(s, samples(name), seed=27, load_links=LOAD_LINKS[name])
    for loads in (False, True):
        aba = call(s, "forward_dynamics", st, loads=loads)
        crba = call(s, "forward_dynamics_crba", st, loads=loads)
        for k in range(st.n):
            assert_close(aba[k], crba[k], LOOSE, f"{name} loads={loads} state {k}")


# -- closed forms -----------------------------------------------------------------------
PENDULUM = """<robot name="pendulum">
  <link name="world"/>
  <link name="arm">
    <inertial>
      <origin xyz="{l} 0 0"/>
      <mass value="{m}"/>
      <inertia ixx="0.02" ixy="0.002" ixz="0" iyy="{Iyy}" iyz="0" izz="0.03"/>
    </inertial>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="world"/>
    <child link="arm"/>
    <origin xyz="0.3 -0.2 1.5"/>
    <axis xyz="0 1 0"/>
    <limit lower="-3.14" upper="3.14" effort="10" velocity="5"/>
  </joint>
</robot>"""


def test_single_pendulum_closed_form(tmp_path):
    """A mass m at distance l from a hinge about y (and rotational inertia Iyy about its centre):
    the centre sits at (l cos q, 0, -l sin q) from the hinge, so V = -m g l sin q,
    M = m l^2 + Iyy, g(q) = -m g l cos q, no velocity product."""
    m, l, Iyy = 2.5, 0.7, 0.04
    path = tmp_path / "pendulum.urdf"
    path.write_text(PENDULUM.format(m=m, l=l, Iyy=Iyy))
    s = rbdgen.NumpySolver(rbdgen.load_urdf(path))
    assert s.joint_names == ("hinge",)
    rng = np.random.default_rng(28)
    q = rng.uniform(-np.pi, np.pi, (64, 1))
    qd, qdd, tau = rng.normal(size=(3, 64, 1)) * 3.0
    inertia = m * l * l + Iyy
    grav = -m * G0 * l * np.cos(q)
    np.testing.assert_allclose(s.mass_matrix(q), np.full((64, 1, 1), inertia), rtol=1e-14, atol=0)
    np.testing.assert_allclose(s.gravity(q), grav, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(s.velocity_product_forces(q, qd), 0.0, atol=1e-13)
    np.testing.assert_allclose(s.inverse_dynamics(q, qd, qdd), inertia * qdd + grav, rtol=1e-13, atol=1e-13)
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        np.testing.assert_allclose(getattr(s, op)(q, qd, tau), (tau - grav) / inertia, rtol=1e-13, atol=1e-13)
    # a force at the arm link's origin (on the hinge axis) has no moment about the axis
    assert s.gravity(q[0], loads=[rbdgen.Load("arm", force=(0.0, 0.0, 5.0))]) == pytest.approx(grav[0], abs=1e-13)
    # a torque about y is transmitted one to one (dynibo's sign: the wrench the link applies)
    loaded = s.gravity(q[0], loads=[rbdgen.Load("arm", torque=(0.0, 1.25, 0.0))])
    assert loaded == pytest.approx(grav[0] + 1.25, abs=1e-13)


def rpy_matrix(roll, pitch, yaw):
    """URDF rpy: Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
                              math.cos(yaw), math.sin(yaw))
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


SLIDER = """<robot name="slider">
  <link name="world"/>
  <link name="carriage">
    <inertial>
      <origin xyz="0.1 0.2 -0.05" rpy="0.3 0.1 0"/>
      <mass value="{m}"/>
      <inertia ixx="0.02" ixy="0" ixz="0.001" iyy="0.03" iyz="0" izz="0.04"/>
    </inertial>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="world"/>
    <child link="carriage"/>
    <origin xyz="0.5 0 0.2" rpy="{rpy}"/>
    <axis xyz="{axis}"/>
    <limit lower="-1" upper="1" effort="100" velocity="1"/>
  </joint>
</robot>"""


@pytest.mark.parametrize("rpy", [(0.0, 0.0, 0.0), (0.4, -1.1, 2.3)])
def test_prismatic_joint_closed_form(tmp_path, rpy):
    """A prismatic joint on an arbitrary unit axis a (world axis R a): M = m, g = -m g_vec . (R a)."""
    m = 3.2
    axis = np.array([0.36, -0.48, 0.8])  # unit
    path = tmp_path / "slider.urdf"
    path.write_text(SLIDER.format(m=m, axis=" ".join(map(str, axis)), rpy=" ".join(map(str, rpy))))
    s = rbdgen.NumpySolver(rbdgen.load_urdf(path))
    world_axis = rpy_matrix(*rpy) @ axis
    g_vec = np.array([0.0, 0.0, -G0])
    grav = -m * g_vec @ world_axis
    rng = np.random.default_rng(29)
    q, qd, qdd, tau = rng.normal(size=(4, 16, 1))
    np.testing.assert_allclose(s.mass_matrix(q)[:, 0, 0], m, rtol=1e-15)
    np.testing.assert_allclose(s.gravity(q)[:, 0], grav, rtol=1e-14)
    np.testing.assert_allclose(s.velocity_product_forces(q, qd), 0.0, atol=1e-14)
    np.testing.assert_allclose(s.inverse_dynamics(q, qd, qdd), m * qdd + grav, rtol=1e-14, atol=1e-14)
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        np.testing.assert_allclose(getattr(s, op)(q, qd, tau), (tau - grav) / m, rtol=1e-14, atol=1e-14)


# -- property test -------------------------------------------------------------------------
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402


def _vectors(bound):
    return arrays(np.float64, (2,), elements=hs.floats(-bound, bound, allow_nan=False, allow_infinity=False))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(q=_vectors(10.0), qd=_vectors(20.0), qdd=_vectors(100.0))
def test_roundtrip_property_double_pendulum(q, qd, qdd):
    s = solver("double_pendulum")
    tau = s.inverse_dynamics(q, qd, qdd)
    scale = max(1.0, float(np.linalg.norm(qdd)))
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        back = getattr(s, op)(q, qd, tau)
        assert np.linalg.norm(back - qdd) <= 1e-11 * scale, op
