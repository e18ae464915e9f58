"""Derivatives and CRBA forward dynamics of the generated C, beside Pinocchio's analytic derivatives.

Usage: python -m benchmarks.derivatives [--robots panda solo12 g1 talos]
                                        [--flags "-O3 -march=native -std=c99 -ffp-contract=fast"]
                                        [--rounds 3] [--no-pinocchio] [--cache DIR] [--ops OP ...]
                                        [--part-steps N]

Per robot, one build with inverse- and forward-dynamics derivatives, ABA and CRBA
forward dynamics prints: generation and compile seconds, the C source size, each
operation's arithmetic (generated-code operation counts) and stack frame
(``-fstack-usage``), then the time per call in a C loop over 64 random states
(the median of ``--rounds`` interleaved rounds) beside Pinocchio C++'s
``computeRNEADerivatives`` / ``computeABADerivatives`` / ``aba``, compiled with the
same flags (benchmarks/pinocchio_derivatives.cpp), and the ratios: of the medians, and
of each side's fastest round (on a shared virtual machine a process can run at half
speed throughout, so the medians of a few rounds move between runs).

Contraction (``a * b + c`` as one fused multiply-add) is set explicitly, the same for both
peers: GCC contracts by default (``-ffp-contract=fast``) except for C in an ISO mode, so
``-std=c99`` alone would turn it off for the generated C while g++ keeps it on for
Pinocchio's C++. The default flags name ``-ffp-contract=fast``, so both are compiled with
it (G1's ID derivatives run about 9% faster with it, its FD derivatives about 12%);
``--flags "... -ffp-contract=off"`` compares both without. rbdgen's own builds (`rbdgen.build.DEFAULT_FLAGS`) keep ISO C's
no contraction: the generated C then gives the NumPy engine's results bit for bit.

Robots with mimic joints (Talos: twelve gripper joints follow two masters): Pinocchio cannot
load the URDF with its ``<mimic>`` tags (``mimic=True`` refuses a master that comes after its
mimic), so it runs the URDF without them, every joint independent (Talos: 44 joints, G = 50),
and its Jacobians are G x G of that larger model; rbdgen's are in the independent coordinates
(J = 32, G = 38) over the same 44 bodies. A note under the table says so per robot.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.algorithms.operations import operation
from rbdgen.codegen.c import layout
from rbdgen.testing import random_states
from tests.robots import ROBOTS

from .c_loop import BENCH_C, BODY, c_array
from .case import Unavailable
from .peers.pinocchio import build_pinocchio_bench

DERIVATIVES = ("inverse_dynamics_derivatives", "forward_dynamics_derivatives")
OPS = DERIVATIVES + ("forward_dynamics", "forward_dynamics_crba")
STATES = 64


def outputs(op, floating):
    return [p.name for p in operation(op).output_ports(floating)]


def bench_program(generated, data, ops=OPS) -> str:
    """A C timing loop (c_loop.BENCH_C) over ``ops``, several outputs per call allowed; the timed calls
    all write one output buffer, as Pinocchio's reuse one Data (a Jacobian per state would stream
    megabytes through the cache on the large robots)."""
    model, prefix, sizes = generated.model, generated.prefix, generated.manifest["sizes"]
    arrays = "\n".join(c_array(f"in_{k}", v) for k, v in data.items() if k != "loads")
    bodies = []
    for op in ops:
        args = "".join(f"in_{n} + i * {sizes[n]}, " if n != "loads" else "NULL, "
                       for n in operation(op).input_names(model.floating))
        names = outputs(op, model.floating)
        offsets = np.cumsum([0] + [sizes[n] for n in names])
        call = f"{prefix}_{op}({args}" + ", ".join(f"out[%s] + {o}" for o in offsets[:-1]) + ")"
        bodies.append(BODY.format(STATES=STATES, out_size=int(offsets[-1]), op=op, call=call.replace("%s", "i"),
                                  timed_call=call.replace("%s", "0")))
    return BENCH_C.format(includes=f'#include "{prefix}.h"', arrays=arrays, bodies="".join(bodies),
                          rounds=1, reps=100)


def stack_usage(folder: Path) -> dict:
    """Bytes of stack per generated function, from gcc's ``-fstack-usage`` files."""
    usage = {}
    for su in folder.glob("*.su"):
        for line in su.read_text().splitlines():
            where, size, _ = line.split("\t")
            usage[where.rsplit(":", 1)[-1]] = int(size)
    return usage


def run_times(cmd) -> dict:
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {line.split()[0]: [float(x) for x in line.split()[1:]] for line in text.splitlines() if line.strip()}


def pinocchio_program(robot, flags, cache, folder: Path):
    """The command line of Pinocchio's derivatives loop on random states of ``robot``; None without Pinocchio."""
    try:
        import pinocchio as pin
        cxx_flags = [f for f in flags if not f.startswith("-std=")] + ["-std=c++17", "-DNDEBUG"]  # as bench.py
        exe, _ = build_pinocchio_bench(cxx_flags, cache, source="pinocchio_derivatives.cpp")
    except (ImportError, Unavailable) as error:
        print(f"  Pinocchio C++ unavailable: {error}", file=sys.stderr)
        return None
    model = (pin.buildModelFromUrdf(robot.path, pin.JointModelFreeFlyer()) if robot.floating
             else pin.buildModelFromUrdf(robot.path))
    rng = np.random.default_rng(0)
    off = 7 if robot.floating else 0
    rows = []
    for _ in range(STATES):
        q = pin.neutral(model)
        if robot.floating:
            quat = rng.normal(size=4)
            q[:3], q[3:7] = rng.normal(size=3), quat / np.linalg.norm(quat)
        q[off:] = rng.uniform(-np.pi, np.pi, model.nq - off)
        rows.append(np.concatenate([q, rng.normal(size=model.nv), rng.normal(size=model.nv),
                                    rng.normal(size=model.nv)]))
    model.saveToBinary(str(folder / "model.bin"))
    np.asarray(rows, dtype=np.float64).tofile(folder / "states.bin")
    return [str(exe), str(folder / "model.bin"), str(folder / "states.bin"), "1", "30"]


def bench_robot(name, flags, rounds, cache, pinocchio=True, ops=OPS) -> dict:
    robot = ROBOTS[name]
    t0 = time.perf_counter()
    generated = rbdgen.generate(robot.path, floating=robot.floating, ops=list(ops))
    generate_s = time.perf_counter() - t0
    prefix = generated.prefix
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generated.write(folder, overwrite=True)
        (folder / "bench.c").write_text(bench_program(generated, random_states(generated.model, STATES, seed=0).flat(),
                                                      ops))
        sources = generated.c_sources
        t0 = time.perf_counter()
        subprocess.run(["gcc", *flags, "-fstack-usage", "-c", *sources], cwd=folder, check=True)
        compile_s = time.perf_counter() - t0
        objects = [str(Path(s).with_suffix(".o")) for s in sources]
        subprocess.run(["gcc", *flags, "-o", "bench", "bench.c", *objects, "-lm"], cwd=folder, check=True)
        stack = stack_usage(folder)
        pin_cmd = pinocchio_program(robot, flags, cache, folder) if pinocchio else None
        ours, theirs = {}, {}
        for _ in range(rounds):  # interleaved: both see the same machine load
            for op, t in run_times([str(folder / "bench"), "1", "30"]).items():
                ours.setdefault(op, []).extend(t)
            if pin_cmd:
                for op, t in run_times(pin_cmd).items():
                    theirs.setdefault(op, []).extend(t)
    model = generated.model
    return dict(name=name, ops=ops, generate_s=generate_s, compile_s=compile_s,
                bodies=len(model.joints), joints=model.joint_count, floating=model.floating,
                c_bytes=sum(len(generated.files[s].encode()) for s in sources), counts=generated.operation_counts,
                stack={op: stack.get(f"{prefix}_{op}") for op in ops},
                bound={op: info["stack_bytes"] for op, info in generated.manifest["operations"].items()},
                ours={op: float(np.median(t)) for op, t in ours.items()},
                theirs={op: float(np.median(t)) for op, t in theirs.items()},
                ours_min={op: float(np.min(t)) for op, t in ours.items()},
                theirs_min={op: float(np.min(t)) for op, t in theirs.items()})


def markdown(results) -> str:
    lines = ["| robot | op | ours (us) | Pinocchio C++ (us) | ratio | fastest-round ratio | mul | add | div | stack (B) "
             "| stack bound (B) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for op in r["ops"]:
            peer = {"forward_dynamics_crba": "forward_dynamics"}.get(op, op)
            pin, pin_min = r["theirs"].get(peer), r["theirs_min"].get(peer)
            ratio = f"{r['ours'][op] / pin:.2f}" if pin else "-"
            fastest = f"{r['ours_min'][op] / pin_min:.2f}" if pin_min else "-"
            n = r["counts"][op]
            lines.append(f"| {r['name']} | {op} | {r['ours'][op]:.2f} | {pin or float('nan'):.2f} | {ratio} | {fastest} | "
                         f"{n['mul']} | {n['add']} | {n['div']} | {r['stack'][op]} | {r['bound'][op]} |")
    lines += ["", "| robot | FD-CRBA / ABA time | generate (s) | compile (s) | C source (MB) |",
              "|---|---:|---:|---:|---:|"]
    for r in results:
        fd = r["ours"].get("forward_dynamics")
        crba_fd = r["ours"].get("forward_dynamics_crba")
        lines.append(f"| {r['name']} | {f'{crba_fd / fd:.2f}' if fd and crba_fd else '-'} | "
                     f"{r['generate_s']:.1f} | {r['compile_s']:.1f} | {r['c_bytes'] / 1e6:.2f} |")
    for r in results:
        if r["joints"] < r["bodies"]:
            off = 6 if r["floating"] else 0
            lines.append(f"\n{r['name']}: {r['bodies'] - r['joints']} mimic joints. Pinocchio runs the URDF without its "
                         f"<mimic> tags ({r['bodies']} independent joints, {r['bodies'] + off} x {r['bodies'] + off} "
                         f"Jacobians); rbdgen the independent coordinates ({r['joints']} joints, "
                         f"{r['joints'] + off} x {r['joints'] + off}), over the same {r['bodies']} bodies.")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", nargs="+", default=["panda", "solo12", "g1", "talos"])
    p.add_argument("--flags", default="-O3 -march=native -std=c99 -ffp-contract=fast",
                   help="C and C++ flags of both peers (C++: the -std= flag replaced by -std=c++17)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--no-pinocchio", action="store_true")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "rbdgen-bench-cache")
    p.add_argument("--ops", nargs="+", default=list(OPS), choices=OPS, help="operations to build and time")
    p.add_argument("--part-steps", type=int, help="steps per part of a split operation (default: "
                   "rbdgen.codegen.c.layout.PART_STEPS; a huge number: no operation split)")
    args = p.parse_args(argv)
    if args.part_steps:
        layout.PART_STEPS = args.part_steps
    flags = shlex.split(args.flags)
    print(f"flags: {' '.join(flags)}\n")
    results = []
    for name in args.robots:
        print(f"{name} ...", file=sys.stderr)
        results.append(bench_robot(name, flags, args.rounds, args.cache, not args.no_pinocchio, tuple(args.ops)))
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
