"""Centre of mass and centroidal momentum (world axes; Orin and Goswami's A_G with the angular part first).

The composite inertias ``IC`` of the subtrees are summed in body coordinates, as in CRBA, each
taken first to its joint's frame at q = 0 (``XJ^T IC XJ``: for a revolute joint about a coordinate
axis, only the plane of the other two axes turns, `spatial.rigid_rotate_back`) and then to its parent's
(the constant ``Xtree``). A joint's column is the momentum of its subtree moving with its motion
subspace, ``ICJ S`` in the joint frame, whose world pose ``XJ0 = Xtree X0_parent`` needs no joint
rotation, taken to world axes at the centre of mass c (``XJ0^T`` moved to c). The floating base's
six columns about c are in closed form, ``[[I_G, 0], [-(R h)x, m 1]]``, with I_G the rotational
inertia about c in world axes and R h = m (c - p) the base-frame first moment in world axes. A
fixed base's root link does not move and does not count (as in Pinocchio).

The order of the passes is the order of the generated statements. A_G sums the composites first
(leaf to root, depth-first) and then takes the joint frames root to leaf, each column as soon as its
frame is known, so that a pass holds one branch's values, not every pose until c is known.
"""

from __future__ import annotations

import functools
import math

from .. import spatial as sp
from ..errors import ModelError
from .frames import base_pose, body_poses, motion_subspaces, moved_to, velocities
from .kinematics import Tree, body_scope, depth_first, joint_frame_inertia, joint_xform, joint_xforms

NO_INERTIA = (0, (0, 0, 0), ((0, 0, 0),) * 3)


def composite_inertias(tree: Tree, ops, q, XJ: dict, per_mass=False):
    """(ICJ, ICb): each joint's subtree's composite inertia in its joint frame at q = 0, and the root's (the
    whole robot's, root coordinates), summed leaf to root in reverse depth-first order.

    ``XJ``: the joint transforms (body -> XJ); a joint's that is missing is computed when the pass reaches it,
    and added. ``per_mass``: every inertia over the total mass (constants, scaled before tracing), so that
    quantities over the mass (the CoM and its Jacobian) need no final division.
    """
    IC = dict(enumerate(tree.I))
    IC[-1] = tree.I_base if tree.floating else NO_INERTIA
    if per_mass:
        k = 1 / _require_mass(functools.reduce(sp.add, (I[0] for I in IC.values())))
        IC = {i: (sp.mul(m, k), sp.vscale(h, k), tuple(sp.vscale(row, k) for row in Ib)) for i, (m, h, Ib) in IC.items()}
    ICJ = {}
    for i in reversed(depth_first(tree)):
        with body_scope(tree, ops, i, "ICJ, IC to the parent"):
            if i not in XJ:
                XJ[i] = joint_xform(tree, i, q[i], ops)
            ICJ[i] = joint_frame_inertia(tree, i, XJ[i], IC[i])                              # ICJ = XJ^T IC XJ
            IC[tree.parent[i]] = sp.rigid_add(IC[tree.parent[i]], sp.rigid_xform_back(tree.Xtree[i], ICJ[i]))
    return ICJ, IC[-1]


def _joint_frames(tree: Tree, XJ: dict, X0b):
    """(i, XJ0): each joint's frame at q = 0 in the world, ``XJ0 = Xtree X0_parent``, root to leaves in
    depth-first order, as a generator (computed as they are taken)."""
    X0 = {-1: X0b}
    for i in depth_first(tree):
        XJ0 = sp.xform_compose(tree.Xtree[i], X0[tree.parent[i]])                    # XJ0 = Xtree X0_parent
        X0[i] = sp.xform_compose(XJ[i], XJ0)                                          # X0 = XJ XJ0
        yield i, XJ0


def _require_mass(m):
    if sp.is_zero(m):
        raise ModelError("center of mass: the moving bodies have no mass")
    if isinstance(m, float) and not (m != 0 and math.isfinite(1 / m)):
        raise ModelError(f"center of mass: the moving bodies' total mass, {m!r} kg, has no finite reciprocal: "
                         f"give the links their real masses")
    return m


def _center(I):
    """The centre of mass of a rigid inertia in world coordinates: c = h / m."""
    m, h, _ = I
    return tuple(sp.mul(x, 1 / _require_mass(m)) for x in h)


def _about(f, c):
    """A momentum (or its rate) about the world origin, moved to the point c: [L - c x P, P]."""
    return sp.vsub(f[:3], sp.cross(c, f[3:])) + tuple(f[3:])


def _about_center(I):
    """The rotational inertia of (m, h, Ib) about its centre of mass d = h / m (parallel axes): Ib + hx dx,
    whose entry (i, j) is ``Ib_ij + h_i d_j`` off the diagonal and ``Ib_ii - (h_j d_j + h_k d_k)`` on it."""
    m, h, Ib = I
    d = sp.vscale(h, 1 / _require_mass(m))                                            # d = h / m
    hd = [sp.mul(h[a], d[a]) for a in range(3)]                                       # h_a d_a
    Ic = [[0] * 3 for _ in range(3)]
    for a in range(3):
        for b in range(3):
            if a == b:
                Ic[a][a] = sp.sub(Ib[a][a], sp.add(hd[(a + 1) % 3], hd[(a + 2) % 3]))  # Ib_aa - (h_b d_b + h_c d_c)
            else:
                Ic[a][b] = sp.add(Ib[a][b], sp.mul(h[a], d[b]))                     # Ib_ab + h_a d_b
    return tuple(tuple(row) for row in Ic)


def _base_columns(tree: Tree, E, ICb, Rh) -> list:
    """The momenta about the CoM of the floating base's six velocities ``[omega_W, pdot_W]`` (none if fixed).

    The robot moves as one rigid body: turning about the base origin p it has ``L = I_G omega`` and
    ``P = m omega x (c - p) = -(R h) x omega``; translating, ``L = 0`` and ``P = m pdot``.
    """
    if not tree.floating:
        return []
    m = ICb[0]
    _, _, I_G = sp.rigid_xform_back((E, (0, 0, 0)), (0, (0, 0, 0), _about_center(ICb)))  # I_G = R Ic R^T
    Rhx = sp.skew(Rh)
    return ([tuple(I_G[r][j] for r in range(3)) + tuple(sp.neg(Rhx[r][j]) for r in range(3)) for j in range(3)]
            + [(0, 0, 0) + tuple(m if r == j else 0 for r in range(3)) for j in range(3)])


def _columns(tree: Tree, frames, ICJ, X0b, ICb) -> list:
    """The momentum about the CoM c of each generalized velocity (base first): a joint's is its subtree's
    ICJ S in its joint frame, taken to world axes at c (XJ0 moved to c); ``frames``: `_joint_frames`."""
    E, p = X0b
    m, h, _ = ICb
    Rh = sp.mtv3(E, h)                                                                # R h = m (c - p)
    c = sp.vadd(p, sp.vscale(Rh, 1 / _require_mass(m)))
    column = {i: sp.xform_force_back(moved_to(XJ0, c), sp.rigid_apply(ICJ[i], tree.S[i])) for i, XJ0 in frames}
    return _base_columns(tree, E, ICb, Rh) + [column[i] for i in range(tree.nb)]


def center_of_mass(tree: Tree, ops, q, base) -> list:
    _, (m, h, _) = composite_inertias(tree, ops, q, {}, per_mass=True)
    E, p = base_pose(tree, ops, base)
    return list(sp.vadd(p, sp.mtv3(E, h)))                                            # c = p + R h / m, m = 1


def center_of_mass_jacobian(tree: Tree, ops, q, base) -> list:
    """3 x G, column-major: the linear momentum of each generalized velocity over the total mass.

    The joint frames first, then the composites: only the first moments h of the composites are needed.
    """
    XJ = dict(enumerate(joint_xforms(tree, q, ops)))
    X0b = base_pose(tree, ops, base)
    frames = list(_joint_frames(tree, XJ, X0b))
    ICJ, ICb = composite_inertias(tree, ops, q, XJ, per_mass=True)
    return [x for col in _columns(tree, frames, ICJ, X0b, ICb) for x in col[3:]]


def centroidal_momentum_matrix(tree: Tree, ops, q, base) -> list:
    """A_G, 6 x G column-major: ``A_G nu = [L_G, P]``, angular momentum about the CoM first.

    The composites first (each joint's transform computed as the pass reaches it), then c, then the joint
    frames root to leaves with each column as its frame is known.
    """
    XJ = {}
    ICJ, ICb = composite_inertias(tree, ops, q, XJ)
    X0b = base_pose(tree, ops, base)
    return [x for col in _columns(tree, _joint_frames(tree, XJ, X0b), ICJ, X0b, ICb) for x in col]


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
    s = motion_subspaces(tree, ops, X0, bodies)
    still = None if base is None else base[:3] + ((0,) * 6,)                        # nudot = 0
    v, a = velocities(tree, ops, still, s, qd, bodies, [0] * tree.nb)
    rate = (0,) * 6
    for i, I in I0.items():
        rate = sp.vadd(rate, sp.rigid_force(I, a[i], v[i]))                        # I a + v x* I v
    return list(_about(rate, c))
