"""rbdgen's own columns: the generated C in a C loop, the compiled solver from Python (one
state, a batch), the batch C function alone, and the NumPy engine."""

from __future__ import annotations

import numpy as np

import rbdgen

from ..c_loop import build_c_bench
from ..case import OPS
from .base import CLoopPeer, Peer, stack


class RbdgenC(CLoopPeer):
    key, label = "rbdgen_c", "rbdgen C loop"
    describe = "the generated C called in a C loop over the check states (benchmarks/c_loop.py), per call"

    @staticmethod
    def build(generated, flags, check, cache) -> tuple:
        """``(executable, compile seconds, 0.0 when cached)`` of the C loop over the ``check`` states."""
        return build_c_bench(generated, flags, cache, data=check.flat(), ops=OPS)

    def setup(self, case):
        super().setup(case)
        if case.c_bench is not None:
            self.exe, self.compile_seconds = case.c_bench.result()
        else:
            self.exe, self.compile_seconds = self.build(case.generated, case.flags, case.check, case.cache)
        self.compile_cached = self.compile_seconds == 0.0
        self.dump = case.work / "rbdgen_c_results.bin"
        self._results = None

    def results(self, op):
        if self._results is None:
            self._results = self.dumped(OPS)
        return self._results[op]


class RbdgenPython(Peer):
    key, label = "rbdgen_py", "rbdgen Python, 1 state"
    describe = ("CompiledSolver method called from Python with one state (its CPython entry point: plain arrays "
                "straight to the generated C)")

    def timed(self, op):
        c = self.case
        return getattr(c.solver, op), [c.check.args(op, i) for i in range(c.S)], 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        return stack([fn(*a) for a in args])


class RbdgenBatch(Peer):
    key, label, kind = "rbdgen_batch", "rbdgen Python, batch", "batch"
    describe = "CompiledSolver method called once on the whole batch; time per state"

    def solver(self):
        return self.case.solver

    def timed(self, op):
        c = self.case
        return getattr(self.solver(), op), [c.batch.args(op)], c.batch.n

    def results(self, op):
        fn, (args,), _ = self.timed(op)
        return np.asarray(fn(*args))[: self.case.S]


class RbdgenBatchC(Peer):
    key, label, kind = "rbdgen_batch_c", "rbdgen C loop, batch states", "batch"
    describe = ("the generated ``*_batch`` C function (a C loop) over the batch's states, one cffi call; "
                "time per state: the C loop's speed on the batch's states, without Python")

    def setup(self, case):
        super().setup(case)
        ffi, _ = case.solver.c_function("mass_matrix_batch")
        data = {k: np.ascontiguousarray(v) for k, v in case.batch.flat().items() if k != "loads"}
        self._keep = data  # the buffers must outlive the pointers
        self._inputs = {k: ffi.from_buffer("double[]", v) for k, v in data.items()}
        self._status = np.zeros(case.batch.n, np.intc)
        self._out = {}

    def timed(self, op):
        solver, N = self.case.solver, self.case.batch.n
        ffi, function = solver.c_function(f"{op}_batch")
        info = solver.manifest["operations"][op]
        (name,) = info["outputs"]
        out = self._out.setdefault(op, np.empty((N, solver.manifest["sizes"][name])))
        args = [N] + [self._inputs.get(n, ffi.NULL) for n in info["inputs"]]
        args += [ffi.from_buffer("double[]", out), ffi.NULL, ffi.from_buffer("int[]", self._status)]
        return function, [args], N

    def results(self, op):
        fn, (args,), _ = self.timed(op)
        if fn(*args):
            raise RuntimeError(f"{op}: the batch function failed")
        out = self._out[op][: self.case.S]
        G = self.case.G
        return out.reshape(-1, G, G) if op == "mass_matrix" else out.copy()


class NumpyBatch(RbdgenBatch):
    key, label = "numpy_batch", "NumPy engine, batch"
    implementation = "numpy"
    describe = "rbdgen.NumpySolver (no generated code) on the whole batch; time per state"

    def setup(self, case):
        super().setup(case)
        self.engine = rbdgen.NumpySolver(case.solver.model)

    def solver(self):
        return self.engine
