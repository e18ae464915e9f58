"""Articulated-body algorithm for forward dynamics (RBDA tables 7.1 and 9.6; spatial_v2 ``FDab.m``).

Runtime checks are explicit: ``ops.require_positive`` for each joint's
articulated inertia ``d``, and for the floating base's 6x6 articulated inertia the
checks of the tree-sparse solve (`ltdl.solve_tree`, its six coordinates in a chain:
positive pivots, equilibrated pivots above sqrt(eps); no residual, which could not
fail: `ltdl`'s module docstring), traced inline like the rest.
"""

from __future__ import annotations

import dataclasses

from .. import spatial as sp
from ..errors import SingularError
from .ltdl import dof_parents, solve_tree
from .kinematics import (Tree, add_load, base_rotation, body_scope, body_xforms, children_of, depth_first, joint_xforms,
                         link_forces, rotate, rotate_back, xup_congruence)


def aba(tree: Tree, ops, q, qd, tau, base=None, loads=None):
    """qdd = M^-1 (tau - C qd - g - tau_load), in O(n).

    ``base`` (floating only): ``(quat_xyzw, velocity)``; ``tau`` then starts with the
    root wrench in A0. Returns G scalars: for a floating base ``[omegadot_W, pddot_W]``
    (classical acceleration of the base origin) then the joint accelerations. The
    floating base's own quantities (v0, IA0, pA0, a0) are in its body frame.
    """
    tree = along_axes(tree)
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


def along_axes(tree: Tree) -> Tree:
    """``tree`` with each body's frame slid along its joint axis so that its offset from its parent has no
    component along that axis, where the axis is a coordinate axis of the parent's frame and that leaves
    fewer nonzero offsets (its own and its children's): fewer products in every transform to the parent.

    A revolute joint turns about a line and a prismatic one slides along a direction: moving the body's
    origin by ``s a`` along its axis ``a`` keeps XJ(q) and S. Its offset becomes ``r + s E^T a - s_p a_p``
    (``s_p a_p``: the parent's slide), its inertia and its links' poses are taken in the slid frame; the
    joint accelerations are the same, the base (the root) stays.
    """
    slide, offsets = [0] * tree.nb, [None] * tree.nb
    children = children_of(tree.parent)

    def offset(i, s_p):  # body i's offset from its parent slid by s_p, before its own slide: r - s_p a_p
        p, r = tree.parent[i], tree.Xtree[i][1]
        return r if p == -1 else tuple(sp.const(sp.sub(r[n], sp.mul(s_p, tree.axis[p][n]))) for n in range(3))

    def nonzero(offsets_):
        return sum(not sp.is_zero(x) for r in offsets_ for x in r)

    for i in depth_first(tree):
        r = offsets[i] = offset(i, slide[tree.parent[i]] if tree.parent[i] != -1 else 0)
        b = sp.mtv3(tree.Xtree[i][0], tree.axis[i])                                  # the axis in the parent's frame
        along = [m for m in range(3) if not sp.is_zero(b[m])]
        if len(along) != 1 or type(b[along[0]]) is not int:
            continue
        m = along[0]
        s_i = sp.neg(sp.mul(r[m], b[m]))                                              # r_m + s_i b_m = 0, b_m = +-1
        slid = tuple(0 if n == m else r[n] for n in range(3))                         # r + s_i b, b = +-e_m
        kids = children.get(i, ())
        if nonzero([slid] + [offset(c, s_i) for c in kids]) < nonzero([r] + [offset(c, 0) for c in kids]):
            slide[i], offsets[i] = s_i, slid
    return dataclasses.replace(
        tree,
        Xtree=tuple((X[0], r) for X, r in zip(tree.Xtree, offsets)),
        I=tuple(sp.RigidInertia(sp.rigid_xform_back(_slid(tree, i, s), I)) if s else I
                for i, (s, I) in enumerate(zip(slide, tree.I))),
        Xlink=tuple(sp.xform_compose(X, _slid(tree, body, slide[body])) if body != -1 and slide[body] else X
                    for X, body in zip(tree.Xlink, tree.link_body)))


def _slid(tree: Tree, i: int, s):
    """X from body i's frame slid by ``s`` along its joint axis to its frame: a translation by -s a."""
    return ((1, 0, 0), (0, 1, 0), (0, 0, 1)), tuple(sp.const(sp.neg(sp.mul(s, x))) for x in tree.axis[i])
