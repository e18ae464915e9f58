"""Centre of mass and centroidal momentum (world axes; Orin and Goswami's A_G with the angular part first).

The bodies' inertias are taken to world coordinates at the world origin
(``I0 = X0^T I X0``) and summed over subtrees (composite inertias ``IC``, as in
CRBA). A generalized velocity's momentum about the world origin is ``IC s`` summed
over the joints (the whole robot's IC for the floating base's six), and moved to
the centre of mass c: ``h_G = [L_O - c x P, P]``. A fixed base's root link does
not move and does not count (as in Pinocchio).
"""

from __future__ import annotations

from .. import spatial as sp
from ..errors import ModelError
from .frames import base_columns, body_poses, motion_subspaces, velocities
from .kinematics import Tree


def _world_inertias(tree: Tree, ops, q, base):
    """(s, I0, IC): motion subspaces, body inertias and composite inertias (key -1: the base, the whole robot)."""
    bodies = range(tree.nb)
    X0 = body_poses(tree, ops, q, base, bodies)
    I0 = {i: sp.rigid_xform_back(X0[i], tree.I[i]) for i in bodies}                # I0 = X0^T I X0
    I0[-1] = sp.rigid_xform_back(X0[-1], tree.I_base) if tree.floating else (0, (0, 0, 0), ((0,) * 3,) * 3)
    IC = dict(I0)
    for i in reversed(bodies):
        IC[tree.parent[i]] = sp.rigid_add(IC[tree.parent[i]], IC[i])               # IC_parent += IC
    return motion_subspaces(tree, X0, bodies), I0, IC


def _center(IC_all):
    m, h, _ = IC_all
    if sp.is_zero(m):
        raise ModelError("center of mass: the moving bodies have no mass")
    return tuple(sp.mul(x, 1 / m) for x in h)                                         # c = h / m


def _about(f, c):
    """A momentum (or its rate) about the world origin, moved to the point c: [L - c x P, P]."""
    return sp.vsub(f[:3], sp.cross(c, f[3:])) + tuple(f[3:])


def _columns(tree: Tree, base, s, IC) -> list:
    """The momentum about the world origin of each generalized velocity (base first)."""
    return ([sp.rigid_apply(IC[-1], b) for b in base_columns(tree, base)]
            + [sp.rigid_apply(IC[i], s[i]) for i in range(tree.nb)])


def center_of_mass(tree: Tree, ops, q, base) -> list:
    _, _, IC = _world_inertias(tree, ops, q, base)
    return list(_center(IC[-1]))


def center_of_mass_jacobian(tree: Tree, ops, q, base) -> list:
    """3 x G, column-major: the linear momentum of each generalized velocity over the total mass."""
    s, _, IC = _world_inertias(tree, ops, q, base)
    _center(IC[-1])
    inverse_mass = 1 / IC[-1][0]
    return [sp.mul(x, inverse_mass) for col in _columns(tree, base, s, IC) for x in col[3:]]


def centroidal_momentum_matrix(tree: Tree, ops, q, base) -> list:
    """A_G, 6 x G column-major: ``A_G nu = [L_G, P]``, angular momentum about the CoM first."""
    s, _, IC = _world_inertias(tree, ops, q, base)
    c = _center(IC[-1])
    return [x for col in _columns(tree, base, s, IC) for x in _about(col, c)]


def centroidal_momentum_bias(tree: Tree, ops, q, qd, base) -> list:
    """``Adot_G nu``: the rate of the centroidal momentum at zero generalized acceleration.

    In world coordinates the momentum's rate is ``sum I0 a + v x* I0 v`` over the bodies,
    with a the bodies' accelerations at nudot = 0; about the CoM, ``cdot x P = 0``.
    """
    s, I0, IC = _world_inertias(tree, ops, q, base)
    c = _center(IC[-1])
    still = None if base is None else base[:3] + ((0,) * 6,)                        # nudot = 0
    v, a = velocities(tree, still, s, qd, range(tree.nb), [0] * tree.nb)
    rate = (0,) * 6
    for i, I in I0.items():
        rate = sp.vadd(rate, sp.vadd(sp.rigid_apply(I, a[i]), sp.crf(v[i], sp.rigid_apply(I, v[i]))))
    return list(_about(rate, c))
