"""adam-robotics' CasADi functions, called from Python and written as C (`casadi.CodeGenerator`)
and timed in a C loop."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np

from rbdgen.testing import GRAVITY, rotation_matrix

from ..builds import BuildError, compile_program
from ..c_loop import BENCH_C, BODY, c_array
from ..case import OPS, Case, Unavailable
from .base import CLoopPeer, Peer, quiet, stack


class AdamFunctions:
    """adam-robotics' CasADi functions for one robot, with rbdgen's joint order.

    adam works in the mixed representation: base velocity ``[pdot_W, omega_W]`` (linear
    first, world axes), base pose as a 4x4 homogeneous matrix. Each operation is one
    ``casadi.Function`` (SX, ``cse``) whose output is dense:

    * ID = ``M(H, s) [a_b; sdd] + h(H, s, v_b, sd)`` (adam has no RNEA with accelerations);
    * M = ``mass_matrix_fun``; FD = ``aba_fun`` (floating base only: it takes joint forces
      only, so the base wrench must be zero, which the benchmark states are);
    * g = ``gravity_term_fun``; C qd = ``coriolis_term_fun``.

    For a fixed-base robot adam's functions (always floating-base) are specialised with
    ``H = I`` and zero base velocity and acceleration, and only the joint rows kept.
    """

    def __init__(self, case: Case):
        try:
            import casadi as cs
            from adam.casadi import KinDynComputations
            from adam.core.constants import Representations
        except ImportError as exc:
            raise Unavailable(f"adam-robotics / casadi not installed ({exc})") from None
        start = time.perf_counter()
        self.cs = cs
        with quiet():
            kd = KinDynComputations(case.normalized_urdf(), case.joint_names,
                                    gravity=np.array([*GRAVITY, 0.0, 0.0, 0.0]))
            kd.set_frame_velocity_representation(Representations.MIXED_REPRESENTATION)
            if kd.NDoF != case.J:
                raise Unavailable(f"adam found {kd.NDoF} joints, rbdgen {case.J}")
            n = case.J
            H = cs.SX.sym("H", 4, 4)
            s, sd, sdd = cs.SX.sym("s", n), cs.SX.sym("sd", n), cs.SX.sym("sdd", n)
            vb, ab, tau = cs.SX.sym("vb", 6), cs.SX.sym("ab", 6), cs.SX.sym("tau", n)
            Mf, hf, gf, cf = kd.mass_matrix_fun(), kd.bias_force_fun(), kd.gravity_term_fun(), kd.coriolis_term_fun()
            self.unsupported = {}
            if case.floating:
                nu_dot = cs.vertcat(ab, sdd)
                exprs = {
                    "inverse_dynamics": ([H, s, vb, sd, ab, sdd], cs.mtimes(Mf(H, s), nu_dot) + hf(H, s, vb, sd)),
                    "mass_matrix": ([H, s], Mf(H, s)),
                    "gravity": ([H, s], gf(H, s)),
                    "velocity_product_forces": ([H, s, vb, sd], cf(H, s, vb, sd)),
                }
                if hasattr(kd, "aba_fun"):
                    exprs["forward_dynamics"] = ([H, s, vb, sd, tau], kd.aba_fun()(H, s, vb, sd, tau))
                else:
                    self.unsupported["forward_dynamics"] = "this adam version has no aba_fun"
            else:
                I4, z6 = cs.DM.eye(4), cs.DM.zeros(6)
                Mj = Mf(I4, s)[6:, 6:]
                exprs = {
                    "inverse_dynamics": ([s, sd, sdd], cs.mtimes(Mj, sdd) + hf(I4, s, z6, sd)[6:]),
                    "mass_matrix": ([s], Mj),
                    "gravity": ([s], gf(I4, s)[6:]),
                    "velocity_product_forces": ([s, sd], cf(I4, s, z6, sd)[6:]),
                }
                self.unsupported["forward_dynamics"] = "adam's ABA is floating-base only"
            self.functions = {op: cs.Function(f"adam_{op}", ins, [cs.densify(out)], {"cse": True})
                              for op, (ins, out) in exprs.items()}
        self.seconds = time.perf_counter() - start
        self.case = case
        # the check states in adam's conventions: per op, per state, the input tuple
        st, S = case.check, case.S
        self.inputs = {op: [] for op in self.functions}
        for i in range(S):
            if case.floating:
                Hm = np.eye(4)
                Hm[:3, :3] = rotation_matrix(st.quat[i])
                Hm[:3, 3] = st.translation[i]
                w, v = st.velocity[i, :3], st.velocity[i, 3:]
                wd, vd = st.acceleration[i, :3], st.acceleration[i, 3:]
                vb_i, ab_i = np.concatenate([v, w]), np.concatenate([vd, wd])
                vals = {"inverse_dynamics": (Hm, st.q[i], vb_i, st.qd[i], ab_i, st.qdd[i]),
                        "mass_matrix": (Hm, st.q[i]), "gravity": (Hm, st.q[i]),
                        "velocity_product_forces": (Hm, st.q[i], vb_i, st.qd[i]),
                        "forward_dynamics": (Hm, st.q[i], vb_i, st.qd[i], st.tau[i, 6:])}
            else:
                vals = {"inverse_dynamics": (st.q[i], st.qd[i], st.qdd[i]), "mass_matrix": (st.q[i],),
                        "gravity": (st.q[i],), "velocity_product_forces": (st.q[i], st.qd[i])}
            for op in self.functions:
                self.inputs[op].append(tuple(np.asarray(x, dtype=float) for x in vals[op]))

    def convert(self, op, y):
        """adam's (mixed, linear-first) result as rbdgen's (angular first)."""
        y = np.asarray(y, dtype=float)
        if not self.case.floating:
            return y
        perm = np.r_[3:6, 0:3, 6:self.case.G]
        return y[np.ix_(perm, perm)] if op == "mass_matrix" else y[perm]


class AdamPython(Peer):
    key, label = "adam_py", "adam CasADi Python"
    implementation = "adam"
    full_coordinates = True
    describe = "adam-robotics' casadi.Function objects called from Python with NumPy inputs, one state per call"

    def setup(self, case):
        super().setup(case)
        self.fns = AdamFunctions(case)
        self.unsupported = dict(self.fns.unsupported)

    def timed(self, op):
        return self.fns.functions[op], self.fns.inputs[op], 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        G = self.case.G
        return stack([self.fns.convert(op, np.asarray(fn(*a)).reshape(G, G, order="F") if op == "mass_matrix"
                                        else np.asarray(fn(*a)).reshape(-1)) for a in args])


ADAM_CALL = r"""
static casadi_int iw_{op}[{sz_iw} + 1];
static casadi_real w_{op}[{sz_w} + 1];
static void call_{op}(int i, double *out)
{{
    const casadi_real *arg[{sz_arg}] = {{0}};
    casadi_real *res[{sz_res}] = {{0}};
{set_args}
    res[0] = out;
    adam_{op}(arg, res, iw_{op}, w_{op}, 0);
}}
"""


class AdamC(CLoopPeer):
    key, label = "adam_c", "adam CasADi C loop"
    implementation = "adam"
    full_coordinates = True
    describe = ("the same adam functions written as C by casadi.CodeGenerator, compiled with rbdgen's flags and "
                "called in a C loop over the check states, per call")

    def setup(self, case):
        super().setup(case)
        fns = AdamFunctions(case)
        self.fns = fns
        self.unsupported = dict(fns.unsupported)
        self.ops = [op for op in OPS if op in fns.functions]
        cs = fns.cs
        gen = cs.CodeGenerator(f"adam_{case.name}.c", {"with_header": True})
        for op in self.ops:
            gen.add(fns.functions[op])
        source = gen.dump()
        self.c_source_kib = len(source.encode()) / 1024
        arrays, calls, bodies = [], [], []
        G = case.G
        self._sizes = {op: G * G if op == "mass_matrix" else G for op in self.ops}
        for op in self.ops:
            f = fns.functions[op]
            set_args = []
            for k in range(f.n_in()):
                data = np.array([np.ravel(a[k], order="F") for a in fns.inputs[op]])
                arrays.append(c_array(f"in_{op}_{k}", data))
                set_args.append(f"    arg[{k}] = in_{op}_{k} + i * {data.shape[1]};")
            calls.append(ADAM_CALL.format(op=op, sz_iw=f.sz_iw(), sz_w=f.sz_w(), sz_arg=max(1, f.sz_arg()),
                                          sz_res=max(1, f.sz_res()), set_args="\n".join(set_args)))
            call = f"call_{op}(i, out[i])"
            bodies.append(BODY.format(STATES=case.S, out_size=self._sizes[op], op=op, call=call, timed_call=call))
        program = BENCH_C.format(includes=f'#include "adam_{case.name}.h"',
                                 arrays="\n".join(arrays) + "\n" + "".join(calls),
                                 bodies="".join(bodies), rounds=15, reps=100)
        with tempfile.TemporaryDirectory() as tmp:
            gen.generate(tmp + os.sep)
            files = {f.name: f.read_bytes() for f in Path(tmp).iterdir()}
        try:
            self.exe, self.compile_seconds = compile_program(
                case.cache, f"adam-c-{case.name}", {**files, "bench.c": program},
                ["gcc", *case.flags, "-o", f"adam-c-{case.name}", "bench.c", f"adam_{case.name}.c", "-I.", "-lm"])
        except BuildError as exc:
            raise Unavailable(f"casadi's C: {exc}") from None
        self.compile_cached = self.compile_seconds == 0.0
        self.build_seconds = fns.seconds + self.compile_seconds
        self.dump = case.work / "adam_c_results.bin"
        self._results = None

    def results(self, op):
        if self._results is None:
            raw = self.dumped(self.ops)
            self._results = {o: stack([self.fns.convert(o, r) for r in raw[o]]) for o in self.ops}
        return self._results[op]
