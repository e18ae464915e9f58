"""Energies and the generalized momentum.

Kinetic energy ``T = 1/2 nu^T M nu``, summed over the bodies in their frames as
``1/2 sum v . I v`` (the rotors' ``1/2 armature qd^2`` with it, as M has armature on its
diagonal); potential energy ``V = -g . sum m c`` over the moving bodies (a fixed base's
root does not move and does not count, as in Pinocchio), from the whole robot's composite
first moment; the generalized momentum ``p = M nu = sum J^T I v``, RNEA's backward pass with
each body's momentum ``I v`` as its force.
"""

from __future__ import annotations

from .. import spatial as sp
from .centroidal import composite_inertias
from .frames import base_pose
from .kinematics import (Tree, base_velocity, body_scope, body_velocities, body_xforms, joint_xforms, per_body,
                         rotate_back)

HALF = 0.5


def _velocities(tree: Tree, ops, q, qd, base):
    """(Xup, E0, v0, v): the bodies' velocities in their frames (``base``: ``(quat_xyzw, velocity)``)."""
    Xup = body_xforms(tree, joint_xforms(tree, q, ops), ops)
    E0, v0 = base_velocity(tree, ops, base)
    return Xup, E0, v0, body_velocities(tree, ops, Xup, qd, v0)


def kinetic_energy(tree: Tree, ops, q, qd, base=None):
    """T = 1/2 (sum v . I v + sum armature qd^2)."""
    _, _, v0, v = _velocities(tree, ops, q, qd, base)
    twice = 0
    for i in range(tree.nb):
        with body_scope(tree, ops, i, "v . I v"):
            twice = sp.add(twice, v[i] @ (tree.I[i] @ v[i]))                        # v . I v
            twice = sp.add(twice, sp.mul(tree.armature[i], sp.mul(qd[i], qd[i])))
    if tree.floating:
        I0 = sp.RigidInertia(tree.I_base)
        twice = sp.add(twice, v0 @ (I0 @ v0))
    return sp.mul(HALF, twice)


def momentum(tree: Tree, ops, q, qd, base=None) -> list:
    """p = M nu: G values (body coordinates: `coordinates.forces` reduces mimic joints)."""
    Xup, E0, v0, v = _velocities(tree, ops, q, qd, base)
    h = per_body(tree, ops, "h", lambda i: tree.I[i] @ v[i])                         # h = I v
    h0 = sp.RigidInertia(tree.I_base) @ v0 if tree.floating else None
    p = [None] * tree.nb
    for i in reversed(range(tree.nb)):
        with body_scope(tree, ops, i, "p, h to the parent"):
            p[i] = sp.add(tree.S[i] @ h[i], sp.mul(tree.armature[i], qd[i]))       # p_i = S_i . h_i
            parent = tree.parent[i]
            if parent != -1:
                h[parent] = h[parent] + Xup[i].T @ h[i]
            elif tree.floating:
                h0 = h0 + Xup[i].T @ h[i]
    return (list(rotate_back(E0, h0)) if tree.floating else []) + p                 # base: X0^T h0


def potential_energy(tree: Tree, ops, q, base=None):
    """V = -g . (m p + R h): m and h the moving bodies' mass and first moment in the root frame,
    ``(R^T, p)`` the root's pose (the identity for a fixed base)."""
    _, (m, h, _) = composite_inertias(tree, ops, q, {})
    E, p = base_pose(tree, ops, base)
    first = sp.vadd(sp.vscale(p, m), sp.mtv3(E, h))                                # sum m c, world frame
    return sp.neg(sp.dot(tree.a_grav[3:], first))
