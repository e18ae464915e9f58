"""`NumpySolver`: the generic algorithms on NumPy arrays, one array element per state.

It is the reference the compiled solvers are validated against and the fallback
where no compiler is available. Each scalar the algorithms see is a float64
array of shape (N,), so a batch costs one pass of the algorithm, not N.

One state (or a batch of a few) would pay about a microsecond per scalar operation
that way: an operation called on few states again and again runs instead as
straight-line Python on floats, traced once for the model from the same algorithms
(`rbdgen.ir.emit_python`), with the same values.
"""

from __future__ import annotations

import re

import numpy as np

from .algorithms.operations import evaluate
from . import threads as batch_threads
from .backends import NumpyOps
from .contacts import ContactModel
from .errors import NonFiniteError, SolverError
from .interface import SolverBase
from .model import RobotModel
from .parameters import parametric_tree
from .signatures import FixedBaseSolver, FloatingBaseSolver


class NumpySolver(SolverBase):
    """Generic dynamics for any `RobotModel`, single states or batches (see `rbdgen.signatures`).

    ``NumpySolver(model)`` is a `FixedNumpySolver` or a `FloatingNumpySolver`, as the model's base.
    ``contacts`` (`rbdgen.Contact` objects), ``baumgarte=(kp, kd)``, ``damping=mu`` or ``(mu, iterations)``
    and ``restitution`` declare the contacts of ``contact_dynamics`` and ``impulse_dynamics``
    (`rbdgen.contacts`), as `rbdgen.generate` takes them; with ``actuated`` (joint names) also the closed loops'
    settings (`rbdgen.loops`). ``parameters``: as `rbdgen.generate`'s, the bodies whose inertial parameters
    are read from `params` at each call (settable; the model's own until set).
    """

    def __new__(cls, model: RobotModel, **options):
        if cls is NumpySolver:
            cls = FloatingNumpySolver if model.floating else FixedNumpySolver
        return super().__new__(cls)

    def __init__(self, model: RobotModel, contacts=(), baumgarte=(0.0, 0.0), damping=0.0, restitution=0.0,
                 actuated=(), parameters=None):
        declared = ContactModel.declare(model, contacts, baumgarte, damping, restitution, actuated)
        self.tree = parametric_tree(model, parameters, declared)
        super().__init__(model, self.tree)
        self._options = {**(declared.options() if declared is not None else {}), "parameters": parameters}
        self._kernels: dict = {}  # (op, link, input names) -> straight-line function, or None: not traceable
        self._small_calls: dict = {}  # the same key -> small calls so far

    def __reduce__(self):
        """Pickled as its model, its declarations and its `params` (a Dask worker makes a solver of them; the
        traced functions are traced again)."""
        return _rebuild, (self.model, self._options), self.__getstate__()

    #: States per pass: large enough to amortise Python, small enough to stay in cache.
    chunk = 2048

    #: Batches of at most this many states run state by state as straight-line Python (once traced).
    small = 8

    #: An operation is traced at its `trace_after`-th small call: a one-off call does not pay the trace
    #: (milliseconds for an arm, a few hundred for a humanoid).
    trace_after = 4

    def _evaluate(self, op, inputs, mask, outputs, target=None, link=None, threads=None):
        batch_threads.count(threads)  # checked; the NumPy engine runs in one thread: its time is Python's
        if mask is not None:
            results = {n: np.zeros((mask.shape[0],) + self._output_shape(n)) for n in outputs}
            if mask.any():
                try:
                    selected = self._evaluate(op, {k: v[mask] for k, v in inputs.items()}, None, outputs, link=link)
                except SolverError as exc:
                    raise _renumbered(exc, np.flatnonzero(mask)) from None
                for n in outputs:
                    results[n][mask] = selected[n]
            return results
        flat = self._flat(inputs)
        N = flat["q"].shape[0]
        if N <= self.small:
            results = self._evaluate_states(op, flat, outputs, link)
            if results is not None:
                return results
        # an overflow (|qd| ~ 1e200, say) is reported once, as a NonFiniteError, not
        # also as NumPy RuntimeWarnings from inside the algorithms
        parts = []
        for start in range(0, N, self.chunk):
            try:
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    parts.append(self._evaluate_flat(op, {k: v[start: start + self.chunk] for k, v in flat.items()},
                                                     outputs, link))
            except SolverError as exc:
                raise _renumbered(exc, range(start, N)) from None
        return {n: np.concatenate([part[n] for part in parts]) for n in outputs}

    def _evaluate_states(self, op, flat, outputs, link):
        """The results state by state through the traced function, or None where the NumPy pass must
        run (the operation is not traced yet, or a state fails: that pass names the error)."""
        kernel = self._kernel(op, link, flat)
        if kernel is None:
            return None
        from .ir.emit_python import CheckFailed

        try:
            values = [kernel(*[a[i].tolist() for a in flat.values()]) for i in range(flat["q"].shape[0])]
        except (CheckFailed, SolverError, ArithmeticError, ValueError):  # Python raises where NumPy gives inf/NaN
            return None
        results = {}
        for name in outputs:
            rows = np.array([v[name] for v in values], dtype=np.float64)
            if not np.isfinite(rows).all():
                return None
            results[name] = self._shaped(name, rows)
        return results

    def _kernel(self, op, link, flat):
        """The straight-line function of ``op`` on inputs ``flat``, once it has had `trace_after` small calls."""
        key = (op, link, tuple(flat))
        if key not in self._kernels:
            calls = self._small_calls[key] = self._small_calls.get(key, 0) + 1
            if calls < self.trace_after:
                return None
            from .ir import emit_python
            from .ir.trace import Graph, Kernel, StructuralFailure, trace

            graph, sizes = Graph(), {name: a.shape[1] for name, a in flat.items()}
            try:
                kernel = Kernel(op, graph, sizes, trace(graph, self.tree, op, sizes, link))
            except StructuralFailure:  # fails at every state: the NumPy pass raises
                self._kernels[key] = None
            else:
                self._kernels[key] = emit_python.function(kernel, NumpyOps())
        return self._kernels[key]

    def _evaluate_flat(self, op, flat, outputs, link):
        N = flat["q"].shape[0]
        columns = {name: list(np.ascontiguousarray(a.T)) for name, a in flat.items()}
        values = evaluate(self.tree, NumpyOps(), op, columns, link)
        results = {}
        for name in outputs:
            rows = np.empty((len(values[name]), N))
            for k, value in enumerate(values[name]):
                rows[k] = value
            if not np.all(np.isfinite(rows)):
                bad = int(np.flatnonzero(~np.all(np.isfinite(rows), axis=0))[0])
                raise NonFiniteError(f"{op}: numerical failure, non-finite result (state {bad})")
            results[name] = self._shaped(name, rows.T)
        return results


#: How an error of the NumPy pass names its state: ``(state k)``, or a solve's ``batch index (k,)``.
_STATE = re.compile(r"(\(state |at batch index \()(\d+)")


def _renumbered(exc: SolverError, states) -> SolverError:
    """``exc`` of a pass over some states of a batch, naming the state by ``states[k]``, its index in the batch."""
    message = _STATE.sub(lambda m: f"{m.group(1)}{states[int(m.group(2))]}", str(exc), count=1)
    return type(exc)(message)


class FixedNumpySolver(FixedBaseSolver, NumpySolver):
    """`NumpySolver` of a fixed-base robot."""


class FloatingNumpySolver(FloatingBaseSolver, NumpySolver):
    """`NumpySolver` of a floating-base robot."""


def _rebuild(model: RobotModel, options: dict) -> NumpySolver:
    """A pickled `NumpySolver` made again (`NumpySolver.__reduce__`)."""
    return NumpySolver(model, **options)
