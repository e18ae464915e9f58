"""examples/solo_trot_ocp.py, small (1 interval standing, steps of 2): it converges, and its trajectory obeys
physics checked with Pinocchio (M acc + h = tau + J^T forces), the friction cones and the foot clearance."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("casadi")
pin = pytest.importorskip("pinocchio")
from rbdgen.testing.references import PinocchioReference  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "solo_trot_ocp.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("solo_trot_ocp", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["solo_trot_ocp"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def solution(example):
    return example.solve(stand=1, swing=2)


def test_converged(solution):
    assert solution.stats["success"], solution.stats["return_status"]
    assert solution.violation < 1e-6
    assert solution.X[0, -1] > 0.04  # the base went forward


def test_dynamics_with_pinocchio(example, solution):
    """Each interval without a landing: M (nu+ - nu) / dt + h = [0, u] + J^T forces (Pinocchio's M, h, J)."""
    model = solution.model
    ref = PinocchioReference(str(example.default_urdf()), True, model.joint_names)
    J = model.joint_count
    for k in range(len(solution.active)):
        if k > 0 and np.any(solution.active[k] > solution.active[k - 1]):
            continue  # an impact first
        x, x_next = solution.X[:, k], solution.X[:, k + 1]
        nu, nu_next = x[7 + J:], x_next[7 + J:]
        base = (x[:3], x[3:7], nu[:6], np.zeros(6))
        acc = (nu_next - nu) / solution.dt
        M = ref.mass_matrix(base, x[7:7 + J])
        h = ref.inverse_dynamics(base, x[7:7 + J], nu[6:], np.zeros(J))
        Jc = np.vstack([ref.jacobian(base, x[7:7 + J], foot)[3:] for foot in example.FEET])
        tau = np.concatenate([np.zeros(6), solution.U[:, k]])
        lhs, rhs = M @ acc + h, tau + Jc.T @ solution.forces[k]
        assert np.linalg.norm(lhs - rhs) < 1e-6 * max(1.0, np.linalg.norm(rhs)), k


def test_friction_cones_and_swing_feet(example, solution):
    f = solution.forces.reshape(len(solution.active), 4, 3)
    on = solution.active > 0
    assert np.all(f[~on] == 0)
    assert np.all(f[on][:, 2] >= -1e-6)
    assert np.all(np.hypot(f[on][:, 0], f[on][:, 1]) <= example.MU * f[on][:, 2] + 1e-6)


def test_command_line():
    proc = subprocess.run([sys.executable, str(EXAMPLE), "--stand", "1", "--swing", "2", "--quiet"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "IPOPT iterations" in proc.stdout and "constraint violation" in proc.stdout
