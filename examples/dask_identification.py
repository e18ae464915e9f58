"""Friction identification over a long log: the Panda's inverse dynamics on 10 million logged states, on a Dask cluster.

A log holds joint positions, velocities, accelerations and the measured torques. The measured torques are
the rigid-body torques plus each joint's friction, viscous and Coulomb, plus sensor noise:

    tau_measured = ID(q, qd, qdd) + f_v qd + f_c sign(qd) + noise

Identification takes the rigid-body part away with rbdgen's inverse dynamics and fits f_v and f_c per
joint by least squares on the residual r = tau_measured - ID(q, qd, qdd): the 2 x 2 normal equations of
[qd, sign(qd)] per joint, whose sums run over every state. The log is a set of dask arrays, chunked along
the states; ``solver.inverse_dynamics(q, qd, qdd)`` on them is one ``map_blocks``, lazy, evaluated by the
cluster's workers, which get the solver pickled (its C sources; each worker loads it from its build cache
or compiles it). The same identification runs in this process on NumPy arrays, one thread, and the two
must agree: the torques bit for bit, the fitted coefficients to rounding.

The log here is synthesised on the workers (random states, true friction `TRUE_VISCOUS`, `TRUE_COULOMB`,
noise `NOISE`), so the fit can be checked against the truth too. With a real log, build the dask arrays
from its files instead (``dask.array.from_zarr``, ``from_npy_stack``...). On a real cluster, pass the
scheduler's address (``--scheduler tcp://host:8786``): the workers need rbdgen, a C compiler and Python's
headers, or a build cache holding the solver (docs/scaling-out.md).

    python examples/dask_identification.py                     # 10 million states, 2 local workers
    python examples/dask_identification.py --states 200000 --chunk 50000

It prints the fitted friction beside the truth, the wall times of the inverse dynamics on the cluster and
in this process, and whether the results agree; `identify()` is the programmatic entry point
(tests/test_examples.py runs it small).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import time
from pathlib import Path

import numpy as np

import rbdgen

#: The friction the synthetic log is made with, per joint: viscous [N m s/rad] and Coulomb [N m].
TRUE_VISCOUS = np.array([0.60, 0.55, 0.50, 0.45, 0.20, 0.15, 0.10])
TRUE_COULOMB = np.array([0.80, 0.75, 0.70, 0.65, 0.30, 0.25, 0.20])

#: The standard deviation of the torque sensors' noise [N m].
NOISE = 0.05


def default_urdf() -> Path:
    return Path(__file__).resolve().parent.parent / "generated" / "panda" / "panda.urdf"


def synthetic_log(solver, states: int, chunk: int, seed: int):
    """``(q, qd, qdd, tau_measured)`` as lazy dask arrays of ``states`` rows in chunks of ``chunk``."""
    import dask.array as da

    rng = da.random.default_rng(seed)
    J = solver.joint_count
    q = rng.uniform(-2.5, 2.5, (states, J), chunks=(chunk, J))
    qd = rng.normal(0.0, 1.5, (states, J), chunks=(chunk, J))
    qdd = rng.normal(0.0, 4.0, (states, J), chunks=(chunk, J))
    noise = rng.normal(0.0, NOISE, (states, J), chunks=(chunk, J))
    tau = solver.inverse_dynamics(q, qd, qdd) + TRUE_VISCOUS * qd + TRUE_COULOMB * da.sign(qd) + noise
    return q, qd, qdd, tau


def fit_friction(qd, residual, xp):
    """The sums of the normal equations of the least squares of ``residual`` on ``[qd, sign(qd)]``, per joint
    (``xp``: numpy or dask.array, whose sums run where the arrays are): see `_solve_normal`."""
    s = xp.sign(qd)
    return [(qd * qd).sum(axis=0), (qd * s).sum(axis=0), (s * s).sum(axis=0),
            (qd * residual).sum(axis=0), (s * residual).sum(axis=0)]


def _solve_normal(sums):
    """``(f_v, f_c)`` per joint from the sums of `fit_friction`: the 2 x 2 normal equations, by Cramer's rule."""
    aa, ab, bb, ar, br = (np.asarray(x) for x in sums)
    det = aa * bb - ab * ab
    return (bb * ar - ab * br) / det, (aa * br - ab * ar) / det


@dataclasses.dataclass
class Identification:
    viscous: np.ndarray  # fitted on the cluster
    coulomb: np.ndarray
    viscous_local: np.ndarray  # fitted in this process
    coulomb_local: np.ndarray
    torques_equal: bool  # the cluster's inverse dynamics equals this process's, bit for bit
    reference_error: float  # the largest relative error of a few states' torques against the NumPy engine
    seconds_cluster: float  # the inverse dynamics of every state on the cluster (inputs already there)
    seconds_local: float  # the same in this process, one thread
    states: int
    workers: int


def identify(states: int = 10_000_000, chunk: int = 1_000_000, workers: int = 2, seed: int = 0, urdf=None,
             cache=None, scheduler: str = None) -> Identification:
    """Synthesise the log, identify the friction on a Dask cluster (a `LocalCluster` of ``workers``
    processes of one thread, or the one at ``scheduler``) and in this process, and compare."""
    import dask.array as da
    from dask.distributed import Client, LocalCluster, wait

    solver = rbdgen.generate(urdf or default_urdf()).compile(cache=cache)
    with contextlib.ExitStack() as stack:  # the client closes first, then the cluster
        cluster = scheduler or stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1,
                                                                processes=True, dashboard_address=None))
        client = stack.enter_context(Client(cluster))
        q, qd, qdd, tau = client.persist(synthetic_log(solver, states, chunk, seed))
        wait([q, qd, qdd, tau])
        start = time.perf_counter()
        torques = solver.inverse_dynamics(q, qd, qdd).persist()  # one map_blocks, run by the workers
        wait(torques)
        seconds_cluster = time.perf_counter() - start
        viscous, coulomb = _solve_normal(da.compute(*fit_friction(qd, tau - torques, da)))
        torques_cluster = torques.compute()
        q_np, qd_np, qdd_np, tau_np = da.compute(q, qd, qdd, tau)
    start = time.perf_counter()
    torques_local = solver.inverse_dynamics(q_np, qd_np, qdd_np, threads=1)
    seconds_local = time.perf_counter() - start
    viscous_local, coulomb_local = _solve_normal(fit_friction(qd_np, tau_np - torques_local, np))
    few = np.linspace(0, states - 1, 5).astype(int)
    reference = rbdgen.NumpySolver(solver.model).inverse_dynamics(q_np[few], qd_np[few], qdd_np[few])
    error = np.linalg.norm(torques_cluster[few] - reference, axis=1) / np.linalg.norm(reference, axis=1)
    return Identification(viscous, coulomb, viscous_local, coulomb_local,
                          bool(np.array_equal(torques_cluster, torques_local)), float(error.max()),
                          seconds_cluster, seconds_local, states, workers)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--states", type=int, default=10_000_000, help="logged states (default: 10 million)")
    parser.add_argument("--chunk", type=int, default=1_000_000, help="states per Dask chunk (default: 1 million)")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes (default: 2)")
    parser.add_argument("--scheduler", help="the address of a running Dask scheduler instead of a local cluster")
    parser.add_argument("--urdf", type=Path, help="another Panda description")
    args = parser.parse_args(argv)
    result = identify(args.states, args.chunk, args.workers, urdf=args.urdf, scheduler=args.scheduler)
    print(f"{result.states} states, {result.workers} workers; load average {os.getloadavg()[0]:.2f}")
    print("joint  viscous (true, cluster, local)      Coulomb (true, cluster, local)")
    for j in range(len(TRUE_VISCOUS)):
        print(f"{j + 1:5d}  {TRUE_VISCOUS[j]:.3f} {result.viscous[j]:.4f} {result.viscous_local[j]:.4f}"
              f"        {TRUE_COULOMB[j]:.3f} {result.coulomb[j]:.4f} {result.coulomb_local[j]:.4f}")
    print(f"inverse dynamics: cluster {result.seconds_cluster:.2f} s, this process (one thread) "
          f"{result.seconds_local:.2f} s: {result.seconds_local / result.seconds_cluster:.2f}x")
    print(f"torques equal bit for bit: {result.torques_equal}; against the NumPy engine: "
          f"{result.reference_error:.1e}")
    return 0 if result.torques_equal else 1


if __name__ == "__main__":
    raise SystemExit(main())
