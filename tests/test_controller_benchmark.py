"""`python -m benchmarks.controller --quick`: the controller benchmark runs and every rbdgen result it
times agrees with Pinocchio; its check catches a wrong result.

The quick run (Panda, two rounds, -O1, no Pinocchio C++ build) is a harness check, never a
speed measurement: nothing here looks at the times beyond their being positive.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.controller import ROWS, errors, expected
from benchmarks.kinematics import Robot
from robots import ROBOTS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    cache = tmp_path_factory.mktemp("controller-bench-cache")
    proc = subprocess.run([sys.executable, "-m", "benchmarks.controller", "--quick", "--cache", str(cache)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, f"controller.py --quick failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_every_row_reported_and_checked(quick):
    assert "every rbdgen result agrees with Pinocchio" in quick
    for _, _, label in ROWS:
        match = re.search(rf"^\| panda \| {re.escape(label)} \| (.*)\|$", quick, re.M)
        assert match, f"no row for {label}"
        cells = [c.strip() for c in match.group(1).split("|")]
        assert float(cells[0]) > 0
        assert float(cells[-1]) <= 1  # error / tolerance
        assert cells[1:4] == ["n/a"] * 3  # no Pinocchio C++ build in quick mode, so no ratios


@pytest.mark.parametrize("name", ["panda", "talos"])
def test_the_check_catches_a_wrong_result(name):
    """Pinocchio's own results pass; one entry off by 1e-6 (relative) fails. Talos: the references
    reduced by its mimic map (G = 38), the shape of rbdgen's results."""
    robot = Robot.load(name, ROBOTS[name].path, ROBOTS[name].floating)
    G = robot.model.joint_count + (6 if robot.floating else 0)
    for row, _, _ in ROWS:
        right = [expected(robot, row, i) for i in range(2)]
        assert right[0].size == {"kinetic_energy": 1, "potential_energy": 1, "operational_space_inertia": 36}.get(
            row, G * G)
        assert errors(robot, {row: right})[row] == 0.0
        wrong = [right[0], right[1] * (1 + 1e-6)]
        assert errors(robot, {row: wrong})[row] > 1, row
