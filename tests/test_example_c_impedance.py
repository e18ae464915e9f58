"""examples/c_impedance: operational-space control of the Panda in C on one generated folder.

The task-space inertia and the dynamically consistent inverse come from the generated
operational_space_inertia and dynamically_consistent_inverse (no factorisation in main.c).

The folder is generated with the command of the example's README (`rbdgen generate
--no-compile --frames panda_hand_tcp --ops ...`), the program compiled with plain cc at
-O1 against it and run: 500 semi-implicit Euler steps of 2 ms with the generated forward
dynamics. Pinocchio's forward kinematics of the final joint positions the program prints
puts the hand's tool point on the target (within 1e-3 m) with its start orientation
(within 1e-3 rad), and agrees with the program's own last pose; the distance falls
monotonically (every 50 steps). A non-finite target makes a generated function return
an error status, which the program reports and fails on.
"""

from __future__ import annotations

import numpy as np
import pytest

from c_examples import build, parse, run
from helpers import pinocchio

OPS = ("passive_terms", "forward_dynamics", "jacobian", "forward_acceleration_kinematics", "forward_kinematics",
       "operational_space_inertia", "dynamically_consistent_inverse")
HAND = "panda_hand_tcp"
Q_START = np.array([0.0, -np.pi / 4, 0.0, -3 * np.pi / 4, 0.0, np.pi / 2, np.pi / 4])


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build(tmp_path_factory.mktemp("c_impedance"), "c_impedance", (HAND,), OPS)


@pytest.mark.parametrize("target", [(0.5, 0.3, 0.35), (0.3, -0.4, 0.6)])
def test_hand_reaches_the_target(program, target):
    proc = run(program, *target)
    assert proc.returncode == 0, proc.stderr
    rows = parse(proc.stdout)
    ref = pinocchio("panda")
    start = ref.forward_kinematics(None, Q_START, HAND)
    q = np.array(rows["q"][0])
    end = ref.forward_kinematics(None, q, HAND)
    assert np.linalg.norm(start[:3] - target) > 0.3  # a real motion
    assert np.linalg.norm(end[:3] - target) < 1e-3, end[:3]
    assert np.allclose(rows["hand"][0], end[:3], rtol=0, atol=1e-12)  # the program's FK is Pinocchio's
    turn = 2 * np.arccos(min(1.0, abs(start[3:] @ end[3:])))
    assert turn < 1e-3, f"the hand turned by {turn:.2e} rad"
    distances = [d for step, d in rows["step"]]
    assert len(distances) == 11 and distances[0] > 0.3
    assert all(b < a for a, b in zip(distances, distances[1:])), distances


def test_error_status_is_reported(program):
    """A NaN target reaches the torques; the generated forward dynamics refuses them with status 1."""
    proc = run(program, "nan", 0.3, 0.35)
    assert proc.returncode == 1
    assert "panda_forward_dynamics" in proc.stderr and "status 1" in proc.stderr, proc.stderr
    assert "q " not in proc.stdout


def test_bad_arguments(program):
    assert run(program, 0.5).returncode == 2
    assert run(program, 0.5, 0.3, 0.35, 0).returncode == 2
