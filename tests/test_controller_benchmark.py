"""`python -m benchmarks.controller --quick`: the controller benchmark runs and every rbdgen result it
times agrees with Pinocchio; its check catches a wrong result.

The quick run (Panda, two rounds, -O1, no Pinocchio C++ build) is a harness check, never a
speed measurement: nothing here looks at the times beyond their being positive.
"""

from __future__ import annotations

import pytest

from benchmarks.controller import ROWS, errors, expected, second_batch
from benchmarks.kinematics import Robot
from quick_benchmarks import run_quick, table_cells
from robots import ROBOTS


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return run_quick("controller", tmp_path_factory.mktemp("controller-bench-cache"))


def test_every_row_reported_and_checked(quick):
    assert "every rbdgen result agrees with Pinocchio" in quick
    for _, _, label in ROWS:
        cells = table_cells(quick, "panda", label)
        assert float(cells[0]) > 0
        assert float(cells[-1]) <= 1  # error / tolerance
        assert cells[1:4] == ["n/a"] * 3  # no Pinocchio C++ build in quick mode, so no ratios


@pytest.mark.parametrize("name", ["panda", "talos"])
def test_the_check_catches_a_wrong_result(name):
    """Pinocchio's own results pass; one entry off by 1e-6 (relative) fails. Talos: the references
    reduced by its mimic map (G = 38), the shape of rbdgen's results (integrate: translation,
    quaternion and q_next)."""
    robot = Robot.load(name, ROBOTS[name].path, ROBOTS[name].floating)
    J = robot.model.joint_count
    base = 6 if robot.floating else 0
    G = J + base
    other = second_batch(robot)
    sizes = {"kinetic_energy": 1, "potential_energy": 1, "operational_space_inertia": 36, "passivity_forces": G,
             "dynamically_consistent_inverse": 6 * G, "integrate": J + (7 if robot.floating else 0), "difference": G,
             "integrate_derivatives": 2 * G * G + G, "difference_derivatives": 2 * G * G,
             "forward_velocity_kinematics_derivatives": 12 * J + 9 * base,  # by q, qd; base velocity, rotation
             "forward_acceleration_kinematics_derivatives": 18 * J + 15 * base,
             "center_of_mass_derivatives": 6 * J + 4.5 * base}
    for row, _, _ in ROWS:
        right = [expected(robot, row, i, other) for i in range(2)]
        assert right[0].size == sizes.get(row, G * G), row
        assert errors(robot, {row: right}, other)[row] == 0.0
        wrong = [right[0], right[1] * (1 + 1e-6)]
        assert errors(robot, {row: wrong}, other)[row] > 1, row
