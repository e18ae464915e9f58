"""Reach a Cartesian target with the Panda's hand while staying above a table, with rbdgen's CasADi functions.

The optimal control problem, over a horizon T (default 1 s):

    minimise    integral_0^T tau(t)^T tau(t) dt
    subject to  qdd = FD(q, qd, tau)                 (rbdgen's ABA, a casadi.Function)
                q(0) = q_start, qd(0) = 0, qd(T) = 0            (start and end at rest)
                p(q(T)) = p_target                   (the hand's tool point on the target)
                p_z(q(t_k)) >= table height          (at every node: the hand stays above the table)
                joint position, velocity and torque limits (from the URDF)

where ``p(q)`` is the position of the hand's tool point (link ``panda_hand_tcp``), the
first three outputs of ``rbdgen.generate(model).casadi("forward_kinematics",
"panda_hand_tcp")``. The target lies just above the table, on the other side of the
robot from where the hand starts, so the path constraint shapes the motion.

Direct multiple shooting as in `panda_min_effort.py` (its RK4 step and its forward
dynamics are reused): N intervals, piecewise-constant torques, IPOPT through casadi.Opti.

    python examples/panda_reach.py --intervals 20
    python examples/panda_reach.py --target 0.5 -0.3 0.3 --table 0.25 --quiet

`solve()` is the programmatic entry point (tests/test_examples.py checks its result with
Pinocchio's forward kinematics and dynamics).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Optional

import casadi as ca
import numpy as np

import rbdgen
from panda_min_effort import Q_START, default_urdf, rbdgen_dynamics, rk4_step

#: The link whose origin is the hand's tool point (between the fingertips).
HAND = "panda_hand_tcp"
#: Target of the hand's tool point (m, robot base frame): to the right, low, in front.
TARGET = np.array([0.45, -0.40, 0.22])
#: Height of the table top (m): the hand's tool point stays at or above it.
TABLE = 0.20


@dataclasses.dataclass
class Solution:
    times: np.ndarray  # (N + 1,) node times
    q: np.ndarray  # (N + 1, J)
    qd: np.ndarray  # (N + 1, J)
    tau: np.ndarray  # (N, J), torque on [times[k], times[k + 1])
    hand: np.ndarray  # (N + 1, 3) the hand's tool point at the nodes (rbdgen's CasADi FK)
    objective: float
    stats: dict  # IPOPT's statistics (success, return_status, iter_count, ...)
    solve_time: float  # wall-clock seconds of opti.solve()
    model: rbdgen.RobotModel
    target: np.ndarray
    table: float


def hand_position(model: rbdgen.RobotModel) -> ca.Function:
    """``p(q)``: the position of the hand's tool point, from rbdgen's CasADi forward kinematics."""
    fk = rbdgen.generate(model, ops=["forward_kinematics"], prefix="panda", frames=[HAND]).casadi(
        "forward_kinematics", HAND)
    q = ca.SX.sym("q", model.joint_count)
    return ca.Function("hand", [q], [fk(q)[:3]], ["q"], ["p"])


def solve(intervals: int = 20, horizon: float = 1.0, target=TARGET, table: float = TABLE, urdf=None,
          quiet: bool = True, max_iter: int = 500) -> Solution:
    """Build and solve the OCP (module docstring). Raises nothing when IPOPT fails: check ``stats["success"]``."""
    model = rbdgen.load_urdf(urdf or default_urdf())
    J, N = model.joint_count, intervals
    dt = horizon / N
    target = np.asarray(target, dtype=float)
    step = rk4_step(rbdgen_dynamics(model), J, dt)
    hand = hand_position(model)
    limits = [j.limits for j in model.joints]

    opti = ca.Opti()
    X = opti.variable(2 * J, N + 1)  # [q; qd] at the nodes
    U = opti.variable(J, N)
    opti.minimize(dt * ca.sumsqr(U))
    opti.subject_to(X[:, 1:] == step.map(N)(X[:, :-1], U))
    opti.subject_to(X[:, 0] == np.concatenate([Q_START, np.zeros(J)]))
    opti.subject_to(X[J:, N] == 0)
    P = hand.map(N + 1)(X[:J, :])  # (3, N + 1) the hand at every node
    opti.subject_to(P[:, N] == target)
    opti.subject_to(P[2, :] >= table)
    for i, lim in enumerate(limits):
        opti.subject_to(opti.bounded(lim.lower, X[i, :], lim.upper))
        opti.subject_to(opti.bounded(-lim.velocity, X[J + i, :], lim.velocity))
        opti.subject_to(opti.bounded(-lim.effort, U[i, :], lim.effort))

    # initial guess: at rest in the start pose, holding it against gravity
    opti.set_initial(X, np.tile(np.concatenate([Q_START, np.zeros(J)]), (N + 1, 1)).T)
    opti.set_initial(U, np.tile(rbdgen.NumpySolver(model).gravity(Q_START), (N, 1)).T)
    opti.solver("ipopt", {"print_time": False},
                {"print_level": 0 if quiet else 5, "sb": "yes", "max_iter": max_iter, "tol": 1e-8})
    start = time.perf_counter()
    try:
        value = opti.solve().value
    except RuntimeError:  # IPOPT did not converge: report its last iterate
        value = opti.debug.value
    solve_time = time.perf_counter() - start
    Xv, Uv = np.asarray(value(X)), np.asarray(value(U)).reshape(J, N)
    return Solution(np.linspace(0.0, horizon, N + 1), Xv[:J].T.copy(), Xv[J:].T.copy(), Uv.T.copy(),
                    np.asarray(value(P)).T.copy(), float(value(opti.f)), dict(opti.stats()), solve_time,
                    model, target, float(table))


def report(sol: Solution) -> str:
    iters = sol.stats["iter_count"]
    effort = np.array([j.limits.effort for j in sol.model.joints])
    lowest = int(np.argmin(sol.hand[:, 2]))
    return "\n".join([
        f"IPOPT: {sol.stats['return_status']} after {iters} iterations, solve {sol.solve_time:.3f} s wall",
        f"objective integral tau^T tau dt = {sol.objective:.6g} N^2 m^2 s",
        f"hand start {np.round(sol.hand[0], 4)}, end {np.round(sol.hand[-1], 4)}, target {sol.target}",
        f"final hand error {np.linalg.norm(sol.hand[-1] - sol.target):.2e} m",
        f"lowest hand height {sol.hand[lowest, 2]:.4f} m at t = {sol.times[lowest]:.2f} s (table {sol.table} m)",
        f"peak |tau| / limit: {np.max(np.abs(sol.tau) / effort):.3f}",
    ])


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--intervals", type=int, default=20, help="shooting intervals N (default 20)")
    parser.add_argument("--horizon", type=float, default=1.0, help="motion duration in seconds (default 1.0)")
    parser.add_argument("--target", type=float, nargs=3, default=TARGET, metavar=("X", "Y", "Z"),
                        help=f"target of the hand's tool point in m (default {' '.join(map(str, TARGET))})")
    parser.add_argument("--table", type=float, default=TABLE, help=f"table height in m (default {TABLE})")
    parser.add_argument("--urdf", default=None, help="Panda URDF (default: rbdgen's bundled panda.urdf)")
    parser.add_argument("--quiet", action="store_true", help="no IPOPT iteration log")
    args = parser.parse_args(argv)
    sol = solve(args.intervals, args.horizon, args.target, args.table, args.urdf, args.quiet)
    print(report(sol))
    return 0 if sol.stats["success"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
