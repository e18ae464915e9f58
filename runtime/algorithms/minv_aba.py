"""M^-1 by the articulated-body recursion (Carpentier and Mansard, "Analytical derivatives of rigid body
dynamics algorithms", RSS 2018; Pinocchio's ``computeMinverse``).

Column c of M^-1 is the acceleration the unit generalized force e_c gives at rest without gravity: the
articulated-body algorithm run on all G columns at once. The articulated inertias IA, U = IA S and
d = S^T U (+ armature) are ABA's, in each body's frame. The columns' forces and accelerations are kept in
one frame A (the base body's; a fixed base's root), where they add without transforms:

1. backward, leaves first: for each column c of the body's subtree, u = [c == k] - S_A^T F_A[c] and the
   partial row x[k][c] = u / d; the parent gets F_A[c] + U_A u / d (U_A = Xa^T U, S_A = Xa^-1 S, with Xa
   from A to the body);
2. the floating base: a0[c] = IA0^-1 (f0[c] - F_A0[c]) for every column (f0: the base's unit wrenches
   rotated into its body frame), by the checked LTDL solve of the 6 x 6 (`minv.solve_columns`); a fixed
   base's root does not move;
3. forward, root first: x[k][c] -= U_A^T a_A[parent][c] / d and a_A[body][c] = a_A[parent][c] + S_A x[k][c]
   for the columns c >= k only (a body's parent comes first, so its columns c >= k are there): the upper
   triangle, as Pinocchio forms it.

The floating base's rows are rotated back to world axes at the end (M's base rows are in world axes).
Mimic joints (several bodies to a coordinate) have no such recursion: `mass_matrix_inverse` (LTDL) serves them.
"""

from __future__ import annotations

from .. import spatial as sp
from ..errors import SingularError
from .kinematics import (Tree, base_rotation, body_scope, body_xforms, joint_xforms, rotate, rotate_back,
                         xup_congruence)
from .minv import chain, solve_columns


def frame_xforms(tree: Tree, Xup, ops) -> list:
    """Xa[i]: from frame A (the base body, or a fixed base's root) to body i."""
    Xa = [None] * tree.nb
    for i in range(tree.nb):
        p = tree.parent[i]
        with body_scope(tree, ops, i, "Xa"):
            Xa[i] = Xup[i] if p == -1 else sp.Xform(sp.xform_compose(Xup[i], Xa[p]))
    return Xa


def mass_matrix_inverse_aba(tree: Tree, ops, q, base_quat=None) -> list:
    """M^-1: G x G as a list of rows (symmetric: [r][c] and [c][r] are one scalar), as `minv.mass_matrix_inverse`."""
    if tree.nj != tree.nb:
        raise ValueError("mass_matrix_inverse_aba: mimic joints have no articulated-body recursion; "
                         "use minv.mass_matrix_inverse")
    nb, S = tree.nb, tree.S
    off = 6 if tree.floating else 0
    G = off + nb
    XJ = joint_xforms(tree, q, ops)
    Xup = body_xforms(tree, XJ, ops)
    Xa = frame_xforms(tree, Xup, ops)
    IA = [sp.rigid_matrix(tree.I[i]) for i in range(nb)]
    IA0 = sp.rigid_matrix(sp.RigidInertia(tree.I_base)) if tree.floating else None
    F = [{} for _ in range(nb)]                                                       # column -> F_A (a Force)
    F0 = {}
    x = [[0] * G for _ in range(G)]                                                   # rows: only c >= r is read
    U_A, S_A, dinv = [None] * nb, [None] * nb, [None] * nb
    for i in reversed(range(nb)):
        with body_scope(tree, ops, i, "U, d, M^-1 row (backward), IA and F to the parent"):
            k = off + i
            U = sp.Force(sp.mat_vec(IA[i], S[i]))                                         # U = IA S
            d = sp.add(S[i] @ U, tree.armature[i])
            ops.require_positive(d, SingularError, f"articulated inertia of joint {tree.names[i]!r} is not positive")
            dinv[i] = 1 / d
            U_A[i] = sp.Force(sp.xform_force_back(Xa[i], U))                               # U_A = Xa^T U
            S_A[i] = sp.Motion(sp.xform_motion_back(Xa[i], S[i]))                          # S_A = Xa^-1 S
            F[i][k] = sp.Force((0,) * 6)
            for c, f in F[i].items():
                u = sp.sub(int(c == k), S_A[i] @ f)                                        # u = [c == k] - S_A^T F_A
                x[k][c] = sp.mul(u, dinv[i])
                F[i][c] = f + U_A[i] * x[k][c]                                             # F_A + U_A u / d
            p = tree.parent[i]
            if p == -1 and not tree.floating:
                continue
            Ia_p = xup_congruence(tree, i, XJ[i], sp.mat_sub_outer(IA[i], U, dinv[i]))     # Xup^T Ia Xup
            if p == -1:
                IA0 = sp.mat_add(IA0, Ia_p)                                               # IA_0 += Xup^T Ia Xup
            else:
                IA[p] = sp.mat_add(IA[p], Ia_p)
            parent = F0 if p == -1 else F[p]
            for c, f in F[i].items():
                parent[c] = parent[c] + f if c in parent else f
    a = [{} for _ in range(nb)]                                                       # column -> a_A (a Motion)
    if tree.floating:
        E0 = base_rotation(base_quat, ops)
        f0 = [rotate(E0, [int(r == c) for r in range(6)]) if c < 6 else (0,) * 6 for c in range(G)]
        a0 = solve_columns(IA0, chain(6), [sp.vsub(f0[c], F0.get(c, (0,) * 6)) for c in range(G)], ops,
                           "floating-base articulated inertia")
        a0 = [sp.Motion(col) for col in a0]
        for c in range(G):
            for r, value in enumerate(rotate_back(E0, a0[c])):                          # world axes
                x[r][c] = value
    for i in range(nb):
        with body_scope(tree, ops, i, "M^-1 row (forward), a"):
            k, p = off + i, tree.parent[i]
            for c in range(k, G):
                ap = (a0[c] if tree.floating else None) if p == -1 else a[p][c]
                if ap is not None:
                    x[k][c] = sp.sub(x[k][c], sp.mul(sp.dot(U_A[i], ap), dinv[i]))  # - U_A^T a_A / d
                a[i][c] = S_A[i] * x[k][c] if ap is None else ap + S_A[i] * x[k][c]
    return [[x[min(r, c)][max(r, c)] for c in range(G)] for r in range(G)]
