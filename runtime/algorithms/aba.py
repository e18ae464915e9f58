"""Articulated-body algorithm for forward dynamics (RBDA tables 7.1 and 9.6; spatial_v2 ``FDab.m``).

Runtime checks are explicit: ``ops.require_positive`` for each joint's
articulated inertia ``d``, and for the floating base's 6x6 articulated inertia the
checks of the tree-sparse solve (`ltdl.solve_tree`, its six coordinates in a chain:
positive pivots, equilibrated pivots above sqrt(eps); no residual, which could not
fail: `ltdl`'s module docstring), traced inline like the rest.

Mimic joints (`coordinates`): the bodies one independent coordinate ``theta`` moves (its joint and the
mimic joints that follow it, ``q_j = a_j theta + b_j``) are one *macro joint* where they hang from one body
``p`` (`macro_joints`): each one's parent is ``p`` or another of them, as a gripper's fingers hang from the
wrist. Inside it every joint moves with ``s_j theta_dot`` (``s_j = a_j S_j``), so, with ``a_par`` the
acceleration of body j's parent, each body's joint transmits

    f_j = IC_j Xup_j a_par + W_j theta_ddot + Y_j,    W_j = IC_j s_j + Fr_j,    Y_j = IC_j c_j + P_j,

``IC_j`` the articulated inertia of j's part of the macro joint (its own bodies rigid together, the rest
of the tree below them articulated), ``Fr_j`` the sum of its children's ``Xup^T W`` and ``P_j`` its bias
``pA_j`` plus its children's ``Xup^T Y``: a composite-rigid-body pass inside the group. The coordinate's
force ``tau_theta = sum_j s_j^T f_j`` is then ``U^T a_p + D theta_ddot + E`` with, in p's frame,

    U = sum_tops Xup^T W,    D = sum_j (s_j^T (W_j + Fr_j) + a_j^2 armature_j),    E = sum_j (W_j^T c_j + s_j^T P_j)

(from the leaves up, the sum of ``s_k^T f_k`` over j's part is ``W_j^T a_j + s_j^T Fr_j theta_ddot +
s_j^T P_j`` plus the D and E terms below j, the inertias being symmetric; ``a_j = Xup_j a_par + c_j +
s_j theta_ddot`` turns it into ``W_j^T Xup_j a_par`` plus j's own D and E terms), and the force on p
is ``IC a_p + U theta_ddot + pC`` (``IC = sum_tops Xup^T IC Xup``, ``pC = sum_tops Xup^T Y``).
Eliminating ``theta_ddot = (u - U^T a_p) / D``, ``u = tau_theta - E``, leaves p the articulated inertia
``IC - U U^T / D`` and bias ``pC + U u / D``: one joint of ABA with a 6-vector U that no single axis gives.
A group that does not hang from one body (a mimic joint in another branch than its master, below
independent joints) couples coordinates no tree sweep eliminates: `aba_obstacle` says so and forward
dynamics takes CRBA and a checked solve (`operations`).
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from .. import spatial as sp
from ..errors import SingularError
from .ltdl import dof_parents, solve_tree
from .kinematics import (Tree, add_load, base_rotation, body_scope, body_xforms, children_of, depth_first, joint_xforms,
                         link_forces, rigid_congruence, rotate, rotate_back, xup_congruence)


@dataclasses.dataclass(frozen=True)
class MacroJoint:
    """The bodies (parents first) one independent ``coordinate`` moves, all hanging from body ``root``
    (-1: the base, or the world for a fixed base): each body's parent is ``root`` or one of them."""

    coordinate: int
    root: int
    bodies: tuple


def _groups(tree: Tree) -> dict:
    """``{coordinate: its bodies}`` for the coordinates that move more than one body (mimic joints)."""
    bodies = {}
    for i, (k, _, _) in enumerate(tree.coordinates):
        bodies.setdefault(k, []).append(i)
    return {k: tuple(b) for k, b in bodies.items() if len(b) > 1}


def _roots(tree: Tree, bodies) -> list:
    """The bodies outside ``bodies`` that some of them hang from, in index order."""
    return sorted({tree.parent[i] for i in bodies} - set(bodies))


def aba_obstacle(tree: Tree) -> Optional[str]:
    """Why `aba` cannot run on ``tree``'s mimic joints (a sentence naming them), None where it can."""
    for bodies in _groups(tree).values():
        roots = _roots(tree, bodies)
        if len(roots) > 1:
            where = ", ".join(repr(tree.names[p]) if p != -1 else "the base" for p in roots)
            return (f"the joints {', '.join(repr(tree.names[i]) for i in bodies)} share one coordinate but hang from "
                    f"different bodies (below {where}), which no articulated-body sweep eliminates")
    return None


def macro_joints(tree: Tree) -> tuple:
    """The `MacroJoint` of each coordinate that moves more than one body; ValueError where one does not hang
    from one body (`aba_obstacle`)."""
    obstacle = aba_obstacle(tree)
    if obstacle is not None:
        raise ValueError(f"articulated-body algorithm: {obstacle}")
    return tuple(MacroJoint(k, _roots(tree, bodies)[0], bodies) for k, bodies in _groups(tree).items())


@dataclasses.dataclass
class _Sums:
    """A macro joint's sums at its root, in the root's frame (the module docstring): ``IC`` (rigid while
    nothing articulated hangs below its bodies), ``pC``, ``U``, ``D``, ``E``."""

    IC: object = None
    pC: object = None
    U: object = None
    D: object = 0
    E: object = 0


def aba(tree: Tree, ops, q, qd, tau, base=None, loads=None):
    """qdd = M^-1 (tau - C qd - g - tau_load), in O(n).

    ``q``, ``qd``: the bodies' coordinates (`coordinates.positions`, `coordinates.rates`); ``tau``: G
    generalized forces; ``base`` (floating only): ``(quat_xyzw, velocity)``; ``tau`` then starts with the
    root wrench in A0. Returns G scalars: for a floating base ``[omegadot_W, pddot_W]`` (classical
    acceleration of the base origin) then the independent coordinates' accelerations. The floating base's
    own quantities (v0, IA0, pA0, a0) are in its body frame. Mimic joints: `MacroJoint` (the module docstring).
    """
    tree = along_axes(tree)
    nb = tree.nb
    S, I = tree.S, tree.I
    macros = macro_joints(tree)
    macro, at_root = [None] * nb, {}                                                  # body -> its MacroJoint
    for m in macros:
        at_root.setdefault(m.root, []).append(m)
        for i in m.bodies:
            macro[i] = m
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
            IA[i] = I[i] if macro[i] else sp.rigid_matrix(I[i])                       # IA = I (6x6; rigid in a macro)
            pA[i] = sp.Force(add_load(v[i].cross(I[i] @ v[i]), f_load[i]))
            ops.label(v[i], f"v{i}")
            ops.label(c[i], f"c{i}")
            ops.label(pA[i], f"pA{i}")
    if tree.floating:
        I0 = sp.RigidInertia(tree.I_base)
        IA0 = sp.rigid_matrix(I0)
        pA0 = sp.Force(add_load(v0.cross(I0 @ v0), f_load0))
    U, dinv, u = [None] * nb, [None] * nb, [None] * nb
    s, Fr, sums = [None] * nb, [None] * nb, {m.coordinate: _Sums() for m in macros}
    for i in reversed(order):
        for m in at_root.get(i, ()):
            Ia_p, pa_p = _eliminate(tree, ops, m, sums[m.coordinate], tau, U, dinv, u)
            IA[i], pA[i] = _add(IA[i], Ia_p), pA[i] + pa_p
        if macro[i]:
            _macro_body(tree, ops, i, macro[i], sums[macro[i].coordinate], XJ, Xup, c, IA, pA, s, Fr)
            continue
        with body_scope(tree, ops, i, "U, d, u, IA and pA to the parent"):
            U[i] = sp.Force(sp.mat_vec(IA[i], S[i]))                                  # U = IA S
            d = sp.add(S[i] @ U[i], tree.armature[i])
            ops.require_positive(d, SingularError, f"articulated inertia of joint {tree.names[i]!r} is not positive")
            dinv[i] = 1 / d
            u[i] = sp.sub(tau[tree.coordinates[i][0]], S[i] @ pA[i])
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
                IA[p] = _add(IA[p], Ia_p)
                pA[p] = pA[p] + Xup[i].T @ pa
    for m in at_root.get(-1, ()):
        Ia_p, pa_p = _eliminate(tree, ops, m, sums[m.coordinate], tau, U, dinv, u)
        if tree.floating:
            IA0, pA0 = sp.mat_add(IA0, Ia_p), pA0 + pa_p
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
            a_p = a0 if p == -1 else a[p]
            a[i] = Xup[i] @ a_p + c[i]
            if macro[i]:
                j = macro[i].bodies[0]                                                # holds the macro's U, d, u
                if qdd[j] is None:
                    qdd[j] = sp.mul(sp.sub(u[j], sp.dot(U[j], a_p)), dinv[j])         # (u - U^T a_root) / D
                    ops.label(qdd[j], f"qdd{j}")
                a[i] = a[i] + s[i] * qdd[j]
            else:
                qdd[i] = sp.mul(sp.sub(u[i], sp.dot(U[i], a[i])), dinv[i])            # qdd = (u - U^T a) / d
                a[i] = a[i] + S[i] * qdd[i]
                ops.label(qdd[i], f"qdd{i}")
            ops.label(a[i], f"a{i}")
    qdd = [qdd[i] for i in _coordinate_bodies(tree)]
    if not tree.floating:
        return qdd
    a0 = rotate_back(E0, a0) + tree.a_grav                                            # a_W = X0^-1 a0 + a_g
    w, pdot = velocity[:3], velocity[3:]
    return list(a0[:3]) + list(sp.vadd(a0[3:], sp.cross(w, pdot))) + qdd               # pddot = a_lin + omega x pdot


def _macro_body(tree: Tree, ops, i: int, m: MacroJoint, sums: _Sums, XJ, Xup, c, IA, pA, s, Fr):
    """Body ``i`` of macro joint ``m``: its shares of D and E, and IC, Y and W to its parent or to the sums
    at the root (the module docstring)."""
    with body_scope(tree, ops, i, "W, Y, D and E of the macro joint, IC to the parent"):
        multiplier = tree.coordinates[i][1]
        s[i] = tree.S[i] * multiplier                                                   # s = a S
        W = _apply(IA[i], s[i]) if Fr[i] is None else _apply(IA[i], s[i]) + Fr[i]      # W = IC s + Fr
        sWF = s[i] @ W if Fr[i] is None else sp.add(s[i] @ W, s[i] @ Fr[i])
        sums.D = sp.add(sums.D, sp.add(sWF, sp.mul(sp.mul(multiplier, multiplier), tree.armature[i])))
        sums.E = sp.add(sums.E, sp.add(c[i] @ W, s[i] @ pA[i]))                         # W^T c + s^T P
        ops.label(W, f"W{i}")
        p = tree.parent[i]
        W_p = Xup[i].T @ W
        if p == m.root:
            sums.U = W_p if sums.U is None else sums.U + W_p
            if p == -1 and not tree.floating:                                           # the world takes no IC, Y
                return
        Y = pA[i] + _apply(IA[i], c[i])                                                 # Y = P + IC c
        IC_p, Y_p = _to_parent(tree, i, XJ[i], IA[i]), Xup[i].T @ Y
        if p == m.root:
            sums.IC, sums.pC = _add(sums.IC, IC_p), Y_p if sums.pC is None else sums.pC + Y_p
        else:
            IA[p], pA[p] = _add(IA[p], IC_p), pA[p] + Y_p
            Fr[p] = W_p if Fr[p] is None else Fr[p] + W_p


def _eliminate(tree: Tree, ops, m: MacroJoint, sums: _Sums, tau, U, dinv, u):
    """Macro joint ``m``'s U, 1 / D and u (kept at its first body) and what it leaves its root, ``(IC - U U^T /
    D, pC + U u / D)``, None for the world."""
    j = m.bodies[0]
    with body_scope(tree, ops, j, "U, D, u of the macro joint, IA and pA to the parent"):
        ops.require_positive(sums.D, SingularError, f"articulated inertia of joint {tree.names[j]!r} and the "
                             f"{len(m.bodies) - 1} joints that move with it is not positive")
        U[j], dinv[j], u[j] = sums.U, 1 / sums.D, sp.sub(tau[m.coordinate], sums.E)
        ops.label(U[j], f"U{j}")
        ops.label(dinv[j], f"dinv{j}")
        ops.label(u[j], f"u{j}")
        if m.root == -1 and not tree.floating:
            return None, None
        Ud = U[j] * dinv[j]
        pa = sums.pC + Ud * u[j]
        ops.label(pa, f"pa{j}")
        return sp.mat_project_out(_matrix(sums.IC), U[j], Ud), pa                       # IC - U U^T / D


def _apply(IC, m):
    """IC m for a rigid or a 6x6 inertia (a `Force`)."""
    return IC @ m if isinstance(IC, sp.RigidInertia) else sp.Force(sp.mat_vec(IC, m))


def _matrix(IC):
    return sp.rigid_matrix(IC) if isinstance(IC, sp.RigidInertia) else IC


def _add(A, B):
    """A + B of rigid or 6x6 inertias (None: nothing yet): rigid while both are."""
    if A is None:
        return B
    if isinstance(A, sp.RigidInertia) and isinstance(B, sp.RigidInertia):
        return A + B
    return sp.mat_add(_matrix(A), _matrix(B))


def _to_parent(tree: Tree, i: int, XJ, IC):
    """Xup^T IC Xup of body i's rigid or 6x6 inertia, in two sparse steps (`crba`, `xup_congruence`)."""
    if not isinstance(IC, sp.RigidInertia):
        return xup_congruence(tree, i, XJ, IC)
    return rigid_congruence(tree, i, XJ, IC)


def _coordinate_bodies(tree: Tree) -> list:
    """For each independent coordinate, the body whose qdd is its acceleration: its joint's (a macro joint's
    first body)."""
    body = [None] * tree.nj
    for i, (k, _, _) in enumerate(tree.coordinates):
        if body[k] is None:
            body[k] = i
    return body


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
