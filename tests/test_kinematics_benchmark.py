"""`python -m benchmarks.kinematics --quick`: the kinematics benchmark runs and every rbdgen and
dynibo result it times agrees with Pinocchio; its check catches a wrong result.

The quick run (Panda, two rounds, -O1, no Pinocchio C++ build) is a harness check, never
a speed measurement: nothing here looks at the times beyond their being positive.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.kinematics import ROWS, TOLERANCE, Robot
from quick_benchmarks import run_quick, table_cells
from robots import ROBOTS


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return run_quick("kinematics", tmp_path_factory.mktemp("kinematics-bench-cache"))


def test_every_row_reported_and_checked(quick):
    assert "every rbdgen result agrees with Pinocchio" in quick
    for _, _, label in ROWS:
        cells = table_cells(quick, "panda", label)
        ours, rbdgen_error, dynibo_error = float(cells[0]), float(cells[-2]), cells[-1]
        assert ours > 0
        assert rbdgen_error <= TOLERANCE
        assert cells[1:4] == ["n/a"] * 3  # no Pinocchio C++ build in quick mode, so no ratios
        if label in ("CoM Jacobian", "centroidal map"):
            assert dynibo_error == "n/a"  # dynibo has neither
        else:
            assert float(dynibo_error) <= TOLERANCE and float(cells[4]) > 0


def test_the_check_catches_a_wrong_result():
    robot = Robot.load("panda", ROBOTS["panda"].path, False)
    for row, _, _ in ROWS:
        right = [robot.expected(row, i) for i in range(2)]
        assert robot.error(row, right) == 0.0
        wrong = [right[0], right[1] * (1 + 1e-6)]
        assert robot.error(row, wrong) > TOLERANCE, row
    pose = robot.expected("fk_link", 0)
    assert robot.error("fk_link", [np.concatenate([pose[:3], -pose[3:]])]) == 0.0  # -q is the same rotation
