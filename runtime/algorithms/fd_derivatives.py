"""Analytic derivatives of forward dynamics (as Pinocchio's ``computeABADerivatives``).

With ``acc = FD(q, qd, tau)`` and ``ID(q, qd, acc) = tau``: ``dacc/dx = -M^-1 dID/dx``
for x in q, qd and the base motion, and ``dacc/dtau = M^-1``. M (CRBA) is factorised
once by the tree-sparse LTDL (`ltdl`: the positivity and conditioning checks on its
pivots) and that factor serves every solve: ``acc = M^-1 (tau - b)`` itself (``b`` from
one RNEA pass at zero acceleration, as `forward_dynamics_crba` computes it, so no ABA
sweep runs), then ``dID/dx`` from `rnea_derivatives` at ``qdd = acc``, applied column by
column, never a dense solve, and ``M^-1`` itself is ``L^-1 D^-1 L^-T`` from the same
factors (`ltdl_inverse`). Instead of one residual check per column, one probe checks the
sum of all the columns and of ``acc`` (``M sum(x) = sum(b)``).
"""

from __future__ import annotations

from .. import spatial as sp
from . import coordinates
from .crba import crba
from .ltdl import check_residual, coordinate_parents, ltdl, ltdl_apply_inverse, ltdl_inverse
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

        def solve(b):
            return ltdl_apply_inverse(L, Dinv, lam, b)
    else:
        def solve(b):
            return list(ops.solve_spd(H, b, WHAT))
    acc = solve(b_acc)                                                              # acc = M^-1 (tau - b)
    id_base = (base[0], base[1], acc[:6]) if tree.floating else None               # ID sees the base acceleration
    qdd = coordinates.rates(tree, acc[off:])
    dID = coordinates.jacobians(tree, rnea_derivatives(tree, ops, q, qd, qdd, id_base, loads))
    rhs = {wrt: [[sp.neg(x) for x in column] for column in dID[wrt]]               # -dID/dx
           for wrt in ("q", "qd") + (("base_velocity", "base_rotation") if tree.floating else ())}
    out = {wrt: [solve(b) for b in columns] for wrt, columns in rhs.items()}
    rhs["tau"] = [[int(r == c) for r in range(G)] for c in range(G)]
    if lam is None:
        out["tau"] = [solve(b) for b in rhs["tau"]]
        return out
    out["tau"] = ltdl_inverse(L, Dinv, lam)                                        # dacc/dtau = M^-1 (symmetric)
    xs = [acc] + [x for columns in out.values() for x in columns]
    bs = [b_acc] + [b for columns in rhs.values() for b in columns]
    check_residual(H, lam, [_total(row) for row in zip(*xs)], [_total(row) for row in zip(*bs)], ops, WHAT)
    return out


def _total(values):
    """Left-to-right sum, structural zeros folded."""
    return sp.dot(values, (1,) * len(values))
