"""Regressors: dynamics that are linear in the inertial parameters, as matrices times ``pi``.

``pi`` is laid out by `rbdgen.parameters` (10 per body: ``m, m c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz`` about
the body origin; the floating base's body first). Each body's force ``f = I a + v x* I v`` is linear
in its parameters: `body_regressor` gives the force of each unit parameter (the tracer folds the unit
inertias' structural zeros and ones, so it costs what the formula written out costs). The joint
force of body i from body j (j in i's subtree) is ``S_i . X_{j<-i}^T f_j = (X_{j<-i} S_i) . f_j``:
each body carries its ancestors' motion subspaces into its own frame (one transform per ancestor),
and each regressor entry is one dot product there. A floating base's six rows are the root wrench in
world axes about the base origin, ``X_{j<-W}^T f_j``: each body composes the one transform from the
world-aligned base frame W to its own, and the ten forces go through it once (six dot products a
force would cost more).

The known part (what does not depend on ``pi``: the rotors' ``armature qdd`` and ``J^T loads``) is
left out, `known_forces`: ``inverse_dynamics = Y pi + armature qdd + J^T loads``.
"""

from __future__ import annotations

import dataclasses

from .. import spatial as sp
from . import coordinates
from .frames import body_poses
from .parametric import rigid_inertia
from .kinematics import Tree, base_velocity, body_velocities, body_xforms, joint_xforms
from .rnea import rnea, rnea_passes


#: The ten unit inertias (parameter k 1, the others 0: structural ints), in parameter order.
UNIT = tuple(rigid_inertia([int(j == k) for j in range(10)]) for k in range(10))


def body_regressor(v, a):
    """The body force ``I a + v x* I v`` of each unit parameter: 10 forces, ``f = sum_k pi_k A[k]`` (one at
    a time: each regressor column is taken from its force before the next force is traced)."""
    return (I @ a + v.cross(I @ v) for I in UNIT)


def _columns(rows, forces, size, X=None) -> list:
    """The 10 regressor columns of one body: entry r of column k is ``s_r . A[k]``; a floating base's
    six rows are ``X^T A[k]`` (``X``: ``(E, r)`` from the world-aligned base frame to the body)."""
    columns = []
    for A in forces:
        column = [0] * size if X is None else list(sp.Xform(X).T @ A) + [0] * (size - 6)
        for r, s in rows:
            column[r] = s @ A
        columns.append(column)
    return columns


def inverse_dynamics_regressor(tree: Tree, ops, q, qd, qdd, base=None) -> list:
    """Y with ``tau_full = Y pi`` (loads and armature left out): 10 B columns of full coordinates
    (``base``: ``(quat_xyzw, velocity, acceleration)`` as for `rnea`). Each body's path is traced just
    before its columns, which need it, so that little is pending at once."""
    r = rnea_passes(tree, ops, q, qd, qdd, base)
    size = tree.nb + (6 if tree.floating else 0)
    off = 6 if tree.floating else 0
    # floating base: X_{i<-W}, from the base origin in world axes (the base posed at the world origin)
    X = body_poses(tree, ops, q, ((0, 0, 0), base[0], None, None), range(tree.nb)) if tree.floating else {}
    rows = {-1: []}  # per body: (row, motion) of every joint on its path, in its frame
    columns = _columns([], body_regressor(r.v0, r.a0), size, X[-1]) if tree.floating else []
    for i in range(tree.nb):
        rows[i] = [(row, r.Xup[i] @ s) for row, s in rows[tree.parent[i]]] + [(off + i, tree.S[i])]  # X_{i<-p} s
        columns += _columns(rows[i], body_regressor(r.v[i], r.a[i]), size, X.get(i))
    return columns


def regressor_columns(tree: Tree, ops, q, qd, qdd, base=None) -> list:
    """`inverse_dynamics_regressor` on the independent coordinates: each column reduced by ``P^T``
    (`coordinates.forces`; ``q``, ``qd``, ``qdd`` already per body)."""
    return [coordinates.forces(tree, column) for column in inverse_dynamics_regressor(tree, ops, q, qd, qdd, base)]


def known_forces(tree: Tree, ops, q, qdd, base=None, loads=None) -> list:
    """``armature qdd + J^T loads`` (full coordinates): inverse dynamics of the tree with every inertia zero,
    the part that does not depend on ``pi`` (``base``: ``(quat_xyzw, velocity, acceleration)``)."""
    massless = rigid_inertia([0] * 10)
    tree = dataclasses.replace(tree, I=(massless,) * tree.nb, I_base=tuple(massless))
    return rnea(tree, ops, q, [0] * tree.nb, qdd, base, loads)


def _kinetic(v) -> list:
    """``1/2 v . I v`` of each unit parameter."""
    return [sp.mul(0.5, v @ (I @ v)) for I in UNIT]


def _potential(g, X0) -> list:
    """``-g . (m r + E^T h)`` of each parameter (``X0 = (E, r)``: world to body): ``-g . r`` for the mass,
    ``-E g`` for the first moment, 0 for the rotational inertia."""
    E, r = X0
    return [sp.neg(sp.dot(g, r))] + [sp.neg(x) for x in sp.mv3(E, g)] + [0] * 6


def energy_regressor(tree: Tree, ops, q, qd, base=None) -> tuple:
    """``(kinetic, potential)``: 10 B coefficients each, ``T = kinetic . pi + 1/2 sum armature qd^2`` and
    ``V = potential . pi`` (``base``: ``(translation, quat_xyzw, velocity, acceleration)``)."""
    Xup = body_xforms(tree, joint_xforms(tree, q, ops), ops)
    _, v0 = base_velocity(tree, ops, base[1:3] if tree.floating else None)
    v = body_velocities(tree, ops, Xup, qd, v0)
    X0 = body_poses(tree, ops, q, base, range(tree.nb))
    g = tree.a_grav[3:]
    kinetic = _kinetic(v0) if tree.floating else []
    potential = _potential(g, X0[-1]) if tree.floating else []
    for i in range(tree.nb):
        kinetic += _kinetic(v[i])
        potential += _potential(g, X0[i])
    return kinetic, potential
