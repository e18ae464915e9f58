"""Build time per robot: trace, schedule, emit, then every compiler process (cold cache), C size, memory.

    python -m benchmarks.build_time                      # panda solo12 g1 talos tree100
    python -m benchmarks.build_time --robots talos --ops inverse_dynamics_derivatives forward_dynamics_derivatives
    python -m benchmarks.build_time --flags "-O1 -g0 -std=c99" --units
    python -m benchmarks.build_time --robots talos --part-steps 1000000000   # no operation split

Each robot is generated in a fresh process and compiled in another one (so the memory a
compiler process reports is its own, or the ~50 MiB of the Python process that starts it),
into an empty cache folder, with `rbdgen.build.DEFAULT_FLAGS`. trace, schedule and emit are
`rbdgen.generate`'s steps (wall clock), "generate CPU" their CPU time; compile is the cffi
extension's build (every translation unit, ``RBDGEN_JOBS`` compiler processes at once, then
the link), wall clock. "compiler CPU" is the CPU time (user + system) of all compiler
processes, "longest unit" the largest one's (the critical path: no number of cores builds
faster), "2 idle cores" what two otherwise idle cores would take: generate CPU, then the
compilers' CPU times laid largest first on two cores, then the link -- the number to read
on a shared, loaded machine, where wall clocks mostly measure the other work. "compiler
peak" is the largest resident memory of one compiler process (up to ``RBDGEN_JOBS`` run at
once), "Python peak" the generating process's own. ``--units`` adds every unit's numbers.

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
        i = rng.uniform(0.02, 0.04, 3)  # principal moments that satisfy the triangle inequality
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


def measure(name: str, flags: tuple, ops, part_steps=None) -> dict:
    """Generate one robot in this (fresh) process, compile it in another one into an empty cache."""
    import rbdgen
    from rbdgen.codegen.c import layout

    if part_steps:
        layout.PART_STEPS = part_steps

    with tempfile.TemporaryDirectory(prefix="rbdgen-build-time-") as tmp:
        path, floating = robot_source(name, Path(tmp))
        cpu = time.process_time()
        g = rbdgen.generate(path, floating=floating, prefix=name, **({"ops": ops} if ops else {}))
        generate_cpu = time.process_time() - cpu
        python_peak = _mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        folder = g.write(Path(tmp) / "src")
        compiled = subprocess.run([sys.executable, "-m", "benchmarks.build_time", "--compile", str(folder),
                                   "--flags", " ".join(flags)], capture_output=True, text=True, cwd=ROOT)
        if compiled.returncode != 0:
            raise SystemExit(f"{name}: the build failed:\n{compiled.stderr}")
        build = json.loads(compiled.stdout.strip().splitlines()[-1])
    c_files = g.c_sources
    return {"robot": name, "J": g.model.joint_count, "floating": floating, "ops": len(g.manifest["operations"]),
            **{step: g.timings[step] for step in ("trace", "schedule", "emit")}, "generate_cpu": generate_cpu, **build,
            "c_files": len(c_files), "c_bytes": sum(len(t.encode()) for n, t in g.files.items()
                                                    if n.endswith((".c", ".h"))),
            "python_peak_mib": python_peak}


def compile_folder(folder: Path, flags: tuple) -> dict:
    """Build a written folder into an empty cache: wall time and every compiler process (`rbdgen.build`'s log)."""
    import logging

    import rbdgen

    units = []

    class Units(logging.Handler):
        def emit(self, record):
            if hasattr(record, "unit"):
                units.append({"unit": record.unit, "cpu": record.cpu, "peak_mib": record.peak_mib})

    logger = logging.getLogger("rbdgen.build")
    logger.addHandler(Units())
    logger.setLevel(logging.DEBUG)
    with tempfile.TemporaryDirectory(prefix="rbdgen-build-time-cache-") as cache:
        start = time.perf_counter()
        rbdgen.load(folder, flags, cache)
        wall = time.perf_counter() - start
    compilers = [u for u in units if u["unit"] != "link"]
    return {"compile": wall, "compile_cpu": sum(u["cpu"] for u in units), "units": units,
            "longest": max(u["cpu"] for u in compilers), "compiler_peak_mib": max(u["peak_mib"] for u in units)}


def two_cores(row: dict) -> float:
    """Seconds on 2 idle cores: generating (its CPU time), then the compilers' CPU times largest first on 2 cores,
    then the link."""
    cores = [0.0, 0.0]
    for cpu in sorted((u["cpu"] for u in row["units"] if u["unit"] != "link"), reverse=True):
        cores[cores.index(min(cores))] += cpu
    link = sum(u["cpu"] for u in row["units"] if u["unit"] == "link")
    return row["generate_cpu"] + max(cores) + link


def _mib(maxrss: int) -> float:
    return maxrss / (2**20 if sys.platform == "darwin" else 2**10)


def run_one(name: str, flags: str, jobs: int, ops, part_steps) -> dict:
    env = {**os.environ, "RBDGEN_JOBS": str(jobs)}
    command = [sys.executable, "-m", "benchmarks.build_time", "--one", name, "--flags", flags]
    command += (["--ops", *ops] if ops else []) + (["--part-steps", str(part_steps)] if part_steps else [])
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"{name}: the build failed:\n{result.stderr}")
    return {**json.loads(result.stdout.strip().splitlines()[-1]), "jobs": jobs}


def table(rows: list) -> str:
    lines = ["| robot | J | ops | jobs | trace s | schedule s | emit s | generate CPU s | compile s (wall) | compiler CPU s "
             "| longest unit s | 2 idle cores s | .c files | C KiB | compiler peak MiB | Python peak MiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['robot']}{' (floating)' if r['floating'] else ''} | {r['J']} | {r['ops']} | {r['jobs']} "
                     f"| {r['trace']:.2f} | {r['schedule']:.2f} | {r['emit']:.2f} | {r['generate_cpu']:.1f} "
                     f"| {r['compile']:.1f} "
                     f"| {r['compile_cpu']:.1f} | {r['longest']:.1f} | {two_cores(r):.1f} | {r['c_files']} "
                     f"| {r['c_bytes'] / 1024:.0f} | {r['compiler_peak_mib']:.0f} | {r['python_peak_mib']:.0f} |")
    return "\n".join(lines)


def unit_table(rows: list) -> str:
    lines = ["| robot | unit | CPU s | peak MiB |", "|---|---|---|---|"]
    for r in rows:
        for u in sorted(r["units"], key=lambda u: -u["cpu"]):
            lines.append(f"| {r['robot']} | {u['unit']} | {u['cpu']:.2f} | {u['peak_mib']:.0f} |")
    return "\n".join(lines)


def main(argv=None):
    import rbdgen.build

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--robots", nargs="+", default=list(DEFAULT_ROBOTS),
                   help=f"test robots or tree100 (default: {' '.join(DEFAULT_ROBOTS)})")
    p.add_argument("--ops", nargs="+", help="operations (default: rbdgen.generate's)")
    p.add_argument("--flags", default=" ".join(rbdgen.build.DEFAULT_FLAGS), help="compiler flags")
    p.add_argument("--jobs", type=int, nargs="+", default=[rbdgen.build.jobs()],
                   help="compiler processes at once (several values: one row each)")
    p.add_argument("--part-steps", type=int, help="steps per part of a split operation (default: "
                   "rbdgen.codegen.c.layout.PART_STEPS; a huge number: no operation split)")
    p.add_argument("--units", action="store_true", help="also print every unit's CPU time and memory")
    p.add_argument("--json", type=Path, help="also write the rows here")
    p.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one robot in this process
    p.add_argument("--compile", type=Path, help=argparse.SUPPRESS)  # internal: build a written folder
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, tuple(args.flags.split()), args.ops, args.part_steps)))
        return
    if args.compile:
        print(json.dumps(compile_folder(args.compile, tuple(args.flags.split()))))
        return
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; flags {args.flags}; "
          f"cold cache", file=sys.stderr)
    rows = []
    for name in args.robots:
        for jobs in args.jobs:
            rows.append(run_one(name, args.flags, jobs, args.ops, args.part_steps))
            print(f"  {name} (jobs {jobs}): {rows[-1]['compile']:.1f} s to compile", file=sys.stderr)
    print(table(rows))
    if args.units:
        print()
        print(unit_table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
