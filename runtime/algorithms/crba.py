"""Composite-rigid-body algorithm for the mass matrix (RBDA table 6.2; spatial_v2 ``HandC.m``)."""

from __future__ import annotations

from .. import spatial as sp
from .kinematics import Tree, base_rotation, body_scope, body_xforms, joint_xforms, rigid_congruence, rotate_back


#: A top body's subtree of more bodies than this takes its base rows from A0 in one step, ``X0_j^T F`` with
#: ``X0_j = Xup_j rot(E0)`` composed once, instead of ``Xup_j^T F`` and then ``E0^T`` on both halves: a column
#: saves about 6 multiplications (its top body's sparse Xup and E0 merge into one rotation) and the composition
#: costs about 18 (G1's mass matrix 2,901 -> 2,763; Solo12's legs of three bodies would pay more than they save).
COMPOSED_BASE_ROWS = 3


def crba(tree: Tree, ops, q, base_quat=None):
    """H(q): G x G, as a list of rows (symmetric: H[i][j] and H[j][i] are the same scalar).

    Floating base: rows and columns 0..5 are the base in A0 ([omega_W, pdot_W]):
    computed in the base body frame B, then turned to A0 with X0 = rot(R^T) (its
    motion subspace in A0 is the identity); armature adds to the joints' diagonal.
    Without ``base_quat`` they stay in B: ``H_A0 = T^T H_B T`` with the orthogonal
    ``T = diag(X0, 1)``, so a solve can run in B (``H_B (T x) = T b``) and skip the
    rotations of the base rows.

    A composite inertia goes to the parent in two sparse steps, ``Xtree^T (XJ^T IC XJ) Xtree``: the joint's
    rotation (`joint_frame_inertia`: for a coordinate axis only one plane turns), then the constant transform
    (usually a signed permutation and a few offsets), where ``Xup = XJ Xtree`` at once is not sparse (G1: 858
    multiplications -> 710, Talos 1,064 -> 758).
    """
    XJ = joint_xforms(tree, q, ops)
    Xup = body_xforms(tree, XJ, ops)
    IC = list(tree.I)
    IC0 = sp.RigidInertia(tree.I_base) if tree.floating else None
    E0 = base_rotation(base_quat, ops) if tree.floating and base_quat is not None else None
    for i in reversed(range(tree.nb)):
        with body_scope(tree, ops, i, "IC to the parent"):
            p = tree.parent[i]
            ICi = rigid_congruence(tree, i, XJ[i], IC[i])                                 # Xtree^T XJ^T IC XJ Xtree
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
    X0 = {}  # a top body's transform from A0, Xup rot(E0), where its subtree's base rows take it in one step
    size = _subtree_sizes(tree)
    for i in range(nb):
        with body_scope(tree, ops, i, "F, H row and column"):
            F = IC[i] @ S[i]
            H[off + i][off + i] = sp.add(S[i] @ F, tree.armature[i])
            j = i
            while tree.parent[j] != -1:
                F = Xup[j].T @ F
                j = tree.parent[j]
                H[off + i][off + j] = H[off + j][off + i] = S[j] @ F
            if tree.floating:
                if E0 is None:
                    F = Xup[j].T @ F                                                  # base rows in B
                elif size[j] > COMPOSED_BASE_ROWS:
                    if j not in X0:
                        X0[j] = sp.Xform(sp.xform_compose(Xup[j], (E0, (0, 0, 0))))  # X0_j = Xup_j rot(E0)
                    F = X0[j].T @ F                                                   # base rows in A0: X0_j^T F
                else:
                    F = rotate_back(E0, Xup[j].T @ F)                                 # base rows in A0: X0^T F_B
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


def _subtree_sizes(tree: Tree) -> list:
    """The number of bodies in each body's subtree (itself included)."""
    size = [1] * tree.nb
    for i in reversed(range(tree.nb)):
        if tree.parent[i] != -1:
            size[tree.parent[i]] += size[i]
    return size
