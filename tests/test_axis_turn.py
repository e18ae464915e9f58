"""A tree rotation about a joint's own axis folded into its angle (`kinematics.axis_turn`): the UR5 of the
tests writes pi/2 as 1.57079632679, a rotation 5e-12 away from a permutation."""

from __future__ import annotations

import numpy as np

import rbdgen
from rbdgen import spatial as sp
from rbdgen.algorithms.kinematics import Tree, joint_xform
from rbdgen.backends import NumpyOps
from robots import ROBOTS


def _rounded_and_exact_ur5(tmp_path):
    text = open(ROBOTS["ur5"].path).read()
    assert "1.57079632679 " in text  # the rounded angles this test is about
    exact = tmp_path / "ur5_exact.urdf"
    exact.write_text(text.replace("1.57079632679", "1.5707963267948966").replace("3.14159265359", "3.141592653589793"))
    return rbdgen.load_urdf(ROBOTS["ur5"].path), rbdgen.load_urdf(str(exact))


def test_turned_joints_keep_their_transforms(tmp_path):
    model, _ = _rounded_and_exact_ur5(tmp_path)
    tree = Tree.from_model(model)
    turned = {tree.names[i] for i in range(tree.nb) if tree.turn[i] != 0}
    assert turned == {"shoulder_lift_joint", "wrist_1_joint"}  # rpy (0, pi/2, 0) about their own axis y
    ops = NumpyOps()
    for i, joint in enumerate(model.joints):
        for q in (0.0, 0.7, -2.9):
            E, r = sp.xform_compose(joint_xform(tree, i, q, ops), tree.Xtree[i])
            axis = np.array(joint.axis, float)
            K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
            R = np.eye(3) + np.sin(q) * K + (1 - np.cos(q)) * K @ K                 # Rodrigues, the joint's rotation
            expected = R.T @ np.array(joint.origin.rotation).T                      # XJ(q) Xtree as written
            np.testing.assert_allclose(np.array(E, float), expected, rtol=0, atol=1e-15)
            np.testing.assert_array_equal(np.array(r, float), joint.origin.translation)


def test_rounded_angles_cost_no_more_than_exact_ones(tmp_path):
    rounded, exact = _rounded_and_exact_ur5(tmp_path)
    counts = [rbdgen.generate(m, ops=["mass_matrix"], prefix="ur5").operation_counts["mass_matrix"]
              for m in (rounded, exact)]
    assert counts[0]["mul"] == counts[1]["mul"]
