"""States per second on a GPU: the generated CUDA (``rbdgen generate --cuda``) per operation, beside MJX and
Newton (Warp) where they are installed.

For each robot, the folder is generated with its ``.cu``, compiled by nvcc (``-O3 -arch=native``) with a small
driver, and each operation is launched on ``--states`` random states in GPU memory (one thread a state,
`rbdgen.codegen.cuda`): the median of ``--rounds`` launches (CUDA events) gives states per second. The
results of the first states are checked against the generated C on this machine's CPU (the normwise
relative error, column ``error``; nvcc contracts multiply-adds, so not bit for bit). MJX (``mujoco.mjx``,
jitted and vmapped over the same number of states) and Newton (``SolverFeatherstone.step`` on as many
worlds) are timed on their own forward and inverse dynamics, where they load the robot: timing only, their
results are not compared.

    python -m benchmarks.gpu_batch                      # Panda and Solo12, every default operation
    python -m benchmarks.gpu_batch --robots talos --ops forward_dynamics --states 4000000

Without a CUDA GPU (no driver, no device) or without nvcc it says so and exits with status 1: it needs an
NVIDIA GPU, its driver and the CUDA toolkit (nvcc on PATH).
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.algorithms.operations import operation
from rbdgen.codegen.generator import ALL_OPERATIONS
from rbdgen.interface import flat_inputs
from rbdgen.testing import random_states
from tests.robots import ROBOTS

log = logging.getLogger("gpu_batch")

#: States whose GPU results are compared with the C on the CPU.
CHECKED = 2048

#: The peers' operations: rbdgen's names.
PEER_OPS = ("forward_dynamics", "inverse_dynamics")


def gpu_problem() -> str:
    """Why this machine cannot run the benchmark ("" when it can): no nvcc, no CUDA driver or no device."""
    if shutil.which("nvcc") is None:
        return "nvcc (the CUDA toolkit's compiler) is not on PATH"
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            driver = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        return "no CUDA driver (libcuda) is installed"
    count = ctypes.c_int(0)
    if driver.cuInit(0) != 0 or driver.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        return "the CUDA driver finds no GPU"
    return ""


def driver_source(prefix: str, manifest: dict, ops, absent=("loads",)) -> str:
    """A C++ program for nvcc: ``bench OP N ROUNDS DIR`` reads OP's inputs (``DIR/<input>.bin``, N states of
    float64; the optional ones ``absent`` are NULL), launches ``<prefix>_cuda_<OP>`` ROUNDS times after a warm-up, prints each launch's seconds
    and writes the outputs and statuses of the last (``DIR/<output>.bin``, ``DIR/status.bin``)."""
    lines = ["#include <cstdio>", "#include <cstdlib>", "#include <string>", "#include <vector>",
             "#include <cuda_runtime.h>", f'#include "{prefix}_cuda.h"',
             "#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { "
             'std::fprintf(stderr, "%s: %s\\n", #x, cudaGetErrorString(e_)); std::exit(2); } } while (0)',
             "static double *device(const std::string &path, size_t count)", "{",
             "    std::vector<double> host(count, 0.0);",
             "    if (!path.empty()) { FILE *f = std::fopen(path.c_str(), \"rb\");",
             "        if (!f || std::fread(host.data(), sizeof(double), count, f) != count) "
             "{ std::fprintf(stderr, \"cannot read %s\\n\", path.c_str()); std::exit(2); } std::fclose(f); }",
             "    double *d; CHECK(cudaMalloc(&d, count * sizeof(double)));",
             "    CHECK(cudaMemcpy(d, host.data(), count * sizeof(double), cudaMemcpyHostToDevice));",
             "    return d;", "}",
             "template <class T> static void save(const T *d, size_t count, const std::string &path)", "{",
             "    std::vector<T> host(count); CHECK(cudaMemcpy(host.data(), d, count * sizeof(T), "
             "cudaMemcpyDeviceToHost));",
             "    FILE *f = std::fopen(path.c_str(), \"wb\"); std::fwrite(host.data(), sizeof(T), count, f); "
             "std::fclose(f);", "}",
             "int main(int argc, char **argv)", "{",
             "    if (argc != 5) { std::fprintf(stderr, \"usage: bench OP N ROUNDS DIR\\n\"); return 2; }",
             "    const std::string op = argv[1], dir = argv[4];",
             "    const int n = std::atoi(argv[2]), rounds = std::atoi(argv[3]);",
             "    int *status; CHECK(cudaMalloc(&status, n * sizeof(int)));",
             "    cudaEvent_t start, stop; CHECK(cudaEventCreate(&start)); CHECK(cudaEventCreate(&stop));"]
    for op in ops:
        info = manifest["operations"][op]
        sizes = manifest["sizes"]
        lines.append(f'    if (op == "{op}") {{')
        for name in info["inputs"]:
            lines.append(f"        double *{name} = NULL;" if name in absent else
                         f'        double *{name} = device(dir + "/{name}.bin", (size_t)n * {sizes[name]});')
        for name in info["outputs"]:
            lines.append(f'        double *{name} = device("", (size_t)n * {sizes[name]});')
        args = ", ".join(info["inputs"] + info["outputs"])
        lines += [f"        for (int r = 0; r <= rounds; ++r) {{",
                  "            CHECK(cudaEventRecord(start));",
                  f"            CHECK((cudaError_t){prefix}_cuda_{op}(n, {args}, NULL, status, NULL));",
                  "            CHECK(cudaEventRecord(stop)); CHECK(cudaEventSynchronize(stop));",
                  "            float ms; CHECK(cudaEventElapsedTime(&ms, start, stop));",
                  '            if (r > 0) std::printf("%.9g\\n", ms * 1e-3);', "        }"]
        for name in info["outputs"]:
            lines.append(f'        save({name}, (size_t)n * {sizes[name]}, dir + "/{name}.bin");')
        lines += ['        save(status, (size_t)n, dir + "/status.bin");', "        return 0;", "    }"]
    lines += ['    std::fprintf(stderr, "unknown operation %s\\n", op.c_str());', "    return 2;", "}"]
    return "\n".join(lines) + "\n"


def flat_states(solver, op: str, n: int, seed: int) -> dict:
    """``op``'s inputs for ``n`` random states as the C's flat (n, size) float64 arrays, by name."""
    st = random_states(solver, n, seed)
    values = {"base": st.base, "q": st.q, "qd": st.qd, "qdd": st.qdd, "tau": st.tau}
    names = operation(op).input_names(solver.floating)
    inputs, _ = solver._inputs(op, tuple(values[k] for k in names if k != "loads"), None)
    return flat_inputs(inputs)


def bench_rbdgen(name: str, ops, n: int, rounds: int, work: Path) -> list:
    """Rows ``(robot, op, tool, states per second, error)`` of the generated CUDA on robot ``name``."""
    robot = ROBOTS[name]
    generated = rbdgen.generate(robot.path, floating=robot.floating, prefix=name)
    ops = [op for op in ops if op in generated.manifest["operations"]]
    folder = work / name
    generated.write(folder, overwrite=True, cuda=True)
    (folder / "bench.cu").write_text(driver_source(name, generated.manifest, ops))
    start = time.perf_counter()
    subprocess.run(["nvcc", "-O3", "-arch=native", "-o", "bench", "bench.cu", f"{name}.cu"], cwd=folder, check=True)
    log.info("%s: nvcc %.0f s", name, time.perf_counter() - start)
    solver = generated.compile()
    rows = []
    for op in ops:
        info = generated.manifest["operations"][op]
        flat = flat_states(solver, op, n, seed=1)
        for key in flat:
            np.ascontiguousarray(flat[key], np.float64).tofile(folder / f"{key}.bin")
        done = subprocess.run([str(folder / "bench"), op, str(n), str(rounds), str(folder)], capture_output=True,
                              text=True, check=True)
        seconds = statistics.median(float(line) for line in done.stdout.split())
        status = np.fromfile(folder / "status.bin", np.intc)
        arrays = [np.ascontiguousarray(flat[k][:CHECKED]) if k in flat else None for k in info["inputs"]]
        cpu = {k: np.zeros((CHECKED, generated.manifest["sizes"][k])) for k in info["outputs"]}
        ffi, batch = solver.c_function(f"{op}_batch")
        batch(CHECKED, *(ffi.NULL if a is None else ffi.from_buffer("double[]", a) for a in arrays + list(cpu.values())),
              ffi.NULL, ffi.NULL)
        error = 0.0
        for key, want in cpu.items():
            gpu = np.fromfile(folder / f"{key}.bin").reshape(n, -1)[:CHECKED]
            error = max(error, float(np.max(np.linalg.norm(gpu - want, axis=1)
                                            / np.maximum(np.linalg.norm(want, axis=1), np.finfo(float).tiny))))
        rows.append((name, op, "rbdgen CUDA", n / seconds, error, int(np.count_nonzero(status))))
    return rows


def bench_mjx(name: str, n: int, rounds: int) -> list:
    """Rows of MJX's forward (``mjx.forward``) and inverse (``mjx.inverse``) dynamics, vmapped over n states."""
    try:
        import jax
        import mujoco
        from mujoco import mjx
    except ImportError as exc:
        return [(name, op, "MJX", None, f"not installed ({exc})", 0) for op in PEER_OPS]
    from .peers.mujoco import rigid_body_model

    robot = ROBOTS[name]
    try:
        m = rigid_body_model(mujoco, robot.path.read_text(), robot.floating)
        model = mjx.put_model(m)
        rng = np.random.default_rng(0)
        qpos = np.tile(m.qpos0, (n, 1))
        qpos[:, m.nq - m.nv + (6 if robot.floating else 0):] += rng.uniform(-1, 1, (n, m.nv - (6 if robot.floating else 0)))
        data = jax.vmap(lambda q, v, a: mjx.make_data(model).replace(qpos=q, qvel=v, qacc=a, qfrc_applied=a))(
            qpos, rng.normal(size=(n, m.nv)), rng.normal(size=(n, m.nv)))
    except Exception as exc:  # noqa: BLE001 - MJX's own errors: a row saying why
        return [(name, op, "MJX", None, f"cannot load the robot ({type(exc).__name__}: {exc})", 0) for op in PEER_OPS]
    rows = []
    for op, step in zip(PEER_OPS, (mjx.forward, mjx.inverse)):
        fn = jax.jit(jax.vmap(step, in_axes=(None, 0)))
        jax.block_until_ready(fn(model, data))  # compile
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            jax.block_until_ready(fn(model, data))
            times.append(time.perf_counter() - start)
        rows.append((name, op, "MJX", n / statistics.median(times), "timing only", 0))
    return rows


def bench_newton(name: str, n: int, rounds: int) -> list:
    """A row of Newton's forward dynamics: one `SolverFeatherstone` step of n worlds of the robot."""
    try:
        import newton
        import warp as wp
    except ImportError as exc:
        return [(name, "forward_dynamics", "Newton", None, f"not installed ({exc})", 0)]
    robot = ROBOTS[name]
    try:
        single = newton.ModelBuilder()
        single.add_urdf(str(robot.path), floating=robot.floating)
        builder = newton.ModelBuilder()
        builder.replicate(single, n)
        model = builder.finalize()
        solver = newton.solvers.SolverFeatherstone(model)
        state0, state1, control = model.state(), model.state(), model.control()
        solver.step(state0, state1, control, None, 1e-3)  # compile
        wp.synchronize()
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            solver.step(state0, state1, control, None, 1e-3)
            wp.synchronize()
            times.append(time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 - Newton's own errors: a row saying why
        return [(name, "forward_dynamics", "Newton", None, f"failed ({type(exc).__name__}: {exc})", 0)]
    return [(name, "forward_dynamics", "Newton", n / statistics.median(times), "timing only (a whole step)", 0)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--robots", nargs="+", default=["panda", "solo12"], choices=sorted(ROBOTS))
    parser.add_argument("--ops", nargs="+", default=list(ALL_OPERATIONS))
    parser.add_argument("--states", type=int, default=1 << 20, help="states per launch (default: 2^20)")
    parser.add_argument("--rounds", type=int, default=20, help="timed launches per operation (default: 20)")
    args = parser.parse_args(argv)
    problem = gpu_problem()
    if problem:
        print(f"benchmarks.gpu_batch needs an NVIDIA GPU, its driver and nvcc: {problem}. Run it on a machine "
              f"with a CUDA GPU.", file=sys.stderr)
        return 1
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    rows = []
    with tempfile.TemporaryDirectory(prefix="rbdgen-gpu-") as work:
        for name in args.robots:
            rows += bench_rbdgen(name, args.ops, args.states, args.rounds, Path(work))
            rows += bench_mjx(name, args.states, args.rounds)
            rows += bench_newton(name, args.states, args.rounds)
    print(f"| robot | operation | tool | states/s ({args.states} states) | error vs the C | failed states |")
    print("|---|---|---|---|---|---|")
    for robot, op, tool, rate, error, failed in rows:
        shown = f"{error:.1e}" if isinstance(error, float) else error
        print(f"| {robot} | {op} | {tool} | {'n/a' if rate is None else f'{rate:.3g}'} | {shown} | {failed} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
