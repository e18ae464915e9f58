"""Recursive Newton-Euler inverse dynamics (RBDA table 5.1; spatial_v2 ``ID.m``)."""

from __future__ import annotations

from dataclasses import dataclass

from .. import spatial as sp
from .kinematics import (Tree, add_load, base_rotation, base_spatial_acceleration, body_scope, body_xforms, children_of,
                         joint_xforms, link_forces, rotate, rotate_back)


@dataclass
class RneaPasses:
    """What the passes of RNEA leave: per body Xup, vJ = S qd, v, a, f (the whole subtree's
    force once the backward pass is done) and tau; floating base: E0 and the base body's v0, a0, f0."""

    Xup: list
    vJ: list
    v: list
    a: list
    f: list
    tau: list
    v0: tuple
    a0: tuple
    f0: tuple = None
    E0: tuple = None


def rnea_passes(tree: Tree, ops, q, qd, qdd, base=None, loads=None, gravity=True) -> RneaPasses:
    """The forward pass (v, a, f per body) and the backward pass (tau, accumulating f), body by body in the
    order of `body_steps`; see `rnea`."""
    nb = tree.nb
    S, I = tree.S, tree.I
    a_grav = tree.a_grav if gravity else sp.Motion((0,) * 6)
    E0 = None
    if tree.floating:
        quat, velocity, acceleration = base
        E0 = base_rotation(quat, ops)
        v0 = sp.Motion(rotate(E0, velocity))                                                   # v0 = X0 v_W
        a0 = sp.Motion(rotate(E0, base_spatial_acceleration(velocity, acceleration) - a_grav))  # a0 = X0 (a_W - a_g)
    else:
        v0 = sp.Motion((0,) * 6)
        a0 = -a_grav
    Xup = body_xforms(tree, joint_xforms(tree, q, ops), ops)
    f_load, f_load0 = link_forces(tree, loads)
    vJ, v, a, f = [None] * nb, [None] * nb, [None] * nb, [None] * nb
    tau = [None] * nb
    f0 = None

    def base_force():  # the floating base's own force, computed before its children's are added
        return sp.Force(add_load(sp.rigid_force(tree.I_base, a0, v0), f_load0)) if tree.floating else None

    depth_first = nb > DEPTH_FIRST_BODIES and not all(sp.is_zero(x) for x in list(qd) + list(v0))
    for i, entering in body_steps(tree.parent, depth_first):
        if not entering:
            tau[i], f0 = body_to_parent(tree, ops, i, Xup, f, f0 or base_force(), qdd)
            continue
        with body_scope(tree, ops, i, "v, a, f"):
            p = tree.parent[i]
            vp, ap = (v0, a0) if p == -1 else (v[p], a[p])
            vJ[i] = S[i] * qd[i]
            v[i] = Xup[i] @ vp + vJ[i]
            a[i] = Xup[i] @ ap + S[i] * qdd[i] + v[i].cross(vJ[i])
            f[i] = sp.Force(add_load(sp.rigid_force(I[i], a[i], v[i]), f_load[i]))         # f = I a + v x* I v
            ops.label(v[i], f"v{i}")
            ops.label(a[i], f"a{i}")
            ops.label(f[i], f"f{i}")
    return RneaPasses(Xup, vJ, v, a, f, tau, v0, a0, f0 or base_force(), E0)


#: `rnea_passes` takes its bodies depth first (`body_steps`) in a tree of more bodies than this, where the two
#: sweeps leave too many forces pending (the measurements: docs/benchmarks.md, "Summary of the latest run").
DEPTH_FIRST_BODIES = 20


def body_steps(parent, depth_first: bool) -> list:
    """The order of RNEA's steps per body: ``(i, True)`` its forward step, ``(i, False)`` its step to the parent
    (once its subtree's are done). ``depth_first``: each subtree's steps to the parent right after its forward
    steps, so few forces are pending at once (children in decreasing index order: a parent's forces are summed
    as in the sweeps); else the two sweeps, which keep the sibling chains side by side (where all velocities
    are zero, as for gravity, a body's steps are short and a chain's latencies add up)."""
    if not depth_first:
        return [(i, True) for i in range(len(parent))] + [(i, False) for i in reversed(range(len(parent)))]
    children = children_of(parent)
    out, stack = [], [(i, True) for i in children.get(-1, [])]
    while stack:
        i, entering = stack.pop()
        out.append((i, entering))
        if entering:
            stack.append((i, False))
            stack.extend((c, True) for c in children.get(i, []))
    return out


def body_to_parent(tree: Tree, ops, i, Xup, f, f0, qdd) -> tuple:
    """``(tau_i, f0)``: tau_i = S_i . f_i + armature_i qdd_i, and body i's force added to its parent's."""
    with body_scope(tree, ops, i, "tau, f to the parent"):
        tau = sp.add(tree.S[i] @ f[i], sp.mul(tree.armature[i], qdd[i]))
        ops.label(tau, f"tau{i}")
        p = tree.parent[i]
        if p != -1:
            f[p] = f[p] + Xup[i].T @ f[i]
        elif tree.floating:
            f0 = f0 + Xup[i].T @ f[i]
    return tau, f0


def backward_pass(tree: Tree, ops, Xup, f, f0, qdd) -> tuple:
    """RNEA's backward pass: ``(tau, f0)`` with tau_i = S_i . f_i + armature_i qdd_i, each body's force
    added to its parent's (``f`` in place: it ends as each subtree's total) and to the floating base
    body's ``f0``."""
    tau = [None] * tree.nb
    for i in reversed(range(tree.nb)):
        tau[i], f0 = body_to_parent(tree, ops, i, Xup, f, f0, qdd)
    return tau, f0


def rnea(tree: Tree, ops, q, qd, qdd, base=None, loads=None, gravity=True):
    """tau = M(q) qdd + C(q, qd) qd + g(q) + tau_load.

    q, qd, qdd: J scalars each. ``base`` (floating only): ``(quat_xyzw, velocity,
    acceleration)`` with world-frame 6-vectors, angular first, of the base origin
    (acceleration classical). ``loads``: one 6-vector per link (link frame, at the
    link origin, torque first) or None. Returns G scalars: for a floating base the
    root wrench in A0 (torque about the base origin, world axes) then J joint forces.
    The floating base's own quantities (v0, a0, f0) are in its body frame.
    """
    r = rnea_passes(tree, ops, q, qd, qdd, base, loads, gravity)
    return (list(rotate_back(r.E0, r.f0)) if tree.floating else []) + r.tau                  # f_W = X0^T f0
