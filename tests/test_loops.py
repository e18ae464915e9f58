"""Closed loops (`rbdgen.loops`): a four-bar linkage against its planar Lagrangian derived by SymPy, and
MuJoCo's ``<equality><connect>`` (between bodies or sites) with its solver made stiff."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from rbdgen.testing.references import rotation_matrix

sympy = pytest.importorskip("sympy")

L1, L2, L3, GROUND = 0.3, 0.5, 0.4, 0.45  # crank, coupler, rocker, ground pivots
MASS = (1.0, 0.7, 1.3)
GRAVITY = 9.81
GAINS = (25.0, 10.0)  # Baumgarte (kp, kd)
DAMPING = 1e-9  # the planar loop held in 3-D has a dependent row (z)


def _rod(length, mass):
    inertia = mass * length ** 2 / 12
    return dict(mass=mass, com=(length / 2, 0, 0), rotational=((1e-4, 0, 0), (0, inertia, 0), (0, 0, inertia)))


def _fourbar(kind="point", floating=False):
    builder = (rbdgen.RobotBuilder("fourbar").add_link("ground")
               .add_link("crank", **_rod(L1, MASS[0])).add_link("coupler", **_rod(L2, MASS[1]))
               .add_link("rocker", **_rod(L3, MASS[2]))
               .add_joint("j1", "revolute", "ground", "crank", axis=(0, 0, 1))
               .add_joint("j2", "revolute", "crank", "coupler", xyz=(L1, 0, 0), axis=(0, 0, 1))
               .add_joint("j3", "revolute", "ground", "rocker", xyz=(GROUND, 0, 0), axis=(0, 0, 1))
               .loop("coupler", "rocker", kind, offset1=(L2, 0, 0), offset2=(L3, 0, 0)))
    return builder.build(gravity=(0, -GRAVITY, 0), joint_order="depth_first", floating=floating)  # q = (j1, j2, j3)


def _planar_reference():
    """M(q), h(q, qd), the loop error C(q) (2), its Jacobian and Jdot qd: the four-bar's planar Lagrangian."""
    q = sympy.symbols("q1:4")
    qd = sympy.symbols("qd1:4")
    t = (q[0], q[0] + q[1], q[2])
    e = [sympy.Matrix([sympy.cos(a), sympy.sin(a)]) for a in t]
    coms = (L1 / 2 * e[0], L1 * e[0] + L2 / 2 * e[1], sympy.Matrix([GROUND, 0]) + L3 / 2 * e[2])
    rates = [sum(sympy.diff(a, qi) * vi for qi, vi in zip(q, qd)) for a in t]
    T, V = 0, 0
    for c, m, w, length in zip(coms, MASS, rates, (L1, L2, L3)):
        v = c.jacobian(q) * sympy.Matrix(qd)
        T += m * (v.T * v)[0] / 2 + m * length ** 2 / 12 * w ** 2 / 2
        V += m * GRAVITY * c[1]
    M = sympy.hessian(T, qd)
    dTdq = sympy.Matrix([sympy.diff(T, qi) for qi in q])
    h = sympy.Matrix([sum(sympy.diff(M[i, j], q[k]) * qd[k] * qd[j] for j in range(3) for k in range(3))
                      for i in range(3)]) - dTdq + sympy.Matrix([sympy.diff(V, qi) for qi in q])
    C = L1 * e[0] + L2 * e[1] - sympy.Matrix([GROUND, 0]) - L3 * e[2]
    J = C.jacobian(q)
    drift = (J * sympy.Matrix(qd)).jacobian(q) * sympy.Matrix(qd)
    return sympy.lambdify((q, qd), [M, h, C, J, drift], "numpy")


PLANAR = _planar_reference()


def _planar_forward(q, qd, tau, kp=0.0, kd=0.0):
    """qdd and the loop force (x, y) of the planar KKT system: M qdd + h = tau + J^T f,
    J qdd + Jdot qd = -kd J qd - kp C."""
    M, h, C, J, drift = (np.array(x, dtype=float) for x in PLANAR(q, qd))
    C, drift = C.ravel(), drift.ravel()
    K = np.block([[M, -J.T], [J, np.zeros((2, 2))]])
    rhs = np.concatenate([tau - h.ravel(), -drift - kd * J @ qd - kp * C])
    x = np.linalg.solve(K, rhs)
    return x[:3], x[3:]


def _consistent(t1, w1):
    """A state on the loop: the crank at t1 turning at w1, the coupler and rocker where they close it."""
    A, B = np.array([L1 * math.cos(t1), L1 * math.sin(t1)]), np.array([GROUND, 0.0])
    d = np.linalg.norm(B - A)
    a = (L2 ** 2 - L3 ** 2 + d ** 2) / (2 * d)
    P = A + a * (B - A) / d + math.sqrt(L2 ** 2 - a ** 2) * np.array([A[1] - B[1], B[0] - A[0]]) / d
    t2, t3 = math.atan2(P[1] - A[1], P[0] - A[0]), math.atan2(P[1] - B[1], P[0] - B[0])
    q = np.array([t1, t2 - t1, t3])
    _, _, _, J, _ = PLANAR(q, np.zeros(3))
    J = np.array(J, dtype=float)
    qd = np.concatenate([[w1], np.linalg.solve(J[:, 1:], -J[:, 0] * w1)])
    return q, qd


STATES = [(0.7, 1.3, (0.5, 0.0, 0.0)), (2.1, -0.4, (0.0, 1.2, -0.3)), (-1.0, 2.5, (1.5, 0.0, 0.8))]


@pytest.fixture(scope="module")
def fourbar_c(build_cache):
    model = _fourbar()
    return rbdgen.generate(model, ops=["forward_dynamics", "forward_dynamics_derivatives"], damping=DAMPING,
                           baumgarte=GAINS).compile(flags=TEST_FLAGS, cache=build_cache, validate=False)


def test_fourbar_matches_its_planar_lagrangian(fourbar_c):
    numpy_engine = rbdgen.NumpySolver(_fourbar(), damping=DAMPING, baumgarte=GAINS)
    rng = np.random.default_rng(3)
    for t1, w1, tau in STATES:
        q, qd = _consistent(t1, w1)
        expected, _ = _planar_forward(q, qd, np.array(tau), *GAINS)
        for solver in (numpy_engine, fourbar_c):
            np.testing.assert_allclose(solver.forward_dynamics(q, qd, np.array(tau)), expected, rtol=1e-9, atol=1e-9)
        # off the loop: the Baumgarte terms pull the error back (J qdd + Jdot qd = -kd v - kp e)
        q_off, qd_off = q + rng.normal(0, 0.02, 3), qd + rng.normal(0, 0.1, 3)
        expected, _ = _planar_forward(q_off, qd_off, np.array(tau), *GAINS)
        for solver in (numpy_engine, fourbar_c):
            np.testing.assert_allclose(solver.forward_dynamics(q_off, qd_off, np.array(tau)), expected, rtol=1e-9,
                                       atol=1e-9)


def test_dependent_rows_without_damping_are_a_status(build_cache):
    model = _fourbar()
    q, qd = _consistent(0.7, 1.3)
    with pytest.raises(rbdgen.ConstraintError, match="closed loops"):
        rbdgen.NumpySolver(model).forward_dynamics(q, qd, np.zeros(3))
    c = rbdgen.generate(model, ops=["forward_dynamics"], prefix="fourbar_undamped").compile(
        flags=TEST_FLAGS, cache=build_cache, validate=False)
    with pytest.raises(rbdgen.ConstraintError):
        c.forward_dynamics(q, qd, np.zeros(3))


def test_fourbar_derivatives_against_central_differences(fourbar_c):
    q, qd = _consistent(0.7, 1.3)
    tau = np.array([0.5, 0.2, -0.1])
    d = fourbar_c.forward_dynamics_derivatives(q, qd, tau)
    step = 1e-6
    for name, x in (("q", q), ("qd", qd), ("tau", tau)):
        columns = []
        for k in range(3):
            args = {"q": q, "qd": qd, "tau": tau}
            hi, lo = dict(args), dict(args)
            hi[name], lo[name] = x + step * np.eye(3)[k], x - step * np.eye(3)[k]
            columns.append((fourbar_c.forward_dynamics(**hi) - fourbar_c.forward_dynamics(**lo)) / (2 * step))
        np.testing.assert_allclose(d[f"dacc_d{name}"], np.array(columns).T, rtol=1e-6, atol=1e-6)


def test_casadi_forward_dynamics_with_loops():
    ca = pytest.importorskip("casadi")
    model = _fourbar()
    f = rbdgen.generate(model, ops=["forward_dynamics"], damping=DAMPING, baumgarte=GAINS).casadi("forward_dynamics")
    q, qd = _consistent(2.1, -0.4)
    tau = np.array([0.0, 1.2, -0.3])
    expected, _ = _planar_forward(q, qd, tau, *GAINS)
    got = np.array(f(q, qd, tau, ca.DM.zeros(6 * len(model.links)))).ravel()
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


def test_model_records_its_loops():
    model = _fourbar()
    again = rbdgen.RobotModel.from_dict(model.as_dict())
    assert again.loops == model.loops and again.digest == model.digest
    free = rbdgen.RobotModel.from_dict({k: v for k, v in model.as_dict().items() if k != "loops"})
    assert free.loops == () and free.digest != model.digest
    with pytest.raises(rbdgen.ModelError, match="unknown links"):
        (rbdgen.RobotBuilder("bad").add_link("a").add_link("b", mass=1)
         .add_joint("j", "revolute", "a", "b").loop("b", "nowhere").build())


#: MuJoCo's impedance at its largest (mjMAXIMP): the constraint's regulariser is (1 - d) / d of its inertia, so
#: MuJoCo's acceleration is the hard constraint's within a few times that (measured: 5.5e-5 relative).
IMPEDANCE = 0.9999
SOFTNESS = (1 - IMPEDANCE) / IMPEDANCE

MJCF_FOURBAR = f"""
<mujoco model="fourbar">
  <option gravity="0 -{GRAVITY} 0"/>
  <worldbody>
    <body name="crank" euler="0 0 {{t1}}">
      <joint name="j1" type="hinge" axis="0 0 1"/>
      <inertial pos="{L1 / 2} 0 0" mass="{MASS[0]}" diaginertia="1e-4 {MASS[0] * L1 ** 2 / 12} {MASS[0] * L1 ** 2 / 12}"/>
      <body name="coupler" pos="{L1} 0 0" euler="0 0 {{t2}}">
        <joint name="j2" type="hinge" axis="0 0 1"/>
        <inertial pos="{L2 / 2} 0 0" mass="{MASS[1]}" diaginertia="1e-4 {MASS[1] * L2 ** 2 / 12} {MASS[1] * L2 ** 2 / 12}"/>
      </body>
    </body>
    <body name="rocker" pos="{GROUND} 0 0" euler="0 0 {{t3}}">
      <joint name="j3" type="hinge" axis="0 0 1"/>
      <inertial pos="{L3 / 2} 0 0" mass="{MASS[2]}" diaginertia="1e-4 {MASS[2] * L3 ** 2 / 12} {MASS[2] * L3 ** 2 / 12}"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="coupler" body2="rocker" anchor="{L2} 0 0" solref="{{solref}}" solimp="{IMPEDANCE} {IMPEDANCE} 0.001"/>
  </equality>
</mujoco>
"""


def test_mujoco_connect_made_stiff(tmp_path):
    mujoco = pytest.importorskip("mujoco")
    q0, _ = _consistent(0.7, 0.0)
    path = tmp_path / "fourbar.xml"  # the file's pose closes the loop (MuJoCo's body2 anchor is taken there)
    path.write_text(MJCF_FOURBAR.replace("{t1}", repr(math.degrees(q0[0]))).replace("{t2}", repr(math.degrees(q0[1]))).replace("{t3}", repr(math.degrees(q0[2])))
                    .replace("{solref}", "0.0001 1"))
    model = rbdgen.load_mjcf(str(path))
    assert [(lp.link1, lp.link2, lp.kind) for lp in model.loops] == [("coupler", "rocker", "point")]
    solver = rbdgen.NumpySolver(model, damping=DAMPING)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    for t1, w1, tau in STATES:
        q, qd = _consistent(t1, w1)
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = q - q0, qd, tau  # MuJoCo's qpos: from the file's pose
        mujoco.mj_forward(m, d)
        # rbdgen's q is MuJoCo's qpos (the file's pose folded into the joint origins); the crank's anchor
        # point (body1's frame) is held on the rocker's point MuJoCo computed from the file's pose
        expected = _planar_forward(q, qd, np.array(tau))[0]
        got = solver.forward_dynamics(d.qpos.copy(), qd, np.array(tau))
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
        # MuJoCo's soft constraint: the hard one's within its softness
        assert np.abs(d.qacc - got).max() < 3 * SOFTNESS * np.abs(got).max()


def _loop_error(solver, q, loop):
    """(p1 - p2, R1 Rrel R2^T) of a loop at q, from the solver's forward kinematics of its two links."""
    f1, f2 = solver.forward_kinematics(q, loop.link1), solver.forward_kinematics(q, loop.link2)
    R1, R2 = rotation_matrix(f1[3:]), rotation_matrix(f2[3:])
    return f1[:3] + R1 @ loop.offset1 - f2[:3] - R2 @ loop.offset2, R1 @ rotation_matrix(loop.rotation) @ R2.T


#: The same four-bar with MuJoCo 3's site-based connect: the file's pose need not close the loop (all angles 0
#: here, so MuJoCo's qpos is rbdgen's q); the sites' own orientations do not matter to a connect.
MJCF_FOURBAR_SITES = (
    MJCF_FOURBAR.replace("{t1}", "0").replace("{t2}", "0").replace("{t3}", "0")
    .replace('<joint name="j2" type="hinge" axis="0 0 1"/>',
             f'<joint name="j2" type="hinge" axis="0 0 1"/><site name="coupler_tip" pos="{L2} 0 0" euler="30 0 10"/>')
    .replace('<joint name="j3" type="hinge" axis="0 0 1"/>',
             f'<joint name="j3" type="hinge" axis="0 0 1"/><site name="rocker_tip" pos="{L3} 0 0" euler="0 -20 0"/>')
    .replace(f'body1="coupler" body2="rocker" anchor="{L2} 0 0"', 'site1="coupler_tip" site2="rocker_tip"'))


def test_mujoco_site_connect_made_stiff(tmp_path):
    """``<connect site1 site2>``: the sites' positions held together; rbdgen's forward dynamics is the planar
    Lagrangian's and MuJoCo's stiff one within its softness, and the loop's error is MuJoCo's anywhere."""
    mujoco = pytest.importorskip("mujoco")
    path = tmp_path / "fourbar_sites.xml"
    path.write_text(MJCF_FOURBAR_SITES.replace("{solref}", "0.0001 1"))
    model = rbdgen.load_mjcf(str(path))
    (loop,) = model.loops
    assert (loop.link1, loop.link2, loop.kind, loop.offset1, loop.offset2) == ("coupler", "rocker", "point",
                                                                               (L2, 0, 0), (L3, 0, 0))
    solver = rbdgen.NumpySolver(model, damping=DAMPING)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    for t1, w1, tau in STATES:
        q, qd = _consistent(t1, w1)
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = q, qd, tau
        mujoco.mj_forward(m, d)
        got = solver.forward_dynamics(q, qd, np.array(tau))
        np.testing.assert_allclose(got, _planar_forward(q, qd, np.array(tau))[0], rtol=1e-9, atol=1e-9)
        assert np.abs(d.qacc - got).max() < 3 * SOFTNESS * np.abs(got).max()
    d.qpos[:] = (0.3, -0.2, 0.9)  # off the loop: rbdgen's error p1 - p2 is MuJoCo's (site1 - site2)
    mujoco.mj_forward(m, d)
    assert np.linalg.norm(d.efc_pos) > 0.1
    np.testing.assert_allclose(_loop_error(solver, d.qpos.copy(), loop)[0], d.efc_pos, atol=1e-12)


def test_command_line_declares_the_actuated_joints(tmp_path):
    pytest.importorskip("mujoco")
    from rbdgen.codegen import cli

    q0, _ = _consistent(0.7, 0.0)
    robot = tmp_path / "fourbar.xml"
    robot.write_text(MJCF_FOURBAR.replace("{t1}", repr(math.degrees(q0[0]))).replace("{t2}", repr(math.degrees(q0[1])))
                     .replace("{t3}", repr(math.degrees(q0[2]))).replace("{solref}", "0.02 1")
                     .replace("{IMPEDANCE}", "0.9"))
    out = tmp_path / "out"
    assert cli.main(["generate", str(robot), "-o", str(out), "--ops", "loop_inverse_dynamics", "--actuated", "j1",
                     "--damping", "1e-9"]) == 0
    import json
    options = json.loads((out / "fourbar.json").read_text())["options"]
    assert options["actuated"] == ["j1"] and options["damping"] == [1e-9, 10]
    assert cli.main(["generate", str(robot), "-o", str(tmp_path / "bad"), "--ops", "loop_inverse_dynamics"]) != 0


def test_unsupported_equalities_warn(tmp_path, caplog):
    pytest.importorskip("mujoco")
    path = tmp_path / "pair.xml"
    path.write_text("""<mujoco model="pair"><worldbody>
      <body name="a"><joint name="ja" type="hinge"/><geom size="0.1" mass="1"/></body>
      <body name="b" pos="0 0 1"><joint name="jb" type="hinge"/><geom size="0.1" mass="1"/></body>
      </worldbody><tendon><fixed name="t"><joint joint="ja" coef="1"/></fixed></tendon>
      <equality><joint joint1="ja" joint2="jb"/><weld body1="a" body2="b"/><tendon tendon1="t"/></equality></mujoco>""")
    with caplog.at_level(logging.WARNING):
        model = rbdgen.load_mjcf(str(path))
    assert "joint constraints are not supported" in caplog.text
    assert "tendon constraints are not supported" in caplog.text
    (weld,) = model.loops
    assert (weld.kind, weld.link1, weld.link2) == ("frame", "a", "b")
    # the weld holds where the file puts the bodies: body1's anchor is body2's origin, 1 m above
    np.testing.assert_allclose(weld.offset1, (0, 0, 1), atol=1e-12)
    np.testing.assert_allclose(weld.rotation, (0, 0, 0, 1), atol=1e-12)


def test_loop_inverse_dynamics_returns_the_crank_torque_and_the_loop_force(build_cache):
    model = _fourbar()
    c = rbdgen.generate(model, ops=["loop_inverse_dynamics", "forward_dynamics"], damping=DAMPING,
                        actuated=["j1"], prefix="fourbar_id").compile(flags=TEST_FLAGS, cache=build_cache, samples=4)
    numpy_engine = rbdgen.NumpySolver(model, actuated=["j1"])
    for t1, w1, (tau1, _, _) in STATES:
        q, qd = _consistent(t1, w1)
        qdd, force = _planar_forward(q, qd, np.array([tau1, 0.0, 0.0]))  # the motion the crank torque tau1 makes
        for solver in (numpy_engine, c):
            tau, loop_forces = solver.loop_inverse_dynamics(q, qd, qdd)
            np.testing.assert_allclose(tau, [tau1], rtol=1e-9, atol=1e-9)
            # the planar loop's force (x, y); its z row is dependent: the least-norm share is 0
            np.testing.assert_allclose(loop_forces, [*force, 0.0], rtol=1e-9, atol=1e-9)


def test_an_under_actuated_loop_mechanism_is_a_status(build_cache):
    """The four-bar on a floating base: the crank alone cannot hold the base against gravity (the tree's base
    rows are not zero), so damped least squares has no answer to give: ConstraintError, in NumPy and in C."""
    model = _fourbar(floating=True)
    base = rbdgen.BaseState([0, 0, 0], [0, 0, 0, 1], np.zeros(6), np.zeros(6))
    q, qd = _consistent(*STATES[0][:2])
    engine = rbdgen.NumpySolver(model, damping=DAMPING, actuated=["j1"])
    assert np.abs(engine.inverse_dynamics(base, q, qd, np.zeros(3))[:6]).max() > 1.0
    c = rbdgen.generate(model, ops=["loop_inverse_dynamics"], damping=DAMPING, actuated=["j1"],
                        prefix="fourbar_float").compile(flags=TEST_FLAGS, cache=build_cache, samples=4)
    for solver in (engine, c):
        with pytest.raises(rbdgen.ConstraintError, match="under-actuated"):
            solver.loop_inverse_dynamics(base, q, qd, np.zeros(3))


def test_contact_dynamics_keeps_the_loops(build_cache):
    model = _fourbar()
    tip = [rbdgen.Contact("crank", offset=(L1, 0, 0))]
    solver = rbdgen.NumpySolver(model, contacts=tip, damping=DAMPING)
    q, qd = _consistent(0.7, 0.0)
    tau = np.array([0.5, 0.2, -0.1])
    acc, _ = solver.contact_dynamics(q, qd, tau, [0.0])  # the contact inactive: the four-bar's own motion
    np.testing.assert_allclose(acc, _planar_forward(q, qd, tau)[0], rtol=1e-9, atol=1e-9)
    acc, forces = solver.contact_dynamics(q, qd, tau, [1.0])  # the crank's tip held: the linkage cannot move
    np.testing.assert_allclose(acc, 0.0, atol=1e-9)
    qd_plus, _ = solver.impulse_dynamics(q, _consistent(0.7, 1.3)[1], [1.0])
    np.testing.assert_allclose(qd_plus, 0.0, atol=1e-9)


def test_frame_loop_welds_a_block_to_a_pendulum():
    """A block on three slides and a hinge, welded (a frame loop) to a pendulum's tip: one rigid body turning
    about the pendulum's axis, whose angular acceleration is (tau - g sum m x) / I about the axis."""
    length, (m_a, m_b), (i_a, i_b), c = 0.6, (1.2, 0.8), (0.05, 0.02), np.array([0.1, 0.05, 0.0])
    builder = (rbdgen.RobotBuilder("welded").add_link("ground")
               .add_link("rod", mass=m_a, com=(length / 2, 0, 0), rotational=((0.01, 0, 0), (0, 0.05, 0), (0, 0, i_a)))
               .add_link("sx").add_link("sy")
               .add_link("block", mass=m_b, com=tuple(c), rotational=((0.01, 0, 0), (0, 0.01, 0), (0, 0, i_b)))
               .add_link("slider")
               .add_joint("turn", "revolute", "ground", "rod", axis=(0, 0, 1))
               .add_joint("x", "prismatic", "ground", "sx", axis=(1, 0, 0))
               .add_joint("y", "prismatic", "sx", "sy", axis=(0, 1, 0))
               .add_joint("z", "prismatic", "sy", "slider", axis=(0, 0, 1))
               .add_joint("spin", "revolute", "slider", "block", axis=(0, 0, 1))
               .loop("rod", "block", "frame", offset1=(length, 0, 0)))
    model = builder.build(gravity=(0, -GRAVITY, 0), joint_order="depth_first")
    assert model.joint_names == ("turn", "x", "y", "z", "spin")
    solver = rbdgen.NumpySolver(model, damping=DAMPING)  # the weld's x and y rotation rows are dependent
    for theta, rate, tau in ((0.3, 1.1, 2.0), (2.5, -0.7, -1.0)):
        e, n = np.array([math.cos(theta), math.sin(theta), 0.0]), np.array([-math.sin(theta), math.cos(theta), 0.0])
        q = np.array([theta, length * e[0], length * e[1], 0.0, theta])
        qd = np.array([rate, length * rate * n[0], length * rate * n[1], 0.0, rate])
        com_b = length * e + c[0] * e + c[1] * n
        inertia = i_a + m_a * (length / 2) ** 2 + i_b + m_b * (com_b[:2] @ com_b[:2])
        expected = (tau - GRAVITY * (m_a * length / 2 * e[0] + m_b * com_b[0])) / inertia
        acc = solver.forward_dynamics(q, qd, np.array([tau, 0, 0, 0, 0]))
        # the block's coordinates follow the rod rigidly: d2/dt2 (L e) = L (acc n - rate^2 e)
        np.testing.assert_allclose(acc, [expected, *(length * (expected * n - rate ** 2 * e))[:3], expected],
                                   rtol=1e-9, atol=1e-9)


def test_mujoco_weld_holds_the_same_poses(tmp_path):
    """MuJoCo's weld (anchor on body2, relpose from the file's pose) and rbdgen's frame loop hold the same poses:
    states projected onto MuJoCo's constraint are on rbdgen's."""
    mujoco = pytest.importorskip("mujoco")
    path = tmp_path / "weld.xml"
    path.write_text("""<mujoco model="weld"><default><geom contype="0" conaffinity="0"/></default><worldbody>
      <body name="a1"><joint name="a1" type="hinge" axis="0 0 1"/><geom size="0.05" mass="1"/>
        <body name="a2" pos="0.3 0 0"><joint name="a2" type="hinge" axis="0 1 0"/><geom size="0.05" mass="1"/>
          <body name="a3" pos="0.3 0 0" euler="10 20 30"><joint name="a3" type="hinge" axis="1 0 0"/>
            <geom size="0.05" mass="1"/></body></body></body>
      <body name="b1" pos="0.6 0.2 0.1"><joint name="b1" type="slide" axis="1 0 0"/><geom size="0.05" mass="1"/>
        <body name="b2"><joint name="b2" type="slide" axis="0 1 0"/><geom size="0.05" mass="1"/>
          <body name="b3"><joint name="b3" type="slide" axis="0 0 1"/><geom size="0.05" mass="1"/>
            <body name="b4" euler="5 -15 40"><joint name="b4" type="hinge" axis="0 0 1"/><geom size="0.05" mass="1"/>
      </body></body></body></body></worldbody>
      <equality><weld body1="a3" body2="b4" anchor="0.05 0 0"/></equality></mujoco>""")
    model = rbdgen.load_mjcf(str(path))
    (weld,) = model.loops
    solver = rbdgen.NumpySolver(model)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)

    def quat_matrix(xyzw):
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, np.roll(xyzw, 1))
        return R.reshape(3, 3)

    rng = np.random.default_rng(5)
    for _ in range(3):
        q = rng.normal(0, 0.3, m.nq)
        for _ in range(50):  # Gauss-Newton onto MuJoCo's weld
            d.qpos[:] = q
            mujoco.mj_forward(m, d)
            q = q - np.linalg.pinv(d.efc_J.reshape(d.nefc, m.nv)) @ d.efc_pos
        assert np.abs(d.efc_pos).max() < 1e-12
        f1, f2 = solver.forward_kinematics(q, "a3"), solver.forward_kinematics(q, "b4")
        R1, R2 = quat_matrix(f1[3:]), quat_matrix(f2[3:])
        np.testing.assert_allclose(f1[:3] + R1 @ weld.offset1, f2[:3] + R2 @ weld.offset2, atol=1e-12)
        np.testing.assert_allclose(R1 @ quat_matrix(np.array(weld.rotation)), R2, atol=1e-12)


def test_mujoco_site_weld_and_connect_hold_the_same_poses(tmp_path, caplog):
    """``<weld site1 site2>`` holds the two sites' frames together, ``<connect site1 site2>`` their positions (a
    site of the world here): off the constraints rbdgen's loop errors are MuJoCo's site errors at any q, and
    states projected onto MuJoCo's constraints are on rbdgen's loops."""
    mujoco = pytest.importorskip("mujoco")
    path = tmp_path / "weld_sites.xml"
    path.write_text("""<mujoco model="weld_sites"><default><geom contype="0" conaffinity="0"/></default><worldbody>
      <site name="fixed" pos="0.7 0.4 0.3"/>
      <body name="a1"><joint name="a1" type="hinge" axis="0 0 1"/><geom size="0.05" mass="1"/>
        <body name="a2" pos="0.3 0 0"><joint name="a2" type="hinge" axis="0 1 0"/><geom size="0.05" mass="1"/>
          <body name="a3" pos="0.3 0 0" euler="10 20 30"><joint name="a3" type="hinge" axis="1 0 0"/>
            <geom size="0.05" mass="1"/><site name="hand" pos="0.05 0.02 -0.01" euler="-30 45 10"/></body></body></body>
      <body name="b1" pos="0.6 0.2 0.1"><joint name="b1" type="slide" axis="1 0 0"/><geom size="0.05" mass="1"/>
        <body name="b2"><joint name="b2" type="slide" axis="0 1 0"/><geom size="0.05" mass="1"/>
          <body name="b3"><joint name="b3" type="slide" axis="0 0 1"/><geom size="0.05" mass="1"/>
            <body name="b4" euler="5 -15 40"><joint name="b4" type="hinge" axis="0 0 1"/><geom size="0.05" mass="1"/>
              <site name="grip" pos="0 0.03 0.04" euler="20 0 -60"/>
            <body name="b5" pos="0 0 0.2"><joint name="b5" type="hinge" axis="0 1 0"/>
              <joint name="b6" type="hinge" axis="1 0 0"/><joint name="b7" type="slide" axis="0 0 1"/>
              <geom size="0.05" mass="1"/>
              <site name="tip" pos="0.1 0 0"/>
      </body></body></body></body></body></worldbody>
      <equality><weld site1="hand" site2="grip" torquescale="2"/><connect site1="tip" site2="fixed"/></equality>
      </mujoco>""")
    with caplog.at_level(logging.WARNING):
        model = rbdgen.load_mjcf(str(path))
    assert "torquescale 2 ignored" in caplog.text
    weld, connect = model.loops
    assert (weld.link1, weld.link2, weld.kind) == ("a3", "b4", "frame")
    assert (connect.link1, connect.link2, connect.kind, connect.offset2) == ("b5", "world", "point", (0.7, 0.4, 0.3))
    solver = rbdgen.NumpySolver(model)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    hand, grip, tip, fixed = (mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, name)
                              for name in ("hand", "grip", "tip", "fixed"))
    site = lambda s: (d.site_xpos[s], d.site_xmat[s].reshape(3, 3))  # noqa: E731
    rng = np.random.default_rng(7)
    for _ in range(3):
        d.qpos[:] = rng.normal(0, 0.4, m.nq)
        mujoco.mj_forward(m, d)
        (p1, X1), (p2, X2) = site(hand), site(grip)
        position, rotation = _loop_error(solver, d.qpos.copy(), weld)
        assert np.linalg.norm(p1 - p2) > 0.05 and np.linalg.norm(X1 @ X2.T - np.eye(3)) > 0.1
        np.testing.assert_allclose(position, p1 - p2, atol=1e-12)
        np.testing.assert_allclose(rotation, X1 @ X2.T, atol=1e-12)
        np.testing.assert_allclose(_loop_error(solver, d.qpos.copy(), connect)[0], site(tip)[0] - site(fixed)[0],
                                   atol=1e-12)
        q = d.qpos.copy()
        for _ in range(50):  # Gauss-Newton onto MuJoCo's weld and connect
            d.qpos[:] = q
            mujoco.mj_forward(m, d)
            q = q - np.linalg.pinv(d.efc_J.reshape(d.nefc, m.nv)) @ d.efc_pos
        assert np.abs(d.efc_pos).max() < 1e-12
        for loop in (weld, connect):
            position, rotation = _loop_error(solver, q, loop)
            np.testing.assert_allclose(position, 0.0, atol=1e-12)
        np.testing.assert_allclose(_loop_error(solver, q, weld)[1], np.eye(3), atol=1e-12)


def test_floating_base_loop_holds_its_relative_acceleration():
    """A four-bar on a floating base, off the loop: the tips' classical accelerations (rbdgen's own
    forward_acceleration_kinematics at the accelerations forward_dynamics returns) differ by -kd v - kp e."""
    builder = (rbdgen.RobotBuilder("floating_fourbar").add_link("ground", mass=2.0, rotational=((0.1, 0, 0), (0, 0.1, 0),
                                                                                                (0, 0, 0.1)))
               .add_link("crank", **_rod(L1, MASS[0])).add_link("coupler", **_rod(L2, MASS[1]))
               .add_link("rocker", **_rod(L3, MASS[2])).add_link("coupler_tip").add_link("rocker_tip")
               .add_joint("j1", "revolute", "ground", "crank", axis=(0, 0, 1))
               .add_joint("j2", "revolute", "crank", "coupler", xyz=(L1, 0, 0), axis=(0, 0, 1))
               .add_joint("j3", "revolute", "ground", "rocker", xyz=(GROUND, 0, 0), axis=(0, 0, 1))
               .add_joint("t1", "fixed", "coupler", "coupler_tip", xyz=(L2, 0, 0))
               .add_joint("t2", "fixed", "rocker", "rocker_tip", xyz=(L3, 0, 0))
               .loop("coupler_tip", "rocker_tip"))
    model = builder.build(floating=True, joint_order="depth_first")
    kp, kd = GAINS
    solver = rbdgen.NumpySolver(model, damping=DAMPING, baumgarte=GAINS)
    rng = np.random.default_rng(7)
    q, qd = _consistent(0.7, 1.3)
    q, qd = q + rng.normal(0, 0.02, 3), qd + rng.normal(0, 0.1, 3)
    quat = rng.normal(size=4)
    base = rbdgen.BaseState(rng.normal(size=3), quat / np.linalg.norm(quat), rng.normal(size=6))
    acc = solver.forward_dynamics(base, q, qd, rng.normal(size=9))
    moving = rbdgen.BaseState(base.translation, base.rotation_xyzw, base.velocity, acc[:6])
    a1, a2 = (solver.forward_acceleration_kinematics(moving, q, qd, acc[6:], tip)[3:] for tip in ("coupler_tip",
                                                                                                 "rocker_tip"))
    v1, v2 = (solver.forward_velocity_kinematics(base, q, qd, tip)[3:] for tip in ("coupler_tip", "rocker_tip"))
    p1, p2 = (solver.forward_kinematics(base, q, tip)[:3] for tip in ("coupler_tip", "rocker_tip"))
    assert np.linalg.norm(p1 - p2) > 1e-3  # off the loop
    np.testing.assert_allclose(a1 - a2, -kd * (v1 - v2) - kp * (p1 - p2), rtol=1e-9, atol=1e-9)


def test_info_and_identification_say_the_loops(capsys, caplog, tmp_path):
    """`rbdgen info` lists a model's loops; `identifiable` says it leaves them out (the open tree's answer)."""
    from rbdgen.codegen import cli

    robot = tmp_path / "fourbar.xml"
    robot.write_text(MJCF_FOURBAR.replace("{t1}", "0").replace("{t2}", "90").replace("{t3}", "90")
                     .replace("{solref}", "0.02 1"))
    assert cli.main(["info", str(robot)]) == 0
    out = capsys.readouterr().out
    assert "closed loops (1;" in out and "point:" in out
    with caplog.at_level(logging.WARNING):
        rbdgen.identifiable(rbdgen.load_mjcf(str(robot)), states=4)
    assert "closed loops are left out" in caplog.text
