"""What every tool's adapter ("peer") is, and the helpers several of them share."""

from __future__ import annotations

import contextlib
import io

import numpy as np

from ..c_loop import run_c_bench
from ..case import Case


class Peer:
    """One tool timed on a `Case`.

    Three kinds:

    * ``python``: one state per call from Python; `timed(op)` gives a function and one
      argument tuple per state, and the harness times ``for a in args: fn(*a)``;
    * ``batch``: one Python call on the whole batch; the time is divided by its size;
    * ``loop``: a compiled program that times a C/C++ loop over the states itself;
      `run_round(target_ms)` runs it once and returns microseconds per call.

    `setup` raises `case.Unavailable` when the tool cannot run here; an operation it does
    not have is listed in ``unsupported`` with the reason. `results(op)` are the tool's
    results at the check states *in rbdgen's conventions*; ``implementation`` names the
    reference (`case.REFERENCES`) that is the tool itself, which it is not checked against.
    A tool with ``full_coordinates`` takes no mimic joints: it is set up on `Case.full`, and its
    results are reduced by `Case.reduce` before they are checked.
    """

    key = ""
    label = ""
    kind = "python"
    implementation = "rbdgen"
    full_coordinates = False
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

    def timed(self, op):
        """Python and batch peers: ``(fn, [args per call], states per call)``."""
        raise NotImplementedError

    def run_round(self, target_ms: float) -> dict:
        """Loop peers: ``{op: microseconds per call}`` of one round."""
        raise NotImplementedError


class CLoopPeer(Peer):
    """A peer timed by a `c_loop` program (``self.exe``) that dumps its results to ``self.dump``."""

    kind = "loop"

    def run_round(self, target_ms):
        times = run_c_bench(self.exe, rounds=1, target_ms=target_ms, dump=self.dump)
        return {op: t[0] for op, t in times.items()}

    def dumped(self, ops) -> dict:
        """Run the program once more and split what it dumped, per operation."""
        run_c_bench(self.exe, rounds=1, target_ms=0.01, dump=self.dump)
        return split_dump(np.fromfile(self.dump), self.case, ops)


def stack(rows) -> np.ndarray:
    return np.array([np.asarray(r, dtype=float) for r in rows])


def split_dump(flat, case: Case, ops) -> dict:
    """A loop program's dump: per op, S results of G (or G*G column-major) values."""
    out, k, S, G = {}, 0, case.S, case.G
    for op in ops:
        size = G * G if op == "mass_matrix" else G
        block = flat[k: k + S * size].reshape(S, size)
        k += S * size
        out[op] = block.reshape(S, G, G).transpose(0, 2, 1) if op == "mass_matrix" else block
    if k != flat.size:
        raise RuntimeError(f"dump has {flat.size} values, expected {k}")
    return out


@contextlib.contextmanager
def quiet():
    """Silence a library's prints (urdf_parser_py warns about every unknown attribute)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield
