"""Pinocchio from Python and its C++ in a C++ loop (`pinocchio_bench.cpp`)."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
from functools import partial
from pathlib import Path

import numpy as np

from ..builds import BuildError, compile_program
from ..case import OPS, Case, Unavailable
from .base import Peer, split_dump, stack

HERE = Path(__file__).resolve().parents[1]


class PinocchioStates:
    """The check states in Pinocchio's conventions (`rbdgen.testing.references`), and the conversions back."""

    def __init__(self, case: Case):
        try:
            import pinocchio as pin
            from rbdgen.testing import PinocchioReference
            self.ref = PinocchioReference(case.urdf, case.floating, joint_names=case.joint_names)
        except ImportError as exc:
            raise Unavailable(f"pinocchio is not installed ({exc})") from None
        self.pin = pin
        self.model, self.data = self.ref.model, self.ref.data
        self.model_nog = self.model.copy()
        self.model_nog.gravity.setZero()
        self.data_nog = self.model_nog.createData()
        st = case.check
        self.states = [self.ref.pinocchio_state(st.ref_base(i), st.q[i], st.qd[i], st.qdd[i], st.tau[i])
                       for i in range(case.S)]

    def convert(self, op, i, raw):
        """Pinocchio's result of ``op`` at state ``i`` in rbdgen's conventions."""
        ref, s = self.ref, self.states[i]
        if op == "mass_matrix":
            return ref.mass(raw, s)
        if op == "forward_dynamics":
            return ref.accelerations(raw, s)
        if op == "velocity_product_forces":
            # nonLinearEffects(q, v) is rnea at zero *spatial* acceleration; rbdgen's is at zero
            # classical base acceleration, i.e. Pinocchio's spatial acceleration `bias`
            M = ref.mass(self.pin.crba(self.model, self.data, s.q), s)
            return ref.forces(raw, s) + M @ (s.T.T @ s.bias)
        return ref.forces(raw, s)


class PinocchioPython(Peer):
    key, label = "pinocchio_py", "Pinocchio Python"
    implementation = "pinocchio"
    full_coordinates = True
    describe = ("pinocchio.rnea / crba / aba / computeGeneralizedGravity / nonLinearEffects (zero-gravity "
                "model) from Python, one state per call")

    def setup(self, case):
        super().setup(case)
        self.st = PinocchioStates(case)

    def timed(self, op):
        st, pin = self.st, self.st.pin
        m, d, m0, d0 = st.model, st.data, st.model_nog, st.data_nog
        s = st.states
        if op == "inverse_dynamics":
            return partial(pin.rnea, m, d), [(x.q, x.v, x.a) for x in s], 1
        if op == "mass_matrix":
            return partial(pin.crba, m, d), [(x.q,) for x in s], 1
        if op == "forward_dynamics":
            return partial(pin.aba, m, d), [(x.q, x.v, x.tau) for x in s], 1
        if op == "gravity":
            return partial(pin.computeGeneralizedGravity, m, d), [(x.q,) for x in s], 1
        return partial(pin.nonLinearEffects, m0, d0), [(x.q, x.v) for x in s], 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        return stack([self.st.convert(op, i, np.array(fn(*a), dtype=float)) for i, a in enumerate(args)])


#: Flags Pinocchio's CMake config adds for its users (lib/cmake/pinocchio/pinocchioTargets.cmake).
PINOCCHIO_DEFINES = ("-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
                     "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_FUSION_INVOKE_MAX_ARITY=12")


def cmeel_prefix() -> Path:
    """``<site-packages>/cmeel.prefix`` of the installed ``pin`` wheel."""
    try:
        dist = importlib.metadata.distribution("pin")
    except importlib.metadata.PackageNotFoundError:
        raise Unavailable("the pin wheel is not installed") from None
    prefix = Path(dist.locate_file("cmeel.prefix"))
    if not (prefix / "include" / "pinocchio").is_dir():
        raise Unavailable(f"{prefix}/include/pinocchio not found")
    return prefix


def eigen_include(prefix: Path) -> Path:
    """Eigen's headers: cmeel-eigen (the `bench` extra; beside pin, or in another site-packages such as a
    virtual environment's) or Debian's libeigen3-dev."""
    try:
        cmeel_eigen = [Path(importlib.metadata.distribution("cmeel-eigen").locate_file("cmeel.prefix"))]
    except importlib.metadata.PackageNotFoundError:
        cmeel_eigen = []
    for candidate in [p / "include" / "eigen3" for p in [prefix, *cmeel_eigen]] + [
            Path("/usr/include/eigen3"), Path("/usr/local/include/eigen3")]:
        if (candidate / "Eigen" / "Core").is_file():
            return candidate
    raise Unavailable("Eigen headers not found: `pip install cmeel-eigen` (in the bench extra) "
                      "or `apt-get install libeigen3-dev`")


def build_pinocchio_bench(cxx_flags, cache: Path, log=print, source="pinocchio_bench.cpp") -> tuple:
    """Compile benchmarks/``source`` (a C++ loop over Pinocchio) once (cached by source, flags and pin version).

    Returns ``(executable, seconds spent compiling (0.0 on a cache hit))``; raises `Unavailable`.
    """
    prefix = cmeel_prefix()
    eigen = eigen_include(prefix)
    cxx = shutil.which(os.environ.get("CXX", "g++"))
    if cxx is None:
        raise Unavailable("no C++ compiler (g++) found")
    name = Path(source).stem.replace("_", "-")
    command = [cxx, *cxx_flags, *PINOCCHIO_DEFINES, f"-I{prefix / 'include'}", f"-I{eigen}", source,
               "-o", name, f"-L{prefix / 'lib'}", f"-Wl,-rpath,{prefix / 'lib'}", "-lboost_serialization"]
    log(f"  {source} ({' '.join(cxx_flags)}; a minute or two unless cached)")
    try:
        files = {file: (HERE / file).read_bytes() for file in (source, "timing.hpp", "placement.h")}  # the shared loop
        return compile_program(cache, name, files, command,
                               extra_key=(importlib.metadata.version("pin"),))
    except BuildError as exc:
        raise Unavailable(str(exc)) from None


class PinocchioCpp(Peer):
    key, label, kind = "pinocchio_cpp", "Pinocchio C++ loop", "loop"
    implementation = "pinocchio"
    full_coordinates = True
    describe = ("Pinocchio's rnea / crba / aba / computeGeneralizedGravity / nonLinearEffects instantiated from "
                "the pin wheel's headers with the same optimisation flags, called in a C++ loop, per call")

    #: set by bench.py: the C++ flags; None: do not build
    cxx_flags = None

    def setup(self, case):
        super().setup(case)
        if self.cxx_flags is None:
            raise Unavailable("not built in --quick mode (pass --pinocchio-cpp to build it)")
        self.st = PinocchioStates(case)
        self.exe, seconds = build_pinocchio_bench(self.cxx_flags, case.cache)
        self.build_seconds = seconds or None
        folder = case.work / "pinocchio_cpp"
        folder.mkdir(parents=True, exist_ok=True)
        self.model_file = folder / "model.bin"
        self.st.model.saveToBinary(str(self.model_file))
        rows = [np.concatenate([s.q, s.v, s.a, s.tau]) for s in self.st.states]
        self.states_file = folder / "states.bin"
        np.asarray(rows, dtype=np.float64).tofile(self.states_file)
        self.dump = folder / "results.bin"
        self._results = None
        self.run_round(0.01)  # fails here, not in the timing loop, if the program cannot run

    def run_round(self, target_ms):
        proc = subprocess.run([str(self.exe), str(self.model_file), str(self.states_file), str(self.dump), "1",
                               str(target_ms)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise Unavailable(f"pinocchio_bench failed: {proc.stderr.strip()[-300:]}")
        return {line.split()[0]: float(line.split()[1]) for line in proc.stdout.splitlines() if line.strip()}

    def results(self, op):
        if self._results is None:
            raw = split_dump(np.fromfile(self.dump), self.case, OPS)
            self._results = {o: stack([self.st.convert(o, i, r) for i, r in enumerate(raw[o])]) for o in OPS}
        return self._results[op]
