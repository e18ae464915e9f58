"""Analytic derivatives of forward dynamics (as Pinocchio's ``computeABADerivatives``).

With ``acc = FD(q, qd, tau)`` (`operations.evaluate`'s forward dynamics, its checks included) and
``ID(q, qd, acc) = tau``: ``dacc/dx = -M^-1 dID/dx`` for x in q, qd and the base
motion, and ``dacc/dtau = M^-1``. ``dID/dx`` comes from `rnea_derivatives` at
``qdd = acc``; ``M^-1`` is applied column by column through the tree-sparse LTDL
factorisation of M (`ltdl`: the positivity and conditioning checks on its
pivots), never a dense solve, and ``M^-1`` itself is ``L^-1 D^-1 L^-T`` from the
same factors (`ltdl_inverse`). Instead of one residual check per column, one
probe checks the sum of all the columns (``M sum(x) = sum(b)``).
"""

from __future__ import annotations

from .. import spatial as sp
from . import coordinates
from .crba import crba
from .ltdl import check_residual, dof_parents, ltdl, ltdl_apply_inverse, ltdl_inverse
from .rnea_derivatives import rnea_derivatives

WHAT = "mass matrix (forward-dynamics derivatives)"


def fd_derivatives(tree, ops, q, qd, acc, base=None, loads=None) -> dict:
    """Jacobians of forward dynamics at its result ``acc`` as columns of G scalars: ``{"q": [J columns],
    "qd": ..., "tau": [G columns]}`` and, floating, ``"base_velocity"`` (6 columns) and
    ``"base_rotation"`` (3 columns, see `rnea_derivatives`).

    ``q``, ``qd``: the bodies' coordinates (`coordinates.positions`, `coordinates.rates`);
    ``base``: ``(quat_xyzw, velocity)`` as for `aba`. With mimic joints ``P^T M P`` has no tree
    pattern: each column is a dense checked solve instead.
    """
    off = 6 if tree.floating else 0
    G = tree.nj + off
    id_base = (base[0], base[1], acc[:6]) if tree.floating else None               # ID sees the base acceleration
    qdd = coordinates.rates(tree, acc[off:])
    dID = coordinates.jacobians(tree, rnea_derivatives(tree, ops, q, qd, qdd, id_base, loads))
    H = coordinates.matrix(tree, crba(tree, ops, q, base[0] if tree.floating else None))
    rhs = {wrt: [[sp.neg(x) for x in column] for column in dID[wrt]]               # -dID/dx
           for wrt in ("q", "qd") + (("base_velocity", "base_rotation") if tree.floating else ())}
    if tree.nj != tree.nb:
        rhs["tau"] = [[int(r == c) for r in range(G)] for c in range(G)]
        return {wrt: [list(ops.solve_spd(H, b, WHAT)) for b in columns] for wrt, columns in rhs.items()}
    lam = dof_parents(tree.parent, tree.floating)
    L, Dinv = ltdl(H, lam, ops, WHAT)
    out = {wrt: [ltdl_apply_inverse(L, Dinv, lam, b) for b in columns] for wrt, columns in rhs.items()}
    out["tau"] = ltdl_inverse(L, Dinv, lam)                                        # dacc/dtau = M^-1 (symmetric)
    rhs["tau"] = [[int(r == c) for r in range(G)] for c in range(G)]
    x_sum = [_total(row) for row in zip(*(x for columns in out.values() for x in columns))]
    b_sum = [_total(row) for row in zip(*(b for columns in rhs.values() for b in columns))]
    check_residual(H, lam, x_sum, b_sum, ops, WHAT)
    return out


def _total(values):
    """Left-to-right sum, structural zeros folded."""
    return sp.dot(values, (1,) * len(values))
