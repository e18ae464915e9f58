"""The independent coordinates and the bodies' joint coordinates: ``q_full = P q + offset``.

A mimic joint (`rbdgen.model.Mimic`) moves its body by ``multiplier * q_k + offset``
for an independent coordinate ``k``; it has no coordinate of its own. The
algorithms run on the bodies (the whole tree, one joint coordinate each);
`operations.evaluate` maps the inputs with `positions` and `rates`
(``qd_full = P qd``, ``qdd_full = P qdd``) and reduces the outputs by ``P^T``:
forces with `forces` (``P^T tau_full``) and the mass matrix with `matrix`
(``P^T M_full P``). A floating base's six coordinates map to themselves.

``P`` has one non-zero per body row (``multiplier``, 1 for an independent
joint). Without mimic joints it is the identity and every function here hands
back its input's scalars (structural 1 and 0 fold), so the traced code of such a
model does not change.
"""

from __future__ import annotations

from .. import spatial as sp


def positions(tree, q) -> list:
    """q_full = P q + offset: one position per body."""
    return [sp.add(sp.mul(a, q[k]), b) for k, a, b in tree.coordinates]


def rates(tree, qd) -> list:
    """qd_full = P qd (velocities, accelerations)."""
    return [sp.mul(a, qd[k]) for k, a, _ in tree.coordinates]


def _columns(tree) -> list:
    """For each generalized coordinate, the (full index, multiplier) pairs of P's column."""
    off = 6 if tree.floating else 0
    columns = [[(r, 1)] for r in range(off)] + [[] for _ in range(tree.nj)]
    for i, (k, a, _) in enumerate(tree.coordinates):
        columns[off + k].append((off + i, a))
    return columns


def forces(tree, tau) -> list:
    """P^T tau_full: generalized forces on the independent coordinates."""
    out = []
    for column in _columns(tree):
        value = 0
        for i, a in column:
            value = sp.add(value, sp.mul(a, tau[i]))
        out.append(value)
    return out


def matrix(tree, H, symmetric: bool = True) -> list:
    """P^T H P for H given as rows; ``symmetric``: H is (the result's [r][c] and [c][r] are one scalar)."""
    columns = _columns(tree)
    G = len(columns)
    out = [[0] * G for _ in range(G)]
    for r in range(G):
        for c in range(r if symmetric else 0, G):
            value = 0
            for i, a in columns[r]:
                for j, b in columns[c]:
                    value = sp.add(value, sp.mul(sp.mul(a, b), H[i][j]))
            out[r][c] = value
            if symmetric:
                out[c][r] = value
    return out


def jacobians(tree, columns: dict) -> dict:
    """``{input: columns}`` of the Jacobian of full forces (`rnea_derivatives`) on the independent
    coordinates: rows reduced by ``P^T`` (`forces`), the joint inputs' columns combined by ``P``."""
    out = {}
    for wrt, cols in columns.items():
        if wrt in ("q", "qd", "qdd"):
            cols = combine_columns(tree, cols)
        out[wrt] = [forces(tree, column) for column in cols]
    return out


def combine_columns(tree, cols: list) -> list:
    """The columns of a Jacobian by the bodies' joint coordinates (one per body) times P: one per
    independent coordinate (a mimic joint's column, times its multiplier, added to its master's)."""
    merged = [[] for _ in range(tree.nj)]
    for i, (k, a, _) in enumerate(tree.coordinates):
        merged[k].append((i, a))
    return [[sp.dot([a for _, a in pairs], [cols[i][r] for i, _ in pairs]) for r in range(len(cols[0]))]
            for pairs in merged] if cols else []
