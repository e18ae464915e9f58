"""Every URDF of example-robot-data (`benchmarks/robot_survey.py` in a fast form).

What Pinocchio loads, rbdgen loads with its default inertia policy (``"warn"``) and
matches Pinocchio's mass matrix and inverse dynamics at two random states (NumPy
engine, 1e-12 relative); what Pinocchio refuses, rbdgen refuses too. ``"strict"``
refuses exactly the files rbdgen refused before the policy existed (recorded
below), naming the same link.
"""

from __future__ import annotations

import importlib.metadata
import logging

import numpy as np
import pytest

import rbdgen
from rbdgen.testing import MimicReference
from robots import example_robot_data_dir

pin = pytest.importorskip("pinocchio")

#: Refused before the inertia policy (rbdgen 0.x, every inertia checked strictly), with the link
#: named: the default now loads them (and Pinocchio does).
STRICT_REFUSALS = {
    "alex_description/urdf/alex_psyonic_hands.urdf": "LeftPsyonicAbilityBaseLink",
    "allegro_hand_description/urdf/allegro_left_hand.urdf": "link_11.0",
    "allegro_hand_description/urdf/allegro_right_hand.urdf": "link_3.0",
    "anymal_b_simple_description/robots/anymal-kinova.urdf": "base",
    "anymal_b_simple_description/robots/anymal.urdf": "base",
    "anymal_c_simple_description/urdf/anymal.urdf": "depth_camera_front_camera",
    "b1_description/urdf/b1-z1.urdf": "base",
    "b1_description/urdf/b1.urdf": "base",
    "go1_description/urdf/go1.urdf": "base",
    "hyq_description/robots/hyq_no_sensors.urdf": "base_link",
    "pr2_description/urdf/pr2.urdf": "sensor_mount_link",
    "romeo_description/urdf/romeo_laas_small.urdf": "LShoulderYaw_link",
    "romeo_description/urdf/romeo_small.urdf": "RShoulderYawLink",
    "tiago_description/robots/tiago.urdf": "base_antenna_left_link",
    "tiago_description/robots/tiago_dual.urdf": "base_antenna_left_link",
    "tiago_description/robots/tiago_no_hand.urdf": "base_antenna_left_link",
}


def _urdfs():
    try:
        root = example_robot_data_dir()
    except importlib.metadata.PackageNotFoundError:  # the parametrisation is empty: the first test skips
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.urdf"))


URDFS = _urdfs()


def test_the_survey_covers_example_robot_data():
    if not URDFS:
        pytest.skip("example-robot-data is not installed")
    assert len(URDFS) >= 60 and set(STRICT_REFUSALS) <= set(URDFS)


@pytest.mark.parametrize("name", URDFS)
def test_loads_what_pinocchio_loads_and_matches_it(name, caplog):
    path = example_robot_data_dir() / name
    try:
        pin.buildModelFromUrdf(str(path))
    except (ValueError, RuntimeError):
        with pytest.raises(rbdgen.ModelError):
            rbdgen.load_urdf(path)
        return
    with caplog.at_level(logging.INFO, logger="rbdgen.inertias"):
        model = rbdgen.load_urdf(path)
    report = model.inertia_report
    assert report.policy == "warn"
    assert bool(report.links) == (name in STRICT_REFUSALS)
    for note in report.links:  # each link named in the log with its violation
        assert f"link {note.link!r}: inertia tensor " in caplog.text
    if model.joint_count == 0:
        return
    reference = MimicReference(path, False, joint_names=list(model.joint_names))
    solver = rbdgen.NumpySolver(model)
    rng = np.random.default_rng(len(name))
    for _ in range(2):
        q, qd, qdd = (rng.uniform(-1, 1, model.joint_count) for _ in range(3))
        for ours, theirs in ((solver.mass_matrix(q), reference.mass_matrix(None, q)),
                             (solver.inverse_dynamics(q, qd, qdd), reference.inverse_dynamics(None, q, qd, qdd))):
            assert np.abs(ours - theirs).max() <= 1e-12 * np.abs(theirs).max()


@pytest.mark.parametrize("name", sorted(STRICT_REFUSALS))
def test_strict_refuses_what_rbdgen_refused_before(name):
    with pytest.raises(rbdgen.ModelError, match=f"^link '{STRICT_REFUSALS[name]}': inertia tensor .*inertia=\"warn\""):
        rbdgen.load_urdf(example_robot_data_dir() / name, inertia="strict")
