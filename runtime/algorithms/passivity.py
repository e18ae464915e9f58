"""Passivity-based control's torques: tau = M(q) qdd_r + C(q, qd) qd_r + g(q) + J^T loads in one pass.

An RNEA whose bodies move with the actual velocity v and, for the products, the reference velocity
v_r (`coriolis`' factorisation C = sum J^T (I Jdot + B J)): per body, in its frame,

    v_i   = Xup_i v_p   + S_i qd_i              (actual)
    vr_i  = Xup_i vr_p  + S_i qdr_i             (reference)
    a_i   = Xup_i a_p   + S_i qddr_i + v_i x S_i qdr_i       (J qdd_r + Jdot qd_r)
    f_i   = I_i a_i + B_i vr_i,   B vr = (v x* I vr - I (v x vr) + vr x* I v) / 2

then RNEA's backward pass. With qd_r = nu and qdd_r = nudot it is inverse dynamics (B v = v x* I v).
A floating base's reference columns move with A0, which translates with the base and does not turn:
``a0 = X0 (nudot_r - a_g) + (0, E0 pdot) x vr0``.
"""

from __future__ import annotations

from .. import spatial as sp
from .kinematics import (Tree, add_load, base_velocity, body_scope, body_velocities, body_xforms, joint_xforms,
                         link_forces,
                         rotate, rotate_back)
from .rnea import backward_pass

HALF = 0.5


def _products(I, v, vr):
    """B vr = (v x* I vr - I (v x vr) + vr x* I v) / 2."""
    return sp.vscale(sp.vadd(sp.vsub(v.cross(I @ vr), I @ v.cross(vr)), vr.cross(I @ v)), HALF)


def passivity_forces(tree: Tree, ops, q, qd, qd_ref, qdd_ref, base=None, loads=None) -> list:
    """tau (G values, body coordinates): ``qd_ref``, ``qdd_ref`` per body (the base's six first when
    floating), ``base``: ``(quat_xyzw, velocity)``."""
    nb, off = tree.nb, 6 if tree.floating else 0
    S, I = tree.S, tree.I
    qdr, qddr = qd_ref[off:], qdd_ref[off:]
    Xup = body_xforms(tree, joint_xforms(tree, q, ops), ops)
    E0, v0 = base_velocity(tree, ops, base)
    v = body_velocities(tree, ops, Xup, qd, v0)
    zero = sp.Motion((0,) * 6)
    if tree.floating:
        vr0 = sp.Motion(rotate(E0, qd_ref[:6]))                                     # vr0 = X0 nu_r
        vA = sp.Motion((0, 0, 0) + tuple(v0[3:]))                                   # A0's velocity (0, E0 pdot)
        a0 = sp.Motion(rotate(E0, sp.vsub(qdd_ref[:6], tree.a_grav))) + vA.cross(vr0)
    else:
        vr0, a0 = zero, -tree.a_grav
    f_load, f_load0 = link_forces(tree, loads)
    vr, a, f = [None] * nb, [None] * nb, [None] * nb
    for i in range(nb):
        with body_scope(tree, ops, i, "vr, a, f"):
            p = tree.parent[i]
            vrp, ap = (vr0, a0) if p == -1 else (vr[p], a[p])
            vJr = S[i] * qdr[i]
            vr[i] = Xup[i] @ vrp + vJr
            a[i] = Xup[i] @ ap + S[i] * qddr[i] + v[i].cross(vJr)
            f[i] = sp.Force(add_load(I[i] @ a[i] + _products(I[i], v[i], vr[i]), f_load[i]))
            ops.label(vr[i], f"vr{i}")
            ops.label(a[i], f"a{i}")
            ops.label(f[i], f"f{i}")
    f0 = None
    if tree.floating:
        I0 = sp.RigidInertia(tree.I_base)
        f0 = sp.Force(add_load(I0 @ a0 + _products(I0, v0, vr0), f_load0))
    tau, f0 = backward_pass(tree, ops, Xup, f, f0, qddr)
    return (list(rotate_back(E0, f0)) if tree.floating else []) + tau
