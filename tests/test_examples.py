"""The examples: optimal control on rbdgen's CasADi functions, and a C controller on its generated C.

examples/panda_min_effort.py, minimum-effort motion of the Panda (rbdgen's CasADi ABA in an OCP):

A small instance (10 intervals over 1 s) is solved in-process and checked:

* IPOPT converged (``success``, ``Solve_Succeeded``);
* rest-to-rest boundary conditions, torque, position and velocity limits from the URDF hold;
* the objective is ``sum_k dt tau_k^T tau_k``;
* the optimal trajectory satisfies the dynamics: re-simulated with the NumPy engine
  (`rbdgen.NumpySolver.forward_dynamics`, RK4 written here, the optimal piecewise-constant
  torques, the same grid) every interval lands on the next node and the final state on the
  goal within 1e-6;
* the script runs from the command line (argparse options, report, exit code 0).

examples/panda_reach.py, the hand to a Cartesian target above a table (rbdgen's CasADi ABA and
forward kinematics), a 10-interval instance checked with Pinocchio: IPOPT converged; the final
hand position on the target (Pinocchio's FK); every node above the table and the table touched
(the path constraint acts); RK4 over Pinocchio's ABA joins the nodes within 1e-6.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import rbdgen
from helpers import pinocchio

pytest.importorskip("casadi")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "panda_min_effort.py"
INTERVALS, HORIZON = 10, 1.0


def _load_example():
    spec = importlib.util.spec_from_file_location("panda_min_effort", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def example():
    return _load_example()


@pytest.fixture(scope="module")
def solution(example):
    return example.solve(intervals=INTERVALS, horizon=HORIZON)


def rk4(engine, x, tau, h):
    J = tau.shape[0]

    def f(x):
        return np.concatenate([x[J:], engine.forward_dynamics(x[:J], x[J:], tau)])

    k1 = f(x)
    k2 = f(x + h / 2 * k1)
    k3 = f(x + h / 2 * k2)
    k4 = f(x + h * k3)
    return x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def test_converged(solution):
    assert solution.stats["success"], solution.stats["return_status"]
    assert solution.stats["return_status"] == "Solve_Succeeded"
    J = solution.model.joint_count
    assert J == 7
    assert solution.times.shape == (INTERVALS + 1,) and np.isclose(solution.times[-1], HORIZON)
    assert solution.q.shape == solution.qd.shape == (INTERVALS + 1, J)
    assert solution.tau.shape == (INTERVALS, J)
    assert solution.sizes["dynamics"] > 0 and solution.sizes["rk4 step"] > solution.sizes["dynamics"]


def test_boundary_conditions_and_limits(solution):
    model = solution.model
    limits = [j.limits for j in model.joints]
    lower, upper = np.array([l.lower for l in limits]), np.array([l.upper for l in limits])
    effort, speed = np.array([l.effort for l in limits]), np.array([l.velocity for l in limits])
    assert np.all(np.isfinite(effort)) and np.all(effort > 0)  # the Panda's URDF has them all
    slack = 1e-6
    assert np.all(np.abs(solution.tau) <= effort * (1 + slack))
    assert np.all(solution.q >= lower - slack) and np.all(solution.q <= upper + slack)
    assert np.all(np.abs(solution.qd) <= speed * (1 + slack))
    assert np.allclose(solution.q[0], solution.q_start, atol=1e-9) and np.allclose(solution.qd[0], 0, atol=1e-9)
    assert np.allclose(solution.q[-1], solution.q_goal, atol=1e-9) and np.allclose(solution.qd[-1], 0, atol=1e-9)
    dt = HORIZON / INTERVALS
    assert np.isclose(solution.objective, dt * np.sum(solution.tau ** 2), rtol=1e-9)


def test_trajectory_satisfies_the_dynamics(solution):
    """Re-simulation with the NumPy engine on the same grid: node defects and final error < 1e-6."""
    engine = rbdgen.NumpySolver(solution.model)
    h = HORIZON / INTERVALS
    nodes = np.hstack([solution.q, solution.qd])
    x = nodes[0].copy()
    for k, tau in enumerate(solution.tau):
        defect = rk4(engine, nodes[k], tau, h) - nodes[k + 1]
        assert np.linalg.norm(defect) < 1e-6, f"interval {k}: defect {np.linalg.norm(defect):.2e}"
        x = rk4(engine, x, tau, h)  # open loop from the start state
    goal = np.concatenate([solution.q_goal, np.zeros(solution.model.joint_count)])
    assert np.linalg.norm(x - goal) < 1e-6


def test_command_line():
    proc = subprocess.run([sys.executable, str(EXAMPLE), "--intervals", "6", "--horizon", "1.0", "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "Solve_Succeeded" in out and "iterations" in out and "n_instructions" in out
    assert "final state error" in out


# -- examples/panda_reach.py: a Cartesian target and a table, checked with Pinocchio ----------------------
REACH = EXAMPLE.parent / "panda_reach.py"
REACH_INTERVALS = 10


@pytest.fixture(scope="module")
def reach():
    sys.path.insert(0, str(EXAMPLE.parent))  # panda_reach imports panda_min_effort, as when run as a script
    try:
        spec = importlib.util.spec_from_file_location("panda_reach", REACH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    return module, module.solve(intervals=REACH_INTERVALS, horizon=HORIZON)


@pytest.fixture(scope="module")
def panda_pinocchio():
    """Pinocchio on the Panda (tests/data/panda.urdf is the bundled generated/panda/panda.urdf)."""
    pytest.importorskip("pinocchio")
    return pinocchio("panda")


def test_reach_converged_at_rest(reach):
    module, solution = reach
    assert solution.stats["success"] and solution.stats["return_status"] == "Solve_Succeeded"
    assert solution.q.shape == (REACH_INTERVALS + 1, 7) and solution.tau.shape == (REACH_INTERVALS, 7)
    assert np.allclose(solution.q[0], module.Q_START, atol=1e-9)
    assert np.allclose(solution.qd[[0, -1]], 0, atol=1e-9)
    limits = [j.limits for j in solution.model.joints]
    slack = 1e-6
    assert np.all(np.abs(solution.tau) <= np.array([l.effort for l in limits]) * (1 + slack))
    assert np.all(np.abs(solution.qd) <= np.array([l.velocity for l in limits]) * (1 + slack))
    assert np.all(solution.q >= np.array([l.lower for l in limits]) - slack)
    assert np.all(solution.q <= np.array([l.upper for l in limits]) + slack)


def test_reach_hand_on_target(reach, panda_pinocchio):
    """Pinocchio's forward kinematics of the final joint positions puts the hand on the target."""
    module, solution = reach
    start = panda_pinocchio.forward_kinematics(None, solution.q[0], module.HAND)[:3]
    assert np.linalg.norm(start - solution.target) > 0.3  # a real motion
    end = panda_pinocchio.forward_kinematics(None, solution.q[-1], module.HAND)[:3]
    assert np.linalg.norm(end - solution.target) < 1e-6, end


def test_reach_above_the_table(reach, panda_pinocchio):
    """At every node Pinocchio puts the hand at or above the table, and it touches it (the constraint acts)."""
    module, solution = reach
    heights = np.array([panda_pinocchio.forward_kinematics(None, q, module.HAND)[2] for q in solution.q])
    assert np.allclose(solution.hand[:, 2], heights, atol=1e-12)  # rbdgen's CasADi FK agrees
    assert np.all(heights >= solution.table - 1e-6), heights
    inside = heights[:-1]  # before the end, which the target fixes
    assert np.min(inside) < solution.table + 1e-4, heights


def test_reach_satisfies_pinocchio_dynamics(reach, panda_pinocchio):
    """RK4 over Pinocchio's ABA (gravity 9.80665) from each node lands on the next node within 1e-6."""
    _, solution = reach
    h = HORIZON / REACH_INTERVALS
    engine = SimpleNamespace(forward_dynamics=lambda q, qd, tau: panda_pinocchio.forward_dynamics(None, q, qd, tau))
    nodes = np.hstack([solution.q, solution.qd])
    for k, tau in enumerate(solution.tau):
        defect = rk4(engine, nodes[k], tau, h) - nodes[k + 1]
        assert np.linalg.norm(defect) < 1e-6, f"interval {k}: defect {np.linalg.norm(defect):.2e}"


def test_reach_command_line():
    proc = subprocess.run([sys.executable, str(REACH), "--intervals", "6", "--quiet"],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Solve_Succeeded" in proc.stdout and "final hand error" in proc.stdout and "table" in proc.stdout
