"""M^-1, the inverse of the mass matrix, from the tree-sparse factor of M.

M (CRBA, the floating base's rows in world axes) is factorised once by the checked
tree-sparse LTDL (`ltdl`: positivity and conditioning of its pivots) and the identity's
columns solved by it in one loop (`ops.solve_ltdl`, the generated C's solve kernel), with
one probe column, the sum of the identity's, whose residual is checked for all (as
`fd_derivatives` checks its solves); where mimic joints leave no tree pattern, each column
is a dense checked solve. Both triangles of the result are one scalar: entry (r, c), r >= c,
of the solution of column c.
"""

from __future__ import annotations

from . import coordinates
from .crba import crba
from .ltdl import check_residual, coordinate_parents, ltdl

WHAT = "mass matrix (inverse)"


def mass_matrix_inverse(tree, ops, q, base_quat=None) -> list:
    """M^-1: G x G as a list of rows (symmetric: [r][c] and [c][r] are one scalar)."""
    H = coordinates.matrix(tree, crba(tree, ops, q, base_quat))
    G = len(H)
    identity = [[int(r == c) for r in range(G)] for c in range(G)]
    lam = coordinate_parents(tree)
    if lam is None:
        X = [list(ops.solve_spd(H, e, WHAT)) for e in identity]
    else:
        L, Dinv = ltdl(H, lam, ops, WHAT)
        probe = [1] * G                                                             # the identity's columns summed
        *X, x_probe = ops.solve_ltdl(L, Dinv, lam, identity + [probe])
        check_residual(H, lam, x_probe, probe, ops, WHAT)
    return [[X[min(r, c)][max(r, c)] for c in range(G)] for r in range(G)]
