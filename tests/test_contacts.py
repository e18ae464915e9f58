"""Constrained dynamics (`rbdgen.contacts`): contact_dynamics and impulse_dynamics against Pinocchio 4.1's
``constraintDynamics`` / ``impulseDynamics`` (RigidConstraintModel CONTACT_3D / CONTACT_6D,
LOCAL_WORLD_ALIGNED) and physical identities checked with Pinocchio's M, RNEA and frame Jacobians.

Pinocchio's 6-D contact holds the frame's *spatial* acceleration at zero, rbdgen's the classical one:
they are one problem where the contact frame does not move, so the frame contacts are compared at
velocities in the null space of the contact Jacobian (Pinocchio's), and checked by the identities at
random velocities.
"""

from __future__ import annotations

import itertools
import os
import tempfile

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from robots import ROBOTS, path
from rbdgen.testing import random_states
from rbdgen.testing.compare import rel_error

pin = pytest.importorskip("pinocchio")
from rbdgen.testing.references import PinocchioReference, without_mimic  # noqa: E402

FEET = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
SOLO = [("FL_FOOT", "point", (0.0, 0.0, 0.0)), ("FR_FOOT", "point", (0.01, -0.02, 0.0)),
        ("HL_FOOT", "point", (0.0, 0.0, 0.0)), ("HR_FOOT", "point", (0.0, 0.0, -0.015))]
HAND = [("panda_hand", "frame", (0.0, 0.0, 0.1))]
TOL = 1e-10


def _contacts(spec):
    return [rbdgen.Contact(*c) for c in spec]


def _rel(a, b):
    return np.linalg.norm(np.asarray(a) - b) / max(np.linalg.norm(b), 1e-300)


def _base(st, i, velocity=None):
    """(rbdgen arguments before q, the reference's base tuple) of state i."""
    if st.translation is None:
        return (), None
    v = st.velocity[i] if velocity is None else velocity
    b = (st.translation[i], st.quat[i], v, np.zeros(6))
    return (rbdgen.BaseState(*b[:3]),), b


@pytest.fixture(scope="module")
def solo_model():
    return rbdgen.load_urdf(ROBOTS["solo12"].path, floating=True)


@pytest.fixture(scope="module")
def solo_ref(solo_model):
    return PinocchioReference(ROBOTS["solo12"].path, True, solo_model.joint_names)


@pytest.fixture(scope="module")
def solo_c(solo_model, build_cache):
    return rbdgen.generate(solo_model, ops=["contact_dynamics", "impulse_dynamics", "contact_dynamics_derivatives",
                                            "impulse_dynamics_derivatives"], prefix="solo_contacts",
                           contacts=_contacts(SOLO)).compile(flags=TEST_FLAGS, cache=build_cache, samples=8)


@pytest.fixture(scope="module")
def panda():
    model = rbdgen.load_urdf(ROBOTS["panda"].path)
    return model, PinocchioReference(ROBOTS["panda"].path, False, model.joint_names)


def test_solo_every_subset_of_feet_matches_pinocchio(solo_model, solo_ref, solo_c):
    """C and NumPy, every subset of the four feet (offsets, loads on a foot and the base), 1e-10 relative."""
    numpy_solver = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO))
    st = random_states(solo_model, 16, 3, load_links=["HL_FOOT", "base_link"])
    for i, active in enumerate(itertools.product([0.0, 1.0], repeat=4)):
        head, b = _base(st, i)
        expected = solo_ref.contact_dynamics(b, st.q[i], st.qd[i], st.tau[i], SOLO, active, st.load_lists[i])
        for solver in (solo_c, numpy_solver):
            acc, forces = solver.contact_dynamics(*head, st.q[i], st.qd[i], st.tau[i], np.array(active),
                                                  loads=st.loads[i])
            assert _rel(acc, expected[0]) < TOL and _rel(forces, expected[1]) < TOL, (active, type(solver))
        if any(active):
            qd_plus, impulses = solo_c.impulse_dynamics(*head, st.q[i], st.qd[i], np.array(active))
            want = solo_ref.impulse_dynamics(b, st.q[i], st.qd[i], SOLO, active)
            assert _rel(qd_plus, want[0]) < TOL and _rel(impulses, want[1]) < TOL, active


def test_batches_and_inactive_forces(solo_model, solo_c):
    """A batch is the states one by one; an inactive contact's force is exactly zero."""
    st = random_states(solo_model, 5, 4)
    active = np.array([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0], [1, 1, 0, 1.0]])
    acc, forces = solo_c.contact_dynamics(st.base, st.q, st.qd, st.tau, active)
    for i in range(5):
        a1, f1 = solo_c.contact_dynamics(*_base(st, i)[0], st.q[i], st.qd[i], st.tau[i], active[i])
        np.testing.assert_array_equal(acc[i], a1)
        np.testing.assert_array_equal(forces[i], f1)
    assert np.all(forces.reshape(5, 4, 3)[active == 0] == 0.0)
    free = rbdgen.NumpySolver(solo_model).forward_dynamics(*_base(st, 1)[0], st.q[1], st.qd[1], st.tau[1])
    assert _rel(acc[1], free) < TOL                              # no active contact: forward dynamics


def test_c_refuses_active_values_between(solo_model, solo_c):
    """The C function itself (a controller calls it without the Python wrapper's check) returns the invalid-input
    status for an ``active`` flag that is neither 1.0 nor 0.0, in each constrained operation, and computes the
    flags it is given."""
    st = random_states(solo_model, 1, 3).flat()
    for op, args, outputs in (("contact_dynamics", (st["base"][0], st["q"][0], st["qd"][0], st["tau"][0]), (18, 12)),
                              ("impulse_dynamics", (st["base"][0], st["q"][0], st["qd"][0]), (18, 12))):
        ffi, fn = solo_c.c_function(op)
        for active, status in (([1, 0, 1, 1], 0), ([0.5, 1, 1, 1], 1), ([1, 1, 2, 1], 1), ([1, 1, 1, -1e-9], 1)):
            buffers = [np.ascontiguousarray(a, dtype=float) for a in (*args, active)]
            outs = [np.full(n, 7.0) for n in outputs]  # a refused call must write its zeros
            pointers = [ffi.from_buffer("double[]", b) for b in buffers]
            if op == "contact_dynamics":
                pointers.append(ffi.NULL)  # no loads
            assert fn(*pointers, *[ffi.from_buffer("double[]", o) for o in outs]) == status, (op, active)
        assert np.abs(outs[1]).max() == 0.0  # the refused call's forces are not a blend


def _null_space_velocity(J, rng):
    """A velocity nu with J nu = 0 (J: the stacked contact Jacobians, Pinocchio's)."""
    _, sv, Vt = np.linalg.svd(J)
    rank = int(np.sum(sv > 1e-10 * sv[0]))
    return Vt[rank:].T @ rng.normal(size=Vt.shape[0] - rank)


def test_panda_frame_contact_at_the_hand(panda, build_cache):
    """A 6-D contact 0.1 m in front of the hand: Pinocchio where the contact frame is still (the derivatives
    too: the spatial acceleration Pinocchio's contact holds and the classical one have the same derivatives
    there)."""
    model, ref = panda
    solver = rbdgen.generate(model, ops=["contact_dynamics", "impulse_dynamics", "contact_dynamics_derivatives",
                                         "impulse_dynamics_derivatives"], prefix="panda_contacts",
                             contacts=_contacts(HAND)).compile(flags=TEST_FLAGS, cache=build_cache, samples=8)
    st = random_states(model, 4, 5)
    rng = np.random.default_rng(5)
    for i in range(4):
        J = _contact_jacobian(ref, None, st.q[i], HAND)
        qd = _null_space_velocity(J, rng)
        acc, forces = solver.contact_dynamics(st.q[i], qd, st.tau[i], [1.0])
        want = ref.contact_dynamics(None, st.q[i], qd, st.tau[i], HAND, [1])
        assert _rel(acc, want[0]) < TOL and _rel(forces, want[1]) < TOL
        qd_plus, impulses = solver.impulse_dynamics(st.q[i], st.qd[i], [1.0])
        want = ref.impulse_dynamics(None, st.q[i], st.qd[i], HAND, [1])
        assert _rel(qd_plus, want[0]) < TOL and _rel(impulses, want[1]) < TOL
        _derivatives_match(solver, ref, (), None, st.q[i], qd, st.tau[i], HAND, [1], TOL)


def _contact_jacobian(ref, base, q, spec):
    """Pinocchio's Jacobian rows of the contacts (world axes, angular first; a point: its 3 linear rows), at
    the offset points: ``J_point = J_lin - [R offset]x J_ang``."""
    rows = []
    for link, kind, offset in spec:
        J = ref.jacobian(base, q, link)
        R = _rotation(ref.forward_kinematics(base, q, link)[3:])
        arm = R @ np.asarray(offset)
        lin = J[3:] + np.cross(J[:3].T, arm).T                                    # v + omega x arm
        rows.append(lin if kind == "point" else np.vstack([J[:3], lin]))
    return np.vstack(rows)


def _rotation(quat):
    """The rotation matrix of a quaternion xyzw (Pinocchio's)."""
    x, y, z, w = (float(c) for c in quat)
    return pin.Quaternion(w, x, y, z).normalized().matrix()


@pytest.fixture(scope="module")
def talos():
    """Talos with its grippers' mimic tags removed (so that Pinocchio has the same robot), and its reference."""
    text = without_mimic(open(path("talos"), encoding="utf-8").read())
    model = rbdgen.load_urdf_string(text, floating=True)
    with tempfile.TemporaryDirectory() as folder:
        urdf = os.path.join(folder, "talos.urdf")
        with open(urdf, "w", encoding="utf-8") as f:
            f.write(text)
        ref = PinocchioReference(urdf, True, model.joint_names)
    return model, ref


def test_talos_soles_match_pinocchio(talos):
    """Talos on both soles, NumPy engine."""
    model, ref = talos
    soles = [("left_sole_link", "frame", (0.0, 0.0, 0.0)), ("right_sole_link", "frame", (0.0, 0.0, 0.0))]
    solver = rbdgen.NumpySolver(model, contacts=_contacts(soles))
    st = random_states(model, 2, 6)
    rng = np.random.default_rng(6)
    for i in range(2):
        head, b = _base(st, i)
        nu = _null_space_velocity(_contact_jacobian(ref, b, st.q[i], soles), rng)
        head, b = _base(st, i, nu[:6])
        acc, forces = solver.contact_dynamics(*head, st.q[i], nu[6:], st.tau[i], [1.0, 1.0])
        want = ref.contact_dynamics(b, st.q[i], nu[6:], st.tau[i], soles, [1, 1])
        assert _rel(acc, want[0]) < TOL and _rel(forces, want[1]) < TOL
        qd_plus, impulses = solver.impulse_dynamics(*head, st.q[i], st.qd[i], [1.0, 0.0])
        want = ref.impulse_dynamics(b, st.q[i], st.qd[i], soles, [1, 0])
        assert _rel(qd_plus, want[0]) < TOL and _rel(impulses, want[1]) < TOL


@pytest.mark.parametrize("spec, floating, gains", [(SOLO, True, (0.0, 3.0)), (HAND, False, (20.0, 4.0)),
                                                   (SOLO[:1] + [("HR_FOOT", "frame", (0.0, 0.01, 0.0))], True,
                                                    (9.0, 0.5))])
def test_identities(spec, floating, gains):
    """At random velocities (Pinocchio's M, RNEA and Jacobians): M acc + h = tau + J^T f, and each contact's
    classical acceleration J acc + Jdot nu is -kd v_c - kp e_c (Pinocchio's frame accelerations)."""
    name = "solo12" if floating else "panda"
    model = rbdgen.load_urdf(ROBOTS[name].path, floating=floating)
    ref = PinocchioReference(ROBOTS[name].path, floating, model.joint_names)
    kp, kd = gains
    solver = rbdgen.NumpySolver(model, contacts=_contacts(spec), baumgarte=gains)
    st = random_states(model, 3, 7)
    rng = np.random.default_rng(7)
    for i in range(3):
        head, b = _base(st, i)
        reference = []
        for link, kind, offset in spec:
            reference += list(rng.uniform(-1, 1, 3))
            if kind == "frame":
                quat = rng.normal(size=4)
                reference += list(quat / np.linalg.norm(quat))
        acc, forces = solver.contact_dynamics(*head, st.q[i], st.qd[i], st.tau[i], np.ones(len(spec)),
                                              np.array(reference) if kp else None)
        M, h = ref.mass_matrix(b, st.q[i]), ref.inverse_dynamics(b, st.q[i], st.qd[i], np.zeros(model.joint_count))
        J = _contact_jacobian(ref, b, st.q[i], spec)
        assert _rel(M @ acc + h, st.tau[i] + J.T @ forces) < TOL
        k = 0
        for link, kind, offset in spec:
            a = (_floating_acceleration(ref, b, st.q[i], st.qd[i], acc, link) if floating
                 else ref.forward_acceleration_kinematics(b, st.q[i], st.qd[i], acc, link))
            tw = ref.forward_velocity_kinematics(b, st.q[i], st.qd[i], link)
            R = _rotation(ref.forward_kinematics(b, st.q[i], link)[3:])
            arm = R @ np.asarray(offset)
            w, wd = tw[:3], a[:3]
            v_p = tw[3:] + np.cross(w, arm)
            a_p = a[3:] + np.cross(wd, arm) + np.cross(w, np.cross(w, arm))
            p = ref.forward_kinematics(b, st.q[i], link)[:3] + arm
            e_lin = p - np.array(reference[k:k + 3])
            if kind == "point":
                got, want = a_p, -kd * v_p - kp * e_lin
                k += 3
            else:
                q_ref = reference[k + 3:k + 7]
                Rr = _rotation(q_ref)
                E = R @ Rr.T
                e_rot = 0.5 * np.array([E[2, 1] - E[1, 2], E[0, 2] - E[2, 0], E[1, 0] - E[0, 1]])
                got = np.concatenate([wd, a_p])
                want = -kd * np.concatenate([w, v_p]) - kp * np.concatenate([e_rot, e_lin])
                k += 7
            assert np.linalg.norm(got - want) < 1e-9 * max(1.0, np.linalg.norm(want)), (link, got, want)


def _floating_acceleration(ref, b, q, qd, acc, link):
    """The link's classical acceleration at rbdgen's acc of a floating base (its classical base part)."""
    base = (b[0], b[1], b[2], acc[:6])
    return ref.forward_acceleration_kinematics(base, q, qd, acc[6:], link)


def test_energy_does_not_grow_through_an_impulse(solo_model, solo_ref, solo_c):
    """T(qd_plus) <= T(qd) (Pinocchio's kinetic energy); restitution 1 keeps it."""
    st = random_states(solo_model, 6, 8)
    elastic = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO), restitution=1.0)
    for i in range(6):
        head, b = _base(st, i)
        before = solo_ref.kinetic_energy(b, st.q[i], st.qd[i])
        qd_plus, _ = solo_c.impulse_dynamics(*head, st.q[i], st.qd[i], np.ones(4))
        after = solo_ref.kinetic_energy((b[0], b[1], qd_plus[:6], b[3]), st.q[i], qd_plus[6:])
        assert after <= before * (1 + 1e-12)
        qd_e, _ = elastic.impulse_dynamics(*head, st.q[i], st.qd[i], np.ones(4))
        kept = solo_ref.kinetic_energy((b[0], b[1], qd_e[:6], b[3]), st.q[i], qd_e[6:])
        assert abs(kept - before) <= 1e-10 * before


ARM_WITH_MIMIC = """\
<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/>
  <link name="a"><inertial><origin xyz="0.02 0.01 0.1" rpy="0.1 0.2 0.3"/><mass value="1.3"/><inertia ixx="0.02" iyy="0.015" izz="0.01" ixy="0.001" ixz="0" iyz="0.002"/></inertial></link>
  <link name="b"><inertial><origin xyz="0 0.03 0.15"/><mass value="0.9"/><inertia ixx="0.012" iyy="0.011" izz="0.006" ixy="0" ixz="0.001" iyz="0"/></inertial></link>
  <link name="c"><inertial><origin xyz="0.01 0 0.05"/><mass value="0.5"/><inertia ixx="0.004" iyy="0.004" izz="0.003" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="d"><inertial><origin xyz="0.0 0 0.05"/><mass value="0.4"/><inertia ixx="0.003" iyy="0.004" izz="0.003" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"><inertial><origin xyz="0 0 0.02"/><mass value="0.2"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tcp"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="3"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0 0 0.2" rpy="0.3 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="3"/></joint>
  <joint name="j3" type="revolute"><parent link="b"/><child link="c"/><origin xyz="0 0.05 0.3" rpy="0 0.4 0.2"/><axis xyz="1 0 0"/><limit lower="-3" upper="3" effort="10" velocity="3"/></joint>
  <joint name="j4" type="revolute"><parent link="c"/><child link="d"/><origin xyz="0 0 0.1"/><axis xyz="0 1 0"/><mimic joint="j3" multiplier="-1.5" offset="0.2"/><limit lower="-3" upper="3" effort="10" velocity="3"/></joint>
  <joint name="fix" type="fixed"><parent link="d"/><child link="tool"/><origin xyz="0.03 0.01 0.12" rpy="0.5 -0.3 0.7"/></joint>
  <joint name="fix2" type="fixed"><parent link="tool"/><child link="tcp"/><origin xyz="0 0.02 0.05" rpy="0.2 0.1 -0.4"/></joint>
</robot>
"""


def test_a_contact_that_holds_the_whole_mechanism(tmp_path, build_cache):
    """A 4-joint arm whose last joint mimics the third (3 coordinates) with a point contact on a link two fixed
    joints merge: the contact holds every motion, so an inelastic impact stops it (qd_plus ~ 0, its rounding
    growing with cond(J M^-1 J^T), and so do its Jacobians and acc's: validation used to refuse these builds)
    and the impulses are Pinocchio's -J^-T M qd on the same robot without the mimic tag (q_full = P q + o),
    their Jacobian by qd -J^-T M."""
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(ARM_WITH_MIMIC)
    model = rbdgen.load_urdf(urdf)
    offset = (0.01, -0.02, 0.03)
    contact = [rbdgen.Contact("tcp", offset=offset)]
    ops = ["contact_dynamics", "impulse_dynamics", "contact_dynamics_derivatives", "impulse_dynamics_derivatives"]
    solver = rbdgen.generate(model, ops=ops, contacts=contact).compile(TEST_FLAGS, build_cache)  # validates
    # (seed 0: a state where cond(J) is 32; the Jacobians of acc and qd_plus are ~ 0, and central differences too)
    full = pin.buildModelFromXML(without_mimic(ARM_WITH_MIMIC))
    data = full.createData()
    P = np.vstack([np.eye(3), [0.0, 0.0, -1.5]])
    st = random_states(model, 8, 0)
    for q, qd in zip(st.q, st.qd):
        qf = P @ q + [0.0, 0.0, 0.0, 0.2]
        pin.computeJointJacobians(full, data, qf)
        pin.updateFramePlacements(full, data)
        frame = full.getFrameId("tcp")
        J6 = pin.getFrameJacobian(full, data, frame, pin.LOCAL_WORLD_ALIGNED)
        J = (J6[:3] - pin.skew(data.oMf[frame].rotation @ offset) @ J6[3:]) @ P
        M = P.T @ pin.crba(full, data, qf) @ P
        M = np.triu(M) + np.triu(M, 1).T
        qd_plus, impulses = solver.impulse_dynamics(q, qd, np.ones(1))
        expected = -np.linalg.solve(J.T, M @ qd)
        assert np.linalg.norm(qd_plus) <= 1e-12 * np.linalg.cond(J) ** 2 * np.linalg.norm(qd)
        assert rel_error(impulses, expected) <= TOL * np.linalg.cond(J) ** 2
        d = solver.impulse_dynamics_derivatives(q, qd, np.ones(1))  # the impulses are linear in qd: -J^-T M
        assert rel_error(d["dimpulses_dqd"], -np.linalg.solve(J.T, M)) <= TOL * np.linalg.cond(J) ** 2
        assert np.linalg.norm(d["dqd_plus_dqd"]) <= 1e-12 * np.linalg.cond(J) ** 2


def test_dependent_contacts_status_and_damping(solo_model, build_cache):
    """The same foot twice: ConstraintError (status 5) without damping, in C and NumPy; with damping, the
    proximal solve gives the least-squares forces (each foot half the load of one)."""
    twice = _contacts([SOLO[0], SOLO[0]])
    st = random_states(solo_model, 1, 9)
    args = (*_base(st, 0)[0], st.q[0], st.qd[0], st.tau[0], np.ones(2))
    c = rbdgen.generate(solo_model, ops=["contact_dynamics"], prefix="solo_twice", contacts=twice).compile(
        flags=TEST_FLAGS, cache=build_cache, validate=False)
    for solver in (c, rbdgen.NumpySolver(solo_model, contacts=twice)):
        with pytest.raises(rbdgen.ConstraintError, match="dependent"):
            solver.contact_dynamics(*args)
    assert rbdgen.ConstraintError.status == 5
    one = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO[:1])).contact_dynamics(*args[:-1], [1.0])
    damped = rbdgen.NumpySolver(solo_model, contacts=twice, damping=(1e-6, 50)).contact_dynamics(*args)
    assert _rel(damped[0], one[0]) < 1e-6
    assert _rel(damped[1], np.concatenate([one[1], one[1]]) / 2) < 1e-6


def test_damped_derivatives_are_those_of_the_iterations(solo_model):
    """A damped build differentiates its fixed proximal iterations (forward mode): by tau, where they are affine,
    against differences of the damped solve (exact up to rounding); the same foot twice converges to the
    analytic Jacobians of the undamped single foot, the forces' shared half each."""
    twice = rbdgen.NumpySolver(solo_model, contacts=_contacts([SOLO[0], SOLO[0]]), damping=(1e-3, 3))
    st = random_states(solo_model, 1, 17)
    head, _ = _base(st, 0)
    jac = twice.contact_dynamics_derivatives(*head, st.q[0], st.qd[0], st.tau[0], np.ones(2))
    for g in range(len(st.tau[0])):
        step = 100.0 * np.eye(len(st.tau[0]))[g]                                   # affine: a large step is exact
        plus, minus = (twice.contact_dynamics(*head, st.q[0], st.qd[0], st.tau[0] + s * step, np.ones(2))
                       for s in (1.0, -1.0))
        assert _rel(jac["dacc_dtau"][:, g], (plus[0] - minus[0]) / 200.0) < 1e-9
        assert _rel(jac["dforces_dtau"][:, g], (plus[1] - minus[1]) / 200.0) < 1e-9
    one = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO[:1]))
    exact = one.contact_dynamics_derivatives(*head, st.q[0], st.qd[0], st.tau[0], np.ones(1))   # analytic
    for wrt in ("q", "qd", "tau", "base_velocity", "base_rotation"):          # least squares: half each
        assert _rel(jac[f"dacc_d{wrt}"], exact[f"dacc_d{wrt}"]) < 1e-6
        assert _rel(jac[f"dforces_d{wrt}"], np.vstack([exact[f"dforces_d{wrt}"]] * 2) / 2) < 1e-6


def test_casadi_matches_the_numpy_engine(solo_model):
    casadi = pytest.importorskip("casadi")
    g = rbdgen.generate(solo_model, ops=["contact_dynamics"], prefix="solo_casadi", contacts=_contacts(SOLO),
                        baumgarte=(4.0, 2.0))
    f = g.casadi("contact_dynamics")
    assert f.name_in() == ["base", "q", "qd", "tau", "active", "reference", "loads"]
    solver = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO), baumgarte=(4.0, 2.0))
    st = random_states(solo_model, 1, 10)
    head, b = _base(st, 0)
    reference = np.random.default_rng(10).uniform(-1, 1, 12)
    active = np.array([1.0, 0.0, 1.0, 1.0])
    acc, forces = solver.contact_dynamics(*head, st.q[0], st.qd[0], st.tau[0], active, reference)
    flat_base = np.concatenate([b[0], b[1], b[2], b[3]])
    out = f(flat_base, st.q[0], st.qd[0], st.tau[0], active, reference, np.zeros(6 * len(solo_model.links)))
    assert _rel(np.asarray(out[0]).ravel(), acc) < TOL and _rel(np.asarray(out[1]).ravel(), forces) < TOL
    assert isinstance(f, casadi.Function)


def test_declaration_errors(solo_model):
    with pytest.raises(ValueError, match="kind"):
        rbdgen.Contact("FL_FOOT", "line")
    with pytest.raises(ValueError, match="offset"):
        rbdgen.Contact("FL_FOOT", offset=(0, 1))
    with pytest.raises(ValueError, match="finite"):
        rbdgen.Contact("FL_FOOT", offset=(0, float("nan"), 0))
    with pytest.raises(TypeError):
        rbdgen.Contact("FL_FOOT", offset=(0, True, 0))
    with pytest.raises(ValueError, match="unknown link"):
        rbdgen.NumpySolver(solo_model, contacts=[rbdgen.Contact("FOOT")])
    with pytest.raises(ValueError, match="need contacts"):
        rbdgen.generate(solo_model, ops=["contact_dynamics"])
    with pytest.raises(ValueError, match="need contacts"):
        rbdgen.NumpySolver(solo_model, baumgarte=(1.0, 0.0))
    with pytest.raises(ValueError, match="restitution"):
        rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO), restitution=1.5)
    with pytest.raises(ValueError, match="no contacts declared"):
        rbdgen.NumpySolver(solo_model).impulse_dynamics(rbdgen.BaseState([0, 0, 0], [0, 0, 0, 1]),
                                                        np.zeros(12), np.zeros(12), [])
    solver = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO))
    base = rbdgen.BaseState([0, 0, 0], [0, 0, 0, 1])
    with pytest.raises(ValueError, match="reference is an input only"):
        solver.contact_dynamics(base, np.zeros(12), np.zeros(12), np.zeros(18), np.ones(4), np.zeros(12))
    with pytest.raises(ValueError, match="active"):
        solver.contact_dynamics(base, np.zeros(12), np.zeros(12), np.zeros(18), np.ones(3))
    gained = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO), baumgarte=(1.0, 0.0))
    with pytest.raises(ValueError, match="pass reference"):
        gained.contact_dynamics(base, np.zeros(12), np.zeros(12), np.zeros(18), np.ones(4))
    # the impact map takes no reference, whatever contact_dynamics' gains: the same as without them
    qd = np.linspace(-1, 1, 12)
    np.testing.assert_array_equal(gained.impulse_dynamics(base, np.zeros(12), qd, np.ones(4))[0],
                                  solver.impulse_dynamics(base, np.zeros(12), qd, np.ones(4))[0])
    for active in ([0.5, 1, 1, 1], [2, 1, 1, 1], [-1, 0, 0, 0]):
        with pytest.raises(ValueError, match=r"active must hold 1.0 \(active\) or 0.0"):
            solver.contact_dynamics(base, np.zeros(12), np.zeros(12), np.zeros(18), active)
    framed = rbdgen.NumpySolver(solo_model, contacts=[rbdgen.Contact("FL_FOOT", "frame")], baumgarte=(1.0, 0.0))
    for quat in ([0, 0, 0, 0], [1e-200, 0, 0, 0], [np.nan, 0, 0, 1]):
        with pytest.raises(ValueError, match="target quaternion .* 'FL_FOOT'"):
            framed.contact_dynamics(base, np.zeros(12), np.zeros(12), np.zeros(18), [1.0], [0, 0, 0, *quat])
    panda = rbdgen.load_urdf(path("panda"))
    with pytest.raises(ValueError, match="welded to the fixed base never move"):
        rbdgen.NumpySolver(panda, contacts=[rbdgen.Contact("panda_link0")])


def test_command_line_spec_and_manifest(solo_model, tmp_path):
    assert rbdgen.Contact.parse("r_sole:frame@0,0,-0.1") == rbdgen.Contact("r_sole", "frame", (0, 0, -0.1))
    assert rbdgen.Contact.parse("ns:foot") == rbdgen.Contact("ns:foot")
    with pytest.raises(ValueError, match="three numbers"):
        rbdgen.Contact.parse("foot@1,x,2")
    g = rbdgen.generate(solo_model, ops=["impulse_dynamics"], prefix="solo_manifest",
                        contacts=[rbdgen.Contact.parse("FL_FOOT:frame@0,0,0.01")], restitution=0.5)
    options = g.manifest["options"]
    assert options["contacts"] == [{"link": "FL_FOOT", "kind": "frame", "offset": [0.0, 0.0, 0.01]}]
    assert options["restitution"] == 0.5 and g.manifest["sizes"]["impulses"] == 6
    folder = g.write(tmp_path / "solo")
    solver = rbdgen.load(folder, flags=TEST_FLAGS)
    assert solver.contacts.restitution == 0.5 and solver.contacts.links == (solo_model.link_id("FL_FOOT"),)


ARM = [("panda_hand", "point", (0.0, 0.0, 0.1)), ("panda_link4", "point", (0.05, 0.02, 0.0))]


def _derivatives_match(solver, ref, head, b, q, qd, tau, spec, active, tol):
    """Both operations' Jacobians against Pinocchio's computeConstraintDynamicsDerivatives and
    computeImpulseDynamicsDerivatives (`PinocchioReference`: the floating base's tangent and velocity mapped
    to rbdgen's world-aligned ones)."""
    got = solver.contact_dynamics_derivatives(*head, q, qd, tau, np.array(active, dtype=float))
    want = ref.contact_dynamics_derivatives(b, q, qd, tau, spec, active)
    got.update(solver.impulse_dynamics_derivatives(*head, q, qd, np.array(active, dtype=float)))
    want.update(ref.impulse_dynamics_derivatives(b, q, qd, spec, active))
    assert set(got) == set(want)
    for name, value in want.items():
        assert rel_error(got[name], value, floor=1e-3) < tol, (name, active, rel_error(got[name], value, floor=1e-3))


def test_solo_derivatives_every_subset_of_feet_match_pinocchio(solo_model, solo_ref, solo_c):
    """C and the NumPy engine, every subset of the four feet (none active: the free dynamics' Jacobians)."""
    numpy_solver = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO))
    st = random_states(solo_model, 16, 14)
    for i, active in enumerate(itertools.product([0, 1], repeat=4)):
        head, b = _base(st, i)
        for solver in (solo_c, numpy_solver):
            _derivatives_match(solver, solo_ref, head, b, st.q[i], st.qd[i], st.tau[i], SOLO, active, TOL)


def test_panda_derivatives_match_pinocchio(panda, build_cache):
    """C Jacobians of both operations, two point contacts, against Pinocchio: 1e-8 relative (the second state's
    D = J M^-1 J^T is less well conditioned; Pinocchio's own derivatives differ from central differences there
    as much). The frame contact at the hand: `test_panda_frame_contact_at_the_hand`."""
    model, ref = panda
    solver = rbdgen.generate(model, ops=["contact_dynamics_derivatives", "impulse_dynamics_derivatives"],
                             prefix="panda_contact_derivatives", contacts=_contacts(ARM)).compile(
        flags=TEST_FLAGS, cache=build_cache, samples=4)
    st = random_states(model, 3, 11)
    for i in range(3):
        for active in ([1, 1], [0, 1]):
            _derivatives_match(solver, ref, (), None, st.q[i], st.qd[i], st.tau[i], ARM, active, 1e-8)


def test_talos_derivatives_match_pinocchio(talos):
    """Talos, NumPy engine: frame contacts at both soles (still) and point contacts at both wrists."""
    model, ref = talos
    spec = [("left_sole_link", "frame", (0.0, 0.0, 0.0)), ("right_sole_link", "frame", (0.0, 0.0, 0.0)),
            ("arm_left_7_link", "point", (0.0, 0.0, -0.1)), ("arm_right_7_link", "point", (0.0, 0.0, -0.1))]
    solver = rbdgen.NumpySolver(model, contacts=_contacts(spec))
    st = random_states(model, 1, 15)
    head, b = _base(st, 0)
    nu = _null_space_velocity(_contact_jacobian(ref, b, st.q[0], spec[:2]), np.random.default_rng(15))
    head, b = _base(st, 0, nu[:6])
    for active in ([1, 1, 1, 1], [1, 0, 0, 1]):
        _derivatives_match(solver, ref, head, b, st.q[0], nu[6:], st.tau[0], spec, active, TOL)


@pytest.mark.parametrize("spec, gains", [(SOLO, (5.0, 2.0)), (SOLO[:1] + [("HR_FOOT", "frame", (0.0, 0.01, 0.0))],
                                                                  (9.0, 0.5))])
def test_analytic_derivatives_match_forward_mode(solo_model, spec, gains, monkeypatch):
    """With Baumgarte gains (which Pinocchio's derivatives leave out) and a frame contact at a moving frame:
    the analytic Jacobians against forward-mode duals of the solve (`rbdgen.algorithms.dual`, another
    algorithm), NumPy engine."""
    from rbdgen.algorithms import operations
    solver = rbdgen.NumpySolver(solo_model, contacts=_contacts(spec), baumgarte=gains)
    st = random_states(solo_model, 1, 16, load_links=["FL_FOOT", "base_link"])
    reference = np.random.default_rng(16).normal(size=sum(3 if kind == "point" else 7 for _, kind, _ in spec))
    head, _ = _base(st, 0)
    active = np.ones(len(spec))
    args = (*head, st.q[0], st.qd[0], st.tau[0], active)
    got = solver.contact_dynamics_derivatives(*args, reference=reference, loads=st.loads[0])
    got.update(solver.impulse_dynamics_derivatives(*head, st.q[0], st.qd[0], active))         # takes no reference
    monkeypatch.setattr(operations, "_analytic", lambda tree: False)
    want = solver.contact_dynamics_derivatives(*args, reference=reference, loads=st.loads[0])
    want.update(solver.impulse_dynamics_derivatives(*head, st.q[0], st.qd[0], active))
    monkeypatch.undo()
    for name, value in want.items():
        assert rel_error(got[name], value) < 1e-12, name


def test_casadi_derivatives_match_the_numpy_engine(solo_model):
    pytest.importorskip("casadi")
    g = rbdgen.generate(solo_model, ops=["impulse_dynamics"], prefix="solo_casadi_d", contacts=_contacts(SOLO))
    f = g.casadi("impulse_dynamics_derivatives")
    solver = rbdgen.NumpySolver(solo_model, contacts=_contacts(SOLO))
    st = random_states(solo_model, 1, 13)
    head, b = _base(st, 0)
    active = np.array([0.0, 1.0, 1.0, 1.0])
    want = solver.impulse_dynamics_derivatives(*head, st.q[0], st.qd[0], active)
    out = f(np.concatenate(b), st.q[0], st.qd[0], active)
    for name, value in zip(f.name_out(), out):
        assert _rel(np.asarray(value), want[name]) < 1e-9, name
