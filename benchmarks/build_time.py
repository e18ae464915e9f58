"""Build time per robot: trace, emit and compile (cold cache), C size and peak memory.

    python -m benchmarks.build_time                      # panda solo12 g1 talos tree100
    python -m benchmarks.build_time --robots talos --jobs 1 2
    python -m benchmarks.build_time --flags "-O1 -g0 -std=c99"

Each robot is built in a fresh process (so its peak memory is its own) into an empty
cache folder, with the default operations and `rbdgen.build.DEFAULT_FLAGS`. Columns:
trace and emit are `rbdgen.generate`'s two steps, compile is the cffi extension's
build (every translation unit, then the link) with ``RBDGEN_JOBS`` compiler
processes at once, and "compiler CPU" the CPU time of those processes (user +
system: what the build costs on a machine shared with other work); "C" is the generated C (``.c`` files: how many, and the bytes
of ``.c`` and ``.h``); "compiler peak" is the largest resident memory of one compiler
process (``getrusage(RUSAGE_CHILDREN)``; with several jobs the machine holds up to
that many at once), "Python peak" the generating process's own.

``tree100`` is a made-up floating-base tree of 100 revolute joints (ten chains of
ten from the base, axes cycling x, y, z, seeded random masses and offsets).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_ROBOTS = ("panda", "solo12", "g1", "talos", "tree100")


def tree_urdf(branches: int = 10, length: int = 10, seed: int = 0) -> str:
    """A floating-base tree: ``branches`` chains of ``length`` revolute joints from one base link."""
    import numpy as np

    rng = np.random.default_rng(seed)

    def link(name):
        m = rng.uniform(0.5, 2.0)
        i = rng.uniform(0.01, 0.05, 3)
        c = rng.uniform(-0.05, 0.05, 3)
        return (f'<link name="{name}"><inertial><origin xyz="{c[0]:.4f} {c[1]:.4f} {c[2]:.4f}"/>'
                f'<mass value="{m:.4f}"/><inertia ixx="{i[0]:.4f}" ixy="0" ixz="0" iyy="{i[1]:.4f}" iyz="0" '
                f'izz="{i[2]:.4f}"/></inertial></link>')

    parts = [link("base")]
    for b in range(branches):
        parent = "base"
        for k in range(length):
            child = f"b{b}_l{k}"
            axis = ("1 0 0", "0 1 0", "0 0 1")[k % 3]
            xyz = rng.uniform(-0.2, 0.2, 3)
            parts.append(link(child))
            parts.append(f'<joint name="b{b}_j{k}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
                         f'<origin xyz="{xyz[0]:.4f} {xyz[1]:.4f} {xyz[2]:.4f}"/><axis xyz="{axis}"/>'
                         f'<limit lower="-2" upper="2" effort="10" velocity="5"/></joint>')
            parent = child
    return f'<robot name="tree100">{"".join(parts)}</robot>'


def robot_source(name: str, folder: Path):
    """(URDF path, floating) of a test robot or the made-up tree."""
    if name == "tree100":
        path = folder / "tree100.urdf"
        path.write_text(tree_urdf())
        return str(path), True
    from tests.robots import ROBOTS

    return ROBOTS[name].path, ROBOTS[name].floating


def measure(name: str, flags: tuple) -> dict:
    """Generate and compile one robot in this (fresh) process into an empty cache."""
    import rbdgen

    with tempfile.TemporaryDirectory(prefix="rbdgen-build-time-") as tmp:
        path, floating = robot_source(name, Path(tmp))
        g = rbdgen.generate(path, floating=floating, prefix=name)
        start, cpu = time.perf_counter(), _children_cpu()
        g.compile(flags=flags, cache=Path(tmp) / "cache", validate=False)
        compile_s, compile_cpu = time.perf_counter() - start, _children_cpu() - cpu
    c_files = [n for n in g.files if n.endswith(".c")]
    return {"robot": name, "J": g.model.joint_count, "floating": floating, "ops": len(g.manifest["operations"]),
            "trace": g.timings["trace"], "emit": g.timings["emit"], "compile": compile_s, "compile_cpu": compile_cpu,
            "c_files": len(c_files), "c_bytes": sum(len(t.encode()) for n, t in g.files.items()
                                                    if n.endswith((".c", ".h"))),
            # ru_maxrss: KiB on Linux, bytes on macOS
            "compiler_peak_mib": _mib(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss),
            "python_peak_mib": _mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _mib(maxrss: int) -> float:
    return maxrss / (2**20 if sys.platform == "darwin" else 2**10)


def run_one(name: str, flags: str, jobs: int) -> dict:
    env = {**os.environ, "RBDGEN_JOBS": str(jobs)}
    result = subprocess.run([sys.executable, "-m", "benchmarks.build_time", "--one", name, "--flags", flags],
                            capture_output=True, text=True, env=env, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"{name}: the build failed:\n{result.stderr}")
    return {**json.loads(result.stdout.strip().splitlines()[-1]), "jobs": jobs}


def table(rows: list) -> str:
    lines = ["| robot | J | ops | jobs | trace s | emit s | compile s | total s | compiler CPU s | .c files | C KiB "
             "| compiler peak MiB | Python peak MiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        total = r["trace"] + r["emit"] + r["compile"]
        lines.append(f"| {r['robot']}{' (floating)' if r['floating'] else ''} | {r['J']} | {r['ops']} | {r['jobs']} "
                     f"| {r['trace']:.2f} | {r['emit']:.2f} | {r['compile']:.1f} | {total:.1f} | {r['compile_cpu']:.1f} "
                     f"| {r['c_files']} "
                     f"| {r['c_bytes'] / 1024:.0f} | {r['compiler_peak_mib']:.0f} | {r['python_peak_mib']:.0f} |")
    return "\n".join(lines)


def main(argv=None):
    import rbdgen.build

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--robots", nargs="+", default=list(DEFAULT_ROBOTS),
                   help=f"test robots or tree100 (default: {' '.join(DEFAULT_ROBOTS)})")
    p.add_argument("--flags", default=" ".join(rbdgen.build.DEFAULT_FLAGS), help="compiler flags")
    p.add_argument("--jobs", type=int, nargs="+", default=[rbdgen.build.jobs()],
                   help="compiler processes at once (several values: one row each)")
    p.add_argument("--json", type=Path, help="also write the rows here")
    p.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one robot in this process
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, tuple(args.flags.split()))))
        return
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; flags {args.flags}; "
          f"cold cache", file=sys.stderr)
    rows = []
    for name in args.robots:
        for jobs in args.jobs:
            rows.append(run_one(name, args.flags, jobs))
            print(f"  {name} (jobs {jobs}): {rows[-1]['compile']:.1f} s to compile", file=sys.stderr)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
