"""The base (identifiable) inertial parameters of a tree, numerically: the factorisation behind
`rbdgen.identifiable` and the columns `inverse_dynamics_base_regressor` keeps.

The regressor ``Y`` (`regressor`) is stacked at random states (fixed seed: the same tree gives the same
answer, and the same generated text) and factored by a QR with column pivoting: the columns whose remaining
norm exceeds the tolerance are kept (``W1``), the others are combinations of them (``W2 = W1 B``), so
``Y pi = Y1 (pi1 + B pi2)``.
"""

from __future__ import annotations

import functools

import numpy as np

from . import coordinates, regressor
from .cholesky import EPS, TINY
from .kinematics import Tree
from .scalars import ScalarOps

#: Rows of the stacked regressor per parameter (random states: at least `MIN_STATES`).
ROWS_PER_PARAMETER = 4
MIN_STATES = 40

#: Seed of the random states (fixed: one model, one answer, one generated text).
SEED = 20261201

#: Entries of the map B smaller than this (relative to its largest) are written as zero.
CLEAN = 1e-9

#: Two columns whose remaining norms are equal to this relative precision are a tie: the first is taken.
TIE = 1e-9



class _Arrays(ScalarOps):
    """Float64 arrays, one value per random state: the elementary functions and the checks (which hold for the
    unit quaternions drawn here). The algorithms' layer cannot import `rbdgen.backends.NumpyOps` (above it), and
    needs only this much of it."""

    eps = EPS
    tiny = TINY

    @staticmethod
    def function(name, *args):
        return getattr(np, {"atan2": "arctan2"}.get(name, name))(*args)

    @staticmethod
    def require_positive(x, error, message):
        if not np.all(np.asarray(x) > 0):
            raise error(message)

    @staticmethod
    def require_not_negative(x, error, message):
        if np.any(np.asarray(x) < 0):
            raise error(message)


def stacked_regressor(tree: Tree, count: int, seed: int = SEED) -> np.ndarray:
    """``Y`` at ``count`` random states (joint positions uniform in [-pi, pi], rates and a floating base's
    twist and acceleration standard normal, its orientation uniform) stacked: (count G, 10 B)."""
    rng = np.random.default_rng(seed)
    q = coordinates.positions(tree, list(rng.uniform(-np.pi, np.pi, (tree.nj, count))))
    qd, qdd = (coordinates.rates(tree, list(rng.normal(0, 1, (tree.nj, count)))) for _ in range(2))
    base = None
    if tree.floating:
        quat = rng.normal(0, 1, (4, count))
        base = (list(quat / np.linalg.norm(quat, axis=0)), list(rng.normal(0, 1, (6, count))),
                list(rng.normal(0, 1, (6, count))))
    columns = regressor.regressor_columns(tree, _Arrays(), q, qd, qdd, base)
    return np.stack([np.stack([np.broadcast_to(np.asarray(x, dtype=float), (count,)) for x in column], axis=1)
                     for column in columns], axis=2).reshape(count * len(columns[0]), len(columns))


def pivoted_columns(W: np.ndarray) -> tuple:
    """``(columns, tolerance)``: the independent columns of ``W`` in pivot order (Gram-Schmidt with column
    pivoting: each step takes the column of largest remaining norm, until none exceeds the tolerance
    ``max(W.shape) eps ||W||_2``), on the triangle R of ``W = Q R`` (the same inner products of columns)."""
    A = np.linalg.qr(W, mode="r") if W.shape[0] > W.shape[1] else np.array(W, dtype=float)   # same column norms
    tolerance = max(W.shape) * np.finfo(float).eps * (np.linalg.norm(A, 2) if A.size else 0.0)
    chosen = []
    norms = np.linalg.norm(A, axis=0)
    for _ in range(min(A.shape)):
        norms[chosen] = -1.0
        best = norms.max()
        if best <= tolerance:
            break
        j = int(np.flatnonzero(norms >= best * (1 - TIE))[0])
        q = A[:, j] / np.linalg.norm(A[:, j])
        A -= np.outer(q, q @ A)                                                   # remove q from every column
        chosen.append(j)
        norms = np.linalg.norm(A, axis=0)
    return tuple(chosen), float(tolerance)


@functools.lru_cache(maxsize=16)
def factor(tree: Tree, states: int = None) -> tuple:
    """``(columns, map, tolerance, states)`` of `identifiable` for a `Tree` (memoised: generating the base
    regressor and its solvers ask again)."""
    G = tree.nj + (6 if tree.floating else 0)
    P = 10 * (tree.nb + (1 if tree.floating else 0))
    states = states or max(MIN_STATES, -(-ROWS_PER_PARAMETER * P // G))
    W = stacked_regressor(tree, states)
    chosen, tolerance = pivoted_columns(W)
    kept = tuple(sorted(chosen))
    rest = [k for k in range(P) if k not in kept]
    B = np.linalg.lstsq(W[:, kept], W[:, rest], rcond=None)[0] if kept and rest else np.zeros((len(kept), len(rest)))
    B[np.abs(B) <= CLEAN * max(1.0, np.abs(B).max(initial=0.0))] = 0.0
    mapping = np.zeros((len(kept), P))
    mapping[np.arange(len(kept)), kept] = 1.0
    mapping[:, rest] = B
    mapping.flags.writeable = False
    return kept, mapping, tolerance, states
