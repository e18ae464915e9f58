"""`RobotBuilder`: a model written in Python equals the same robot read from a URDF."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rbdgen
from rbdgen import ModelError, RobotBuilder

URDF = """<robot name="arm">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 -0.2"/><mass value="1.5"/>
    <inertia ixx="0.02" ixy="0.001" ixz="0" iyy="0.02" iyz="0" izz="0.003"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0.1 0 0"/><mass value="0.7"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.004"/></inertial></link>
  <link name="tool"><inertial><mass value="0.2"/>
    <inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/></inertial></link>
  <link name="finger"><inertial><mass value="0.05"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial></link>
  <link name="twin"><inertial><mass value="0.05"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.5" rpy="0.1 0 0"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="30" velocity="3"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 -0.4"/><axis xyz="0 1 0"/></joint>
  <joint name="weld" type="fixed"><parent link="lower"/><child link="tool"/><origin xyz="0.3 0 0" rpy="0 0 1.5"/></joint>
  <joint name="finger" type="prismatic"><parent link="tool"/><child link="finger"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.2"/></joint>
  <joint name="twin" type="prismatic"><parent link="tool"/><child link="twin"/><axis xyz="0 -1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.2"/><mimic joint="finger" multiplier="1" offset="0.001"/></joint>
</robot>"""


def _builder():
    return (RobotBuilder("arm")
            .add_link("base")
            .add_link("upper", 1.5, (0, 0, -0.2), ((0.02, 0.001, 0), (0.001, 0.02, 0), (0, 0, 0.003)))
            .add_link("lower", 0.7, (0.1, 0, 0), ((0.001, 0, 0), (0, 0.004, 0), (0, 0, 0.004)))
            .add_link("tool", 0.2, rotational=((1e-4, 0, 0), (0, 1e-4, 0), (0, 0, 1e-4)))
            .add_link("finger", 0.05, rotational=((1e-5, 0, 0), (0, 1e-5, 0), (0, 0, 1e-5)))
            .add_link("twin", 0.05, rotational=((1e-5, 0, 0), (0, 1e-5, 0), (0, 0, 1e-5)))
            .add_joint("shoulder", "revolute", "base", "upper", xyz=(0, 0, 0.5), rpy=(0.1, 0, 0), axis=(0, 1, 0),
                       lower=-2, upper=2, effort=30, velocity=3)
            .add_joint("elbow", "continuous", "upper", "lower", xyz=(0, 0, -0.4), axis=(0, 1, 0))
            .add_joint("weld", "fixed", "lower", "tool", xyz=(0.3, 0, 0), rpy=(0, 0, 1.5))
            .add_joint("finger", "prismatic", "tool", "finger", axis=(0, 1, 0), lower=0, upper=0.04, effort=20,
                       velocity=0.2)
            .add_joint("twin", "prismatic", "tool", "twin", axis=(0, -1, 0), lower=0, upper=0.04, effort=20,
                       velocity=0.2, mimic=("finger", 1, 0.001)))


@pytest.mark.parametrize("options", [{}, {"floating": True, "joint_order": "depth_first", "armature": [0.1, 0, 0.2]},
                                     {"joint_order": ["shoulder", "elbow", "finger"], "gravity": (0, 0, -1)}])
def test_builder_equals_urdf(options):
    built = _builder().build(**options)
    assert built == rbdgen.load_urdf_string(URDF, **options)
    assert built.joint_names == ("shoulder", "elbow", "finger")
    solver = rbdgen.NumpySolver(built)
    q = np.array([0.3, -0.2, 0.01])
    args = (rbdgen.BaseState([0, 0, 0], [0, 0, 0, 1]),) if built.floating else ()
    assert np.all(np.linalg.eigvalsh(solver.mass_matrix(*args, q)) > 0)


def test_builder_validates_like_a_urdf():
    with pytest.raises(ModelError, match="duplicate link name 'base'"):
        RobotBuilder().add_link("base").add_link("base")
    with pytest.raises(ModelError, match="link 'a': inertia tensor violates the triangle inequality"):
        RobotBuilder().add_link("a", 1.0, rotational=((1, 0, 0), (0, 1, 0), (0, 0, 3))).build(inertia="strict")
    with pytest.raises(ModelError, match="link 'a': mass must be finite"):
        RobotBuilder().add_link("a", -1.0)
    with pytest.raises(ModelError, match="joint 'j': effort -1.0 is negative"):
        RobotBuilder().add_joint("j", "revolute", "a", "b", effort=-1)
    with pytest.raises(ModelError, match="joint 'j': mimic multiplier must be finite"):
        RobotBuilder().add_joint("j", "revolute", "a", "b", mimic=("k", math.nan))
    two = RobotBuilder().add_link("a").add_link("b")
    with pytest.raises(ModelError, match="joint 'j': child link 'c' is not defined"):
        two.add_joint("j", "revolute", "a", "c").build()
    with pytest.raises(ModelError, match="joint 'k': unsupported joint type 'ball'"):
        RobotBuilder().add_link("a").add_link("b").add_joint("k", "ball", "a", "b").build()
    with pytest.raises(ModelError, match="joint 'z': zero axis"):
        RobotBuilder().add_link("a").add_link("b").add_joint("z", "revolute", "a", "b", axis=(0, 0, 0)).build()
    with pytest.raises(ModelError, match="has no link"):
        RobotBuilder().build()
    assert RobotBuilder("9 lives").add_link("a").build().name == "robot_9_lives"
