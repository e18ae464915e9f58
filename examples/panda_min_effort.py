"""Minimum-effort point-to-point motion of the Franka Emika Panda, with rbdgen's CasADi dynamics.

The optimal control problem, over a horizon T (default 1 s):

    minimise    integral_0^T tau(t)^T tau(t) dt
    subject to  qdd = FD(q, qd, tau)                      (rbdgen's ABA, a casadi.Function)
                q(0) = q_start, qd(0) = 0,  q(T) = q_goal, qd(T) = 0   (rest to rest)
                q_lower <= q <= q_upper,  |qd| <= qd_max,  |tau| <= tau_max   (from the URDF)

Direct multiple shooting: N intervals, the torque piecewise constant, the state
x = [q, qd] at every node, one RK4 step of x' = [qd, FD(q, qd, tau)] per interval
as the continuity constraint; the cost is exactly sum_k dt tau_k^T tau_k. Solved
with IPOPT through casadi.Opti (exact Hessian; the RK4 step is an SX function mapped over
the intervals, see `build_problem` for ``expand``).

    python examples/panda_min_effort.py --intervals 40 --horizon 1.0
    python examples/panda_min_effort.py --urdf path/to/panda.urdf --quiet

`solve()` is the programmatic entry point (tests/test_examples.py uses it);
`build_problem()` takes any forward-dynamics function, so the same problem can be built
on other dynamics (benchmarks/ocp.py: rbdgen's against adam-robotics').
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path
from typing import Optional

import casadi as ca
import numpy as np

import rbdgen

#: The Panda's "ready" pose (start) and a goal 0.5-1.2 rad away in every joint, inside the limits.
Q_START = np.array([0.0, -np.pi / 4, 0.0, -3 * np.pi / 4, 0.0, np.pi / 2, np.pi / 4])
Q_GOAL = np.array([1.0, 0.3, -0.6, -1.6, 0.8, 2.2, -0.4])


def default_urdf() -> Path:
    """The Panda URDF bundled with rbdgen (fingers welded: 7 joints)."""
    here = Path(__file__).resolve().parent.parent / "generated" / "panda" / "panda.urdf"
    if here.exists():
        return here
    import importlib.resources

    return Path(str(importlib.resources.files("rbdgen.generated") / "panda" / "panda.urdf"))


def rbdgen_dynamics(model: rbdgen.RobotModel) -> ca.Function:
    """``qdd = fd(q, qd, tau)`` from rbdgen's CasADi forward dynamics (ABA), no external loads."""
    aba = rbdgen.generate(model, ops=["forward_dynamics"], prefix="panda").casadi("forward_dynamics")
    J = model.joint_count
    q, qd, tau = ca.SX.sym("q", J), ca.SX.sym("qd", J), ca.SX.sym("tau", J)
    loads = ca.DM.zeros(aba.size1_in(aba.index_in("loads")))
    return ca.Function("fd", [q, qd, tau], [aba(q, qd, tau, loads)], ["q", "qd", "tau"], ["qdd"])


@dataclasses.dataclass
class Problem:
    opti: ca.Opti
    X: ca.MX  # (2J, N + 1) states [q; qd] at the nodes
    U: ca.MX  # (J, N) piecewise-constant torques
    step: ca.Function  # one RK4 step (x, tau) -> x
    dynamics: ca.Function
    times: np.ndarray


@dataclasses.dataclass
class Solution:
    times: np.ndarray  # (N + 1,) node times
    q: np.ndarray  # (N + 1, J)
    qd: np.ndarray  # (N + 1, J)
    tau: np.ndarray  # (N, J), torque on [times[k], times[k + 1])
    objective: float
    stats: dict  # IPOPT's statistics (success, return_status, iter_count, t_wall_total, ...)
    solve_time: float  # wall-clock seconds of opti.solve()
    sizes: dict  # SX instruction counts of the dynamics and the RK4 step
    model: rbdgen.RobotModel
    q_start: np.ndarray
    q_goal: np.ndarray


def rk4_step(dynamics: ca.Function, J: int, dt: float) -> ca.Function:
    """One RK4 step of x' = [qd, dynamics(q, qd, tau)] with tau held constant, as an SX function."""
    x, tau = ca.SX.sym("x", 2 * J), ca.SX.sym("tau", J)

    def f(x):
        return ca.vertcat(x[J:], dynamics(x[:J], x[J:], tau))

    k1 = f(x)
    k2 = f(x + dt / 2 * k1)
    k3 = f(x + dt / 2 * k2)
    k4 = f(x + dt * k3)
    return ca.Function("rk4", [x, tau], [x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)], ["x", "tau"], ["x_next"])


def build_problem(model: rbdgen.RobotModel, dynamics: ca.Function, intervals: int, horizon: float,
                  q_start=Q_START, q_goal=Q_GOAL, quiet: bool = True, max_iter: int = 1000,
                  expand: bool = False) -> Problem:
    """The multiple-shooting OCP (see the module docstring) on ``dynamics(q, qd, tau) -> qdd``.

    The RK4 step is one SX function (the dynamics inlined, 4 calls); the N steps are one
    ``map`` call in the MX graph, so CasADi builds the step's derivatives once. ``expand``
    (casadi.Opti's ``expand=True``: the whole NLP as one SX graph) is off by default: on the
    Panda it made the solver set-up about 3 times slower (N copies of the step differentiated
    symbolically) for about the same time per iteration.
    """
    J, N = model.joint_count, intervals
    dt = horizon / N
    lower = np.array([j.limits.lower for j in model.joints])
    upper = np.array([j.limits.upper for j in model.joints])
    effort = np.array([j.limits.effort for j in model.joints])
    speed = np.array([j.limits.velocity for j in model.joints])
    q_start, q_goal = np.asarray(q_start, float), np.asarray(q_goal, float)
    step = rk4_step(dynamics, J, dt)

    opti = ca.Opti()
    X = opti.variable(2 * J, N + 1)
    U = opti.variable(J, N)
    opti.minimize(dt * ca.sumsqr(U))  # integral of tau^T tau, tau piecewise constant: exact
    # continuity: all N RK4 steps as one mapped call (CasADi differentiates the step once)
    opti.subject_to(X[:, 1:] == step.map(N)(X[:, :-1], U))
    opti.subject_to(X[:, 0] == np.concatenate([q_start, np.zeros(J)]))
    opti.subject_to(X[:, N] == np.concatenate([q_goal, np.zeros(J)]))
    for i in range(J):  # bounds as simple box constraints (Opti passes them to IPOPT as bounds)
        if np.isfinite(lower[i]) and np.isfinite(upper[i]):
            opti.subject_to(opti.bounded(lower[i], X[i, :], upper[i]))
        if np.isfinite(speed[i]):
            opti.subject_to(opti.bounded(-speed[i], X[J + i, :], speed[i]))
        if np.isfinite(effort[i]):
            opti.subject_to(opti.bounded(-effort[i], U[i, :], effort[i]))

    # initial guess: a smooth (cubic, rest-to-rest) interpolation and the torques it needs
    times = np.linspace(0.0, horizon, N + 1)
    s = times / horizon
    shape, rate = 3 * s ** 2 - 2 * s ** 3, (6 * s - 6 * s ** 2) / horizon
    q_guess = q_start + np.outer(shape, q_goal - q_start)
    qd_guess = np.outer(rate, q_goal - q_start)
    qdd_guess = np.outer((6 - 12 * s) / horizon ** 2, q_goal - q_start)
    mid = slice(0, N)
    tau_guess = rbdgen.NumpySolver(model).inverse_dynamics(q_guess[mid], qd_guess[mid], qdd_guess[mid])
    opti.set_initial(X, np.vstack([q_guess.T, qd_guess.T]))
    opti.set_initial(U, np.clip(tau_guess, -effort, effort).T)

    plugin = {"expand": expand, "print_time": False}
    ipopt = {"print_level": 0 if quiet else 5, "sb": "yes", "max_iter": max_iter, "tol": 1e-8}
    opti.solver("ipopt", plugin, ipopt)
    return Problem(opti, X, U, step, dynamics, times)


def solve(intervals: int = 40, horizon: float = 1.0, urdf=None, quiet: bool = True, dynamics: ca.Function = None,
          q_start=Q_START, q_goal=Q_GOAL, max_iter: int = 1000, expand: bool = False) -> Solution:
    """Build and solve the OCP; ``dynamics`` defaults to rbdgen's (`rbdgen_dynamics`).

    Raises nothing when IPOPT fails: check ``solution.stats["success"]``.
    """
    model = rbdgen.load_urdf(urdf or default_urdf())
    dynamics = dynamics or rbdgen_dynamics(model)
    problem = build_problem(model, dynamics, intervals, horizon, q_start, q_goal, quiet, max_iter, expand)
    opti = problem.opti
    start = time.perf_counter()
    try:
        sol = opti.solve()
        value = sol.value
    except RuntimeError:  # IPOPT did not converge: report its last iterate
        value = opti.debug.value
    solve_time = time.perf_counter() - start
    stats = dict(opti.stats())
    X, U = np.asarray(value(problem.X)), np.asarray(value(problem.U)).reshape(model.joint_count, intervals)
    J = model.joint_count
    sizes = {"dynamics": dynamics.n_instructions(), "rk4 step": problem.step.expand().n_instructions()}
    return Solution(problem.times, X[:J].T.copy(), X[J:].T.copy(), U.T.copy(), float(value(opti.f)), stats,
                    solve_time, sizes, model, np.asarray(q_start, float), np.asarray(q_goal, float))


def simulate(model: rbdgen.RobotModel, q0, qd0, tau: np.ndarray, horizon: float, substeps: int = 1):
    """Re-simulate piecewise-constant torques (N, J) with the NumPy engine and RK4, ``substeps`` per interval."""
    engine = rbdgen.NumpySolver(model)
    J = model.joint_count
    x = np.concatenate([q0, qd0])
    h = horizon / (tau.shape[0] * substeps)

    def f(x, u):
        return np.concatenate([x[J:], engine.forward_dynamics(x[:J], x[J:], u)])

    for u in tau:
        for _ in range(substeps):
            k1 = f(x, u)
            k2 = f(x + h / 2 * k1, u)
            k3 = f(x + h / 2 * k2, u)
            k4 = f(x + h * k3, u)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x[:J], x[J:]


def report(sol: Solution, horizon: float) -> str:
    J = sol.model.joint_count
    effort = np.array([j.limits.effort for j in sol.model.joints])
    goal = np.concatenate([sol.q_goal, np.zeros(J)])
    iters = sol.stats["iter_count"]
    lines = [
        f"IPOPT: {sol.stats['return_status']} after {iters} iterations, "
        f"solve {sol.solve_time:.3f} s wall ({1e3 * sol.solve_time / max(1, iters):.1f} ms/iteration)",
        f"objective integral tau^T tau dt = {sol.objective:.6g} N^2 m^2 s",
        f"SX sizes (n_instructions): forward dynamics {sol.sizes['dynamics']}, RK4 step {sol.sizes['rk4 step']}",
        f"peak |tau| / limit: {np.max(np.abs(sol.tau) / effort):.3f}",
        f"final state error of the optimal trajectory: {np.linalg.norm(np.concatenate([sol.q[-1], sol.qd[-1]]) - goal):.2e}",
    ]
    for substeps in (1, 10):
        q, qd = simulate(sol.model, sol.q_start, np.zeros(J), sol.tau, horizon, substeps)
        err = np.linalg.norm(np.concatenate([q, qd]) - goal)
        lines.append(f"final state error re-simulated with the NumPy engine "
                     f"(RK4, {substeps} step(s)/interval): {err:.2e}")
    return "\n".join(lines)


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--intervals", type=int, default=40, help="shooting intervals N (default 40)")
    parser.add_argument("--horizon", type=float, default=1.0, help="motion duration in seconds (default 1.0)")
    parser.add_argument("--urdf", default=None, help="Panda URDF (default: rbdgen's bundled panda.urdf)")
    parser.add_argument("--quiet", action="store_true", help="no IPOPT iteration log")
    args = parser.parse_args(argv)
    sol = solve(intervals=args.intervals, horizon=args.horizon, urdf=args.urdf, quiet=args.quiet)
    print(report(sol, args.horizon))
    return 0 if sol.stats["success"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
