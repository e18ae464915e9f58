"""`NumpySolver`: the generic algorithms on NumPy arrays, one array element per state.

It is the reference the compiled solvers are validated against and the fallback
where no compiler is available. Each scalar the algorithms see is a float64
array of shape (N,), so a batch costs one pass of the algorithm, not N.
"""

from __future__ import annotations

import numpy as np

from .algorithms.kinematics import Tree
from .algorithms.operations import evaluate
from .backends import NumpyOps
from .errors import NonFiniteError
from .interface import SolverBase, flat_inputs
from .model import RobotModel
from .signatures import FixedBaseSolver, FloatingBaseSolver


class NumpySolver(SolverBase):
    """Generic dynamics for any `RobotModel`, single states or batches (see `rbdgen.signatures`).

    ``NumpySolver(model)`` is a `FixedNumpySolver` or a `FloatingNumpySolver`, as the model's base.
    """

    def __new__(cls, model: RobotModel):
        if cls is NumpySolver:
            cls = FloatingNumpySolver if model.floating else FixedNumpySolver
        return super().__new__(cls)

    def __init__(self, model: RobotModel):
        super().__init__(model)
        self.tree = Tree.from_model(model)

    #: States per pass: large enough to amortise Python, small enough to stay in cache.
    chunk = 2048

    def _evaluate(self, op, inputs, mask, outputs, target=None, link=None):
        if mask is not None:
            results = {n: np.zeros((mask.shape[0],) + self._output_shape(n)) for n in outputs}
            if mask.any():
                selected = self._evaluate(op, {k: v[mask] for k, v in inputs.items()}, None, outputs, link=link)
                for n in outputs:
                    results[n][mask] = selected[n]
            return results
        flat = flat_inputs(inputs)
        N = flat["q"].shape[0]
        # an overflow (|qd| ~ 1e200, say) is reported once, as a NonFiniteError, not
        # also as NumPy RuntimeWarnings from inside the algorithms
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            parts = [self._evaluate_flat(op, {k: v[s: s + self.chunk] for k, v in flat.items()}, outputs, link)
                     for s in range(0, N, self.chunk)]
        return {n: np.concatenate([part[n] for part in parts]) for n in outputs}

    def _evaluate_flat(self, op, flat, outputs, link):
        N = flat["q"].shape[0]
        columns = {name: list(np.ascontiguousarray(a.T)) for name, a in flat.items()}
        values = evaluate(self.tree, NumpyOps, op, columns, link)
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


class FixedNumpySolver(FixedBaseSolver, NumpySolver):
    """`NumpySolver` of a fixed-base robot."""


class FloatingNumpySolver(FloatingBaseSolver, NumpySolver):
    """`NumpySolver` of a floating-base robot."""
