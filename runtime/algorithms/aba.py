"""Articulated-body algorithm for forward dynamics (RBDA tables 7.1 and 9.6; spatial_v2 ``FDab.m``).

Runtime checks are explicit: ``ops.require_positive`` for each joint's
articulated inertia ``d``, and for the floating base's 6x6 articulated inertia the
checks of the tree-sparse solve (`ltdl.solve_tree`, its six coordinates in a chain:
positive pivots, equilibrated pivots above sqrt(eps), the residual), traced inline
like the rest.
"""

from __future__ import annotations

from .. import spatial as sp
from ..errors import SingularError
from .ltdl import dof_parents, solve_tree
from .kinematics import (Tree, add_load, base_rotation, body_scope, body_xforms, depth_first, joint_xforms, link_forces,
                         rotate, rotate_back, xup_congruence)


def aba(tree: Tree, ops, q, qd, tau, base=None, loads=None):
    """qdd = M^-1 (tau - C qd - g - tau_load), in O(n).

    ``base`` (floating only): ``(quat_xyzw, velocity)``; ``tau`` then starts with the
    root wrench in A0. Returns G scalars: for a floating base ``[omegadot_W, pddot_W]``
    (classical acceleration of the base origin) then the joint accelerations. The
    floating base's own quantities (v0, IA0, pA0, a0) are in its body frame.
    """
    nb = tree.nb
    S, I = tree.S, tree.I
    if tree.floating:
        quat, velocity = base
        E0 = base_rotation(quat, ops)
        v0 = sp.Motion(rotate(E0, velocity))                                          # v0 = X0 v_W
        f_root, tau = rotate(E0, tau[:6]), tau[6:]                                    # f0 = X0* f_W
    else:
        v0 = sp.Motion((0,) * 6)
    XJ = joint_xforms(tree, q, ops)
    Xup = body_xforms(tree, XJ, ops)
    f_load, f_load0 = link_forces(tree, loads)
    order = depth_first(tree)
    v, c, IA, pA = [None] * nb, [None] * nb, [None] * nb, [None] * nb
    for i in order:
        with body_scope(tree, ops, i, "v, c, pA"):
            p = tree.parent[i]
            vJ = S[i] * qd[i]
            v[i] = Xup[i] @ (v0 if p == -1 else v[p]) + vJ
            c[i] = v[i].cross(vJ)
            IA[i] = sp.rigid_matrix(I[i])                                             # IA = I (6x6)
            pA[i] = sp.Force(add_load(v[i].cross(I[i] @ v[i]), f_load[i]))
            ops.label(v[i], f"v{i}")
            ops.label(c[i], f"c{i}")
            ops.label(pA[i], f"pA{i}")
    if tree.floating:
        I0 = sp.RigidInertia(tree.I_base)
        IA0 = sp.rigid_matrix(I0)
        pA0 = sp.Force(add_load(v0.cross(I0 @ v0), f_load0))
    U, dinv, u = [None] * nb, [None] * nb, [None] * nb
    for i in reversed(order):
        with body_scope(tree, ops, i, "U, d, u, IA and pA to the parent"):
            U[i] = sp.Force(sp.mat_vec(IA[i], S[i]))                                  # U = IA S
            d = sp.add(S[i] @ U[i], tree.armature[i])
            ops.require_positive(d, SingularError, f"articulated inertia of joint {tree.names[i]!r} is not positive")
            dinv[i] = 1 / d
            u[i] = sp.sub(tau[i], S[i] @ pA[i])
            ops.label(U[i], f"U{i}")
            ops.label(dinv[i], f"dinv{i}")
            ops.label(u[i], f"u{i}")
            p = tree.parent[i]
            if p == -1 and not tree.floating:
                continue
            Ud = U[i] * dinv[i]                                                       # U / d
            Ia = sp.mat_project_out(IA[i], U[i], Ud, null_axis(tree, i))               # Ia = IA - U U^T / d
            pa = pA[i] + sp.mat_vec(Ia, c[i]) + Ud * u[i]
            ops.label(pa, f"pa{i}")
            Ia_p = xup_congruence(tree, i, XJ[i], Ia)                                  # Xup^T Ia Xup
            if p == -1:
                IA0 = sp.mat_add(IA0, Ia_p)                                           # IA_0 += Xup^T Ia Xup
                pA0 = pA0 + Xup[i].T @ pa
            else:
                IA[p] = sp.mat_add(IA[p], Ia_p)
                pA[p] = pA[p] + Xup[i].T @ pa
    if tree.floating:
        chain = dof_parents((), True)                                                 # the base's 6 coordinates
        what = "floating-base articulated inertia"
        a0 = sp.Motion(solve_tree(IA0, f_root - pA0, chain, ops, what))              # IA_0 a_0 = f - pA_0
    else:
        a0 = -tree.a_grav
    a, qdd = [None] * nb, [None] * nb
    for i in order:
        with body_scope(tree, ops, i, "a, qdd"):
            p = tree.parent[i]
            a[i] = Xup[i] @ (a0 if p == -1 else a[p]) + c[i]
            qdd[i] = sp.mul(sp.sub(u[i], sp.dot(U[i], a[i])), dinv[i])                # qdd = (u - U^T a) / d
            a[i] = a[i] + S[i] * qdd[i]
            ops.label(qdd[i], f"qdd{i}")
            ops.label(a[i], f"a{i}")
    if not tree.floating:
        return qdd
    a0 = rotate_back(E0, a0) + tree.a_grav                                            # a_W = X0^-1 a0 + a_g
    w, pdot = velocity[:3], velocity[3:]
    return list(a0[:3]) + list(sp.vadd(a0[3:], sp.cross(w, pdot))) + qdd               # pddot = a_lin + omega x pdot


def null_axis(tree: Tree, i: int):
    """m when joint i moves along the coordinate axis m of its frame (S = +-e_m) without armature: then
    Ia = IA - U U^T / d has row and column m exactly 0 (`spatial.mat_project_out`); else None."""
    nonzero = [m for m in range(6) if not sp.is_zero(tree.S[i][m])]
    if len(nonzero) != 1 or type(tree.S[i][nonzero[0]]) is not int or not sp.is_zero(tree.armature[i]):
        return None
    return nonzero[0]
