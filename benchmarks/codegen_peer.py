"""The generated C beside Pinocchio's own generated code (CppADCodeGen), same flags, one machine.

Usage: python -m benchmarks.codegen_peer [--robots panda ur5 solo12 g1 talos]
                                         [--flags "-O3 -march=native -std=c99 -ffp-contract=fast"]
                                         [--rounds 5] [--cache DIR] [--ops OP ...] [--build-peer]

Pinocchio tapes its own algorithms on CppAD's code-generation scalar and CppADCodeGen
writes them out as C (`pinocchio/codegen/cppadcg-algo.hpp`: `CodeGenRNEA`,
`CodeGenCRBA`, `CodeGenABA`, `CodeGenRNEADerivatives`, `CodeGenABADerivatives`; the
code generators of OCS2-style stacks). `benchmarks/pinocchio_codegen.cpp` does the
taping; this script compiles the C both generators write with the same flags and times
each in a C loop over 64 random states, the two programs in alternating rounds.

Before timing, every output of Pinocchio's generated C is checked against plain
Pinocchio (Python) at the same states; a mismatch stops the run.

What it needs and costs (an optional benchmark build, never part of the tests):
``pip install -e ".[bench]"`` (cmeel-cppad, cmeel-cppadcodegen and cmeel-eigen; the pin
wheel ships the codegen headers). Compiling Pinocchio on CppAD's types takes about three
minutes and 7 GB of memory, once: the taping program is cached in ``--cache`` by its
source, flags and versions, and each robot's taped C by its model; compiling a humanoid's taped
C takes 10-30 minutes more (per flags). Those builds start only with ``--build-peer``: without
it, a cache that lacks them stops the run with a message saying so. The taping side is
built without ``-march=native`` (Eigen's 6x6 inverse on CppAD scalars, in the free-flyer
ABA, is known to crash when built with it); only the generated C gets ``--flags``.

Robots with mimic joints (Talos): Pinocchio runs the URDF without its ``<mimic>`` tags
(every joint independent, 44 joints), rbdgen the independent coordinates (32), as in
`benchmarks.derivatives`; a note under the table says so.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen import build
from rbdgen.testing import random_states
from tests.robots import ROBOTS

from .builds import compile_program
from .c_loop import BENCH_C, BODY, c_array
from .case import Unavailable
from .derivatives import bench_program, run_times
from .peers.pinocchio import PINOCCHIO_DEFINES, cmeel_prefix, eigen_include

HERE = Path(__file__).resolve().parent
STATES = 64

#: rbdgen's operation -> (Pinocchio's taped function, its inputs after q, its output size in nv).
PEER = {
    "inverse_dynamics": ("pin_inverse_dynamics", ("v", "a"), lambda nv: nv),
    "mass_matrix": ("pin_mass_matrix", (), lambda nv: nv * (nv + 1) // 2),
    "forward_dynamics": ("pin_forward_dynamics", ("v", "tau"), lambda nv: nv),
    "inverse_dynamics_derivatives": ("pin_inverse_dynamics_derivatives", ("v", "a"), lambda nv: 3 * nv * nv),
    "forward_dynamics_derivatives": ("pin_forward_dynamics_derivatives", ("v", "tau"), lambda nv: 3 * nv * nv),
}
#: rbdgen's operations timed, each against its Pinocchio peer (CRBA forward dynamics against ABA's).
OPS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "forward_dynamics_crba",
       "inverse_dynamics_derivatives", "forward_dynamics_derivatives")
PEER_OF = {"forward_dynamics_crba": "forward_dynamics"}


#: Why a missing peer build is not started unasked (`compile_program`'s ``missing``).
ASK = "it takes minutes to hours and gigabytes to build: pass --build-peer to build it, or --cache the folder that has it"


def taping_program(cache: Path, build_peer: bool = True) -> tuple:
    """``(executable, compile seconds or 0.0)`` of benchmarks/pinocchio_codegen.cpp; raises `Unavailable` (also
    where it is not in ``cache`` and not ``build_peer``)."""
    prefix = cmeel_prefix()
    try:
        cppadcg = Path(importlib.metadata.distribution("cmeel-cppadcodegen").locate_file("cmeel.prefix"))
        versions = tuple(importlib.metadata.version(d) for d in ("pin", "cmeel-cppad", "cmeel-cppadcodegen"))
    except importlib.metadata.PackageNotFoundError as missing:
        raise Unavailable(f"{missing.name} is not installed: pip install -e \".[bench]\"") from None
    cxx = shutil.which(os.environ.get("CXX", "g++"))
    if cxx is None:
        raise Unavailable("no C++ compiler (g++) found")
    source = "pinocchio_codegen.cpp"
    includes = {f"-I{p / 'include'}" for p in (prefix, cppadcg)} | {f"-I{eigen_include(prefix)}"}
    command = [cxx, "-O1", "-std=c++17", "-DNDEBUG", *PINOCCHIO_DEFINES, *sorted(includes), source,
               "-o", "pinocchio-codegen", f"-L{prefix / 'lib'}", f"-Wl,-rpath,{prefix / 'lib'}",
               "-lboost_serialization", "-ldl"]
    print(f"  {source}: Pinocchio on CppAD types (the first time about three minutes and 7 GB, then cached)",
          file=sys.stderr)
    try:
        return compile_program(cache, "pinocchio-codegen", {source: (HERE / source).read_bytes()}, command,
                               extra_key=versions, missing=None if build_peer else ASK)
    except build.BuildError as exc:
        raise Unavailable(str(exc)) from None


def pinocchio_model(robot):
    import pinocchio as pin
    return (pin.buildModelFromUrdf(robot.path, pin.JointModelFreeFlyer()) if robot.floating
            else pin.buildModelFromUrdf(robot.path))


def pinocchio_states(model, floating: bool) -> dict:
    """``STATES`` random states in Pinocchio's conventions: ``{"q": (S, nq), "v", "a", "tau": (S, nv)}``."""
    import pinocchio as pin
    rng = np.random.default_rng(0)
    off = 7 if floating else 0
    q = np.tile(pin.neutral(model), (STATES, 1))
    if floating:
        quat = rng.normal(size=(STATES, 4))
        q[:, :3], q[:, 3:7] = rng.normal(size=(STATES, 3)), quat / np.linalg.norm(quat, axis=1, keepdims=True)
    q[:, off:] = rng.uniform(-np.pi, np.pi, (STATES, model.nq - off))
    return {"q": q, **{k: rng.normal(size=(STATES, model.nv)) for k in ("v", "a", "tau")}}


def tape(exe: Path, model, cache: Path) -> Path:
    """The folder of C sources CppADCodeGen writes for ``model`` (cached by the model and the program)."""
    with tempfile.TemporaryDirectory() as tmp:
        model_file = Path(tmp) / "model.bin"
        model.saveToBinary(str(model_file))
        key = build.digest(model_file.read_bytes(), exe.read_bytes())
    folder = Path(cache) / f"pinocchio-codegen-c-{key}"
    if (folder / "done").is_file():
        return folder
    work = Path(tempfile.mkdtemp(prefix=".tape-", dir=cache))
    model.saveToBinary(str(work / "model.bin"))
    t0 = time.perf_counter()
    subprocess.run([str(exe), str(work / "model.bin"), str(work)], check=True)
    (work / "done").write_text(f"{time.perf_counter() - t0:.1f}\n")
    try:
        work.rename(folder)
    except OSError:  # another run taped it first
        shutil.rmtree(work)
    return folder


def peer_program(sources: Path, model, states: dict) -> str:
    """A C loop (c_loop.BENCH_C) over Pinocchio's generated functions, one state per input row, every call
    writing one output buffer (as `benchmarks.derivatives` times rbdgen's)."""
    forward = (sources / "pin_inverse_dynamics_forward_zero.c").read_text()
    declarations = forward[forward.index("typedef struct Array"):forward.index("void pin_inverse_dynamics")]
    nv = model.nv
    arrays, wrappers, bodies = [], [], []
    for op, (name, rest, out_size) in PEER.items():
        x = np.concatenate([states["q"]] + [states[k] for k in rest], axis=1)
        arrays.append(c_array(f"x_{name}", x))
        wrappers.append(f"void {name}_forward_zero(double const *const *in, double *const *out, "
                        f"struct LangCAtomicFun atomicFun);\n"
                        f"static void {name}(const double *x, double *y)\n"
                        f"{{ const double *in[1] = {{x}}; double *out[1] = {{y}}; struct LangCAtomicFun none = {{0}}; "
                        f"{name}_forward_zero(in, out, none); }}")
        call = f"{name}(x_{name} + i * {x.shape[1]}, out[%s])"
        bodies.append(BODY.format(STATES=STATES, out_size=out_size(nv), op=op, call=call % "i",
                                  timed_call=call % "0"))
    return BENCH_C.format(includes=declarations + "\n".join(wrappers), arrays="\n".join(arrays),
                          bodies="".join(bodies), rounds=1, reps=100)


def _upper(x):
    """The upper triangle of a square matrix, row by row (what Pinocchio fills of M and M^-1)."""
    return x[np.triu_indices(x.shape[0])]


def pinocchio_outputs(model, states: dict) -> dict:
    """Plain Pinocchio's results at ``states`` in the taped functions' layout: ``{op: (STATES, size)}``
    (the mass matrix's upper triangle row by row; the Jacobians as three row-major nv x nv blocks)."""
    import pinocchio as pin
    data = model.createData()
    out = {op: [] for op in PEER}
    for i in range(STATES):  # every result copied at once: Pinocchio returns views of ``data``
        q, v, a, tau = (states[k][i] for k in ("q", "v", "a", "tau"))
        out["inverse_dynamics"].append(np.array(pin.rnea(model, data, q, v, a)))
        out["mass_matrix"].append(_upper(pin.crba(model, data, q)))
        out["forward_dynamics"].append(np.array(pin.aba(model, data, q, v, tau)))
        for op, fn, last in (("inverse_dynamics_derivatives", pin.computeRNEADerivatives, a),
                             ("forward_dynamics_derivatives", pin.computeABADerivatives, tau)):
            out[op].append(np.concatenate([np.ravel(m) for m in fn(model, data, q, v, last)]))
    return {op: np.array(rows) for op, rows in out.items()}


def _compared(op: str, flat: np.ndarray, nv: int) -> np.ndarray:
    """The entries of one result that are compared: all, except the lower triangle of a Jacobian's last block
    (M or M^-1, of which Pinocchio fills the upper triangle only)."""
    if op not in ("inverse_dynamics_derivatives", "forward_dynamics_derivatives"):
        return flat
    a, b, c = flat.reshape(3, nv, nv)
    return np.concatenate([a.ravel(), b.ravel(), _upper(c)])


def check_peer(dump: Path, model, states: dict) -> float:
    """The worst normwise relative error of Pinocchio's generated C (the timing program's dump) against
    plain Pinocchio (`pinocchio_outputs`); raises AssertionError beyond 1e-8."""
    nv = model.nv
    want = pinocchio_outputs(model, states)
    raw = np.fromfile(dump)
    offsets = np.cumsum([0] + [w.size for w in want.values()])
    if raw.size != offsets[-1]:
        raise AssertionError(f"{dump}: {raw.size} values, expected {offsets[-1]}")
    worst = 0.0
    for (op, w), o in zip(want.items(), offsets):
        got = raw[o:o + w.size].reshape(w.shape)
        for i in range(STATES):
            have, ref = _compared(op, got[i], nv), _compared(op, w[i], nv)
            error = np.linalg.norm(have - ref) / max(np.linalg.norm(ref), 1.0)
            if not error < 1e-8:
                raise AssertionError(f"Pinocchio's generated {op} differs from Pinocchio at state {i}: {error:.2e}")
            worst = max(worst, error)
    return worst


def bench_robot(name, flags, rounds, cache, ops=OPS, build_peer=True) -> dict:
    robot = ROBOTS[name]
    exe, _ = taping_program(cache, build_peer)
    model = pinocchio_model(robot)
    t0 = time.perf_counter()
    sources = tape(exe, model, cache)
    tape_s = time.perf_counter() - t0
    states = pinocchio_states(model, robot.floating)
    generated = rbdgen.generate(robot.path, floating=robot.floating, ops=list(ops))
    # Pinocchio's side: its C (large functions come in several files) and the loop, cached by content and flags
    pin_files = {c.name: c.read_bytes() for c in sorted(sources.glob("pin_*_forward_zero*.c"))}
    try:
        peer, peer_compile_s = compile_program(
            cache, f"pin-codegen-loop-{name}", {**pin_files, "peer.c": peer_program(sources, model, states)},
            ["gcc", *flags, "-o", f"pin-codegen-loop-{name}", "peer.c", *pin_files, "-lm"],
            missing=None if build_peer else ASK)
    except build.BuildError as exc:
        raise Unavailable(str(exc)) from None
    # rbdgen's side, the same flags
    data = random_states(generated.model, STATES, seed=0).flat()
    files = {n: t for n, t in generated.files.items() if n.endswith((".c", ".h"))}
    ours_exe, ours_compile_s = compile_program(
        cache, f"rbdgen-loop-{generated.prefix}", {**files, "bench.c": bench_program(generated, data, ops)},
        ["gcc", *flags, "-o", f"rbdgen-loop-{generated.prefix}", "bench.c", *generated.c_sources, "-I.", "-lm"])
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "dump.bin"
        subprocess.run([str(peer), "1", "0", str(dump)], check=True, capture_output=True)
        peer_error = check_peer(dump, model, states)
    ours, theirs = {}, {}
    for _ in range(rounds):  # alternating: both see the same machine load
        for op, t in run_times([str(ours_exe), "1", "30"]).items():
            ours.setdefault(op, []).extend(t)
        for op, t in run_times([str(peer), "1", "30"]).items():
            theirs.setdefault(op, []).extend(t)
    c_bytes = sum(len(generated.files[s].encode()) for s in generated.c_sources)
    peer_bytes = sum(len(text) for text in pin_files.values())
    model_r = generated.model
    return dict(name=name, ops=ops, bodies=len(model_r.joints), joints=model_r.joint_count, nv=model.nv,
                floating=robot.floating, peer_error=peer_error, tape_s=tape_s,
                compile_s={"rbdgen": ours_compile_s, "pinocchio": peer_compile_s},
                c_bytes={"rbdgen": c_bytes, "pinocchio": peer_bytes},
                ours={op: float(np.median(t)) for op, t in ours.items()},
                theirs={op: float(np.median(t)) for op, t in theirs.items()},
                ours_min={op: float(np.min(t)) for op, t in ours.items()},
                theirs_min={op: float(np.min(t)) for op, t in theirs.items()})


def markdown(results) -> str:
    lines = ["| robot | op | rbdgen (us) | Pinocchio codegen (us) | ratio | fastest-round ratio |",
             "|---|---|---:|---:|---:|---:|"]
    for r in results:
        for op in r["ops"]:
            peer = PEER_OF.get(op, op)
            ours, theirs = r["ours"][op], r["theirs"][peer]
            fastest = r["ours_min"][op] / r["theirs_min"][peer]
            label = op if peer == op else f"{op} (vs {peer})"
            lines.append(f"| {r['name']} | {label} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f} | "
                         f"{fastest:.2f} |")
    lines += ["", "| robot | peer vs Pinocchio (rel.) | taping (s) | compile rbdgen / peer (s; 0: cached) | "
              "C rbdgen / peer (MB) |", "|---|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['name']} | {r['peer_error']:.1e} | {r['tape_s']:.1f} | "
                     f"{r['compile_s']['rbdgen']:.1f} / {r['compile_s']['pinocchio']:.1f} | "
                     f"{r['c_bytes']['rbdgen'] / 1e6:.2f} / {r['c_bytes']['pinocchio'] / 1e6:.2f} |")
    for r in results:
        if r["joints"] < r["bodies"]:
            lines.append(f"\n{r['name']}: {r['bodies'] - r['joints']} mimic joints. Pinocchio runs the URDF without "
                         f"its <mimic> tags (nv = {r['nv']}); rbdgen the independent coordinates "
                         f"({r['joints']} joints) over the same {r['bodies']} bodies.")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", nargs="+", default=["panda", "ur5", "solo12", "g1", "talos"])
    p.add_argument("--flags", default="-O3 -march=native -std=c99 -ffp-contract=fast",
                   help="flags of both generated C's")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "rbdgen-bench-cache")
    p.add_argument("--ops", nargs="+", default=list(OPS), choices=OPS)
    p.add_argument("--build-peer", action="store_true",
                   help="build what the cache lacks of Pinocchio's side (minutes to hours, gigabytes of memory)")
    args = p.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    flags = shlex.split(args.flags)
    print(f"flags: {' '.join(flags)}\n")
    results = []
    try:
        for name in args.robots:
            print(f"{name} ...", file=sys.stderr)
            results.append(bench_robot(name, flags, args.rounds, args.cache, tuple(args.ops), args.build_peer))
    except Unavailable as reason:
        print(f"Pinocchio's code generation is unavailable here: {reason}", file=sys.stderr)
        return 3
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
