"""Centre of mass and centroidal momentum (world axes; Orin and Goswami's A_G with the angular part first).

The composite inertias ``IC`` of the subtrees are summed in body coordinates, as in
CRBA. A joint's column is the momentum of its subtree moving with its motion subspace,
``IC S`` in its body, taken to world coordinates at the world origin (``X0^T``); the
floating base's six use the whole robot's composite inertia in world coordinates.
Momenta about the world origin are moved to the centre of mass c: ``h_G = [L_O - c x P,
P]``. A fixed base's root link does not move and does not count (as in Pinocchio).
"""

from __future__ import annotations

import functools

from .. import spatial as sp
from ..errors import ModelError
from .frames import base_columns, body_poses, motion_subspaces, moved_to, velocities
from .kinematics import Tree, body_xforms, joint_xforms

NO_INERTIA = (0, (0, 0, 0), ((0, 0, 0),) * 3)


def _composite_inertias(tree: Tree, ops, q, base, per_mass=False):
    """(X0, IC, IC_W): body poses, composite inertias in body coordinates (key -1: the base's, in
    the base frame), and the whole robot's in world coordinates at the world origin.

    As in CRBA, IC_parent += Xup^T IC Xup: a joint transform is sparse and the tree transform
    constant, so this is cheaper than taking every body's inertia to world coordinates.
    ``per_mass``: every inertia over the total mass (constants, scaled before tracing), so that
    quantities over the mass (the CoM ``h / m`` and its Jacobian) need no final division.
    """
    bodies = range(tree.nb)
    Xup = body_xforms(tree, joint_xforms(tree, q, ops))
    X0 = body_poses(tree, ops, q, base, bodies)
    IC = dict(enumerate(tree.I))
    IC[-1] = tree.I_base if tree.floating else NO_INERTIA
    if per_mass:
        k = 1 / _require_mass(functools.reduce(sp.add, (I[0] for I in IC.values())))
        IC = {i: (sp.mul(m, k), sp.vscale(h, k), tuple(sp.vscale(row, k) for row in Ib)) for i, (m, h, Ib) in IC.items()}
    for i in reversed(bodies):
        IC[tree.parent[i]] = sp.rigid_add(IC[tree.parent[i]], sp.rigid_xform_back(Xup[i], IC[i]))  # IC_p += Xup^T IC Xup
    return X0, IC, sp.rigid_xform_back(X0[-1], IC[-1])                                    # IC_W = X0^T IC X0


def _require_mass(m):
    if sp.is_zero(m):
        raise ModelError("center of mass: the moving bodies have no mass")
    return m


def _center(IC_W):
    m, h, _ = IC_W
    return tuple(sp.mul(x, 1 / _require_mass(m)) for x in h)                          # c = h / m


def _about(f, c):
    """A momentum (or its rate) about the world origin, moved to the point c: [L - c x P, P]."""
    return sp.vsub(f[:3], sp.cross(c, f[3:])) + tuple(f[3:])


def _columns(tree: Tree, base, X0, IC, IC_W, c) -> list:
    """The momentum about c of each generalized velocity (base first): a joint's is its subtree's
    IC S in its body, taken to world axes at c (X0 moved to c)."""
    return ([_about(sp.rigid_apply(IC_W, b), c) for b in base_columns(tree, base)]
            + [sp.xform_force_back(moved_to(X0[i], c), sp.rigid_apply(IC[i], tree.S[i]))
               for i in range(tree.nb)])


def center_of_mass(tree: Tree, ops, q, base) -> list:
    _, _, IC_W = _composite_inertias(tree, ops, q, base, per_mass=True)
    return list(IC_W[1])                                                               # c = h / m, m = 1


def center_of_mass_jacobian(tree: Tree, ops, q, base) -> list:
    """3 x G, column-major: the linear momentum of each generalized velocity over the total mass."""
    X0, IC, IC_W = _composite_inertias(tree, ops, q, base, per_mass=True)
    return [x for col in _columns(tree, base, X0, IC, IC_W, IC_W[1]) for x in col[3:]]


def centroidal_momentum_matrix(tree: Tree, ops, q, base) -> list:
    """A_G, 6 x G column-major: ``A_G nu = [L_G, P]``, angular momentum about the CoM first."""
    X0, IC, IC_W = _composite_inertias(tree, ops, q, base)
    return [x for col in _columns(tree, base, X0, IC, IC_W, _center(IC_W)) for x in col]


def centroidal_momentum_bias(tree: Tree, ops, q, qd, base) -> list:
    """``Adot_G nu``: the rate of the centroidal momentum at zero generalized acceleration.

    In world coordinates the momentum's rate is ``sum I0 a + v x* I0 v`` over the bodies,
    with a the bodies' accelerations at nudot = 0; about the CoM, ``cdot x P = 0``.
    """
    bodies = range(tree.nb)
    X0 = body_poses(tree, ops, q, base, bodies)
    I0 = {i: sp.rigid_xform_back(X0[i], tree.I[i]) for i in bodies}                 # I0 = X0^T I X0
    if tree.floating:
        I0[-1] = sp.rigid_xform_back(X0[-1], tree.I_base)
    c = _center(functools.reduce(sp.rigid_add, I0.values()))
    s = motion_subspaces(tree, X0, bodies)
    still = None if base is None else base[:3] + ((0,) * 6,)                        # nudot = 0
    v, a = velocities(tree, still, s, qd, bodies, [0] * tree.nb)
    rate = (0,) * 6
    for i, I in I0.items():
        rate = sp.vadd(rate, sp.vadd(sp.rigid_apply(I, a[i]), sp.crf(v[i], sp.rigid_apply(I, v[i]))))
    return list(_about(rate, c))
