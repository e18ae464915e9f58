"""Kinematics (frames, Jacobians, CoM, centroidal momentum) in every backend.

References: Pinocchio (``framesForwardKinematics``, ``getFrameJacobian`` with
LOCAL_WORLD_ALIGNED, ``getFrameClassicalAcceleration``, ``centerOfMass``,
``jacobianCenterOfMass``, ``computeCentroidalMap(TimeVariation)``) and dynibo 0.5.2,
converted to rbdgen's conventions (`rbdgen.testing.references`), on a fixed arm (Panda), a
floating quadruped (Solo12), a branching hand (Allegro) and a floating humanoid with mimic
joints in its grippers (Talos: references reduced by the mimic map); physical identities
(twist = J nu, derivatives by central differences, momentum from the bodies'
momenta). The compiled C and the CasADi functions are compared with the NumPy engine.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import TIGHT, dynibo, load_reference, pinocchio, random_states, rel_error, solver
from robots import ROBOTS, example_robot_data_dir
from rbdgen.codegen.generator import KINEMATICS_OPERATIONS

#: robot -> links checked (a leaf, a link welded through fixed joints, a link mid-chain, the root)
LINKS = {
    "panda": ["panda_hand_tcp", "panda_link4", "panda_link0"],
    "solo12": ["FL_FOOT", "HR_LOWER_LEG", "base_link"],
    "hand": ["link_3.0_tip", "link_14.0", "link_7.0"],
    "talos": ["gripper_left_fingertip_1_link", "gripper_right_inner_single_link", "left_sole_link"],
}
NAMES = list(LINKS)
N = 4


def _states(name, seed=3):
    return random_states(solver(name), N, seed)


def _flip(expected, got):
    """``expected``'s quaternion (the last four entries) with the sign of ``got``'s: q and -q are one rotation."""
    expected = expected.copy()
    if expected[3:] @ got[3:] < 0:
        expected[3:] *= -1
    return expected


def _close(got, expected, tol=1e-7):
    """Central differences: normwise relative error below ``tol``, absolute below tol * 1e-2 near zero."""
    return rel_error(got, expected, floor=1e-2) < tol


def _check(got, expected, what):
    """Normwise relative error at most 1e-12; results below 1e-2 in norm (an exact zero
    Jacobian derivative of the base link, say) are compared to 1e-14 absolutely."""
    err = rel_error(got, expected, floor=1e-2)
    assert err <= TIGHT, f"{what}: {err:.2e}"


# -- NumPy engine against Pinocchio and dynibo -----------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_frames_against_pinocchio(name):
    _check_frames(solver(name), pinocchio(name), _states(name), LINKS[name])


def _check_frames(s, ref, st, links):
    """Every frame operation of ``s`` on ``links`` and the poses of all links against the reference ``ref``."""
    for i in range(st.n):
        head, b = st.head(i), st.ref_base(i)
        q, qd, qdd = st.q[i], st.qd[i], st.qdd[i]
        for link in links:
            what = f"{link} state {i}"
            pose = s.forward_kinematics(*head, q, link)
            _check(pose, _flip(ref.forward_kinematics(b, q, link), pose), f"pose {what}")
            _check(s.jacobian(*head, q, link), ref.jacobian(b, q, link), f"jacobian {what}")
            _check(s.jacobian_derivative(*head, q, qd, link), ref.jacobian_derivative(b, q, qd, link),
                   f"jacobian_derivative {what}")
            _check(s.forward_velocity_kinematics(*head, q, qd, link), ref.forward_velocity_kinematics(b, q, qd, link),
                   f"velocity {what}")
            _check(s.forward_acceleration_kinematics(*head, q, qd, qdd, link),
                   ref.forward_acceleration_kinematics(b, q, qd, qdd, link), f"acceleration {what}")
        poses = s.forward_kinematics_all(*head, q)
        for k, link in enumerate(s.link_names):
            _check(poses[k], _flip(ref.forward_kinematics(b, q, link), poses[k]), f"pose of {link} (all) state {i}")


def _check_centroidal(engine, ref, st):
    """The centre of mass, its Jacobian, A_G and its bias of ``engine`` against the reference ``ref``."""
    for i in range(st.n):
        head, b, q, qd = st.head(i), st.ref_base(i), st.q[i], st.qd[i]
        _check(engine.center_of_mass(*head, q), ref.center_of_mass(b, q), f"com state {i}")
        _check(engine.center_of_mass_jacobian(*head, q), ref.center_of_mass_jacobian(b, q), f"com jacobian state {i}")
        _check(engine.centroidal_momentum_matrix(*head, q), ref.centroidal_momentum_matrix(b, q), f"A_G state {i}")
        _check(engine.centroidal_momentum_bias(*head, q, qd), ref.centroidal_momentum_bias(b, q, qd),
               f"Adot_G nu state {i}")


@pytest.mark.parametrize("name", NAMES)
def test_centroidal_against_pinocchio(name):
    _check_centroidal(solver(name), pinocchio(name), _states(name))


def _link_with_inertia(name, mass, com, inertia):
    ixx, ixy, ixz, iyy, iyz, izz = inertia
    return (f'<link name="{name}"><inertial><origin xyz="{com}" rpy="0.2 -0.1 0.3"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx}" ixy="{ixy}" ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/></inertial></link>')


def _moving_joint(name, parent, child, kind, axis, xyz, rpy):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>'
            f'<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>')


#: joints the bundled robots lack: a tilted and a negative axis, a prismatic joint on a tilted axis, a
#: branch; rotated joint origins and inertia frames (the general transforms of `rbdgen.algorithms.centroidal`)
AXES_URDF = ("<robot name=\"axes\">"
             + _link_with_inertia("root", 2.0, "0.01 0.02 0.03", (0.02, 0.001, 0.002, 0.03, 0.001, 0.04))
             + "".join(_link_with_inertia(f"l{k}", 0.5 + 0.3 * k, f"0.05 {-0.01 * k} 0.02",
                                          (0.01, 0.001, -0.002, 0.012, 0.0005, 0.009)) for k in range(1, 6))
             + _moving_joint("tilted", "root", "l1", "revolute", "0 1 1", "0.1 0 0.2", "0.3 0 -0.2")
             + _moving_joint("negative", "l1", "l2", "revolute", "0 0 -1", "0 0.2 0", "0 0.4 0")
             + _moving_joint("slide", "l2", "l3", "prismatic", "1 1 0", "0.1 0.1 0", "-0.2 0.1 0.5")
             + _moving_joint("minus_y", "root", "l4", "revolute", "0 -1 0", "-0.1 0 0.1", "0 0 1.2")
             + _moving_joint("x", "l4", "l5", "revolute", "1 0 0", "0 -0.2 0", "0 0 0")
             + "</robot>")


@pytest.mark.parametrize("floating", [False, True])
def test_centroidal_general_joints_against_pinocchio(tmp_path, build_model, floating):
    """The centre of mass, its Jacobian, A_G and its bias where joints turn about tilted or negative axes or
    slide, from rotated origins: NumPy and C against Pinocchio."""
    path = tmp_path / "axes.urdf"
    path.write_text(AXES_URDF)
    model = rbdgen.load_urdf(str(path), floating=floating)
    ref = load_reference(str(path), floating, "pinocchio")
    numpy_solver = rbdgen.NumpySolver(model)
    st = random_states(numpy_solver, N, 7)
    for engine in (numpy_solver, build_model(model, ops=list(KINEMATICS_OPERATIONS))):
        _check_centroidal(engine, ref, st)


@pytest.mark.parametrize("name", ["panda", "solo12", "talos"])
def test_frames_against_dynibo(name):
    """dynibo 0.5.2's own results, quaternion signs included (both compose them along the chain)."""
    s, ref, st = solver(name), dynibo(name), _states(name)
    tool = ([0.01, -0.02, 0.1], [0, 0, 0.3826834323650898, 0.9238795325112867])
    for i in range(N):
        head, b = st.head(i), st.ref_base(i)
        q, qd, qdd = st.q[i], st.qd[i], st.qdd[i]
        _check(s.forward_kinematics_all(*head, q), ref.forward_kinematics_all(b, q), f"poses state {i}")
        for link in LINKS[name]:
            what = f"{name} {link} state {i}"
            _check(s.forward_kinematics(*head, q, link), ref.forward_kinematics(b, q, link), f"pose {what}")
            _check(s.jacobian(*head, q, link), ref.jacobian(b, q, link), f"jacobian {what}")
            _check(s.jacobian_derivative(*head, q, qd, link), ref.jacobian_derivative(b, q, qd, link),
                   f"jacobian_derivative {what}")
            _check(s.forward_velocity_kinematics(*head, q, qd, link), ref.forward_velocity_kinematics(b, q, qd, link),
                   f"velocity {what}")
            _check(s.forward_velocity_kinematics(*head, q, qd, link, tool=rbdgen.Pose(*tool)),
                   ref.forward_velocity_kinematics(b, q, qd, link, tool), f"tool velocity {what}")
            _check(s.forward_acceleration_kinematics(*head, q, qd, qdd, link),
                   ref.forward_acceleration_kinematics(b, q, qd, qdd, link), f"acceleration {what}")


_INERTIAL = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'


@pytest.mark.parametrize("rpy", ["0 0 -4.71238898038", "3.14159265359 0 1.57079632679", "0.3 -2.9 2.5",
                                 "3 0.2 -3", "0 0 3.5", "-1.5707963268 0 0"])
def test_quaternion_sign_follows_the_urdf_like_dynibo(tmp_path, rpy):
    """A joint origin's quaternion is the product of the rpy half-angle quaternions (w may be negative,
    as in dynibo), not the w >= 0 quaternion of its matrix; through a fixed joint and a moving one."""
    import dynibo as dy

    path = tmp_path / "r.urdf"
    path.write_text(f"""<robot name="r"><link name="a">{_INERTIAL}</link><link name="b">{_INERTIAL}</link>
<link name="c">{_INERTIAL}</link><link name="d">{_INERTIAL}</link>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin rpy="{rpy}"/><axis xyz="0 1 0"/>
<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
<joint name="f" type="fixed"><parent link="b"/><child link="c"/><origin rpy="{rpy}" xyz="0.1 0 0"/></joint>
<joint name="g" type="fixed"><parent link="c"/><child link="d"/><origin rpy="{rpy}"/></joint></robot>""")
    ours, theirs = rbdgen.NumpySolver(rbdgen.load_urdf(str(path))), dy.Robot.from_urdf(str(path))
    for q in ([0.4], [-2.5]):
        for link in ("b", "c", "d"):
            pose = theirs.forward_kinematics(np.array(q), theirs.link_id(link))
            expected = np.concatenate([pose.translation, pose.rotation_xyzw])
            assert np.abs(ours.forward_kinematics(q, link) - expected).max() <= 1e-14, (link, q)


def test_a_quaternion_must_be_its_rotation():
    quarter = ((0.0, -1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0))  # +90 degrees about z
    assert rbdgen.Transform(quarter, quaternion=(0, 0, -0.5 ** 0.5, -0.5 ** 0.5)).quaternion[3] < 0
    assert rbdgen.Transform(quarter).quaternion == pytest.approx((0, 0, 0.5 ** 0.5, 0.5 ** 0.5))
    with pytest.raises(rbdgen.ModelError, match="is not the rotation"):
        rbdgen.Transform(quarter, quaternion=(0, 0, 0.5 ** 0.5, -0.5 ** 0.5))


# -- identities ------------------------------------------------------------------------------------
def _nu(st, i):
    """The generalized velocity of state i: [base velocity, qd] (qd alone for a fixed base)."""
    return np.r_[st.velocity[i], st.qd[i]] if st.floating else st.qd[i]


def _moved(st, i, h):
    """State i's (head, q) after a time h at constant velocity (the base turns about a world axis)."""
    q = st.q[i] + h * st.qd[i]
    if not st.floating:
        return (), q
    w, pdot = st.velocity[i, :3], st.velocity[i, 3:]
    angle = np.linalg.norm(w) * h
    axis = w / np.linalg.norm(w)
    turn = np.r_[np.sin(angle / 2) * axis, np.cos(angle / 2)]
    return (rbdgen.BaseState(st.translation[i] + h * pdot, _qmul(turn, st.quat[i]), st.velocity[i]),), q


def _qmul(a, b):
    (ax, ay, az, aw), (bx, by, bz, bw) = a, b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


@pytest.mark.parametrize("name", NAMES)
def test_twist_is_jacobian_times_velocity_and_fk_rate(name):
    """J nu = the link's twist = the rate of its pose along nu (central differences)."""
    s, st, h = solver(name), _states(name), 1e-6
    for i in range(N):
        head, q, qd = st.head(i), st.q[i], st.qd[i]
        for link in LINKS[name]:
            twist = s.forward_velocity_kinematics(*head, q, qd, link)
            _check(s.jacobian(*head, q, link) @ _nu(st, i), twist, f"J nu {link}")
            plus, minus = (s.forward_kinematics(*_moved(st, i, t)[0], _moved(st, i, t)[1], link) for t in (h, -h))
            pdot = (plus[:3] - minus[:3]) / (2 * h)
            Q = s.forward_kinematics(*head, q, link)[3:]
            dQ = (plus[3:] - minus[3:]) / (2 * h)
            omega = 2 * _qmul(dQ, Q * [-1, -1, -1, 1])[:3]  # w = 2 dQ/dt Q^-1
            assert _close(np.r_[omega, pdot], twist), (link, np.r_[omega, pdot], twist)


@pytest.mark.parametrize("name", NAMES)
def test_jacobian_rate_by_central_differences(name):
    """dJ/dt along nu (central differences) = jacobian_derivative, and Jdot nu = the acceleration at nudot = 0."""
    s, st, h = solver(name), _states(name), 1e-6
    for i in range(N):
        head, q, qd = st.head(i), st.q[i], st.qd[i]
        still = head
        if st.floating:
            still = (dataclasses.replace(head[0], acceleration=np.zeros(6)),)
        for link in LINKS[name]:
            Jdot = s.jacobian_derivative(*head, q, qd, link)
            plus, minus = (s.jacobian(*_moved(st, i, t)[0], _moved(st, i, t)[1], link) for t in (h, -h))
            assert _close(Jdot, (plus - minus) / (2 * h)), link
            acc = s.forward_acceleration_kinematics(*still, q, qd, np.zeros_like(qd), link)
            _check(Jdot @ _nu(st, i), acc, f"Jdot nu {link}")


@pytest.mark.parametrize("name", NAMES)
def test_centroidal_momentum_from_the_bodies(name):
    """A_G nu = the momentum about the CoM summed from each body's mass, CoM velocity and spin;
    its rate at nudot = 0 (central differences) = centroidal_momentum_bias."""
    s, st, h = solver(name), _states(name), 1e-6
    model = s.model
    bodies = [(-1, model.base_inertia)] if s.floating else []
    bodies += [(k, j.inertia) for k, j in enumerate(model.joints)]
    # each body's frame is its joint's child link (placed by the identity)
    frames = {b: next(k for k, link in enumerate(model.links) if link.body == b and link.pose == rbdgen.Transform())
              for b, _ in bodies}

    def momentum(head, q, qd):
        c = s.center_of_mass(*head, q)
        total = np.zeros(6)
        for b, inertia in bodies:
            pose = s.forward_kinematics(*head, q, frames[b])
            w, v = np.split(s.forward_velocity_kinematics(*head, q, qd, frames[b]), 2)
            R = _rotation(pose[3:])
            arm = R @ np.array(inertia.com)
            vc = v + np.cross(w, arm)
            L = inertia.mass * np.cross(pose[:3] + arm - c, vc) + R @ np.array(inertia.rotational) @ R.T @ w
            total += np.r_[L, inertia.mass * vc]
        return total

    for i in range(N):
        head, q, qd = st.head(i), st.q[i], st.qd[i]
        h_G = momentum(head, q, qd)
        _check(s.centroidal_momentum_matrix(*head, q) @ _nu(st, i), h_G, f"A_G nu state {i}")
        plus, minus = (momentum(*_moved(st, i, t), qd) for t in (h, -h))
        assert _close(s.centroidal_momentum_bias(*head, q, qd), (plus - minus) / (2 * h), 1e-6), i


def _rotation(quat):
    x, y, z, w = quat
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


# -- generated C and CasADi against the NumPy engine ----------------------------------------------
#: Links given C functions: a leaf through fixed joints and a mid-chain or root link.
FRAMES = {"panda": ["panda_hand_tcp", "panda_link4"], "solo12": ["FL_FOOT", "base_link"]}


@pytest.fixture(scope="module")
def built(build_cache):
    """``built(name)`` -> (Generated, validated CompiledSolver) with every kinematics operation."""
    memo = {}

    def get(name):
        if name not in memo:
            robot = ROBOTS[name]
            g = rbdgen.generate(robot.path, ops=KINEMATICS_OPERATIONS, prefix=f"{name}_kin", frames=FRAMES[name],
                                floating=robot.floating)
            memo[name] = g, g.compile(flags=TEST_FLAGS, cache=build_cache, samples=4)
        return memo[name]

    return get


def _calls(s, st, name):
    """(label, callable(solver, head, q, qd, qdd, **kw)) for every kinematics call on the generated links."""
    calls = [("forward_kinematics_all", lambda x, h, q, qd, qdd, **kw: x.forward_kinematics_all(*h, q, **kw)),
             ("center_of_mass", lambda x, h, q, qd, qdd, **kw: x.center_of_mass(*h, q, **kw)),
             ("center_of_mass_jacobian", lambda x, h, q, qd, qdd, **kw: x.center_of_mass_jacobian(*h, q, **kw)),
             ("centroidal_momentum_matrix",
              lambda x, h, q, qd, qdd, **kw: x.centroidal_momentum_matrix(*h, q, **kw)),
             ("centroidal_momentum_bias",
              lambda x, h, q, qd, qdd, **kw: x.centroidal_momentum_bias(*h, q, qd, **kw))]
    for link in FRAMES[name]:
        calls += [
            (f"forward_kinematics {link}", lambda x, h, q, qd, qdd, k=link, **kw: x.forward_kinematics(*h, q, k, **kw)),
            (f"jacobian {link}", lambda x, h, q, qd, qdd, k=link, **kw: x.jacobian(*h, q, k, **kw)),
            (f"jacobian_derivative {link}",
             lambda x, h, q, qd, qdd, k=link, **kw: x.jacobian_derivative(*h, q, qd, k, **kw)),
            (f"forward_velocity_kinematics {link}",
             lambda x, h, q, qd, qdd, k=link, **kw: x.forward_velocity_kinematics(*h, q, qd, k, **kw)),
            (f"forward_acceleration_kinematics {link}",
             lambda x, h, q, qd, qdd, k=link, **kw: x.forward_acceleration_kinematics(*h, q, qd, qdd, k, **kw))]
    return calls


@pytest.mark.parametrize("name", list(FRAMES))
def test_compiled_matches_numpy(built, name):
    """Batches, single states, out= and mask= of the C equal the NumPy engine's to 1e-12."""
    _, c = built(name)
    s, st = solver(name), _states(name, seed=5)
    assert set(c.operations) == set(KINEMATICS_OPERATIONS)
    mask = np.arange(N) % 2 == 0
    for label, call in _calls(s, st, name):
        expected = call(s, st.head(), st.q, st.qd, st.qdd)
        got = call(c, st.head(), st.q, st.qd, st.qdd)
        assert got.shape == expected.shape and got.shape[0] == N, label
        for i in range(N):
            _check(got[i], expected[i], f"{label} state {i}")
            single = call(c, st.head(i), st.q[i], st.qd[i], st.qdd[i])
            assert np.array_equal(single, got[i]), label
        out = np.full_like(expected, 7.0)
        assert call(c, st.head(), st.q, st.qd, st.qdd, out=out) is out and np.array_equal(out, got), label
        masked = call(c, st.head(), st.q, st.qd, st.qdd, mask=mask)
        assert np.array_equal(masked[mask], got[mask]) and np.all(masked[~mask] == 0), label


@pytest.mark.parametrize("name", list(FRAMES))
def test_compiled_against_pinocchio(built, name):
    """The compiled frames, centre of mass and centroidal operations against Pinocchio itself (a bug the
    NumPy engine shares would pass `test_compiled_matches_numpy`)."""
    _, c = built(name)
    ref, st = pinocchio(name), _states(name, seed=6)
    _check_frames(c, ref, st, FRAMES[name])
    _check_centroidal(c, ref, st)


@pytest.mark.parametrize("name", list(FRAMES))
def test_casadi_matches_numpy(built, name):
    """Every kinematics operation as a casadi.Function (any link) equals the NumPy engine to 1e-12."""
    g, _ = built(name)
    s, st = solver(name), _states(name, seed=6)
    link = LINKS[name][1]  # not among the C frames: CasADi takes any link
    for op in KINEMATICS_OPERATIONS:
        takes_link = op not in ("forward_kinematics_all",) and "center" not in op and "centroidal" not in op
        f = g.casadi(op, link) if takes_link else g.casadi(op)
        assert f.name() == f"{name}_kin_{op}" + (f"_{link}" if takes_link else "")
        for i in range(N):
            flat = {"q": st.q[i], "qd": st.qd[i], "qdd": st.qdd[i]}
            if st.floating:
                flat["base"] = np.r_[st.translation[i], st.quat[i], st.velocity[i], st.acceleration[i]]
            got = np.array(f(*[flat[n] for n in f.name_in()]))
            names = [n for n in ("q", "qd", "qdd") if n in f.name_in()]
            expected = getattr(s, op)(*st.head(i), *(flat[n] for n in names), *((link,) if takes_link else ()))
            _check(got.reshape(expected.shape), expected, f"{op} state {i}")


def test_casadi_jacobian_is_the_derivative_of_forward_kinematics(built):
    """CasADi differentiates the generated kinematics exactly: d(position)/dq = the Jacobian's linear rows."""
    import casadi as ca

    g, _ = built("panda")
    s, st = solver("panda"), _states("panda")
    fk = g.casadi("forward_kinematics", "panda_hand_tcp")
    q = ca.SX.sym("q", 7)
    dp = ca.Function("dp", [q], [ca.jacobian(fk(q)[:3], q)])
    for i in range(N):
        _check(np.array(dp(st.q[i])), s.jacobian(st.q[i], "panda_hand_tcp")[3:], f"state {i}")


def test_generated_links_and_header(built):
    g, c = built("panda")
    header = g.files["panda_kin.h"]
    assert "one function\n *   per link chosen at generation time" in header
    for link in FRAMES["panda"]:
        assert f"int panda_kin_jacobian_{link}(const double *q, double *jacobian);" in header
    assert c.frames["jacobian"] == {c.link_id(k): f"jacobian_{k}" for k in FRAMES["panda"]}
    with pytest.raises(ValueError, match=r"^jacobian: link 'panda_link7' was not generated; this build has "
                                         r"\['panda_hand_tcp', 'panda_link4'\]"):
        c.jacobian(np.zeros(7), "panda_link7")
    assert c.jacobian(np.zeros(7), "panda_link4").shape == (6, 7)


def test_default_frames_are_the_leaf_links():
    """Without frames=, the C has a function per link on a leaf body (Solo12: the lower legs and feet)."""
    g = rbdgen.generate(ROBOTS["solo12"].path, ops=["jacobian"], floating=True)
    links = [n for n in g.model.link_names if "LOWER_LEG" in n or "FOOT" in n]
    assert g.manifest["options"]["frames"] == links and len(links) == 8
    assert list(g.manifest["operations"]) == [f"jacobian_{k}" for k in links]


def test_link_argument_errors():
    s = solver("panda")
    q = np.zeros(7)
    with pytest.raises(TypeError, match=r"jacobian\(\) missing 1 required positional argument: 'link'$"):
        s.jacobian(q)
    with pytest.raises(ValueError, match="^unknown link 'nope'"):
        s.jacobian(q, "nope")
    for bad in (13, -1):
        with pytest.raises(ValueError, match=r"^link: unknown link id .* \(the robot has 13 links\)$"):
            s.forward_kinematics(q, bad)
    for bad in (True, 1.0, None):
        with pytest.raises(TypeError, match=r"^link: the link is a link name or an integer id, got"):
            s.forward_kinematics(q, bad)
    with pytest.raises(ValueError, match=r"^tool translation: expected shape \(3,\)"):
        s.forward_velocity_kinematics(q, q, "panda_hand", tool=[0, 1])
    with pytest.raises(ValueError, match="^frames: unknown link 'nope'|^unknown link 'nope'"):
        rbdgen.generate(ROBOTS["panda"].path, ops=["jacobian"], frames=["nope"])


def test_mimic_fingers_move_with_their_master():
    """The example-robot-data Panda (finger_joint2 mimics finger_joint1): the right finger's
    Jacobian column of finger_joint1 carries the mimic joint's motion, so J nu and Jdot nu match
    the central differences of its pose and Jacobian along the independent coordinates."""
    path = example_robot_data_dir() / "panda_description/urdf/panda.urdf"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    model = rbdgen.load_urdf_string(path.read_text())
    s, h = rbdgen.NumpySolver(model), 1e-6
    st = random_states(model, 2, 11)
    for i in range(2):
        q, qd = st.q[i], st.qd[i]
        for link in ("panda_leftfinger", "panda_rightfinger"):
            J = s.jacobian(q, link)
            assert J.shape == (6, 8) and np.linalg.norm(J[3:, 7]) > 0.5
            rate = (s.forward_kinematics(q + h * qd, link) - s.forward_kinematics(q - h * qd, link)) / (2 * h)
            assert _close(J[3:] @ qd, rate[:3]), link
            _check(J @ qd, s.forward_velocity_kinematics(q, qd, link), f"J nu {link}")
            dJ = (s.jacobian(q + h * qd, link) - s.jacobian(q - h * qd, link)) / (2 * h)
            assert _close(s.jacobian_derivative(q, qd, link), dJ), link


def test_cli_frames(tmp_path):
    from rbdgen.codegen.cli import main

    assert main(["-q", "generate", ROBOTS["panda"].path, "-o", str(tmp_path), "--no-compile", "--ops", "jacobian",
                 "center_of_mass", "--frames", "panda_hand", "panda_link3"]) == 0
    header = (tmp_path / "panda.h").read_text()
    assert "int panda_jacobian_panda_hand(const double *q, double *jacobian);" in header
    assert "int panda_jacobian_panda_link3(const double *q, double *jacobian);" in header
    assert "int panda_center_of_mass(const double *q, double *com);" in header
    assert main(["-q", "generate", ROBOTS["panda"].path, "-o", str(tmp_path / "x"), "--no-compile",
                 "--ops", "jacobian", "--frames", "nope"]) == 2


def test_link_function_names_from_untrusted_link_names():
    """A link name becomes part of a C function and file name only when it is a plain word; otherwise, and
    where it could equal another link's ``link<id>``, the link id is used."""
    from rbdgen.names import MAX_LINK_NAME, kernel_name

    long = "a" * (MAX_LINK_NAME + 1)
    names = ["base", "link2", "x-y */", long, "hand_tcp"]
    inertial = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
    links = "".join(f'<link name="{n.replace("*/", "&#42;/")}">{inertial}</link>' for n in names)
    joints = "".join(f'<joint name="j{k}" type="revolute"><parent link="{names[k - 1]}"/><child link="{n}"/>'
                     f'<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
                     for k, n in enumerate(names) if k)
    model = rbdgen.load_urdf_string(f'<robot name="r">{links}{joints}</robot>')
    got = [kernel_name(model, "jacobian", model.link_id(n)) for n in names]
    assert got == ["jacobian_base", f"jacobian_link{model.link_id('link2')}", f"jacobian_link{model.link_id('x-y */')}",
                   f"jacobian_link{model.link_id(long)}", "jacobian_hand_tcp"]
    assert len(set(got)) == len(got)
