"""Solo12 stands, then trots two steps: an OCP on rbdgen's CasADi contact and impulse dynamics.

The four feet are declared once as point contacts; the contact schedule goes to the one
generated function through its ``active`` input, a number per foot and node:

    stand (all four feet)  ->  step 1 (FR, HL on the ground; FL, HR swing)
                           ->  step 2 (FL, HR on the ground; FR, HL swing)  ->  all four again

The state x = [base translation (3), base quaternion (4), q (12), nu (18)] at every node, the
joint torques u piecewise constant (the base is not actuated). One interval is a semi-implicit
Euler step, ``(acc, forces) = contact_dynamics(base, q, qd, [0, u], active)``, ``nu+ = nu + dt acc``,
``(base+, q+) = integrate(base, q, nu+, dt)``; where a swing foot lands, the velocity first goes
through ``impulse_dynamics`` (a perfectly inelastic impact). Constraints: the dynamics, the start
at rest, friction cones (mu = 0.7) on the feet on the ground, every swinging foot at least 3 cm
up at the middle of its swing and on the ground (z = 0) where it lands, torque limits. Cost:
torques, joint velocities and the distance from the standing posture, and the base 8 cm ahead at
the end. Solved by IPOPT (limited-memory Hessian) through casadi.Opti, the NLP expanded to one SX graph.

    python examples/solo_trot_ocp.py                 # 6 + 2 x 8 + 2 intervals of 25 ms
    python examples/solo_trot_ocp.py --stand 2 --swing 3 --quiet

`solve()` is the programmatic entry point (tests/test_examples.py runs it small).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import casadi as ca
import numpy as np

import rbdgen

FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
#: The standing posture per leg: hip abduction, hip flexion, knee (front legs; the hind legs mirrored).
STAND = {"HAA": 0.0, "HFE": 0.8, "KFE": -1.6}
MU = 0.7
CLEARANCE = 0.03
ADVANCE = 0.08
#: The ``active`` flags of each phase, in `FEET` order.
PHASES = {"stand": (1, 1, 1, 1), "step 1": (0, 1, 1, 0), "step 2": (1, 0, 0, 1)}


def default_urdf() -> Path:
    return Path(__file__).resolve().parent.parent / "generated" / "solo" / "solo12.urdf"


def standing(model: rbdgen.RobotModel) -> tuple:
    """``(q, base translation)``: the standing posture, the base high enough for the feet to touch z = 0."""
    q = np.array([STAND[name[3:]] * (1 if name[:1] == "F" or name[3:] == "HAA" else -1) for name in model.joint_names])
    solver = rbdgen.NumpySolver(model)
    base = rbdgen.BaseState(np.zeros(3), [0, 0, 0, 1])
    height = -min(solver.forward_kinematics(base, q, foot)[2] for foot in FEET)
    return q, np.array([0.0, 0.0, height])


def schedule(stand: int, swing: int) -> list:
    """The ``active`` flags of each interval: stand, step 1, step 2, then two intervals on four feet."""
    return ([PHASES["stand"]] * stand + [PHASES["step 1"]] * swing + [PHASES["step 2"]] * swing
            + [PHASES["stand"]] * 2)


@dataclasses.dataclass
class Solution:
    X: np.ndarray  # (37, N + 1) states
    U: np.ndarray  # (12, N) joint torques
    forces: np.ndarray  # (N, 12) contact forces of each interval
    active: np.ndarray  # (N, 4)
    dt: float
    stats: dict
    solve_time: float
    violation: float  # the largest constraint violation at the solution
    model: rbdgen.RobotModel


def functions(model: rbdgen.RobotModel, dt: float) -> dict:
    """The SX functions of one interval: ``step(x, u, active) -> (x+, forces)``, ``land(x, active) -> x``
    (the impact) and ``feet(x) -> (4, 1)`` foot heights."""
    generated = rbdgen.generate(model, ops=["contact_dynamics", "impulse_dynamics", "integrate"], prefix="solo",
                                contacts=[rbdgen.Contact(foot) for foot in FEET], baumgarte=(0.0, 10.0))
    contact, impulse, integrate = (generated.casadi(op) for op in ("contact_dynamics", "impulse_dynamics", "integrate"))
    kinematics = [generated.casadi("forward_kinematics", foot) for foot in FEET]
    J, L = model.joint_count, len(model.links)
    x, u, active = ca.SX.sym("x", 7 + J + 6 + J), ca.SX.sym("u", J), ca.SX.sym("active", 4)
    pose, q, nu = x[:7], x[7:7 + J], x[7 + J:]

    def base(pose, nu):
        return ca.vertcat(pose, nu[:6], ca.DM.zeros(6))

    acc, forces = contact(base(pose, nu), q, nu[6:], ca.vertcat(ca.DM.zeros(6), u), active, ca.DM.zeros(6 * L))
    nu_next = nu + dt * acc
    base_next, q_next = integrate(base(pose, nu_next), q, nu_next, dt)
    step = ca.Function("step", [x, u, active], [ca.vertcat(base_next[:7], q_next, nu_next), forces])
    qd_plus, _ = impulse(base(pose, nu), q, nu[6:], active)
    land = ca.Function("land", [x, active], [ca.vertcat(pose, q, qd_plus)])
    heights = ca.vertcat(*[fk(base(pose, nu), q)[2] for fk in kinematics])
    feet = ca.Function("feet", [x], [heights])
    return {"step": step, "land": land, "feet": feet}


def solve(urdf=None, stand: int = 6, swing: int = 8, dt: float = 0.025, quiet: bool = True,
          max_iter: int = 500) -> Solution:
    model = rbdgen.load_urdf(str(urdf or default_urdf()), floating=True)
    J = model.joint_count
    q0, p0 = standing(model)
    x0 = np.concatenate([p0, [0, 0, 0, 1], q0, np.zeros(6 + J)])
    f = functions(model, dt)
    active = np.array(schedule(stand, swing), dtype=float)
    N = len(active)
    effort = np.array([min(j.limits.effort, 3.0) for j in model.joints])  # Solo12's motors: about 3 N m

    opti = ca.Opti()
    X, U = opti.variable(len(x0), N + 1), opti.variable(J, N)
    opti.subject_to(X[:, 0] == x0)
    cost, forces = 0, []
    for k in range(N):
        start = X[:, k]
        landing = [i for i in range(4) if active[k, i] and k > 0 and not active[k - 1, i]]
        if landing:  # a swing foot touches down: on the ground, after an inelastic impact
            opti.subject_to(f["feet"](start)[landing] == 0)
            start = f["land"](start, active[k])
        x_next, force = f["step"](start, U[:, k], active[k])
        opti.subject_to(X[:, k + 1] == x_next)
        forces.append(force)
        for i in range(4):
            if active[k, i]:
                fx, fy, fz = force[3 * i], force[3 * i + 1], force[3 * i + 2]
                opti.subject_to(fz >= 0)
                opti.subject_to(fx ** 2 + fy ** 2 <= (MU * fz) ** 2)
        swinging = [i for i in range(4) if not active[k, i]]
        if swinging and (k == 0 or any(active[k - 1, i] for i in swinging)):
            middle = min(k + swing // 2, N)  # the middle of this swing
            opti.subject_to(f["feet"](X[:, middle])[swinging] >= CLEARANCE)
        opti.subject_to(opti.bounded(-effort, U[:, k], effort))
        cost += dt * (1e-2 * ca.sumsqr(U[:, k]) + 1e-3 * ca.sumsqr(X[13 + J:, k]) + ca.sumsqr(X[7:7 + J, k] - q0))
    cost += 10 * (X[0, N] - ADVANCE) ** 2 + 10 * ca.sumsqr(X[1:3, N] - p0[1:3])
    opti.minimize(cost)
    opti.set_initial(X, np.tile(x0[:, None], (1, N + 1)))
    options = {"ipopt.max_iter": max_iter, "ipopt.hessian_approximation": "limited-memory", "ipopt.tol": 1e-6,
               "expand": True}
    if quiet:
        options.update({"ipopt.print_level": 0, "print_time": False})
    opti.solver("ipopt", options)
    start = time.perf_counter()
    solution = opti.solve()
    elapsed = time.perf_counter() - start
    stats = solution.stats()
    g, lbg, ubg = (np.atleast_1d(solution.value(v)) for v in (opti.g, opti.lbg, opti.ubg))
    violation = float(np.max(np.maximum(lbg - g, 0) + np.maximum(g - ubg, 0)))
    return Solution(np.atleast_2d(solution.value(X)), np.atleast_2d(solution.value(U)),
                    np.array([np.ravel(solution.value(force)) for force in forces]), active, dt, stats, elapsed,
                    violation, model)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--urdf", type=Path, default=None)
    p.add_argument("--stand", type=int, default=6, help="intervals standing before the first step")
    p.add_argument("--swing", type=int, default=8, help="intervals of each step")
    p.add_argument("--dt", type=float, default=0.025)
    p.add_argument("--max-iter", type=int, default=500)
    p.add_argument("--quiet", action="store_true", help="no IPOPT output")
    args = p.parse_args(argv)
    s = solve(args.urdf, args.stand, args.swing, args.dt, args.quiet, args.max_iter)
    print(f"{s.stats['return_status']}: {s.stats['iter_count']} IPOPT iterations, {s.solve_time:.2f} s, "
          f"largest constraint violation {s.violation:.2e}")
    print(f"base from x = {s.X[0, 0]:.3f} m to {s.X[0, -1]:.3f} m over {len(s.active) * s.dt:.2f} s; "
          f"largest torque {np.abs(s.U).max():.2f} N m")
    return 0 if s.stats["success"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
