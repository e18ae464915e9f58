"""The CUDA file of a generated folder (`rbdgen.codegen.cuda`, ``--cuda``).

nvcc compiles it (skipped where nvcc is absent), and its per-state functions, compiled as host C++ by g++
(``__CUDACC__`` undefined: the documented way to build them without CUDA), give the C's results bit for bit
and its statuses, at random states and at a state the C refuses. Panda (fixed base) and Solo12 (floating
base, loads, an operation in parts, a function that calls another) only: CUDA compiles of large robots are
slow.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rbdgen.algorithms.operations import operation
from rbdgen.errors import STATUS
from rbdgen.interface import flat_inputs
from rbdgen.testing import random_states

from benchmarks.gpu_batch import driver_source, gpu_problem

ROBOTS = ("panda", "solo12")

ROOT = Path(__file__).resolve().parents[1]

NVCC = shutil.which("nvcc")
GXX = shutil.which("g++")

#: The status of a state whose input is not finite.
INVALID_INPUT = next(code for code, error in STATUS.items() if error is not None and error.__name__ == "InvalidInputError")


@pytest.fixture(scope="module", params=ROBOTS)
def cuda_folder(request, generated, tmp_path_factory):
    """``(name, folder)``: a robot's generated folder written with its CUDA files."""
    folder = tmp_path_factory.mktemp(f"cuda-{request.param}")
    generated(request.param).write(folder, overwrite=True, cuda=True)
    return request.param, folder


def test_cuda_files_are_written_and_name_every_function(cuda_folder, generated):
    name, folder = cuda_folder
    manifest = generated(name).manifest
    cu, header = (folder / f"{name}.cu").read_text(), (folder / f"{name}_cuda.h").read_text()
    for function in manifest["operations"]:
        assert f'#include "{name}_{function}.c"' in cu
        assert f"__global__ void {function}_kernel(" in cu
        assert f"int {name}_cuda_{function}(int n, " in header
    # the C sources are included, not copied: the .cu holds no statement of the C
    assert "const double t0 =" not in cu


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (CUDA's compiler) on PATH")
def test_nvcc_compiles_the_cuda_file_and_links_the_gpu_benchmark(cuda_folder, generated):
    """The .cu and the driver of benchmarks/gpu_batch.py, which calls every launcher of <prefix>_cuda.h, build
    into one program (running it needs a GPU)."""
    name, folder = cuda_folder
    manifest = generated(name).manifest
    (folder / "bench.cu").write_text(driver_source(name, manifest, list(manifest["operations"])))
    result = subprocess.run([NVCC, "-O3", "-arch=sm_90", "-o", "bench", "bench.cu", f"{name}.cu"], cwd=folder,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    symbols = subprocess.run(["nm", str(folder / "bench")], capture_output=True, text=True, check=True).stdout
    assert f" T {name}_cuda_mass_matrix" in symbols and f" T {name}_cuda_forward_dynamics" in symbols


def test_gpu_benchmark_without_a_gpu_says_so():
    if not gpu_problem():
        pytest.skip("this machine has a CUDA GPU")
    done = subprocess.run([sys.executable, "-m", "benchmarks.gpu_batch"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1
    assert "needs an NVIDIA GPU, its driver and nvcc" in done.stderr and "Traceback" not in done.stderr, done.stderr


def _shim(name: str, manifest: dict) -> str:
    """C++ that includes ``<name>.cu`` and exports each per-state function of it as a C loop over states."""
    lines = [f'#include "{name}.cu"']
    for function, info in manifest["operations"].items():
        arrays = [(a, False) for a in info["inputs"]] + [(a, True) for a in info["outputs"]]
        params = ", ".join(f"{'' if out else 'const '}double *{a}" for a, out in arrays)
        call = ", ".join(f"{a} == NULL ? NULL : {a} + k * {manifest['sizes'][a]}" for a, _ in arrays)
        lines += [f'extern "C" void host_{function}(int n, {params}, int *status)', "{",
                  "    for (size_t k = 0; k < (size_t)n; ++k)",
                  f"        status[k] = {name}_device::{function}::{name}_{function}({call});", "}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def host_library(cuda_folder, generated):
    """``(name, ctypes library)``: the ``.cu``'s per-state functions compiled as host C++ with g++."""
    if GXX is None:
        pytest.skip("needs g++")
    name, folder = cuda_folder
    (folder / "shim.cpp").write_text(_shim(name, generated(name).manifest))
    library = folder / "shim.so"
    subprocess.run([GXX, "-std=c++17", "-O1", "-Wall", "-Werror", "-shared", "-fPIC", "shim.cpp", "-o", str(library)],
                   cwd=folder, check=True)
    return name, ctypes.CDLL(str(library))


def _pointer(array):
    return None if array is None else array.ctypes.data_as(ctypes.c_void_p)


def test_host_compiled_cuda_functions_equal_the_c(host_library, compiled):
    name, library = host_library
    solver = compiled(name)
    st = random_states(solver, 6, seed=7, load_links=solver.link_names)
    state = {"base": st.base, "q": st.q, "qd": st.qd, "qdd": st.qdd, "tau": st.tau}
    for function, info in solver.manifest["operations"].items():
        names = operation(function).input_names(solver.floating)
        inputs, _ = solver._inputs(function, tuple(state[n] for n in names if n != "loads"),
                                   st.loads if "loads" in names else None)
        flat = flat_inputs(inputs)
        arrays = [np.array(flat[a], order="C") for a in info["inputs"]]  # copies: state 2 is changed below
        arrays[0][2, 0] = np.nan  # state 2: refused by the input check
        n = arrays[0].shape[0]
        outputs = {impl: [np.full((n, solver.manifest["sizes"][a]), 7.0) for a in info["outputs"]] for impl in "CG"}
        status = {impl: np.full(n, -1, np.intc) for impl in "CG"}
        ffi, batch = solver.c_function(f"{function}_batch")
        batch(n, *(ffi.from_buffer("double[]", a) for a in arrays + outputs["C"]), ffi.NULL,
              ffi.from_buffer("int[]", status["C"]))
        getattr(library, f"host_{function}")(ctypes.c_int(n), *(_pointer(a) for a in arrays + outputs["G"]),
                                             _pointer(status["G"]))
        assert status["C"].tolist() == status["G"].tolist(), function
        assert status["C"][2] == INVALID_INPUT and not status["C"][[0, 1, 3, 4, 5]].any(), (function, status["C"])
        for a, c, g in zip(info["outputs"], outputs["C"], outputs["G"]):
            assert np.abs(c[[0, 1, 3]]).max() > 0, (function, a)  # computed, not zeroed
            assert not c[2].any() and not g[2].any(), (function, a)  # a refused state's outputs are zero
            np.testing.assert_array_equal(g, c, err_msg=f"{name} {function} {a}")
