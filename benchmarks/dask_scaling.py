"""Dask on local workers against one process: the Panda's inverse dynamics of 10 million states.

The states are made on a `dask.distributed.LocalCluster` (``--workers`` processes of one thread, chunks of
``--chunk`` states) and kept there; each round then times, one after the other so that all see the same
machine load: the inverse dynamics on the cluster (dask arrays, one ``map_blocks``, the results kept on the
workers), the same states in this process with ``threads=1`` and with ``threads=--workers``. The table
gives the median seconds of each, the median of the rounds' ratios (one thread's time over the
cluster's) and the load average before the first and after the last round; the results of the cluster
and of this process are checked equal first.

    python -m benchmarks.dask_scaling [--states 10000000] [--chunk 1000000] [--workers 2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import rbdgen
from tests.robots import ROBOTS


def _held(keys, dask_scheduler=None) -> int:
    """How many of ``keys`` the scheduler still holds (run on the scheduler)."""
    return sum(key in dask_scheduler.tasks for key in keys)


def _forgotten(client, keys) -> None:
    """Wait until the scheduler has released ``keys``: the same call makes the same keys, which must be
    computed again, not found in memory."""
    while client.run_on_scheduler(_held, keys):
        time.sleep(0.05)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--states", type=int, default=10_000_000)
    parser.add_argument("--chunk", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    import dask.array as da
    from dask.core import flatten
    from dask.distributed import Client, LocalCluster, wait

    solver = rbdgen.generate(ROBOTS["panda"].path).compile()
    J, n = solver.joint_count, args.states
    load_before = os.getloadavg()
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        rng = da.random.default_rng(0)
        states = [rng.uniform(-2.0, 2.0, (n, J), chunks=(args.chunk, J)) for _ in range(3)]
        states = client.persist(states)
        wait(states)
        local = [x.compute() for x in states]
        first = solver.inverse_dynamics(*states).persist()
        if not np.array_equal(first.compute(), solver.inverse_dynamics(*local, threads=1)):
            raise SystemExit("the cluster's inverse dynamics differs from this process's")
        keys = set(flatten(first.__dask_keys__()))
        del first
        _forgotten(client, keys)
        times = {"one thread": [], f"{args.workers} threads": [], "cluster": []}
        ratios = []
        for _ in range(args.rounds):
            for threads, key in ((1, "one thread"), (args.workers, f"{args.workers} threads")):
                start = time.perf_counter()
                solver.inverse_dynamics(*local, threads=threads)
                times[key].append(time.perf_counter() - start)
            start = time.perf_counter()
            result = solver.inverse_dynamics(*states).persist()
            wait(result)
            times["cluster"].append(time.perf_counter() - start)
            del result
            _forgotten(client, keys)
            ratios.append(times["one thread"][-1] / times["cluster"][-1])
    load_after = os.getloadavg()
    print(f"Panda inverse dynamics, {n} states, chunks of {args.chunk}, {args.rounds} rounds; load average "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} CPUs)")
    print("| how | median seconds | states per second |")
    print("|---|---|---|")
    for key, values in times.items():
        median = statistics.median(values)
        label = f"Dask, {args.workers} local workers" if key == "cluster" else f"one process, {key}"
        print(f"| {label} | {median:.3f} | {n / median:.3g} |")
    print(f"median ratio, one thread / Dask: {statistics.median(ratios):.2f} (rounds: "
          f"{', '.join(f'{r:.2f}' for r in ratios)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
