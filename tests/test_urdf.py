"""Tests for the URDF loader (`rbdgen.urdf`).

Real robots come from the ``example-robot-data`` package; dynibo 0.5.2 (the
convention rbdgen follows) and Pinocchio are the independent references.
Small inline URDFs check merging, frames and every rejection path.
"""

from __future__ import annotations

import importlib.metadata
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import rbdgen
from rbdgen import Link, ModelError, RobotModel
from rbdgen.codegen.generator import load_robot
from rbdgen.urdf import load_urdf, load_urdf_string


# -- real robots -----------------------------------------------------------------
def _robots_dir() -> pathlib.Path:
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    for file in dist.files or ():
        parts = file.parts
        if "example-robot-data" in parts and "robots" in parts:
            full = pathlib.Path(dist.locate_file(file))
            for parent in full.parents:
                if parent.name == "robots" and parent.parent.name == "example-robot-data":
                    return parent
    pytest.skip("example-robot-data has no robots folder")


ROBOTS = {
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
    "g1": "g1_description/urdf/g1_29dof_rev_1_0.urdf",
    "double_pendulum": "double_pendulum_description/urdf/double_pendulum.urdf",
    "panda": "panda_description/urdf/panda.urdf",
    "talos_full": "talos_data/robots/talos_full_v2.urdf",
    "centauro": "centauro_description/urdf/centauro.urdf",
}


@pytest.fixture(scope="module")
def robot_path():
    root = _robots_dir()

    def path(name: str) -> str:
        full = root / ROBOTS[name]
        if not full.is_file():
            pytest.skip(f"{full} is missing")
        return str(full)

    return path


def _subtree(model: RobotModel, body: int) -> set[int]:
    out = {body}
    for i, joint in enumerate(model.joints):
        if joint.parent in out:
            out.add(i)
    return out


def _pin_axis(pin_model, index: int) -> tuple[str, np.ndarray]:
    """Pinocchio joint ``index``'s kind and unit axis, from its motion subspace (linear first)."""
    import pinocchio as pin

    joint = pin_model.joints[index]
    data = joint.createData()
    joint.calc(data, pin.neutral(pin_model))
    s = np.asarray(data.S).reshape(6)
    return ("prismatic", s[:3]) if np.linalg.norm(s[:3]) > 0.5 else ("revolute", s[3:])


def _check_against_pinocchio(model: RobotModel, path: str):
    """Joint frames, axes and merged inertias agree with Pinocchio's, joint by joint."""
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if model.floating else pin.buildModelFromUrdf(path)
    first = 2 if model.floating else 1
    assert sorted(pm.names[first:]) == sorted(model.joint_names)
    pin_index = {name: i for i, name in enumerate(pm.names)}
    for joint in model.joints:
        i = pin_index[joint.name]
        placement = pm.jointPlacements[i]
        np.testing.assert_allclose(joint.origin.rotation, placement.rotation, atol=1e-12)
        np.testing.assert_allclose(joint.origin.translation, placement.translation, atol=1e-12)
        kind, axis = _pin_axis(pm, i)
        assert joint.kind == kind
        np.testing.assert_allclose(joint.axis, axis, atol=1e-12)
        inertia = pm.inertias[i]
        assert joint.inertia.mass == pytest.approx(inertia.mass, abs=1e-12)
        np.testing.assert_allclose(joint.inertia.com, inertia.lever, atol=1e-12)
        np.testing.assert_allclose(joint.inertia.rotational, inertia.inertia, atol=1e-12)
        parent = pm.parents[i]
        expected_parent = -1 if parent < first else model.joint_names.index(pm.names[parent])
        assert joint.parent == expected_parent
    if model.floating:
        base = pm.inertias[1]
        assert model.base_inertia.mass == pytest.approx(base.mass, abs=1e-12)
        np.testing.assert_allclose(model.base_inertia.com, base.lever, atol=1e-12)
        np.testing.assert_allclose(model.base_inertia.rotational, base.inertia, atol=1e-12)
    pin_mass = sum(pm.inertias[i].mass for i in range(1, pm.njoints))
    assert model.total_mass == pytest.approx(pin_mass, abs=1e-12)


def _check_against_dynibo(model: RobotModel, path: str):
    """Counts and link ids match dynibo's; moving joint k in dynibo moves exactly our body k's subtree."""
    dynibo = pytest.importorskip("dynibo")
    robot = (dynibo.FloatingRobot if model.floating else dynibo.Robot).from_urdf(path)
    assert robot.joint_count == model.joint_count
    assert robot.generalized_count == model.generalized_count
    assert robot.link_count == len(model.links)
    for link in model.links:
        assert robot.link_id(link.name) == model.link_id(link.name), link.name

    def poses(q):
        if model.floating:
            base = dynibo.BaseState(dynibo.Pose([0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]))
            return robot.forward_kinematics_all(base, q).reshape(-1, 7)
        return robot.forward_kinematics_all(q).reshape(-1, 7)

    rest = poses(np.zeros(model.joint_count))
    for k in range(model.joint_count):
        q = np.zeros(model.joint_count)
        q[k] = 0.7
        moved = np.abs(poses(q) - rest).max(axis=1) > 1e-9
        subtree = _subtree(model, k)
        expected = np.array([link.body in subtree for link in model.links])
        np.testing.assert_array_equal(moved, expected, err_msg=f"joint {k} ({model.joints[k].name})")


def test_ur5_fixed_base(robot_path):
    path = robot_path("ur5")
    model = load_urdf(path)
    assert model.name == "ur5"
    assert model.joint_count == 6 and model.generalized_count == 6
    assert model.joint_names == (
        "shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint",
    )
    assert not model.floating and model.base_inertia.mass == 0.0
    assert model.links[0].body == -1
    _check_against_pinocchio(model, path)
    _check_against_dynibo(model, path)


def test_pathlike_and_same_as_string(robot_path):
    path = robot_path("ur5")
    a = load_urdf(pathlib.Path(path))
    b = load_urdf_string(pathlib.Path(path).read_text())
    assert a == b and a.digest == b.digest


def test_solo12_floating(robot_path):
    path = robot_path("solo12")
    model = load_urdf(path, floating=True)
    assert model.floating
    assert model.joint_count == 12 and model.generalized_count == 18 and len(model.links) == 17
    expected = {"base_link": 0, "FL_SHOULDER": 1, "FR_SHOULDER": 2, "HL_SHOULDER": 3, "HR_SHOULDER": 4, "FL_UPPER_LEG": 5}
    for name, index in expected.items():
        assert model.link_id(name) == index
    assert model.base_inertia.mass > 0.0
    _check_against_pinocchio(model, path)
    _check_against_dynibo(model, path)


def test_g1_floating(robot_path):
    path = robot_path("g1")
    model = load_urdf(path, floating=True)
    assert model.joint_count == 29 and model.generalized_count == 35
    _check_against_pinocchio(model, path)
    _check_against_dynibo(model, path)


def test_centauro_bfs_traverses_fixed_joints(robot_path):
    """On centauro, a breadth-first walk over the merged bodies would give another
    order than dynibo's walk over all joints (fixed ones counted as a level)."""
    path = robot_path("centauro")
    model = load_urdf(path, floating=True)
    body_bfs, queue = [], [-1]
    while queue:
        children = model.children(queue.pop(0))
        body_bfs.extend(children)
        queue.extend(children)
    assert body_bfs != list(range(model.joint_count))
    _check_against_dynibo(model, path)
    _check_against_pinocchio(model, path)


def test_g1_fixed_base_mass(robot_path):
    pin = pytest.importorskip("pinocchio")
    path = robot_path("g1")
    model = load_urdf(path)
    pm = pin.buildModelFromUrdf(path)
    assert model.total_mass == pytest.approx(sum(pm.inertias[i].mass for i in range(1, pm.njoints)), abs=1e-12)
    _check_against_dynibo(model, path)


def test_double_pendulum(robot_path):
    path = robot_path("double_pendulum")
    model = load_urdf(path)
    assert model.joint_count == 2
    assert [j.parent for j in model.joints] == [-1, 0]
    _check_against_pinocchio(model, path)
    _check_against_dynibo(model, path)


@pytest.mark.parametrize("robot,floating", [("solo12", True), ("g1", True), ("g1", False)])
def test_pinocchio_joint_order(robot_path, robot, floating):
    pin = pytest.importorskip("pinocchio")
    path = robot_path(robot)
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
    order = list(pm.names[2:] if floating else pm.names[1:])
    default = load_urdf(path, floating=floating)
    assert list(default.joint_names) != order  # depth-first differs from breadth-first here
    model = load_urdf(path, floating=floating, joint_order=order)
    assert list(model.joint_names) == order
    assert model.links == tuple(
        Link(link.name, -1 if link.body < 0 else order.index(default.joint_names[link.body]), link.pose)
        for link in default.links
    )
    by_name = {j.name: j for j in default.joints}
    for joint in model.joints:
        ref = by_name[joint.name]
        assert (joint.origin, joint.axis, joint.inertia) == (ref.origin, ref.axis, ref.inertia)
        assert (joint.parent == -1) == (ref.parent == -1)
        if joint.parent >= 0:
            assert model.joint_names[joint.parent] == default.joint_names[ref.parent]
    _check_against_pinocchio(model, path)


def test_joint_order_rejections(robot_path):
    path = robot_path("ur5")
    names = list(load_urdf(path).joint_names)
    with pytest.raises(ModelError, match="'shoulder_lift_joint' before its parent joint 'shoulder_pan_joint'"):
        load_urdf(path, joint_order=[names[1], names[0]] + names[2:])
    with pytest.raises(ModelError, match="missing \\['wrist_3_joint'\\]"):
        load_urdf(path, joint_order=names[:-1])
    with pytest.raises(ModelError, match="unknown \\['nope'\\]"):
        load_urdf(path, joint_order=names + ["nope"])
    with pytest.raises(ModelError, match="repeated \\['elbow_joint'\\]"):
        load_urdf(path, joint_order=names + ["elbow_joint"])
    with pytest.raises(ModelError, match="joint_order"):
        load_urdf(path, joint_order="shoulder_pan_joint")


# -- inline URDFs ----------------------------------------------------------------
def _urdf(body: str, name: str = "test") -> str:
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n{body}\n</robot>'


def _link(name: str, mass=None, com="0 0 0", rpy="0 0 0", inertia="1 0 0 1 0 1") -> str:
    if mass is None:
        return f'<link name="{name}"/>'
    ixx, ixy, ixz, iyy, iyz, izz = inertia.split()
    return (
        f'<link name="{name}"><inertial><origin xyz="{com}" rpy="{rpy}"/><mass value="{mass}"/>'
        f'<inertia ixx="{ixx}" ixy="{ixy}" ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/></inertial></link>'
    )


def _joint(name, parent, child, kind="revolute", xyz="0 0 0", rpy="0 0 0", axis="0 0 1", extra="") -> str:
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>{extra}</joint>'
    )


def _chain(**options) -> RobotModel:
    return load_urdf_string(_urdf(_link("base", 1.0) + _link("a", 1.0) + _joint("j", "base", "a")), **options)


def test_fixed_joint_merges_point_mass():
    # Body a: 2 kg at its origin with I = diag(1, 2, 3). Welded tool: a 1 kg point mass
    # at (0.3, 0, 0) in the tool frame; the tool sits at (0, 0.6, 0) rotated 90 deg about z.
    text = _urdf(
        _link("base")
        + _link("a", 2.0, inertia="1 0 0 2 0 3")
        + _link("tool", 1.0, com="0.3 0 0", inertia="0 0 0 0 0 0")
        + _joint("j", "base", "a", xyz="1 0 0")
        + _joint("weld", "a", "tool", kind="fixed", xyz="0 0.6 0", rpy=f"0 0 {math.pi / 2}")
    )
    model = load_urdf_string(text)
    assert model.joint_names == ("j",)
    (joint,) = model.joints
    # Point mass in a's frame: (0, 0.6, 0) + Rz(90)(0.3, 0, 0) = (0, 0.9, 0); com = (0, 0.3, 0).
    assert joint.inertia.mass == pytest.approx(3.0)
    np.testing.assert_allclose(joint.inertia.com, (0.0, 0.3, 0.0), atol=1e-12)
    # About the com: body a (2 kg at distance 0.3) and the point (1 kg at 0.6), both along y.
    offset = 2.0 * 0.3**2 + 1.0 * 0.6**2
    np.testing.assert_allclose(joint.inertia.rotational, np.diag([1 + offset, 2.0, 3 + offset]), atol=1e-12)
    tool = model.links[model.link_id("tool")]
    assert tool.body == 0
    np.testing.assert_allclose(tool.pose.translation, (0.0, 0.6, 0.0), atol=1e-12)
    np.testing.assert_allclose(tool.pose.rotation, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)
    assert model.links[model.link_id("a")].body == 0
    assert model.links[model.link_id("a")].pose.translation == (0.0, 0.0, 0.0)


def test_inertial_rpy_rotates_tensor():
    # diag(1, 2, 3) in a frame rotated 90 deg about z: x and y swap -> diag(2, 1, 3).
    text = _urdf(_link("base") + _link("a", 1.5, com="0.1 0.2 0.3", rpy=f"0 0 {math.pi / 2}", inertia="1 0 0 2 0 3")
                 + _joint("j", "base", "a"))
    inertia = load_urdf_string(text).joints[0].inertia
    assert inertia.mass == 1.5
    np.testing.assert_allclose(inertia.com, (0.1, 0.2, 0.3))
    np.testing.assert_allclose(inertia.rotational, np.diag([2.0, 1.0, 3.0]), atol=1e-12)
    # A roll of 90 deg about x swaps y and z; the off-diagonal term follows R I R^T.
    text = _urdf(_link("base") + _link("a", 1.0, rpy=f"{math.pi / 2} 0 0", inertia="1 0.1 0 2 0 3")
                 + _joint("j", "base", "a"))
    r = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=float)
    expected = r @ np.array([[1, 0.1, 0], [0.1, 2, 0], [0, 0, 3]]) @ r.T
    np.testing.assert_allclose(load_urdf_string(text).joints[0].inertia.rotational, expected, atol=1e-12)


def test_joint_origin_through_fixed_joint_and_bfs_order():
    # base -> (fixed) mount -> j2 ; base -> j1 -> j3. BFS: weld, j1, j2, j3 -> moving j1, j2, j3.
    text = _urdf(
        _link("base", 1.0) + _link("mount", 1.0) + _link("a", 1.0) + _link("b", 1.0) + _link("c", 1.0)
        + _joint("weld", "base", "mount", kind="fixed", xyz="0 0 1", rpy=f"0 0 {math.pi / 2}")
        + _joint("j1", "base", "a", xyz="1 0 0")
        + _joint("j3", "a", "c", kind="prismatic", axis="0 3 4")
        + _joint("j2", "mount", "b", xyz="2 0 0")
    )
    model = load_urdf_string(text, floating=True)
    assert model.joint_names == ("j1", "j2", "j3")
    assert model.link_names == ("base", "mount", "a", "b", "c")
    assert [j.parent for j in model.joints] == [-1, -1, 0]
    j2 = model.joints[1]
    np.testing.assert_allclose(j2.origin.translation, (0.0, 2.0, 1.0), atol=1e-12)
    np.testing.assert_allclose(j2.origin.rotation, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)
    assert model.joints[2].kind == "prismatic"
    np.testing.assert_allclose(model.joints[2].axis, (0.0, 0.6, 0.8))
    assert model.base_inertia.mass == 2.0
    np.testing.assert_allclose(model.base_inertia.com, (0.0, 0.0, 0.5))
    assert model.total_mass == 5.0
    assert model.links[1].body == -1


def test_fixed_base_ignores_root_inertia():
    text = _urdf(_link("world") + _link("base", 5.0) + _link("a", 1.0)
                 + _joint("anchor", "world", "base", kind="fixed") + _joint("j", "base", "a"))
    model = load_urdf_string(text)
    assert model.total_mass == 1.0 and model.base_inertia.mass == 0.0
    assert [link.body for link in model.links] == [-1, -1, 0]
    floating = load_urdf_string(text, floating=True)
    assert floating.base_inertia.mass == 5.0 and floating.total_mass == 6.0


def test_limits_axis_and_kinds():
    text = _urdf(
        _link("base") + _link("a", 1.0) + _link("b", 1.0) + _link("c", 1.0) + _link("d", 1.0)
        + _joint("rev", "base", "a", extra='<limit lower="-1" upper="2" effort="30" velocity="4"/>')
        + _joint("cont", "a", "b", kind="continuous", extra='<limit lower="-1" upper="1" effort="5"/>')
        + _joint("pri", "b", "c", kind="prismatic", axis="0 0 -2", extra='<limit upper="0.5"/>')
        + '<joint name="noaxis" type="revolute"><parent link="c"/><child link="d"/></joint>'
    )
    model = load_urdf_string(text)
    rev, cont, pri, noaxis = model.joints
    assert (rev.limits.lower, rev.limits.upper, rev.limits.effort, rev.limits.velocity) == (-1, 2, 30, 4)
    assert cont.kind == "revolute"
    assert (cont.limits.lower, cont.limits.upper, cont.limits.effort) == (-math.inf, math.inf, 5.0)
    assert cont.limits.velocity == math.inf
    assert pri.kind == "prismatic" and pri.axis == (0.0, 0.0, -1.0)
    assert (pri.limits.lower, pri.limits.upper) == (-math.inf, 0.5)
    assert noaxis.axis == (1.0, 0.0, 0.0)
    assert noaxis.origin.translation == (0.0, 0.0, 0.0)


def test_options_stored():
    model = _chain(floating=True, gravity=(0.0, 0.0, -9.81))
    assert model.floating and model.gravity == (0.0, 0.0, -9.81)
    assert _chain().gravity == (0.0, 0.0, -9.80665)


def test_armature():
    assert _chain().joints[0].armature == 0.0
    assert _chain(armature={"j": 0.25}).joints[0].armature == 0.25
    assert _chain(armature=[0.5]).joints[0].armature == 0.5
    assert _chain(armature=np.array([0.5])).joints[0].armature == 0.5
    with pytest.raises(ModelError, match="unknown joints \\['k'\\]"):
        _chain(armature={"k": 0.1})
    with pytest.raises(ModelError, match="2 values, expected 1"):
        _chain(armature=[0.1, 0.2])
    with pytest.raises(ModelError, match="joint 'j': armature"):
        _chain(armature=[-0.1])
    with pytest.raises(ModelError, match="joint 'j': armature"):
        _chain(armature={"j": float("nan")})
    with pytest.raises(ModelError, match="joint 'j': armature"):
        _chain(armature=["x"])


def test_robot_name_sanitised():
    body = _link("base", 1.0)
    assert load_urdf_string(_urdf(body, name="my-robot v2")).name == "my_robot_v2"
    assert load_urdf_string(_urdf(body, name="2link")).name == "robot_2link"
    assert load_urdf_string(_urdf(body, name="my--robot_")).name == "my_robot"
    assert load_urdf_string('<robot><link name="b"/></robot>').name == "robot"


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.urdf"
    with pytest.raises(FileNotFoundError, match="nope.urdf"):
        load_urdf(missing)


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_only_regular_files_are_opened(tmp_path, kind):
    """A FIFO would block the reader until a writer comes (``rbdgen info FIFO`` hung): it is
    refused from its type, never opened; so are folders and devices, whatever loads them."""
    if kind == "fifo":
        path = tmp_path / "robot.urdf"
        os.mkfifo(path)
    elif kind == "folder":
        path = tmp_path / "robot.urdf"
        path.mkdir()
    else:
        path = pathlib.Path("/dev/zero")
    what = {"fifo": "a FIFO \\(named pipe\\)", "folder": "a folder", "device": "a device"}[kind]
    for load in (load_urdf, rbdgen.load_mjcf, load_robot):
        with pytest.raises(ModelError, match=f"{path} is {what}, not a regular file"):
            load(path)
    result = subprocess.run([sys.executable, "-m", "rbdgen.codegen.cli", "info", str(path)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith(f"rbdgen: error: {path} is ")


def test_ignored_elements():
    text = _urdf(
        '<link name="base"><visual><geometry><mesh filename="package://x/y.dae"/></geometry></visual>'
        '<collision><geometry><box size="1 1 1"/></geometry></collision></link>'
        + _link("a", 1.0)
        + _joint("j", "base", "a", extra='<dynamics damping="0.1"/>')
        + '<transmission name="t"><joint name="j"><hardwareInterface>x</hardwareInterface></joint></transmission>'
        + '<gazebo reference="a"><material>Gazebo/Grey</material></gazebo>'
    )
    assert load_urdf_string(text).joint_names == ("j",)


def test_misspelled_elements_and_attributes_warned(caplog):
    """urdfdom and rbdgen skip unknown names: <orign> put the inertia at the link origin, <axes>
    made the joint turn about x, xzy= left the joint at the parent's origin, all without a word."""
    text = """<robot name="t" version="1.0" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <link name="base"/>
  <link name="a" type="x"><inertial><orign xyz="0 0 1"/><mass value="1"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><box sizee="1 1 1"/></geometry></visual><collision/><contact/></link>
  <joint name="j" type="revolute" dont_collapse="true"><parent link="base"/><child link="a"/>
    <origin xzy="0 0 1"/><axes xyz="0 1 0"/>
    <limit lower="-1" upper="1" efort="1" velocity="1" command_effort="2"/>
    <dynamics damping="0.1" mu_coulomb="1"/><safety_controller k_velocity="1"/><calibration rising="0"/></joint>
  <link name="b"/>
  <joint name="k" type="revolute"><parent link="base"/><child link="b"/><axes xyz="0 1 0"/></joint>
  <gazebo reference="a"/><transmission name="t"/><ros2_control name="r"/><material name="m"/>
  <xacro:property name="p" value="1"/>
  <jiont name="x"/>
</robot>"""
    model = load_urdf_string(text)
    messages = [r.getMessage() for r in caplog.records if r.name == "rbdgen.urdf_schema"]
    assert sorted(messages) == sorted([
        "line 3: link 'a': unknown element <orign> in <inertial>, ignored (did you mean origin?)",
        "line 7: joint 'j': unknown attribute xzy= in <origin>, ignored (did you mean xyz?)",
        "line 7: joint 'j': unknown element <axes> in <joint>, ignored (did you mean axis?); 1 more like it",
        "line 8: joint 'j': unknown attribute efort= in <limit>, ignored (did you mean effort?)",
        "line 14: the robot: unknown element <jiont> in <robot>, ignored (did you mean joint?)",
    ])
    assert model.joints[0].axis == (1.0, 0.0, 0.0)  # what the file says once the typos are dropped


def test_real_robots_are_quiet_about_spelling(caplog):
    """Of the example-robot-data URDFs only one element is not URDF: an <origin> in a <link>."""
    for path in sorted(_robots_dir().rglob("*.urdf")):
        try:
            load_urdf(path)
        except ModelError:
            continue
    messages = [r.getMessage() for r in caplog.records if r.name == "rbdgen.urdf_schema"]
    assert messages == ["line 294: link 'gripper_frame_link': unknown element <origin> in <link>, ignored "
                        "(rbdgen reads inertial there)"]


# -- rejections ----------------------------------------------------------------------
TWO = _link("base", 1.0) + _link("a", 1.0)

BAD = {
    "parse": ("<robot name='x'><link name='a'></robot>", "malformed URDF XML"),
    "root element": ("<model name='x'/>", "<model>, expected <robot>"),
    "mjcf": ("<mujoco model='x'/>", "<mujoco>: an MJCF file, load it with rbdgen.load_mjcf"),
    "link name": (_urdf('<link/>' + _link("a", 1.0)), "<link> element has no name"),
    "joint name": (_urdf(TWO + '<joint type="fixed"><parent link="base"/><child link="a"/></joint>'),
                   "<joint> element has no name"),
    "duplicate link": (_urdf(TWO + _link("a")), "duplicate link name 'a'"),
    "duplicate joint": (_urdf(TWO + _link("b") + _joint("j", "base", "a") + _joint("j", "a", "b")),
                        "duplicate joint name 'j'"),
    "no parent": (_urdf(TWO + '<joint name="j" type="fixed"><child link="a"/></joint>'),
                  "joint 'j': missing <parent"),
    "no child": (_urdf(TWO + '<joint name="j" type="fixed"><parent link="base"/></joint>'),
                 "joint 'j': missing <child"),
    "unknown parent": (_urdf(TWO + _joint("j", "ghost", "a")), "joint 'j': parent link 'ghost' is not defined"),
    "unknown child": (_urdf(TWO + _joint("j", "base", "ghost")), "joint 'j': child link 'ghost' is not defined"),
    "two parents": (_urdf(TWO + _link("b") + _joint("j1", "base", "a") + _joint("j2", "b", "a")),
                    "link 'a' is the child of two joints: 'j1' and 'j2'"),
    "several roots": (_urdf(TWO + _link("b") + _link("c") + _joint("j", "base", "a")),
                      "several root links.*b, c"),
    "no root": (_urdf(TWO + _joint("j1", "base", "a") + _joint("j2", "a", "base")), "no root link"),
    "cycle": (_urdf(TWO + _link("b") + _joint("j1", "a", "b") + _joint("j2", "b", "a")),
              "joints \\['j1', 'j2'\\] are not connected.*cycle"),
    "self loop": (_urdf(TWO + _joint("j", "a", "a")), "joints \\['j'\\] are not connected"),
    "planar": (_urdf(TWO + _joint("hip", "base", "a", kind="planar")),
               "joint 'hip': joint type 'planar' is not supported inside the tree: replace it by two prismatic"),
    "floating": (_urdf(TWO + _joint("hip", "base", "a", kind="floating")),
                 "joint 'hip': joint type 'floating' is not supported inside the tree: .*load with floating=True"),
    "spherical": (_urdf(TWO + _joint("hip", "base", "a", kind="spherical")),
                  "joint 'hip': joint type 'spherical' is not supported inside the tree: replace it by three"),
    "unknown type": (_urdf(TWO + _joint("hip", "base", "a", kind="screw")),
                     "joint 'hip': unsupported joint type 'screw'"),
    "no type": (_urdf(TWO + '<joint name="hip"><parent link="base"/><child link="a"/></joint>'),
                "joint 'hip': unsupported joint type None"),
    "mimic without joint": (_urdf(TWO + _joint("j", "base", "a", extra='<mimic multiplier="2"/>')),
                            "joint 'j': <mimic> has no joint attribute"),
    "mimic multiplier": (_urdf(TWO + _link("b") + _joint("j1", "base", "a")
                               + _joint("j2", "a", "b", extra='<mimic joint="j1" multiplier="nan"/>')),
                         "joint 'j2': <mimic multiplier='nan'>: 'nan' is not a number"),
    "mimic of fixed": (_urdf(TWO + _link("b") + _joint("j1", "base", "a", kind="fixed")
                             + _joint("j", "a", "b", extra='<mimic joint="j1"/>')),
                       "joint 'j': mimic of the fixed joint 'j1'"),
    "mimic cycle": (_urdf(TWO + _link("b") + _joint("j1", "base", "a", extra='<mimic joint="j2"/>')
                          + _joint("j2", "a", "b", extra='<mimic joint="j1"/>')),
                    "mimic joints form a cycle: j1 -> j2 -> j1"),
    "negative mass": (_urdf(_link("base") + _link("a", -1.0) + _joint("j", "base", "a")),
                      "link 'a': negative mass"),
    "nan mass": (_urdf(_link("base") + _link("a", "nan") + _joint("j", "base", "a")),
                 "link 'a': <mass value='nan'>: 'nan' is not a number"),
    "inf mass": (_urdf(_link("base") + _link("a", "inf") + _joint("j", "base", "a")), "link 'a': <mass value='inf'>: 'inf' is not a number"),
    "bad mass": (_urdf(_link("base") + _link("a", "heavy") + _joint("j", "base", "a")),
                 "link 'a': <mass value='heavy'>: 'heavy' is not a number"),
    "no mass": (_urdf('<link name="a"><inertial><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'
                      '</inertial></link>'), "link 'a': <inertial> has no <mass"),
    "no inertia": (_urdf('<link name="a"><inertial><mass value="1"/></inertial></link>'),
                   "link 'a': <inertial> has no <inertia>"),
    "inertia attribute": (_urdf('<link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" '
                                'iyy="1" izz="1"/></inertial></link>'), "link 'a': <inertia> lacks iyz"),
    "nan inertia": (_urdf(_link("base") + _link("a", 1.0, inertia="1 0 0 nan 0 1") + _joint("j", "base", "a")),
                    "link 'a': <inertia iyy='nan'>: 'nan' is not a number"),
    "com": (_urdf(_link("base") + _link("a", 1.0, com="0 inf 0") + _joint("j", "base", "a")),
            "link 'a': <origin xyz='0 inf 0'>: 'inf' is not a number"),
    "com count": (_urdf(_link("base") + _link("a", 1.0, com="0 0") + _joint("j", "base", "a")),
                  "link 'a': <origin xyz='0 0'>: expected 3 numbers, got 2"),
    "inertial rpy": (_urdf(_link("base") + _link("a", 1.0, rpy="0 x 0") + _joint("j", "base", "a")),
                     "link 'a': <origin rpy='0 x 0'>: 'x' is not a number"),
    "joint xyz": (_urdf(TWO + _joint("j", "base", "a", xyz="1 nan 0")), "joint 'j': <origin xyz='1 nan 0'>"),
    "joint rpy": (_urdf(TWO + _joint("j", "base", "a", rpy="0 0 0 0")),
                  "joint 'j': <origin rpy='0 0 0 0'>: expected 3"),
    "axis": (_urdf(TWO + _joint("j", "base", "a", axis="0 0 one")), "joint 'j': <axis xyz='0 0 one'>"),
    "axis nan": (_urdf(TWO + _joint("j", "base", "a", kind="fixed", axis="0 0 nan")), "joint 'j': <axis xyz"),
    "zero axis": (_urdf(TWO + _joint("j", "base", "a", kind="prismatic", axis="0 0 0")),
                  "joint 'j': zero axis"),
    "limit nan": (_urdf(TWO + _joint("j", "base", "a", extra='<limit lower="nan" upper="1"/>')),
                  "joint 'j': <limit lower='nan'>: 'nan' is not a number"),
    "limit text": (_urdf(TWO + _joint("j", "base", "a", extra='<limit effort="lots"/>')),
                   "joint 'j': <limit effort='lots'>: 'lots' is not a number"),
    "limit inf": (_urdf(TWO + _joint("j", "base", "a", extra='<limit velocity="inf"/>')),
                  "joint 'j': <limit velocity='inf'>: 'inf' is not a number"),
    "limit order": (_urdf(TWO + _joint("j", "base", "a", extra='<limit lower="1" upper="-1"/>')),
                    "joint 'j': <limit> lower 1.0 is above upper -1.0"),
    "no links": (_urdf(""), "has no <link>"),
    "underscore digits": (_urdf(_link("base") + _link("a", "1_000") + _joint("j", "base", "a")),
                          "link 'a': <mass value='1_000'>: '1_000' is not a number \\(a URDF number is written in "
                          "ASCII digits"),
    "arabic-indic digits": (_urdf(TWO + _joint("j", "base", "a", xyz="\u0661 0 0")),
                            "joint 'j': <origin xyz='\u0661 0 0'>: '\u0661' is not a number"),
    "fullwidth digits": (_urdf(TWO + _joint("j", "base", "a", extra='<limit lower="-\uff11" upper="1"/>')),
                         "joint 'j': <limit lower='-\uff11'>: '-\uff11' is not a number"),
    "hexadecimal": (_urdf(TWO + _joint("j", "base", "a", axis="0x1 0 0")), "'0x1' is not a number"),
    "infinity": (_urdf(TWO + _joint("j", "base", "a", extra='<limit effort="Infinity"/>')),
                 "'Infinity' is not a number"),
    "unicode space": (_urdf(TWO + _joint("j", "base", "a", xyz="1\u30000 0")), "joint 'j': <origin xyz=.* is not a number"),
    "overflow": (_urdf(TWO + _joint("j", "base", "a", xyz="1e400 0 0")),
                 "joint 'j': <origin xyz='1e400 0 0'>: a number beyond the range of double precision"),
}


@pytest.mark.parametrize("axis,unit", [("1e200 0 0", (1.0, 0.0, 0.0)), ("0 -3e300 4e300", (0.0, -0.6, 0.8)),
                                       ("1e308 1e308 0", (math.sqrt(0.5), math.sqrt(0.5), 0.0)),
                                       ("0 3e-9 4e-9", (0.0, 0.6, 0.8))])
def test_huge_and_tiny_axes_normalised(axis, unit):
    """The squared length of 1e200 overflows: the axis became 0 / inf = 0 and the joint did
    nothing. The length is now taken after dividing by the largest component."""
    model = load_urdf_string(_urdf(_link("base") + _link("a", 1.0, com="0.5 0.2 0")
                                   + _joint("j", "base", "a", axis=axis)))
    assert np.allclose(model.joints[0].axis, unit, rtol=0, atol=1e-15)
    # about the unit axis through the origin, a unit point-mass-like body at distance r: M = I_axis + m r_perp^2
    com = np.array([0.5, 0.2, 0.0])
    r_perp = com - np.dot(com, unit) * np.array(unit)
    expected = 1.0 + r_perp @ r_perp  # rotational inertia 1 about every axis
    assert rbdgen.NumpySolver(model).mass_matrix(np.zeros(1))[0, 0] == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("case", sorted(BAD))
def test_rejected(case):
    text, message = BAD[case]
    with pytest.raises(ModelError, match=message):
        load_urdf_string(text)


def test_floating_massless_tree_rejected():
    text = _urdf(_link("base") + _link("a") + _joint("j", "base", "a"), name="ghost")
    assert load_urdf_string(text).total_mass == 0.0  # a massless fixed-base arm is allowed
    with pytest.raises(ModelError, match="robot 'ghost'.*massless"):
        load_urdf_string(text, floating=True)


# -- physically invalid values, hostile XML, deep trees (issue 9) ---------------------
@pytest.mark.parametrize("inertia,excess", [("1 0 0 1 0 2.1", "0.1"), ("0 0 0 0 0 3e-6", "3e-06"),
                                            ("0.001 0 0 0.001 0 0.01", "0.008")])
def test_triangle_inequality_rejected(inertia, excess):
    """Principal moments with I1 + I2 < I3 (no mass distribution has them) name the link (strict)."""
    text = _urdf(_link("base") + _link("arm", 1.0, inertia=inertia) + _joint("j", "base", "arm"))
    with pytest.raises(ModelError, match=f"link 'arm': inertia tensor violates the triangle inequality.*by {excess}"):
        load_urdf_string(text, inertia="strict")


@pytest.mark.parametrize("inertia,moment", [("1 0 0 -1 0 1", "-1"), ("1 2 0 1 0 1", "-1")])
def test_not_positive_semi_definite_rejected(inertia, moment):
    text = _urdf(_link("base") + _link("a", 1.0, inertia=inertia) + _joint("j", "base", "a"))
    with pytest.raises(ModelError, match=f"link 'a': inertia tensor is not positive semi-definite: a principal "
                                         f"moment is {moment} kg m\\^2"):
        load_urdf_string(text, inertia="strict")


def test_triangle_inequality_rotated_tensor_rejected():
    # diag(1, 1, 2.1) seen in axes rotated 45 deg about x: off-diagonal entries, same moments
    c = math.sqrt(0.5)
    r = np.array([[1, 0, 0], [0, c, -c], [0, c, c]])
    i = r @ np.diag([1.0, 1.0, 2.1]) @ r.T
    values = f"{i[0, 0]} {i[0, 1]} {i[0, 2]} {i[1, 1]} {i[1, 2]} {i[2, 2]}"
    with pytest.raises(ModelError, match="link 'arm': inertia tensor violates the triangle inequality"):
        load_urdf_string(_urdf(_link("base") + _link("arm", 1.0, inertia=values) + _joint("j", "base", "arm")),
                         inertia="strict")


@pytest.mark.parametrize("inertia", [
    "-2e-22 0 0 1e-22 0 1e-22",          # a point mass written with round-off
    "0.001 0 0 0.001 0 0.0020000001",    # a thin disc (I3 = I1 + I2) rounded up in the last digit
    "1 0 0 1 0 2",                        # exactly a thin disc
])
def test_rounding_level_inertia_accepted(inertia):
    model = load_urdf_string(_urdf(_link("base") + _link("arm", 1.0, inertia=inertia) + _joint("j", "base", "arm")))
    assert model.joints[0].inertia.mass == 1.0


@pytest.mark.parametrize("limit,message", [
    ('effort="-1"', "joint 'j': <limit> effort -1.0 is negative"),
    ('velocity="-0.5"', "joint 'j': <limit> velocity -0.5 is negative"),
])
def test_negative_limits_rejected(limit, message):
    with pytest.raises(ModelError, match=message):
        load_urdf_string(_urdf(TWO + _joint("j", "base", "a", extra=f"<limit {limit}/>")))


def test_limits_validated_when_built_directly():
    from rbdgen import Limits

    with pytest.raises(ModelError, match="effort -2.0 is negative"):
        Limits(effort=-2.0)
    with pytest.raises(ModelError, match="lower 1.0 is above upper 0.0"):
        Limits(lower=1.0, upper=0.0)
    with pytest.raises(ModelError, match="velocity is NaN"):
        Limits(velocity=float("nan"))


_BODY = '<link name="base"/><link name="a"><inertial><mass value="&m;"/></inertial></link>'


@pytest.mark.parametrize("prologue", [
    '<!DOCTYPE robot [<!ENTITY m "1">]>',                                       # internal entity
    '<!DOCTYPE robot [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY m "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',                            # an expansion bomb
    '<!DOCTYPE robot [<!ENTITY m SYSTEM "file:///etc/passwd">]>',               # an external entity
    '<!DOCTYPE robot SYSTEM "http://example.invalid/robot.dtd">',               # an external DTD
])
def test_dtd_and_entities_rejected(prologue):
    text = f'<?xml version="1.0"?>{prologue}<robot name="r">{_BODY}</robot>'
    with pytest.raises(ModelError, match="DTD, entity or external reference.*remove the <!DOCTYPE"):
        load_urdf_string(text)


def _long_chain(n: int) -> str:
    links = "".join(_link(f"l{i}", 1.0, com="0 0 -0.05", inertia="0.01 0 0 0.01 0 0.001") for i in range(n + 1))
    joints = "".join(_joint(f"j{i}", f"l{i}", f"l{i + 1}", xyz="0 0 -0.1", axis="0 1 0") for i in range(n))
    return _urdf(links + joints, name="chain")


def test_deep_chain_loads_without_recursion():
    """A 5,000-joint chain (far deeper than Python's recursion limit) loads."""
    model = load_urdf_string(_long_chain(5000), floating=True)
    assert model.joint_count == 5000 and len(model.links) == 5001
    assert [j.parent for j in model.joints] == list(range(-1, 4999))
    assert model.total_mass == pytest.approx(5001.0)


def test_depth_first_joint_order_is_pinocchios(robot_path):
    pin = pytest.importorskip("pinocchio")
    path = robot_path("g1")
    order = list(pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()).names[2:])
    model = load_urdf(path, floating=True, joint_order="depth_first")
    assert list(model.joint_names) == order
    assert model == load_urdf(path, floating=True, joint_order=order)
    assert load_urdf(path, floating=True, joint_order="breadth_first") == load_urdf(path, floating=True)


def test_balance_inertia_is_a_deprecated_alias(caplog):
    text = _urdf(_link("base") + _link("arm", 1.0, inertia="1 0 0 1 0 2.6") + _joint("j", "base", "arm"))
    with pytest.deprecated_call(match='inertia="balance"'):
        model = load_urdf_string(text, balance_inertia=True)
    np.testing.assert_allclose(model.joints[0].inertia.rotational, 4.6 / 3 * np.eye(3), atol=1e-15)  # mean moment
    assert model == load_urdf_string(text, inertia="balance")
    with pytest.deprecated_call():
        assert load_urdf_string(text, balance_inertia=False).inertia_report.policy == "warn"
    with pytest.deprecated_call(), pytest.raises(ModelError, match="balance_inertia=True contradicts inertia='strict'"):
        load_urdf_string(text, balance_inertia=True, inertia="strict")
    with pytest.raises(ModelError, match="inertia must be one of \\('warn', 'balance', 'strict'\\), got 'lax'"):
        load_urdf_string(text, inertia="lax")


def test_mimic_of_an_unknown_joint_ignored(caplog):
    """alex_psyonic_hands.urdf has 'Left_index_q2' mimic 'index_q1', which it does not have: Pinocchio
    loads it (mimic tags ignored), and so does rbdgen, with the joint on its own coordinate."""
    text = _urdf(TWO + _link("b", 1.0) + _joint("j1", "base", "a")
                 + _joint("j2", "a", "b", extra='<mimic joint="ghost" multiplier="2"/>'))
    model = load_urdf_string(text)
    assert model.joint_names == ("j1", "j2") and model.joints[1].mimic is None
    assert "joint 'j2': mimic of 'ghost', which is not a joint of the robot, ignored" in caplog.text


def test_mimic_on_fixed_joint_ignored(caplog):
    """Reduced models weld mimic joints (Talos' talos_reduced.urdf keeps their <mimic> tags)."""
    text = _urdf(TWO + _link("b", 1.0) + _joint("j1", "base", "a")
                 + _joint("j", "a", "b", kind="fixed", xyz="0 0.5 0", extra='<mimic joint="j1" multiplier="2"/>'))
    model = load_urdf_string(text)
    assert model.joint_names == ("j1",) and model.joints[0].mimic is None
    assert model.links[model.link_id("b")].body == 0
    assert "joint 'j': mimic of 'j1' on a fixed joint ignored" in caplog.text

