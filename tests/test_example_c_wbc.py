"""examples/c_wbc: one whole-body control step of Solo12 on its feet, in C.

The folder is generated with the command of the example's README, the program compiled with plain cc
at -O1 against it and run, standing on four feet and with each foot swinging. Its printed state,
generalized acceleration, contact forces and torques are checked with Pinocchio (through rbdgen's
reference adapter, which converts the floating base's coordinates): the equations of motion
``M nudot + h = S^T tau + Jc^T f`` with Pinocchio's M, h and foot Jacobians, the stance feet's
classical accelerations (Pinocchio's frame accelerations) at zero, the base's and the swing foot's
accelerations on their PD targets, the forces as the least weighted norm ones, and
``constraintDynamics`` under the torques found: its accelerations and contact forces must be the
program's.
"""

from __future__ import annotations

import numpy as np
import pytest

from c_examples import SOLO, build, parse, run
from helpers import pinocchio

pin = pytest.importorskip("pinocchio")
from rbdgen.testing.references import rotation_matrix  # noqa: E402

OPS = ("passive_terms", "jacobian", "forward_kinematics", "forward_acceleration_kinematics")
FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
SWING_VELOCITY = np.array([0.0, 0.0, 0.2])   # the program's constants
LIFT, KP, KD, KP_SWING, KD_SWING, WT = 0.05, 100.0, 20.0, 400.0, 40.0, 10.0
TOL = 1e-10


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build(tmp_path_factory.mktemp("c_wbc"), "c_wbc", FEET, OPS, robot=SOLO, options=("--floating",))


def step(program, *args):
    proc = run(program, *args)
    assert proc.returncode == 0, proc.stderr
    rows = {key: np.array(value[0]) for key, value in parse(proc.stdout).items()}
    base = rows["base"]
    assert np.all(base[13:] == 0.0)
    rows["pose"] = (base[0:3], base[3:7], base[7:13], np.zeros(6))
    rows["nu"] = np.concatenate([base[7:13], rows["qd"]])
    return rows


def _rel(a, b):
    return np.linalg.norm(np.asarray(a) - b) / max(np.linalg.norm(b), 1.0)


@pytest.mark.parametrize("args", [(), ("none", 0.03, -0.02, 0.01), ("FL",), ("FL", 0.02, 0.02, 0.0),
                                  ("HR", 0.0, 0.01, 0.0, -1.3)])
def test_step_against_pinocchio(program, args):
    rows = step(program, *args)
    ref = pinocchio("solo12")
    b, q, qd, nu, nudot, f, tau = (rows[k] for k in ("pose", "q", "qd", "nu", "nudot", "f", "tau"))
    stance = rows["stance"].astype(bool)
    swing = [k for k in range(4) if not stance[k]]
    assert len(swing) == (0 if args in ((), ("none", 0.03, -0.02, 0.01)) else 1)
    offset = np.array(args[1:4] if len(args) > 1 else (0.0, 0.0, 0.02))

    # the state: stance feet still, the swing foot at the program's velocity
    Jc = [ref.jacobian(b, q, foot)[3:] for foot in FEET]
    for k in range(4):
        assert np.allclose(Jc[k] @ nu, 0.0 if stance[k] else SWING_VELOCITY, rtol=0, atol=1e-12)

    # the equations of motion with Pinocchio's M and h
    M = ref.mass_matrix(b, q)
    h = ref.inverse_dynamics(b, q, qd, np.zeros(12))
    generalized = np.concatenate([np.zeros(6), tau]) + sum(Jc[k].T @ f[3 * k:3 * k + 3] for k in range(4))
    assert _rel(M @ nudot + h, generalized) < TOL
    assert all(np.all(f[3 * k:3 * k + 3] == 0.0) for k in swing)

    # the feet's classical accelerations (Pinocchio's), and the base's: on their targets
    moving = (b[0], b[1], b[2], nudot[:6])
    for k in range(4):
        a = ref.forward_acceleration_kinematics(moving, q, qd, nudot[6:], FEET[k])[3:]
        expected = np.zeros(3) if stance[k] else KP_SWING * np.array([0, 0, LIFT]) - KD_SWING * SWING_VELOCITY
        assert np.allclose(a, expected, rtol=0, atol=1e-9), (FEET[k], a, expected)
        if not stance[k]:
            assert np.allclose(rows["a_swing"], expected, rtol=0, atol=1e-12)
    theta = pin.log3(rotation_matrix(b[1]))
    a_base = np.concatenate([-KP * theta - KD * b[2][:3], KP * offset - KD * b[2][3:]])
    assert np.allclose(rows["a_base"], a_base, rtol=0, atol=1e-9)
    base_acceleration = ref.forward_acceleration_kinematics(moving, q, qd, nudot[6:], "base_link")
    assert np.allclose(base_acceleration, a_base, rtol=0, atol=1e-9)

    # the forces: of least f^T W f among those that balance the base's rows
    r = M @ nudot + h
    A = np.hstack([Jc[k][:, :6].T for k in range(4) if stance[k]])
    Winv = np.diag(np.tile([1 / WT, 1 / WT, 1.0], int(stance.sum())))
    least = Winv @ A.T @ np.linalg.solve(A @ Winv @ A.T, r[:6])
    assert _rel(np.concatenate([f[3 * k:3 * k + 3] for k in range(4) if stance[k]]), least) < TOL

    # Pinocchio's constraintDynamics under the torques found: the same motion and forces
    contacts = [(foot, "point", (0.0, 0.0, 0.0)) for foot in FEET]
    acc, forces = ref.contact_dynamics(b, q, qd, np.concatenate([np.zeros(6), tau]), contacts, stance.astype(float))
    assert _rel(acc, nudot) < TOL and _rel(forces, f) < 1e-9, (acc - nudot, forces - f)

    # no friction cone is enforced: a stance foot may pull (printed as an infinite ratio)
    ratios = [np.hypot(*f[3 * k:3 * k + 2]) / f[3 * k + 2] if f[3 * k + 2] > 0 else np.inf
              for k in range(4) if stance[k]]
    assert rows["friction"][0] == pytest.approx(max(ratios), rel=1e-5)


def test_forces_change_the_momentum(program):
    """Newton for the whole robot: the feet's forces plus its weight are the rate of its linear momentum
    (Pinocchio's centroidal map and its time variation). Standing, the forces are well inside a friction
    cone of 0.2; on three feet they depend on the base's task (no cone is enforced)."""
    ref = pinocchio("solo12")
    mass = sum(inertia.mass for inertia in ref.model.inertias)
    for args in ((), ("HL", 0.0, 0.02, -0.01)):
        rows = step(program, *args)
        b, q, qd, nudot = rows["pose"], rows["q"], rows["qd"], rows["nudot"]
        rate = ref.centroidal_momentum_matrix(b, q) @ nudot + ref.centroidal_momentum_bias(b, q, qd)
        total = rows["f"].reshape(4, 3).sum(axis=0)
        assert np.allclose(total + mass * np.array([0.0, 0.0, -9.80665]), rate[3:], rtol=0, atol=1e-9)
    assert step(program)["friction"][0] < 0.2
    # lifting FL with the base held puts the centre of mass on the support triangle's edge: HR pulls;
    # accelerating the base towards FL moves the pressure centre inside it
    assert step(program, "FL")["friction"][0] == np.inf
    assert step(program, "FL", 0.02, 0.02, 0.0)["friction"][0] < 0.3


def test_errors(program):
    proc = run(program, "none", 0, 0, 0, 0)      # straight knees: the feet's Jacobians lost rank
    assert proc.returncode == 1 and "lu_factor failed with status 2" in proc.stderr, proc.stderr
    proc = run(program, "XX")
    assert proc.returncode == 2 and "XX" in proc.stderr
    assert run(program, "FL", 0, "nan", 0).returncode == 2
    assert run(program, "FL", 0, 0).returncode == 2
    assert run(program, "FL", 0, 0, "1x").returncode == 2
