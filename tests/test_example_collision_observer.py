"""examples/collision_observer: a generalized-momentum observer on the Panda in C.

The folder is generated with the command of the example's README, the program compiled
with plain cc at -O1 against it and run: 1 s of the arm following a joint trajectory under
PD + gravity compensation (generated forward dynamics, 1 ms steps), with a force on the
hand's tool point from 0.4 s to 0.7 s. The residual r stays near zero before the contact,
crosses the threshold within a few ms of its start, falls back within a few ms of its end,
and at the end of the contact equals the external joint torque J^T [0, f] computed here
with Pinocchio's Jacobian at the joint positions the program prints (within the observer's
O(dt) discretisation error). Without a force nothing is detected; a smaller gain detects
later; a NaN force ends in the generated forward dynamics' error status.
"""

from __future__ import annotations

import numpy as np
import pytest

from c_examples import build, parse, run
from helpers import pinocchio

OPS = ("forward_dynamics", "gravity", "momentum", "coriolis_matrix", "jacobian")
HAND = "panda_hand_tcp"
FORCE = np.array([10.0, -15.0, -20.0])  # the program's default, N in world axes


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build(tmp_path_factory.mktemp("collision_observer"), "collision_observer", (HAND,), OPS)


def observe(program, *args):
    proc = run(program, *args)
    assert proc.returncode == 0, proc.stderr
    rows = parse(proc.stdout)
    (threshold,), = rows["threshold"]
    (start, end), = rows["contact"]
    return rows, threshold, start, end


@pytest.mark.parametrize("force", [FORCE, np.array([0.0, 25.0, 5.0])])
def test_contact_is_detected_and_measured(program, force):
    rows, threshold, start, end = observe(program, *force)
    assert (start, end) == (0.4, 0.7)
    (detected,), = rows["detected"]
    (released,), = rows["released"]
    assert start < detected <= start + 0.003, detected      # a 2 ms time constant at K = 500
    assert end < released <= end + 0.015, released
    (free,), = rows["max_r_free"]
    assert 1e-4 < free < 0.05 * threshold                    # moving, yet no false alarm
    trace = np.array(rows["t"])
    before = trace[trace[:, 0] <= start, 1]
    during = trace[(trace[:, 0] > start + 0.01) & (trace[:, 0] <= end), 1]
    after = trace[trace[:, 0] > end + 0.015, 1]
    assert before.max() < 0.05 * threshold and after.max() < 0.05 * threshold
    assert during.min() > 5 * threshold

    q = np.array(rows["q"][0])
    expected = pinocchio("panda").jacobian(None, q, HAND)[3:].T @ force  # J^T [0, f]: the force rows
    assert np.linalg.norm(expected) > 10 * threshold
    assert np.allclose(rows["tau_ext"][0], expected, rtol=0, atol=1e-10)  # the simulated contact
    r = np.array(rows["r"][0])
    assert np.linalg.norm(r - expected) < 5e-3 * np.linalg.norm(expected), (r, expected)


def test_no_force_no_detection(program):
    rows, threshold, start, end = observe(program, 0, 0, 0)
    assert "detected" not in rows and "released" not in rows
    assert np.array(rows["t"])[:, 1].max() < 0.05 * threshold
    assert np.allclose(rows["tau_ext"][0], 0.0) and np.abs(rows["r"][0]).max() < 0.05 * threshold


def test_smaller_gain_detects_later(program):
    fast, *_ = observe(program, *FORCE, 500)
    slow, *_ = observe(program, *FORCE, 50)
    assert fast["detected"][0][0] < slow["detected"][0][0] <= 0.4 + 0.01
    q = np.array(slow["q"][0])
    expected = pinocchio("panda").jacobian(None, q, HAND)[3:].T @ FORCE
    assert np.linalg.norm(np.array(slow["r"][0]) - expected) < 0.05 * np.linalg.norm(expected)


def test_errors(program):
    proc = run(program, "nan", 0, 0)
    assert proc.returncode == 1
    assert "panda_forward_dynamics" in proc.stderr and "status 1" in proc.stderr, proc.stderr
    assert run(program, 1, 2).returncode == 2
    assert run(program, 1, 2, 3, 0).returncode == 2
    assert run(program, 1, 2, 3, 1000).returncode == 2  # K dt = 1: not a stable discrete observer
