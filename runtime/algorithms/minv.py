"""Solves by the mass matrix's factor: M^-1, and X = M^-1 B for several columns at once.

M (CRBA, the floating base's rows in world axes) is factorised once by the checked
tree-sparse LTDL (`ltdl`: positivity and conditioning of its pivots) and every column solved
by it in one loop (`ops.solve_ltdl`, the generated C's solve kernel); where mimic joints leave
no tree pattern, each column is a dense checked solve. A dense matrix is a tree of one chain
(`chain`): the task-space inertia's 6 x 6 solves take the same path.

No solve here checks a residual: with every pivot positive, none could fail (`ltdl`'s module docstring).
"""

from __future__ import annotations

from . import coordinates
from .crba import crba
from .kinematics import preorder
from .ltdl import coordinate_parents, ltdl

WHAT = "mass matrix (inverse)"


def chain(n: int) -> tuple:
    """lambda of a dense n x n matrix: each coordinate's parent the one before."""
    return tuple(range(-1, n - 1))


def solve_columns(H, lam, columns, ops, what: str, factor=None) -> list:
    """The columns of X = H^-1 B for the columns of B (``lam``: H's tree pattern, None for a dense solve each;
    ``factor``: H's ``(L, Dinv)`` where a caller has it, else factorised here, its pivots checked; no residual:
    the module docstring)."""
    if lam is None:
        return [list(ops.solve_spd(H, b, what)) for b in columns]
    L, Dinv = factor if factor is not None else ltdl(H, lam, ops, what)
    return list(ops.solve_ltdl(L, Dinv, lam, list(columns)))


def symmetric_inverse(H, lam, ops, what: str) -> list:
    """H^-1 as rows, the pivots checked (no residual: the module docstring): both triangles are one scalar, entry
    r of the solution of column c, where c comes after r depth first (`kinematics.preorder` of ``lam``; None: in
    index order).

    Column c's solution is so read only at c and the coordinates before it depth first: its ancestors and the
    branches before its own, a set that holds the ancestors of each of its members, so the L sweep (from the
    root) of its solve need visit no other row (the generated C's kernel skips them, `solves.ltdl_plan`)."""
    G = len(H)
    identity = [[int(r == c) for r in range(G)] for c in range(G)]
    return mirrored(solve_columns(H, lam, identity, ops, what), lam)


def mirrored(X, lam) -> list:
    """The symmetric matrix, as rows, whose column c is ``X[c]`` at c and the rows before it depth first
    (`kinematics.preorder` of ``lam``; None: in index order), its other rows never read (`symmetric_inverse`)."""
    G = len(X)
    rank = {k: i for i, k in enumerate(preorder(lam) if lam is not None else range(G))}
    return [[X[c][r] if rank[r] <= rank[c] else X[r][c] for c in range(G)] for r in range(G)]


def mass_matrix_inverse(tree, ops, q, base_quat=None) -> list:
    """M^-1: G x G as a list of rows (symmetric: [r][c] and [c][r] are one scalar)."""
    H = coordinates.matrix(tree, crba(tree, ops, q, base_quat))
    return symmetric_inverse(H, coordinate_parents(tree), ops, WHAT)
