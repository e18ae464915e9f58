"""The one checked Cholesky solver of rbdgen (NumPy reference, batched).

Solves ``A x = b`` for a symmetric positive definite ``A`` with the semantics of
dynibo 0.5.2's solve: the coordinates are equilibrated by their diagonal scales
before the Cholesky factorization, the scaled reciprocal one-norm condition
number is estimated and must exceed ``sqrt(eps)``, a normalized residual check
rejects inaccurate solves, and non-finite results are numerical errors.

It is used for the floating-base 6x6 articulated inertia in ABA and for the
G x G mass matrix of the CRBA forward-dynamics path.  The generated C
(``templates/c/cholesky.c.j2``; small systems in copies with the sizes fixed,
unrolled) runs the same algorithm with the same order of floating-point
operations, so on the same inputs both give the same status and, when
compiled without floating-point contraction (``-ffp-contract=off``),
bit-identical solutions.

Only the lower triangle of ``A`` (``A[..., i, j]`` with ``i >= j``) is read;
the strict upper triangle is ignored.

Algorithm (``n = A.shape[-1]``, ``eps`` = float64 machine epsilon):

1. A non-finite lower-triangle entry of ``A`` or entry of ``b``: NONFINITE (4).
2. A diagonal entry ``A[i, i] <= 0``: SINGULAR (2).  ``s[i] = 1 / sqrt(A[i, i])``.
3. ``As[i, j] = (s[i] * A[i, j]) * s[j]`` (lower triangle) and ``||As||_1``,
   the largest column sum of ``|As|`` with ``As`` taken as symmetric.
4. Cholesky ``As = L L^T`` (each entry is reduced by ``L[i, k] * L[j, k]`` for
   ``k = 0, 1, ..., j - 1`` in that order; ``L[i, j] = a * (1 / sqrt(d))`` and the
   diagonal keeps ``1 / sqrt(d)`` so that the solves multiply).  A pivot ``d``
   that is not ``> 0`` (including NaN): SINGULAR (2).
5. ``rcond = 1 / (||As||_1 * est)`` with ``est`` the Hager/Higham estimate of
   ``||As^{-1}||_1`` (see `_norm1_inverse_estimate`).  ``!(rcond > sqrt(eps))``:
   ILL_CONDITIONED (3).
6. ``y = L^{-1} (s * b)``, ``w = L^{-T} y``, ``x = s * w``.
7. ``r = b - A x`` with the original (symmetric) ``A``.
   ``!(||r||_inf <= tol * (||A||_inf * ||x||_inf + ||b||_inf))`` with
   ``tol = 100 * n * eps``: ILL_CONDITIONED (3).
8. A non-finite ``x``: NONFINITE (4).  Otherwise OK (0).

Every reduction is an explicit left-to-right loop over ``n`` (never a BLAS call
or a pairwise ``np.sum``), and every operation is elementwise along the batch
axes, so an element of a batch gives bit-identical results whether it is solved
alone or in any batch.  Maxima of absolute values propagate NaN (C: ``v > m ||
v != v``).
"""

from __future__ import annotations

import dataclasses
import logging

import numpy as np

from ..errors import (
    OK,
    STATUS,
    IllConditionedError,
    InvalidInputError,
    NonFiniteError,
    SingularError,
)

__all__ = [
    "CholeskyDetails",
    "EPS",
    "OK",
    "SINGULAR",
    "ILL_CONDITIONED",
    "NONFINITE",
    "RCOND_MIN",
    "cholesky_details",
    "cholesky_solve",
    "cholesky_status",
    "residual_tolerance",
]

log = logging.getLogger(__name__)

SINGULAR = SingularError.status
ILL_CONDITIONED = IllConditionedError.status
NONFINITE = NonFiniteError.status

#: Machine epsilon of float64 (DBL_EPSILON).
EPS = float(np.finfo(np.float64).eps)
#: The smallest positive normal float64 (DBL_MIN).
TINY = float(np.finfo(np.float64).tiny)
#: The reciprocal condition estimate must be strictly greater than this.
RCOND_MIN = float(np.sqrt(EPS))
#: At most this many iterations of Hager's method (LAPACK's ITMAX).
HAGER_ITMAX = 5


def residual_tolerance(n: int, eps: float = EPS) -> float:
    """The relative residual tolerance ``100 * n * eps`` of step 7."""
    return 100.0 * n * eps


@dataclasses.dataclass(frozen=True)
class CholeskyDetails:
    """Per-batch-element results and diagnostics of `cholesky_details`.

    All arrays have the batch shape (``A.shape[:-2]``) except ``x`` (``b``'s shape).
    Fields a failing element never reached hold NaN (floats) or -1 (ints).
    """

    x: np.ndarray  #: the solution; zero where ``status != 0``
    status: np.ndarray  #: 0 ok, 2 singular, 3 ill-conditioned, 4 non-finite (int)
    pivot: np.ndarray  #: first non-positive diagonal entry / pivot (-1: none)
    pivot_value: np.ndarray  #: that diagonal entry or pivot
    anorm1: np.ndarray  #: ``||As||_1`` of the equilibrated matrix
    inv_norm1_est: np.ndarray  #: the estimate of ``||As^{-1}||_1``
    rcond: np.ndarray  #: ``1 / (||As||_1 * est)``
    residual: np.ndarray  #: ``||b - A x||_inf``
    residual_bound: np.ndarray  #: ``tol * (||A||_inf ||x||_inf + ||b||_inf)``


# ---------------------------------------------------------------------------
# Kernels.  Batch-first arrays: matrices (B, n, n), vectors (B, n).


def _maxabs_update(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """NaN-propagating running maximum: ``(v > m || v != v) ? v : m``."""
    return np.where((v > m) | np.isnan(v), v, m)


def _norm_inf(v: np.ndarray) -> np.ndarray:
    """``max_i |v[:, i]|`` in index order, NaN-propagating (0 for n = 0)."""
    m = np.zeros(v.shape[0])
    for i in range(v.shape[1]):
        m = _maxabs_update(m, np.abs(v[:, i]))
    return m


def _norm_1(v: np.ndarray) -> np.ndarray:
    """``sum_i |v[:, i]|`` accumulated left to right from 0."""
    acc = np.zeros(v.shape[0])
    for i in range(v.shape[1]):
        acc = acc + np.abs(v[:, i])
    return acc


def _sym_norm(S: np.ndarray) -> np.ndarray:
    """Largest column sum of ``|S|`` for a full symmetric ``S`` (= ``||S||_1``
    = ``||S||_inf``): ``colsum[j] = sum_i |S[i, j]|`` for ``i = 0, 1, ...``."""
    n = S.shape[-1]
    acc = np.zeros(S.shape[:-1])
    for i in range(n):
        acc = acc + np.abs(S[:, i, :])
    return _norm_inf(acc)  # acc >= 0, so max |acc| = max acc


def _symmetrize_lower(A: np.ndarray) -> np.ndarray:
    """The symmetric matrix whose lower triangle is that of ``A``."""
    low = np.tril(A)
    return low + np.swapaxes(np.tril(A, -1), -1, -2)


def _cholesky(As: np.ndarray):
    """In-order Cholesky of the (full, symmetric) ``As``.

    Right-looking form: after column ``k`` is formed, the trailing matrix is
    reduced by ``L[i, k] * L[l, k]``.  Each entry therefore sees its updates in
    the order ``k = 0, 1, ..., j - 1``, exactly as the C's left-looking loop.

    Returns ``(L, pivot, pivot_value)`` where ``pivot`` is the first failing
    pivot index (-1 if none).  Failing elements keep computing harmless values
    (their pivot is replaced by 1) so that nothing raises or warns.
    """
    nb, n, _ = As.shape
    a = As.copy()
    L = np.zeros_like(a)
    pivot = np.full(nb, -1, dtype=np.int64)
    pivot_value = np.full(nb, np.nan)
    for j in range(n):
        d = a[:, j, j]
        bad = ~(d > 0.0) & (pivot < 0)
        pivot = np.where(bad, j, pivot)
        pivot_value = np.where(bad, d, pivot_value)
        d = np.where(d > 0.0, d, 1.0)
        rjj = 1.0 / np.sqrt(d)
        L[:, j, j] = rjj  # the diagonal holds 1 / L[j, j]: the solves multiply
        col = a[:, j + 1 :, j] * rjj[:, None]
        L[:, j + 1 :, j] = col
        # trailing update a[i, l] -= L[i, j] * L[l, j] for i, l > j
        a[:, j + 1 :, j + 1 :] = a[:, j + 1 :, j + 1 :] - col[:, :, None] * col[:, None, :]
    return L, pivot, pivot_value


def _apply_inverse(L: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``(L L^T)^{-1} c`` by a forward then a back substitution.

    ``L``'s diagonal holds the reciprocals ``1 / L[k, k]`` (a multiplication
    is several times faster than a division on the dependency chain).
    Forward (column-oriented, same as C): for ``k = 0..n-1``:
    ``y[k] *= 1 / L[k, k]``; ``y[i] -= L[i, k] * y[k]`` for ``i > k``.
    Back: for ``k = n-1..0``: ``w[k] *= 1 / L[k, k]``; ``w[i] -= L[k, i] * w[k]``
    for ``i < k``.  Each component is reduced in a fixed index order.
    """
    n = L.shape[-1]
    y = c.copy()
    for k in range(n):
        y[:, k] = y[:, k] * L[:, k, k]
        y[:, k + 1 :] = y[:, k + 1 :] - L[:, k + 1 :, k] * y[:, k, None]
    for k in range(n - 1, -1, -1):
        y[:, k] = y[:, k] * L[:, k, k]
        y[:, :k] = y[:, :k] - L[:, k, :k] * y[:, k, None]
    return y


def _sign(y: np.ndarray) -> np.ndarray:
    """``y >= 0 ? +1 : -1`` (sign(0) = +1, NaN -> -1, as the C)."""
    return np.where(y >= 0.0, 1.0, -1.0)


def _argmax_abs(z: np.ndarray) -> np.ndarray:
    """First index of the largest ``|z|``: ``if (|z[i]| > best)`` for i = 1.."""
    best = np.abs(z[:, 0])
    j = np.zeros(z.shape[0], dtype=np.int64)
    for i in range(1, z.shape[1]):
        v = np.abs(z[:, i])
        better = v > best
        best = np.where(better, v, best)
        j = np.where(better, i, j)
    return j


def _norm1_inverse_estimate(L: np.ndarray) -> np.ndarray:
    """Hager's (1984) estimate of ``||B||_1``, ``B = As^{-1} = (L L^T)^{-1}``,
    in Higham's (1988, Algorithm 4.1; LAPACK DLACON) form.

    ``B`` is symmetric, so ``B^T`` products are the same solves as ``B``::

        y = B (e / n)                      e = (1, ..., 1)
        if n == 1: return |y[0]|
        est = ||y||_1;  xi = sign(y);  z = B xi;  j = argmax |z|
        for iter = 2, ..., ITMAX (= 5):
            y = B e_j
            est_old = est;  est = ||y||_1
            converged = sign(y) == xi (repeated sign vector) or est <= est_old
            est = max(est, est_old)     # (DLACON keeps the smaller one; both
                                        #  are valid lower bounds)
            if converged or iter == ITMAX: break
            xi = sign(y);  z = B xi;  j_last = j;  j = argmax |z|
            if |z_j| <= z^T e_{j_last} (= z[j_last]): break    # Hager's test
        x_i = (-1)^i (1 + i / (n - 1)), i = 0..n-1   (Higham's extra vector)
        est = max(est, 2 ||B x||_1 / (3 n))

    Every candidate is ``||B v||_1`` for a ``v`` with ``||v||_1 = 1``, so the
    result never exceeds ``||B||_1`` (the reciprocal condition estimate is
    never below the exact one).  ``max(a, b)`` is ``a > b ? a : b``.
    """
    nb, n, _ = L.shape
    x = np.full((nb, n), 1.0 / n)
    y = _apply_inverse(L, x)
    if n == 1:
        return np.abs(y[:, 0])
    est = _norm_1(y)
    xi = _sign(y)
    z = _apply_inverse(L, xi)
    j = _argmax_abs(z)
    active = np.ones(nb, dtype=bool)
    rows = np.arange(nb)
    for it in range(2, HAGER_ITMAX + 1):
        if not active.any():
            break
        e = np.zeros((nb, n))
        e[rows, j] = 1.0
        y = _apply_inverse(L, e)
        est_new = _norm_1(y)
        sy = _sign(y)
        converged = np.all(sy == xi, axis=1) | (est_new <= est)
        est = np.where(active, np.where(est_new > est, est_new, est), est)
        active = active & ~converged
        if it == HAGER_ITMAX or not active.any():
            break
        xi = np.where(active[:, None], sy, xi)
        z = _apply_inverse(L, xi)
        j_new = _argmax_abs(z)
        stop = np.abs(z[rows, j_new]) <= z[rows, j]
        j = np.where(active, j_new, j)
        active = active & ~stop
    i = np.arange(n)
    alt = np.where(i % 2 == 0, 1.0, -1.0) * (1.0 + i / float(n - 1))
    y = _apply_inverse(L, np.broadcast_to(alt, (nb, n)).copy())
    temp = 2.0 * _norm_1(y) / (3.0 * n)
    return np.where(temp > est, temp, est)


def _solve_flat(A: np.ndarray, b: np.ndarray) -> dict:
    """All steps on batch-first ``A`` (B, n, n) and ``b`` (B, n)."""
    nb, n, _ = A.shape
    status = np.zeros(nb, dtype=np.int64)
    nan = np.full(nb, np.nan)
    out = dict(
        pivot=np.full(nb, -1, dtype=np.int64),
        pivot_value=nan.copy(),
        anorm1=nan.copy(),
        inv_norm1_est=nan.copy(),
        rcond=nan.copy(),
        residual=nan.copy(),
        residual_bound=nan.copy(),
    )

    def fail(mask, code):
        nonlocal status
        status = np.where((status == OK) & mask, code, status)

    # 1. non-finite input (lower triangle of A, and b)
    low = np.tril(np.ones((n, n), dtype=bool))
    finite = np.all(np.isfinite(A) | ~low, axis=(1, 2)) & np.all(np.isfinite(b), axis=1)
    fail(~finite, NONFINITE)
    # Work on sanitized copies so that rejected elements cannot warn.
    A = np.where(finite[:, None, None], A, 0.0)
    b = np.where(finite[:, None], b, 0.0)
    S = _symmetrize_lower(A)

    # 2. diagonal scales
    diag = S[:, np.arange(n), np.arange(n)]
    pos = diag > 0.0
    has_bad = ~np.all(pos, axis=1)
    first_bad = np.argmax(~pos, axis=1) if n else np.zeros(nb, dtype=np.int64)
    bad_diag = has_bad & (status == OK)
    out["pivot"] = np.where(bad_diag, first_bad, out["pivot"])
    out["pivot_value"] = np.where(
        bad_diag, diag[np.arange(nb), first_bad] if n else np.nan, out["pivot_value"]
    )
    fail(has_bad, SINGULAR)
    s = 1.0 / np.sqrt(np.where(pos, diag, 1.0))

    # 3. equilibrated matrix (full symmetric copy of the scaled lower triangle)
    # (only the lower triangle is computed, as in the C; the upper is mirrored)
    lowS = np.tril((s[:, :, None] * S) * s[:, None, :])
    As = lowS + np.swapaxes(np.tril(lowS, -1), -1, -2)
    anorm = _sym_norm(As)
    out["anorm1"] = np.where(status == OK, anorm, np.nan)

    # 4. Cholesky
    L, piv, piv_val = _cholesky(As)
    bad_piv = (piv >= 0) & (status == OK)
    out["pivot"] = np.where(bad_piv, piv, out["pivot"])
    out["pivot_value"] = np.where(bad_piv, piv_val, out["pivot_value"])
    fail(piv >= 0, SINGULAR)

    # 5. reciprocal condition estimate
    if n:
        est = _norm1_inverse_estimate(L)
        rcond = 1.0 / (anorm * est)
    else:
        est = np.zeros(nb)
        rcond = np.full(nb, np.inf)
    reached = status == OK
    out["inv_norm1_est"] = np.where(reached, est, np.nan)
    out["rcond"] = np.where(reached, rcond, np.nan)
    fail(~(rcond > RCOND_MIN), ILL_CONDITIONED)

    # 6. solve
    x = _apply_inverse(L, s * b) * s

    # 7. residual on the original matrix: r[i] = b[i] - sum_j A[i, j] x[j]
    r = b.copy()
    for jj in range(n):
        r = r - S[:, :, jj] * x[:, jj, None]
    rnorm = _norm_inf(r)
    bound = residual_tolerance(n) * (_sym_norm(S) * _norm_inf(x) + _norm_inf(b))
    reached = status == OK
    out["residual"] = np.where(reached, rnorm, np.nan)
    out["residual_bound"] = np.where(reached, bound, np.nan)
    fail(~(rnorm <= bound), ILL_CONDITIONED)

    # 8. non-finite solution
    fail(~np.all(np.isfinite(x), axis=1), NONFINITE)

    out["x"] = np.where((status == OK)[:, None], x, 0.0)
    out["status"] = status
    return out


def _prepare(A, b):
    A = np.asarray(A, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise InvalidInputError(f"A must have shape (..., n, n), got {A.shape}")
    n = A.shape[-1]
    if b.ndim < 1 or b.shape[-1] != n:
        raise InvalidInputError(f"b must have shape (..., {n}), got {b.shape}")
    batch = np.broadcast_shapes(A.shape[:-2], b.shape[:-1])
    nb = int(np.prod(batch, dtype=np.int64))
    Af = np.broadcast_to(A, batch + (n, n)).reshape(nb, n, n)
    bf = np.broadcast_to(b, batch + (n,)).reshape(nb, n)
    return Af, bf, batch, n


def cholesky_details(A, b) -> CholeskyDetails:
    """Solve and return the solution, statuses and diagnostics (never raises
    a solver error; `InvalidInputError` for inconsistent shapes)."""
    Af, bf, batch, n = _prepare(A, b)
    with np.errstate(all="ignore"):
        out = _solve_flat(Af, bf)
    fields = {}
    for key, val in out.items():
        fields[key] = val.reshape(batch + (n,)) if key == "x" else val.reshape(batch)
    return CholeskyDetails(**fields)


def cholesky_status(A, b):
    """Solve ``A x = b`` without raising; return ``(x, status)``.

    ``A``: (..., n, n) (lower triangle read), ``b``: (..., n); leading batch
    shapes broadcast.  ``status`` is an int64 array of the batch shape with
    0 ok, 2 singular, 3 ill-conditioned, 4 non-finite; ``x`` is zero where
    ``status != 0``.
    """
    d = cholesky_details(A, b)
    return d.x, d.status


def _describe(d: CholeskyDetails, idx) -> str:
    st = int(d.status[idx])
    if st == NONFINITE:
        if np.isnan(d.anorm1[idx]):
            return "the matrix or right-hand side has a non-finite entry"
        return "the solution is not finite"
    if st == SINGULAR:
        p = int(d.pivot[idx])
        if np.isnan(d.anorm1[idx]):
            return f"diagonal entry {p} is not positive ({d.pivot_value[idx]:.6g})"
        return f"pivot {p} is not positive ({d.pivot_value[idx]:.6g})"
    if st == ILL_CONDITIONED:
        if not (d.rcond[idx] > RCOND_MIN):
            return (
                f"reciprocal condition estimate {d.rcond[idx]:.3g} <= sqrt(eps) "
                f"= {RCOND_MIN:.3g}"
            )
        return (
            f"residual check failed: ||b - A x||_inf = {d.residual[idx]:.3g} > "
            f"{d.residual_bound[idx]:.3g}"
        )
    return "unknown failure"  # pragma: no cover


def cholesky_solve(A, b, what: str = "matrix") -> np.ndarray:
    """Solve ``A x = b`` (symmetric positive definite ``A``, lower triangle read).

    ``A``: (..., n, n), ``b``: (..., n), any (broadcastable) leading batch
    shape.  Returns ``x`` with the batch shape + (n,).  Raises `SingularError`,
    `IllConditionedError` or `NonFiniteError` for the first failing batch
    element (C order), naming ``what`` and the failed condition.
    """
    d = cholesky_details(A, b)
    if np.any(d.status != OK):
        flat = int(np.flatnonzero(d.status.reshape(-1) != OK)[0])
        idx = np.unravel_index(flat, d.status.shape) if d.status.ndim else ()
        where = f" at batch index {tuple(int(i) for i in idx)}" if d.status.ndim else ""
        msg = f"cholesky solve of {what}{where}: {_describe(d, idx)}"
        log.debug(msg)
        raise STATUS[int(d.status[idx])](msg)
    return d.x
