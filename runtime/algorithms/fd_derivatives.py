"""Analytic derivatives of forward dynamics (as Pinocchio's ``computeABADerivatives``).

With ``acc = FD(q, qd, tau)`` and ``ID(q, qd, acc) = tau``: ``dacc/dx = -M^-1 dID/dx``
for x in q, qd and the base motion, and ``dacc/dtau = M^-1``. M (CRBA) is factorised
once by the tree-sparse LTDL (`ltdl`: the positivity and conditioning checks on its
pivots) and that factor serves every solve: ``acc = M^-1 (tau - b)`` itself (``b`` from
one RNEA pass at zero acceleration, as `forward_dynamics_crba` computes it, so no ABA
sweep runs), then, with ``dID/dx`` from `rnea_derivatives` at ``qdd = acc``, one solve
of all the columns ``dID/dx`` and of the identity's (``M^-1 = -M^-1 (-I)``) together by
the factor of ``-M = L^T (-D) L`` (``-Dinv``: no column is negated, and ``x (-d)`` is
``-(x d)`` exactly), never a dense one: ``ops.solve_ltdl`` is `ltdl_apply_inverse` of
each column, which the generated C runs as one loop over the columns
(`rbdgen.ir.trace.TreeSolve`); ``M^-1``, symmetric, is read from the half of each column at and
before it depth first (`minv.mirrored`), so the C's kernel leaves the rest of those columns
unsolved. No solve checks a residual: with M's pivots checked, none could fail (`ltdl`'s module
docstring).
"""

from __future__ import annotations

from .. import spatial as sp
from . import coordinates
from .crba import crba
from .ltdl import coordinate_parents, ltdl, ltdl_apply_inverse
from .minv import mirrored
from .rnea import rnea
from .rnea_derivatives import rnea_derivatives

WHAT = "mass matrix (forward-dynamics derivatives)"


def fd_derivatives(tree, ops, q, qd, tau, base=None, loads=None) -> dict:
    """Jacobians of forward dynamics at ``(q, qd, tau)`` as columns of G scalars: ``{"q": [J columns],
    "qd": ..., "tau": [G columns]}`` and, floating, ``"base_velocity"`` (6 columns) and
    ``"base_rotation"`` (3 columns, see `rnea_derivatives`).

    ``q``, ``qd``: the bodies' coordinates (`coordinates.positions`, `coordinates.rates`);
    ``tau``: G generalized forces; ``base``: ``(quat_xyzw, velocity)`` as for `aba`. Where mimic
    joints leave ``P^T M P`` no tree pattern (`coordinate_parents`), each solve is a dense checked one.
    """
    off = 6 if tree.floating else 0
    G = tree.nj + off
    H = coordinates.matrix(tree, crba(tree, ops, q, base[0] if tree.floating else None))
    still = (base[0], base[1], (0,) * 6) if tree.floating else None
    bias = coordinates.forces(tree, rnea(tree, ops, q, qd, [0] * tree.nb, still, loads))  # b = ID(q, qd, 0)
    b_acc = [sp.sub(t, b) for t, b in zip(tau, bias)]
    lam = coordinate_parents(tree)
    if lam is not None:
        L, Dinv = ltdl(H, lam, ops, WHAT)
        acc = ltdl_apply_inverse(L, Dinv, lam, b_acc)                              # acc = M^-1 (tau - b)
    else:
        acc = list(ops.solve_spd(H, b_acc, WHAT))
    id_base = (base[0], base[1], acc[:6]) if tree.floating else None               # ID sees the base acceleration
    qdd = coordinates.rates(tree, acc[off:])
    dID = coordinates.jacobians(tree, rnea_derivatives(tree, ops, q, qd, qdd, id_base, loads))
    # every column is -M^-1 b: dacc/dx = -M^-1 dID/dx, dacc/dtau = M^-1 I = -M^-1 (-I)
    rhs = {wrt: dID[wrt] for wrt in ("q", "qd") + (("base_velocity", "base_rotation") if tree.floating else ())}
    rhs["tau"] = [[-int(r == c) for r in range(G)] for c in range(G)]
    bs = [b for columns in rhs.values() for b in columns]
    if lam is None:                                                                 # dense: M x = b, negated
        xs = [[sp.neg(x) for x in ops.solve_spd(H, b, WHAT)] for b in bs[:-G]]
        xs += [list(ops.solve_spd(H, [sp.neg(x) for x in b], WHAT)) for b in bs[-G:]]  # M^-1 I: I solved as is
    else:
        minus_Dinv = [sp.neg(d) for d in Dinv]                                     # -M = L^T (-D) L
        xs = list(ops.solve_ltdl(L, minus_Dinv, lam, bs))                          # -M^-1 b
        xs[-G:] = mirrored(xs[-G:], lam)                                            # M^-1: symmetric, half read
    out, start = {}, 0
    for wrt, columns in rhs.items():
        out[wrt], start = xs[start:start + len(columns)], start + len(columns)
    return out
