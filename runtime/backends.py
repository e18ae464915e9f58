"""The NumPy scalar backend: `NumpyOps`, the `ScalarOps` of the NumPy engine (`NumpySolver`).

Each scalar is a float64 array of shape (N,), one value per state of a batch; a check that
fails raises the solver error naming the first failing state.
"""

from __future__ import annotations

import numpy as np

from .algorithms.cholesky import EPS, TINY, cholesky_solve
from .algorithms.ltdl import ltdl_apply_inverse
from .algorithms.scalars import FUNCTIONS, ScalarOps

#: The NumPy ufunc of each elementary function (`FUNCTIONS`: ``math``'s names).
UFUNCS = {name: getattr(np, {"atan2": "arctan2"}.get(name, name)) for name in FUNCTIONS}


class NumpyOps(ScalarOps):
    """Each scalar is a float64 array of shape (N,): one value per state of a batch."""

    eps = EPS
    tiny = TINY

    @staticmethod
    def function(name, *args):
        return UFUNCS[name](*args)

    @staticmethod
    def require_positive(x, error, message):
        NumpyOps._require(np.asarray(x) > 0, error, message)

    @staticmethod
    def require_not_negative(x, error, message):
        NumpyOps._require(~(np.asarray(x) < 0), error, message)

    @staticmethod
    def _require(ok, error, message):
        if not np.all(ok):
            bad = int(np.flatnonzero(~np.broadcast_to(ok, np.shape(ok) or (1,)))[0])
            raise error(f"{message} (state {bad})")

    @staticmethod
    def solve_spd(A, b, what):
        n = len(b)
        entries = [x for row in A for x in row] + list(b)
        # the batch shape of all entries together: a constant entry (a Python float
        # or a size-1 array) broadcasts against the (N,) ones, N = 0 included
        (N,) = np.broadcast_shapes((1,), *(np.shape(x) for x in entries))
        Am = np.empty((N, n, n))
        bm = np.empty((N, n))
        for r in range(n):
            bm[:, r] = b[r]
            for c in range(n):
                Am[:, r, c] = A[r][c]
        x = cholesky_solve(Am, bm, what)
        return [x[:, k] for k in range(n)]

    @staticmethod
    def solve_ltdl(L, Dinv, lam, columns):
        """`ltdl_apply_inverse` of each column (structural zeros of a column skip their operations)."""
        return [ltdl_apply_inverse(L, Dinv, lam, b) for b in columns]
