"""Scalar backends: what the algorithms need beyond ``+ - * /``.

A backend supplies ``sin``, ``cos``, ``sqrt``, ``atan2``, ``copysign``, ``eps`` (the machine epsilon of
its precision), ``require_positive`` (a runtime
check ``x > 0`` that raises, or becomes a guard in generated code),
``require_not_negative`` (the check ``!(x < 0)``: NaN passes), ``solve_spd``
(the dense checked Cholesky solve) and, for the forward-dynamics derivatives,
``solve_ltdl`` (`ltdl.ltdl_apply_inverse` of many columns with one factor). The
symbolic backend lives in ``rbdgen.ir.trace``.
"""

from __future__ import annotations

import numpy as np

from .algorithms.cholesky import EPS, cholesky_solve
from .algorithms.ltdl import ltdl_apply_inverse


class NumpyOps:
    """Each scalar is a float64 array of shape (N,): one value per state of a batch."""

    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    sqrt = staticmethod(np.sqrt)
    atan2 = staticmethod(np.arctan2)
    copysign = staticmethod(np.copysign)
    eps = EPS

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
