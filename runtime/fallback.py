"""`NumpySolver`: the generic algorithms on NumPy arrays, one array element per state.

It is the reference the compiled solvers are validated against and the fallback
where no compiler is available. Each scalar the algorithms see is a float64
array of shape (N,), so a batch costs one pass of the algorithm, not N.
"""

from __future__ import annotations

import numpy as np

from .algorithms.kinematics import Tree
from .algorithms.operations import SIGNATURES, evaluate
from .backends import NumpyOps
from .errors import NonFiniteError
from .interface import SolverBase, flat_inputs
from .model import RobotModel


class NumpySolver(SolverBase):
    """Generic dynamics for any `RobotModel`, single states or batches (see `SolverBase`)."""

    def __init__(self, model: RobotModel):
        super().__init__(model)
        self.tree = Tree.from_model(model)

    #: States per pass: large enough to amortise Python, small enough to stay in cache.
    chunk = 2048

    def _evaluate(self, op, inputs, mask=None):
        if mask is not None:
            selected = self._evaluate(op, {k: v[mask] for k, v in inputs.items()}) if mask.any() else None
            out = np.zeros((mask.shape[0],) + self._result_shape(op))
            if selected is not None:
                out[mask] = selected
            return out
        flat = flat_inputs(inputs)
        N = flat["q"].shape[0]
        # an overflow (|qd| ~ 1e200, say) is reported once, as a NonFiniteError, not
        # also as NumPy RuntimeWarnings from inside the algorithms
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if N > self.chunk:
                parts = [{k: v[s: s + self.chunk] for k, v in flat.items()} for s in range(0, N, self.chunk)]
                return np.concatenate([self._evaluate_flat(op, part) for part in parts])
            return self._evaluate_flat(op, flat)

    def _evaluate_flat(self, op, flat):
        N = flat["q"].shape[0]
        columns = {name: list(np.ascontiguousarray(a.T)) for name, a in flat.items()}
        (name,) = SIGNATURES[op][1]
        values = evaluate(self.tree, NumpyOps, op, columns)[name]
        rows = np.empty((len(values), N))
        for k, value in enumerate(values):
            rows[k] = value
        out = rows.T
        if not np.all(np.isfinite(out)):
            bad = int(np.flatnonzero(~np.all(np.isfinite(out), axis=1))[0])
            raise NonFiniteError(f"{op}: numerical failure, non-finite result (state {bad})")
        if name == "M":
            G = self.generalized_count
            return np.ascontiguousarray(out.reshape(N, G, G).transpose(0, 2, 1))
        return np.ascontiguousarray(out)
