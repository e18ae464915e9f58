"""The tools `bench.py` times, each behind one small adapter ("peer").

Every peer times the five operations of `OPS` on the same states and returns its
results *in rbdgen's conventions* (``tests/reference.py``, shared/reference/
conventions.md), so `bench.py` can check them against rbdgen's before a time counts.

Three kinds of peer:

* ``python``: one state per call from Python; `timed(op)` gives a function and one
  argument tuple per state, and the harness times ``for a in args: fn(*a)``;
* ``batch``: one Python call on the whole batch; the time is divided by its size;
* ``loop``: a compiled program that times a C/C++ loop over the states itself;
  `run_round(target_ms)` runs it once and returns microseconds per call.

A peer whose package is missing or that cannot be set up raises `Unavailable` from
`setup`; an operation it does not have is listed in ``unsupported`` with the reason.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import rbdgen  # noqa: E402
from c_loop import BENCH_C, BODY, build_c_bench, c_array, run_c_bench  # noqa: E402
from reference import GRAVITY, DyniboReference, PinocchioReference  # noqa: E402

#: The benchmarked operations, in table order.
OPS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "gravity", "velocity_product_forces")

#: Each operation's inputs besides the base (rbdgen's argument order).
INPUTS = {
    "inverse_dynamics": ("q", "qd", "qdd"),
    "mass_matrix": ("q",),
    "forward_dynamics": ("q", "qd", "tau"),
    "gravity": ("q",),
    "velocity_product_forces": ("q", "qd"),
}


class Unavailable(Exception):
    """The peer cannot run here (not installed, cannot build, cannot load the robot)."""


# ---------------------------------------------------------------------------
# the benchmark case of one robot


@dataclass
class States:
    """States in rbdgen's conventions; ``translation``/``quat``/``velocity``/``acceleration`` None for a fixed base."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    translation: np.ndarray = None
    quat: np.ndarray = None
    velocity: np.ndarray = None
    acceleration: np.ndarray = None

    @property
    def n(self) -> int:
        return self.q.shape[0]

    @property
    def floating(self) -> bool:
        return self.quat is not None

    def head(self, i=None) -> tuple:
        """``(BaseState,)`` of state ``i`` (all states when None) for a floating base, else ``()``."""
        if not self.floating:
            return ()
        pick = (lambda a: a) if i is None else (lambda a: a[i])
        return (rbdgen.BaseState(pick(self.translation), pick(self.quat), pick(self.velocity),
                                 pick(self.acceleration)),)

    def args(self, op, i=None) -> tuple:
        """rbdgen's positional arguments of ``op`` for state ``i`` (the batch when None)."""
        pick = (lambda a: a) if i is None else (lambda a: a[i])
        return self.head(i) + tuple(pick(getattr(self, n)) for n in INPUTS[op])

    def ref_base(self, i):
        """State ``i``'s base for tests/reference.py (None for a fixed base)."""
        if not self.floating:
            return None
        return (self.translation[i], self.quat[i], self.velocity[i], self.acceleration[i])

    def rotation(self, i) -> np.ndarray:
        """World <- base rotation of state ``i``."""
        x, y, z, w = self.quat[i]
        return np.array([
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ])

    def head_rows(self, n) -> "States":
        return States(**{k: (None if v is None else v[:n]) for k, v in self.__dict__.items()})

    def c_data(self) -> dict:
        """The flat inputs of the generated C (`c_loop.random_c_states`'s layout)."""
        data = {"q": self.q, "qd": self.qd, "qdd": self.qdd, "tau": self.tau}
        if self.floating:
            data["base"] = np.hstack([self.translation, self.quat, self.velocity, self.acceleration])
        return data


def random_states(n: int, J: int, G: int, floating: bool, seed: int) -> States:
    """``n`` random states: q uniform in [-pi, pi], qd ~ 2 N(0, 1), qdd ~ 5 N(0, 1), joint
    forces ~ 10 N(0, 1); a floating base within 3 m of the origin with a random unit
    quaternion and N(0, 1) velocity and acceleration, and *no wrench on the base* in
    ``tau`` (an unactuated base, which is also what adam's ABA takes)."""
    rng = np.random.default_rng(seed)
    st = States(q=rng.uniform(-np.pi, np.pi, (n, J)), qd=2.0 * rng.normal(size=(n, J)),
                qdd=5.0 * rng.normal(size=(n, J)), tau=10.0 * rng.normal(size=(n, G)))
    if floating:
        quat = rng.normal(size=(n, 4))
        st.translation = rng.uniform(-3.0, 3.0, (n, 3))
        st.quat = quat / np.linalg.norm(quat, axis=1, keepdims=True)
        st.velocity = rng.normal(size=(n, 6))
        st.acceleration = rng.normal(size=(n, 6))
        st.tau[:, :6] = 0.0
    return st


@dataclass
class Case:
    """One robot's benchmark: its generated code, solver, states and rbdgen's reference results."""

    name: str
    urdf: str
    floating: bool
    generated: object  # rbdgen.codegen.generator.Generated
    solver: object  # rbdgen.CompiledSolver
    check: States  # the states every peer's results are checked on (also the C loops' states)
    batch: States  # the batch states (its first rows are `check`)
    flags: tuple
    cache: Path  # builds shared between runs
    work: Path  # this run's scratch folder
    reference: dict = field(default_factory=dict)  # op -> (S, G) or (S, G, G), rbdgen's results
    c_bench: object = None  # a Future of `RbdgenC.build`, started early to compile in parallel

    @property
    def joint_names(self) -> list:
        return list(self.solver.joint_names)

    @property
    def J(self) -> int:
        return self.solver.joint_count

    @property
    def G(self) -> int:
        return self.solver.generalized_count

    @property
    def S(self) -> int:
        return self.check.n


def stripped_urdf(case: Case) -> str:
    """A copy of the case's URDF without visual/collision/simulator elements (for MuJoCo)."""
    from robots import strip_urdf

    out = case.work / f"{case.name}.stripped.urdf"
    if not out.exists():
        strip_urdf(case.urdf, out)
    return str(out)


def normalized_urdf(case: Case) -> str:
    """`stripped_urdf` with the URDF defaults written out: an ``<origin>`` on every joint and
    inertial that has none (adam's parser needs them; identity is the URDF default)."""
    import xml.etree.ElementTree as ET

    out = case.work / f"{case.name}.normalized.urdf"
    if not out.exists():
        tree = ET.parse(stripped_urdf(case))
        for elem in list(tree.getroot().iter("joint")) + list(tree.getroot().iter("inertial")):
            if elem.find("origin") is None:
                elem.insert(0, ET.Element("origin", {"xyz": "0 0 0", "rpy": "0 0 0"}))
        tree.write(out, encoding="utf-8", xml_declaration=True)
    return str(out)


def _content_key(*parts) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else str(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


@contextlib.contextmanager
def _quiet():
    """Silence a library's prints (urdf_parser_py warns about every unknown attribute)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


# ---------------------------------------------------------------------------
# peers


class Peer:
    key = ""
    label = ""
    kind = "python"  # "python", "batch" or "loop"
    #: what the column is, one line (README / results notes)
    describe = ""

    def __init__(self):
        self.unsupported = {}  # op -> reason
        self.notes = []  # free-form notes for the results
        self.case = None
        self.build_seconds = None  # code generation and compile time, where the peer builds something

    def setup(self, case: Case) -> None:
        self.case = case

    def results(self, op) -> np.ndarray:
        """The peer's results of ``op`` at the case's check states, in rbdgen's conventions."""
        raise NotImplementedError

    # python / batch peers
    def timed(self, op):
        """``(fn, [args per call], states per call)``."""
        raise NotImplementedError

    # loop peers
    def run_round(self, target_ms: float) -> dict:
        raise NotImplementedError


def _stack(rows):
    return np.array([np.asarray(r, dtype=float) for r in rows])


class RbdgenPython(Peer):
    key, label = "rbdgen_py", "rbdgen Python, 1 state"
    describe = "CompiledSolver method called from Python with one state (its CPython entry point: plain arrays straight to the generated C)"

    def timed(self, op):
        c = self.case
        return getattr(c.solver, op), [c.check.args(op, i) for i in range(c.S)], 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        return _stack([fn(*a) for a in args])


class RbdgenBatch(Peer):
    key, label, kind = "rbdgen_batch", "rbdgen Python, batch", "batch"
    describe = "CompiledSolver method called once on the whole batch; time per state"

    def timed(self, op):
        c = self.case
        return getattr(c.solver, op), [c.batch.args(op)], c.batch.n

    def results(self, op):
        fn, (args,), _ = self.timed(op)
        return np.asarray(fn(*args))[: self.case.S]


class RbdgenBatchC(Peer):
    key, label, kind = "rbdgen_batch_c", "rbdgen C loop, batch states", "batch"
    describe = ("the generated ``*_batch`` C function (a C loop) over the batch's states, one cffi call; "
                "time per state: the C loop's speed on the batch's states, without Python")

    def setup(self, case):
        super().setup(case)
        solver = case.solver
        ffi = solver._ffi
        data = {k: np.ascontiguousarray(v) for k, v in case.batch.c_data().items()}
        self._keep = data  # the buffers must outlive the pointers
        self._inputs = {k: ffi.from_buffer("double[]", v) for k, v in data.items()}
        self._status = np.zeros(case.batch.n, np.intc)
        self._out = {}

    def timed(self, op):
        c, solver = self.case, self.case.solver
        ffi, sizes, N = solver._ffi, solver.manifest["sizes"], c.batch.n
        (name,) = solver.manifest["operations"][op]["outputs"]
        out = self._out.setdefault(op, np.empty((N, sizes[name])))
        args = [N] + [self._inputs.get(n, ffi.NULL) for n in solver.manifest["operations"][op]["inputs"]]
        args += [ffi.from_buffer("double[]", out), ffi.NULL, ffi.from_buffer("int[]", self._status)]
        return getattr(solver._lib, f"{solver.prefix}_{op}_batch"), [args], N

    def results(self, op):
        fn, (args,), _ = self.timed(op)
        if fn(*args):
            raise RuntimeError(f"{op}: the batch function failed")
        out = self._out[op][: self.case.S]
        G = self.case.solver.generalized_count
        return out.reshape(-1, G, G) if op == "mass_matrix" else out.copy()


class NumpyBatch(RbdgenBatch):
    key, label = "numpy_batch", "NumPy engine, batch"
    describe = "rbdgen.NumpySolver (no generated code) on the whole batch; time per state"

    def setup(self, case):
        super().setup(case)
        self.solver = rbdgen.NumpySolver(case.solver.model)

    def timed(self, op):
        c = self.case
        return getattr(self.solver, op), [c.batch.args(op)], c.batch.n


class _CLoopProgram(Peer):
    """A peer timed by a C loop program (``self.exe``, from c_loop.py) that dumps its results to ``self.dump``."""

    def run_round(self, target_ms):
        times = run_c_bench(self.exe, rounds=1, target_ms=target_ms, dump=self.dump)
        return {op: t[0] for op, t in times.items()}

    def _dumped(self, ops):
        """Run the program once more and split what it dumped, per operation."""
        run_c_bench(self.exe, rounds=1, target_ms=0.01, dump=self.dump)
        return _split_dump(np.fromfile(self.dump), self.case, ops, {})


class RbdgenC(_CLoopProgram):
    key, label, kind = "rbdgen_c", "rbdgen C loop", "loop"
    describe = "the generated C called in a C loop over the check states (benchmarks/c_loop.py), per call"

    @staticmethod
    def build(generated, flags, folder, check: States, cache) -> tuple:
        """``(executable, compile seconds)`` of the C loop over the ``check`` states (cached)."""
        Path(folder).mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        exe = build_c_bench(generated, flags, folder, data=check.c_data(), ops=OPS, cache=cache)
        return exe, time.perf_counter() - start

    def setup(self, case):
        super().setup(case)
        folder = case.work / "rbdgen_c"
        if case.c_bench is not None:
            self.exe, self.compile_seconds = case.c_bench.result()
        else:
            self.exe, self.compile_seconds = self.build(case.generated, case.flags, folder, case.check, case.cache)
        self.compile_cached = Path(case.cache) in Path(self.exe).parents  # a fresh build runs from `folder`
        self.dump = folder / "results.bin"
        self._results = None

    def results(self, op):
        if self._results is None:
            self._results = self._dumped(OPS)
        return self._results[op]


def _split_dump(flat, case, ops, sizes):
    """A loop program's dump: per op, S results of G (or G*G column-major) values."""
    out, k, S, G = {}, 0, case.S, case.G
    for op in ops:
        size = sizes.get(op, G * G if op == "mass_matrix" else G)
        block = flat[k: k + S * size].reshape(S, size)
        k += S * size
        out[op] = block.reshape(S, G, G).transpose(0, 2, 1) if op == "mass_matrix" else block
    if k != flat.size:
        raise RuntimeError(f"dump has {flat.size} values, expected {k}")
    return out


# -- Pinocchio ----------------------------------------------------------------


class _PinocchioStates:
    """The check states in Pinocchio's conventions, and the conversions back (tests/reference.py)."""

    def __init__(self, case: Case):
        try:
            import pinocchio as pin
        except ImportError as exc:
            raise Unavailable(f"pinocchio is not installed ({exc})") from None
        self.pin = pin
        self.ref = PinocchioReference(case.urdf, case.floating, joint_names=case.joint_names, gravity=GRAVITY)
        self.model, self.data = self.ref.model, self.ref.data
        self.model_nog = self.model.copy()
        self.model_nog.gravity.setZero()
        self.data_nog = self.model_nog.createData()
        self.q, self.v, self.a, self.tau, self.T, self.bias = [], [], [], [], [], []
        st = case.check
        for i in range(case.S):
            base = st.ref_base(i)
            qp, T, bias = self.ref._q(base, st.q[i])
            self.q.append(qp)
            self.T.append(T)
            self.bias.append(bias)
            self.v.append(self.ref._nu(base, T, st.qd[i]))
            self.a.append(self.ref._nudot(base, T, bias, st.qdd[i]))
            self.tau.append(T @ st.tau[i])

    def mass(self, i):
        M = np.array(self.pin.crba(self.model, self.data, self.q[i]), dtype=float)
        return np.triu(M) + np.triu(M, 1).T

    def convert(self, op, i, raw):
        """Pinocchio's result of ``op`` at state ``i`` in rbdgen's conventions."""
        T = self.T[i]
        raw = np.asarray(raw, dtype=float)
        if op == "mass_matrix":
            M = np.triu(raw) + np.triu(raw, 1).T
            return T.T @ M @ T
        if op == "forward_dynamics":
            return T.T @ (raw - self.bias[i])
        if op == "velocity_product_forces":
            # nonLinearEffects(q, v) is rnea at zero *spatial* acceleration; ours is at zero
            # classical base acceleration, i.e. Pinocchio's spatial acceleration `bias`
            return T.T @ (raw + self.mass(i) @ self.bias[i])
        return T.T @ raw


class PinocchioPython(Peer):
    key, label = "pinocchio_py", "Pinocchio Python"
    describe = ("pinocchio.rnea / crba / aba / computeGeneralizedGravity / nonLinearEffects (zero-gravity "
                "model) from Python, one state per call")

    def setup(self, case):
        super().setup(case)
        self.st = _PinocchioStates(case)

    def timed(self, op):
        st, pin = self.st, self.st.pin
        m, d, m0, d0 = st.model, st.data, st.model_nog, st.data_nog
        S = self.case.S
        if op == "inverse_dynamics":
            return partial(pin.rnea, m, d), [(st.q[i], st.v[i], st.a[i]) for i in range(S)], 1
        if op == "mass_matrix":
            return partial(pin.crba, m, d), [(st.q[i],) for i in range(S)], 1
        if op == "forward_dynamics":
            return partial(pin.aba, m, d), [(st.q[i], st.v[i], st.tau[i]) for i in range(S)], 1
        if op == "gravity":
            return partial(pin.computeGeneralizedGravity, m, d), [(st.q[i],) for i in range(S)], 1
        return partial(pin.nonLinearEffects, m0, d0), [(st.q[i], st.v[i]) for i in range(S)], 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        return _stack([self.st.convert(op, i, np.array(fn(*a), dtype=float)) for i, a in enumerate(args)])


#: Flags Pinocchio's CMake config adds for its users (lib/cmake/pinocchio/pinocchioTargets.cmake).
PINOCCHIO_DEFINES = ("-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
                     "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_FUSION_INVOKE_MAX_ARITY=12")


def cmeel_prefix() -> Path:
    """``<site-packages>/cmeel.prefix`` of the installed ``pin`` wheel."""
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution("pin")
    except importlib.metadata.PackageNotFoundError:
        raise Unavailable("the pin wheel is not installed") from None
    prefix = Path(dist.locate_file("cmeel.prefix"))
    if not (prefix / "include" / "pinocchio").is_dir():
        raise Unavailable(f"{prefix}/include/pinocchio not found")
    return prefix


def eigen_include(prefix: Path) -> Path:
    """Eigen's headers: cmeel-eigen (the `bench` extra) or Debian's libeigen3-dev."""
    for candidate in (prefix / "include" / "eigen3", Path("/usr/include/eigen3"), Path("/usr/local/include/eigen3")):
        if (candidate / "Eigen" / "Core").is_file():
            return candidate
    raise Unavailable("Eigen headers not found: `pip install cmeel-eigen` (in the bench extra) "
                      "or `apt-get install libeigen3-dev`")


def build_pinocchio_bench(cxx_flags, cache: Path, log=print) -> tuple:
    """Compile benchmarks/pinocchio_bench.cpp once (cached by source, flags and pin version).

    Returns ``(executable, seconds spent compiling (0.0 on a cache hit))``; raises `Unavailable`.
    """
    prefix = cmeel_prefix()
    eigen = eigen_include(prefix)
    cxx = shutil.which(os.environ.get("CXX", "g++"))
    if cxx is None:
        raise Unavailable("no C++ compiler (g++) found")
    src = HERE / "pinocchio_bench.cpp"
    import importlib.metadata

    cmd_flags = [*cxx_flags, *PINOCCHIO_DEFINES]
    key = _content_key(src.read_bytes(), " ".join(cmd_flags), importlib.metadata.version("pin"), prefix, eigen)
    folder = cache / f"pinocchio-bench-{key}"
    exe = folder / "pinocchio_bench"
    if exe.is_file():
        return exe, 0.0
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f"pinocchio_bench.{os.getpid()}.tmp"
    cmd = [cxx, *cmd_flags, f"-I{prefix / 'include'}", f"-I{eigen}", str(src), "-o", str(tmp),
           f"-L{prefix / 'lib'}", f"-Wl,-rpath,{prefix / 'lib'}", "-lboost_serialization"]
    log(f"  compiling Pinocchio's C++ benchmark ({' '.join(cxx_flags)}; takes a minute or two, cached)")
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if "error" in line][:3]
        raise Unavailable("C++ build failed: " + (" | ".join(errors) or proc.stderr[-300:]))
    os.replace(tmp, exe)
    return exe, seconds


class PinocchioCpp(Peer):
    key, label, kind = "pinocchio_cpp", "Pinocchio C++ loop", "loop"
    describe = ("Pinocchio's rnea / crba / aba / computeGeneralizedGravity / nonLinearEffects instantiated from "
                "the pin wheel's headers with the same optimisation flags, called in a C++ loop, per call")

    #: set by bench.py: (flags, cache) -> exe; None: do not build
    cxx_flags = None

    def setup(self, case):
        super().setup(case)
        if self.cxx_flags is None:
            raise Unavailable("not built in --quick mode (pass --pinocchio-cpp to build it)")
        self.st = _PinocchioStates(case)
        self.exe, seconds = build_pinocchio_bench(self.cxx_flags, case.cache)
        self.build_seconds = seconds or None
        folder = case.work / "pinocchio_cpp"
        folder.mkdir(parents=True, exist_ok=True)
        self.model_file = folder / "model.bin"
        self.st.model.saveToBinary(str(self.model_file))
        rows = [np.concatenate([self.st.q[i], self.st.v[i], self.st.a[i], self.st.tau[i]]) for i in range(case.S)]
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
            raw = _split_dump(np.fromfile(self.dump), self.case, OPS, {})
            self._results = {o: _stack([self.st.convert(o, i, r) for i, r in enumerate(raw[o])]) for o in OPS}
        return self._results[op]


# -- dynibo -----------------------------------------------------------------------


class DyniboPython(Peer):
    key, label = "dynibo_py", "dynibo Python"
    describe = "dynibo 0.5.2 Robot / FloatingRobot methods from Python, one state per call"

    def setup(self, case):
        super().setup(case)
        try:
            self.ref = DyniboReference(case.urdf, case.floating, joint_names=case.joint_names)
        except ImportError as exc:
            raise Unavailable(f"dynibo is not installed ({exc})") from None

    def timed(self, op):
        ref, st, S = self.ref, self.case.check, self.case.S
        fn = getattr(ref.robot, op)
        rows = []
        for i in range(S):
            head = () if not st.floating else (ref._bs(st.ref_base(i)),)
            vals = []
            for name in INPUTS[op]:
                x = getattr(st, name)[i]
                vals.append(ref._gen_to_dy(x) if name == "tau" else ref._to_dy(x, ref.J, name))
            rows.append(head + tuple(vals))
        return fn, rows, 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        ref, G = self.ref, self.case.G
        out = []
        for a in args:
            y = np.asarray(fn(*a), dtype=float)
            if op == "mass_matrix":
                M = y.reshape(G, G, order="F")
                out.append(M[np.ix_(ref._perm, ref._perm)])
            else:
                out.append(ref._out(y))
        return _stack(out)


# -- MuJoCo -----------------------------------------------------------------------


class MujocoPython(Peer):
    key, label = "mujoco_py", "MuJoCo Python"
    describe = ("mujoco from Python: ID = mj_kinematics + mj_comPos + mj_comVel + mj_rne; M = mj_kinematics + "
                "mj_comPos + mj_crb + mj_fullM; FD = mj_forward (constraints, contacts and passive forces "
                "disabled); g, C qd = mj_rne without acceleration (zero velocity / zero gravity)")

    COMPILER = '<mujoco><compiler discardvisual="true" fusestatic="false" balanceinertia="false"/></mujoco>'

    def setup(self, case):
        super().setup(case)
        try:
            import mujoco
        except ImportError as exc:
            raise Unavailable(f"mujoco is not installed ({exc})") from None
        self.mj = mujoco
        text = Path(stripped_urdf(case)).read_text()
        text = re.sub(r"(<robot\b[^>]*>)", lambda m: m.group(1) + self.COMPILER, text, count=1)
        try:
            spec = mujoco.MjSpec.from_string(text)
            if case.floating:
                root = spec.worldbody.first_body()
                root.add_freejoint()
            m = spec.compile()
        except Exception as exc:  # noqa: BLE001 - MuJoCo's own errors
            raise Unavailable(f"MuJoCo cannot load the URDF: {exc}") from None
        dis = mujoco.mjtDisableBit
        m.opt.disableflags |= (dis.mjDSBL_CONSTRAINT | dis.mjDSBL_CONTACT | dis.mjDSBL_SPRING
                               | dis.mjDSBL_DAMPER | dis.mjDSBL_ACTUATION | dis.mjDSBL_FRICTIONLOSS
                               | dis.mjDSBL_LIMIT)
        m.dof_damping[:] = 0.0
        m.dof_armature[:] = 0.0
        m.dof_frictionloss[:] = 0.0
        m.opt.gravity[:] = GRAVITY
        nfree = 6 if case.floating else 0
        if m.nv != case.G or m.nq != case.J + (7 if case.floating else 0):
            raise Unavailable(f"MuJoCo's model has nq={m.nq}, nv={m.nv}; rbdgen's has J={case.J}, G={case.G}")
        try:
            dofs = [int(m.joint(n).dofadr[0]) for n in case.joint_names]
            qadr = [int(m.joint(n).qposadr[0]) for n in case.joint_names]
        except KeyError as exc:
            raise Unavailable(f"MuJoCo's model lacks joint {exc}") from None
        if case.floating and (m.jnt_type[0] != mujoco.mjtJoint.mjJNT_FREE or m.jnt_dofadr[0] != 0):
            raise Unavailable("the free joint is not MuJoCo's first joint")
        self.m, self.d = m, mujoco.MjData(m)
        # mj_fullM(m, d, dst) since MuJoCo 3.3-ish, mj_fullM(m, dst, qM) before
        M = np.zeros((m.nv, m.nv))
        try:
            mujoco.mj_fullM(m, self.d, M)
            self._full_m = mujoco.mj_fullM
        except TypeError:
            self._full_m = lambda m, d, dst: mujoco.mj_fullM(m, dst, d.qM)
        self.dg = mujoco.MjData(m)  # gravity: qvel stays zero, so its velocity terms stay zero
        mujoco.mj_comVel(m, self.dg)
        self.m0 = copy.copy(m)
        self.m0.opt.gravity[:] = 0.0
        self.d0 = mujoco.MjData(self.m0)
        # T maps rbdgen's generalized vector [omega_W, pdot_W, qd] to MuJoCo's
        # [pdot_W, omega_B, dofs]; it is orthogonal, so forces map by T too.
        self.qpos, self.qvel, self.qacc, self.qfrc, self.T = [], [], [], [], []
        st = case.check
        for i in range(case.S):
            T = np.zeros((m.nv, case.G))
            qpos = np.zeros(m.nq)
            for k in range(case.J):
                T[dofs[k], nfree + k] = 1.0
                qpos[qadr[k]] = st.q[i, k]
            if case.floating:
                R = st.rotation(i)
                T[0:3, 3:6] = np.eye(3)
                T[3:6, 0:3] = R.T
                x, y, z, w = st.quat[i]
                qpos[0:3] = st.translation[i]
                qpos[3:7] = (w, x, y, z)
                nu = np.concatenate([st.velocity[i], st.qd[i]])
                nudot = np.concatenate([st.acceleration[i], st.qdd[i]])
            else:
                nu, nudot = st.qd[i], st.qdd[i]
            self.T.append(T)
            self.qpos.append(qpos)
            self.qvel.append(T @ nu)
            self.qacc.append(T @ nudot)
            self.qfrc.append(T @ st.tau[i])
        self.notes.append("MuJoCo loads the stripped URDF (compiler discardvisual, fusestatic=false, "
                          "balanceinertia=false)" + ("; a free joint is added to the root body" if case.floating else ""))

    def timed(self, op):
        mj, m, d, S = self.mj, self.m, self.d, self.case.S
        nv = m.nv
        if op == "inverse_dynamics":
            out = np.zeros(nv)

            def fn(qpos, qvel, qacc):
                d.qpos[:] = qpos
                d.qvel[:] = qvel
                d.qacc[:] = qacc
                mj.mj_kinematics(m, d)
                mj.mj_comPos(m, d)
                mj.mj_comVel(m, d)
                mj.mj_rne(m, d, 1, out)
                return out

            return fn, [(self.qpos[i], self.qvel[i], self.qacc[i]) for i in range(S)], 1
        if op == "mass_matrix":
            M, full_m = np.zeros((nv, nv)), self._full_m

            def fn(qpos):
                d.qpos[:] = qpos
                mj.mj_kinematics(m, d)
                mj.mj_comPos(m, d)
                mj.mj_crb(m, d)
                full_m(m, d, M)
                return M

            return fn, [(self.qpos[i],) for i in range(S)], 1
        if op == "forward_dynamics":
            def fn(qpos, qvel, qfrc):
                d.qpos[:] = qpos
                d.qvel[:] = qvel
                d.qfrc_applied[:] = qfrc
                mj.mj_forward(m, d)
                return d.qacc

            return fn, [(self.qpos[i], self.qvel[i], self.qfrc[i]) for i in range(S)], 1
        if op == "gravity":
            dg, out = self.dg, np.zeros(nv)

            def fn(qpos):
                dg.qpos[:] = qpos
                mj.mj_kinematics(m, dg)
                mj.mj_comPos(m, dg)
                mj.mj_rne(m, dg, 0, out)
                return out

            return fn, [(self.qpos[i],) for i in range(S)], 1
        m0, d0, out = self.m0, self.d0, np.zeros(nv)

        def fn(qpos, qvel):
            d0.qpos[:] = qpos
            d0.qvel[:] = qvel
            mj.mj_kinematics(m0, d0)
            mj.mj_comPos(m0, d0)
            mj.mj_comVel(m0, d0)
            mj.mj_rne(m0, d0, 0, out)
            return out

        return fn, [(self.qpos[i], self.qvel[i]) for i in range(S)], 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        out = []
        for i, a in enumerate(args):
            y, T = np.array(fn(*a), dtype=float), self.T[i]
            out.append(T.T @ y @ T if op == "mass_matrix" else T.T @ y)
        return _stack(out)


# -- adam (CasADi) -------------------------------------------------------------------


class _AdamFunctions:
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
        with _quiet():
            kd = KinDynComputations(normalized_urdf(case), case.joint_names,
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
                Hm[:3, :3] = st.rotation(i)
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
    describe = "adam-robotics' casadi.Function objects called from Python with NumPy inputs, one state per call"

    def setup(self, case):
        super().setup(case)
        self.fns = _AdamFunctions(case)
        self.unsupported = dict(self.fns.unsupported)

    def timed(self, op):
        return self.fns.functions[op], self.fns.inputs[op], 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        G = self.case.G
        return _stack([self.fns.convert(op, np.asarray(fn(*a)).reshape(G, G, order="F") if op == "mass_matrix"
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


class AdamC(_CLoopProgram):
    key, label, kind = "adam_c", "adam CasADi C loop", "loop"
    describe = ("the same adam functions written as C by casadi.CodeGenerator, compiled with rbdgen's flags and "
                "called in a C loop over the check states, per call")

    def setup(self, case):
        super().setup(case)
        fns = _AdamFunctions(case)
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
            bodies.append(BODY.format(STATES=case.S, out_size=self._sizes[op], op=op, call=f"call_{op}(i, out[i])"))
        program = BENCH_C.format(includes=f'#include "adam_{case.name}.h"',
                                 arrays="\n".join(arrays) + "\n" + "".join(calls),
                                 bodies="".join(bodies), rounds=15, reps=100)
        key = _content_key(source, program, " ".join(case.flags))
        folder = case.cache / f"adam-c-{case.name}-{key}"
        self.exe = folder / "bench"
        self.compile_seconds = 0.0
        self.compile_cached = self.exe.is_file()
        if not self.compile_cached:
            tmp = Path(tempfile.mkdtemp(prefix=".adam-c-", dir=case.cache))
            gen.generate(str(tmp) + os.sep)
            (tmp / "bench.c").write_text(program)
            start = time.perf_counter()
            proc = subprocess.run(["gcc", *case.flags, "-o", str(tmp / "bench"), str(tmp / "bench.c"),
                                   str(tmp / f"adam_{case.name}.c"), "-I", str(tmp), "-lm"],
                                  capture_output=True, text=True)
            self.compile_seconds = time.perf_counter() - start
            if proc.returncode != 0:
                shutil.rmtree(tmp, ignore_errors=True)
                raise Unavailable(f"casadi's C does not compile: {proc.stderr.strip()[-300:]}")
            try:
                os.rename(tmp, folder)
            except OSError:  # another run installed it first
                shutil.rmtree(tmp, ignore_errors=True)
        self.build_seconds = fns.seconds + self.compile_seconds
        self.dump = case.work / "adam_c_results.bin"
        self._results = None

    def results(self, op):
        if self._results is None:
            raw = self._dumped(self.ops)
            self._results = {o: _stack([self.fns.convert(o, r) for r in raw[o]]) for o in self.ops}
        return self._results[op]


ALL_PEERS = (RbdgenC, RbdgenPython, RbdgenBatch, RbdgenBatchC, NumpyBatch, PinocchioCpp, PinocchioPython, DyniboPython,
             MujocoPython, AdamPython, AdamC)
