"""One optimal control problem, two sources of CasADi dynamics: rbdgen against adam-robotics.

The problem is examples/panda_min_effort.py's (minimum-effort rest-to-rest motion of the
Panda, direct multiple shooting, RK4, torque/position/velocity limits, IPOPT with exact
Hessian), built by the same `build_problem` with the same options; only the forward
dynamics ``qdd = fd(q, qd, tau)`` differ:

* rbdgen: ``Generated.casadi("forward_dynamics")``, the articulated-body algorithm traced
  for this robot (constants folded, SX, CSE);
* adam: ``KinDynComputations(urdf, joints).mass_matrix_fun()`` and ``bias_force_fun()``
  (floating-base form: identity base transform, zero base velocity, joint block taken),
  ``qdd = M^-1 (tau - h)`` by CasADi's symbolic LDL^T (``ca.ldl``; smaller than ``ca.solve``'s QR).

Both functions are checked against each other (and rbdgen's NumPy engine) at random
states first. For each, the table gives: the first solve's wall time (including the
solver set-up: CasADi building the derivative functions), a second solve of the same
problem (set-up cached: IPOPT's iterations only), IPOPT's iterations and time per
iteration of the second solve, the SX instruction counts of the dynamics and of the RK4
step, and the final objective (they must agree).

    python -m benchmarks.ocp --intervals 30
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time

import casadi as ca
import numpy as np

import rbdgen
from examples.panda_min_effort import build_problem, default_urdf, rbdgen_dynamics, rk4_step


def adam_dynamics(urdf, model: rbdgen.RobotModel) -> ca.Function:
    """Fixed-base forward dynamics from adam's mass matrix and bias force (joint blocks)."""
    from adam.casadi import KinDynComputations

    with contextlib.redirect_stderr(io.StringIO()):  # urdf_parser_py warns about unknown <dynamics> attributes
        kd = KinDynComputations(str(urdf), list(model.joint_names))
    mass, bias = kd.mass_matrix_fun(), kd.bias_force_fun()
    J = model.joint_count
    q, qd, tau = ca.SX.sym("q", J), ca.SX.sym("qd", J), ca.SX.sym("tau", J)
    identity = ca.DM.eye(4)
    M = mass(identity, q)[6:, 6:]
    h = bias(identity, q, ca.DM.zeros(6), qd)[6:]
    D, LT, p = ca.ldl(M)
    qdd = ca.ldl_solve(tau - h, D, LT, p)
    return ca.Function("fd_adam", [q, qd, tau], [qdd], ["q", "qd", "tau"], ["qdd"], {"cse": True})


def check(functions: dict, model: rbdgen.RobotModel, samples: int = 20) -> dict:
    """Worst relative difference of each function from the NumPy engine at random states."""
    engine = rbdgen.NumpySolver(model)
    rng = np.random.default_rng(0)
    J = model.joint_count
    q, qd, tau = rng.uniform(-2, 2, (samples, J)), rng.normal(size=(samples, J)), 10 * rng.normal(size=(samples, J))
    ref = engine.forward_dynamics(q, qd, tau)
    worst = {}
    for name, f in functions.items():
        got = np.asarray(f.map(samples)(q.T, qd.T, tau.T)).T
        worst[name] = float(np.max(np.linalg.norm(got - ref, axis=1) / np.linalg.norm(ref, axis=1)))
    return worst


def run(name: str, model, dynamics, intervals: int, horizon: float, expand: bool) -> dict:
    problem = build_problem(model, dynamics, intervals, horizon, expand=expand)
    opti = problem.opti
    times, stats = [], None
    for _ in range(2):  # first: with set-up; second: the same solve, set-up cached
        start = time.perf_counter()
        sol = opti.solve()
        times.append(time.perf_counter() - start)
        stats = sol.stats()
        if not stats["success"]:
            raise RuntimeError(f"{name}: IPOPT failed: {stats['return_status']}")
    iters = stats["iter_count"]
    evaluation = sum(v for k, v in stats.items() if k.startswith("t_wall_nlp"))
    return {
        "name": name, "first": times[0], "second": times[1], "iters": iters, "per_iter": times[1] / max(iters, 1),
        "eval_per_iter": evaluation / max(iters, 1),
        "sx_fd": dynamics.n_instructions(), "sx_step": rk4_step(dynamics, model.joint_count,
                                                               horizon / intervals).n_instructions(),
        "objective": float(sol.value(opti.f)), "status": stats["return_status"],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--intervals", type=int, default=30)
    parser.add_argument("--horizon", type=float, default=1.0)
    parser.add_argument("--urdf", default=None, help="Panda URDF (default: rbdgen's bundled panda.urdf)")
    parser.add_argument("--expand", action="store_true", help="casadi.Opti expand=True (whole NLP as SX)")
    args = parser.parse_args(argv)
    urdf = args.urdf or default_urdf()
    model = rbdgen.load_urdf(urdf)
    start = time.perf_counter()
    ours = rbdgen_dynamics(model)
    built_ours = time.perf_counter() - start
    start = time.perf_counter()
    theirs = adam_dynamics(urdf, model)
    built_theirs = time.perf_counter() - start
    functions = {"rbdgen (ABA)": ours, "adam (M^-1 (tau - h))": theirs}
    worst = check(functions, model)
    print(f"Panda, {model.joint_count} joints, {args.intervals} intervals over {args.horizon} s, RK4, "
          f"IPOPT exact Hessian, expand={args.expand}; casadi {ca.__version__}")
    print("forward dynamics vs rbdgen.NumpySolver (worst relative, 20 random states): "
          + ", ".join(f"{k} {v:.1e}" for k, v in worst.items()))
    print(f"building the CasADi dynamics: rbdgen {built_ours:.2f} s, adam {built_theirs:.2f} s")
    rows = [run(name, model, f, args.intervals, args.horizon, args.expand) for name, f in functions.items()]
    header = ("dynamics", "1st solve [s]", "2nd solve [s]", "iters", "ms/iter", "eval ms/iter",
              "SX fd", "SX RK4 step", "objective")
    table = [header] + [(r["name"], f"{r['first']:.2f}", f"{r['second']:.2f}", str(r["iters"]),
                         f"{1e3 * r['per_iter']:.1f}", f"{1e3 * r['eval_per_iter']:.1f}", str(r["sx_fd"]),
                         str(r["sx_step"]), f"{r['objective']:.9g}") for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for k, row in enumerate(table):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    a, b = rows[0]["objective"], rows[1]["objective"]
    agree = abs(a - b) <= 1e-6 * max(abs(a), abs(b))
    print(f"objectives agree to {abs(a - b) / max(abs(a), abs(b)):.1e} (relative): {'yes' if agree else 'NO'}")
    print("'eval ms/iter': CasADi's function evaluations (f, g, gradients, Jacobian, Hessian) per iteration; "
          "the rest of 'ms/iter' is IPOPT's own linear algebra.")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
