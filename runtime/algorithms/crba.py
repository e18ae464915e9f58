"""Composite-rigid-body algorithm for the mass matrix (RBDA table 6.2; spatial_v2 ``HandC.m``)."""

from __future__ import annotations

from .. import spatial as sp
from .kinematics import Tree, base_rotation, body_scope, body_xforms, joint_xforms, rotate_back


def crba(tree: Tree, ops, q, base_quat=None):
    """H(q): G x G, as a list of rows (symmetric: H[i][j] and H[j][i] are the same scalar).

    Floating base: rows and columns 0..5 are the base in A0 ([omega_W, pdot_W]):
    computed in the base body frame B, then turned to A0 with X0 = rot(R^T) (its
    motion subspace in A0 is the identity); armature adds to the joints' diagonal.
    Without ``base_quat`` they stay in B: ``H_A0 = T^T H_B T`` with the orthogonal
    ``T = diag(X0, 1)``, so a solve can run in B (``H_B (T x) = T b``) and skip the
    rotations of the base rows.
    """
    Xup = body_xforms(tree, joint_xforms(tree, q, ops), ops)
    IC = list(tree.I)
    IC0 = sp.RigidInertia(tree.I_base) if tree.floating else None
    E0 = base_rotation(base_quat, ops) if tree.floating and base_quat is not None else None
    for i in reversed(range(tree.nb)):
        with body_scope(tree, ops, i, "IC to the parent"):
            p = tree.parent[i]
            ICi = Xup[i].T @ IC[i] @ Xup[i]
            if p != -1:
                IC[p] = IC[p] + ICi
            elif tree.floating:
                IC0 = IC0 + ICi
    return crba_from_composites(tree, ops, Xup, IC, IC0, E0)


def crba_from_composites(tree: Tree, ops, Xup, IC, IC0=None, E0=None):
    """`crba`'s second half, from the composite inertias ``IC`` (and the base body's ``IC0``) a pass
    has already accumulated (`rnea_derivatives` shares its own)."""
    nb = tree.nb
    S = tree.S
    off = 6 if tree.floating else 0
    G = nb + off
    H = [[0] * G for _ in range(G)]
    for i in range(nb):
        with body_scope(tree, ops, i, "F, H row and column"):
            F = IC[i] @ S[i]
            H[off + i][off + i] = sp.add(S[i] @ F, tree.armature[i])
            j = i
            while True:
                F = Xup[j].T @ F
                j = tree.parent[j]
                if j == -1:
                    break
                H[off + i][off + j] = H[off + j][off + i] = S[j] @ F
            if tree.floating:
                if E0 is not None:
                    F = rotate_back(E0, F)                                        # base rows: X0^T F
                for k in range(6):
                    H[k][off + i] = H[off + i][k] = F[k]
            for j in range(G):
                ops.label(H[off + i][j], f"H{off + i}_{j}")
    if tree.floating:
        IC0m = sp.rigid_matrix(IC0 if E0 is None else sp.rigid_xform_back((E0, (0, 0, 0)), IC0))  # H_00 = X0^T IC_0 X0
        for r in range(6):
            for c in range(6):
                H[r][c] = IC0m[r][c]
    return H
