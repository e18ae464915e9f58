"""Tree constants and the kinematic quantities every dynamics algorithm shares.

`Tree` is the model side (Pinocchio's ``Model``): per-body constants folded to
structural ints where exact. The functions below compute per-state quantities
(``Xup``, the base frame, link loads) for any scalar backend ``ops``.

Floating base: the generalized base coordinates live in the frame ``A0`` at the
base origin with world-aligned axes: there the base's spatial velocity is exactly
``[omega_W, pdot_W]`` and a wrench is dynibo's root wrench (torque about the base
origin, world axes, torque first). The algorithms work in the base body frame B
(constant base inertia, the base's children posed by constants and their joints
only) and turn base quantities between A0 and B with ``X0 = rot(R^T)`` once at
each end: only those few operations depend on the base orientation.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..model import LoopModel, RobotModel, quaternion_matrix
from .. import spatial as sp


@dataclass(frozen=True)
class Tree:
    """Per-model constants for the algorithms (built once per model)."""

    names: tuple  # the bodies' joint names, for error messages
    bodies: tuple  # the name of each body's link (its joint's child), for the scopes of generated code
    parent: tuple  # parent body of each body, -1 for the root
    kind: tuple  # "revolute" or "prismatic"
    axis: tuple  # joint axis (structural ints where exact)
    Xtree: tuple  # X from the parent body to the joint frame at q = 0
    S: tuple  # motion subspace (`sp.Motion`) in the joint frame
    I: tuple  # rigid inertia (`sp.RigidInertia`: m, h, Ib) in the joint frame
    armature: tuple
    I_base: tuple  # base rigid inertia in the base frame (floating only)
    link_body: tuple  # body each link is welded to (-1: root/base)
    Xlink: tuple  # X from the body frame to each link frame
    Qtree: tuple  # the quaternion (x, y, z, w) of each Xtree's rotation, with the model's sign
    Qlink: tuple  # the same of each Xlink
    a_grav: tuple  # gravity as a spatial acceleration (`sp.Motion`) in world axes
    floating: bool
    coordinates: tuple  # per body: (k, multiplier, offset), its joint position multiplier * q[k] + offset
    nj: int  # independent coordinates (J); nb - nj bodies are moved by mimic joints
    contacts: object = None  # the declared contacts (`rbdgen.contacts.ContactModel`), None: none
    loops: object = None  # the model's closed loops (`rbdgen.loops.LoopModel`), None: none
    parameters: tuple = ()  # bodies (`rbdgen.parameters` order) whose inertias are the input "params" (`parametric`)
    turn: tuple = ()  # per body: the angle its Xtree's rotation about the joint's own axis adds to q (`axis_turn`)

    @staticmethod
    def from_model(model: RobotModel, contacts=None) -> "Tree":
        axes = tuple(tuple(sp.const(x) for x in j.axis) for j in model.joints)
        turns = [axis_turn(j.kind, a, sp.xform_from_pose(j.origin)) for j, a in zip(model.joints, axes)]
        return Tree(
            names=tuple(j.name for j in model.joints),
            bodies=tuple(_body_links(model)),
            parent=tuple(j.parent for j in model.joints),
            kind=tuple(j.kind for j in model.joints),
            axis=axes,
            Xtree=tuple(X for _, X in turns),
            S=tuple(sp.Motion((a + (0, 0, 0)) if j.kind == "revolute" else ((0, 0, 0) + a))
                    for j, a in zip(model.joints, axes)),
            I=tuple(sp.RigidInertia(sp.rigid_inertia(j.inertia)) for j in model.joints),
            armature=tuple(sp.const(j.armature) for j in model.joints),
            I_base=sp.rigid_inertia(model.base_inertia),
            link_body=tuple(link.body for link in model.links),
            Xlink=tuple(sp.xform_from_pose(link.pose) for link in model.links),
            Qtree=tuple(tuple(sp.const(x) for x in j.origin.quaternion) for j in model.joints),
            Qlink=tuple(tuple(sp.const(x) for x in link.pose.quaternion) for link in model.links),
            a_grav=sp.Motion((0, 0, 0) + tuple(sp.const(g) for g in model.gravity)),
            floating=model.floating,
            coordinates=tuple((k, sp.const(a), sp.const(b)) for k, a, b in model.coordinates),
            nj=model.joint_count,
            contacts=contacts,
            loops=LoopModel.declare(model, contacts),
            turn=tuple(angle for angle, _ in turns),
        )

    @property
    def nb(self) -> int:
        """The number of bodies (moving joints, mimic joints included)."""
        return len(self.parent)


#: `axis_turn`: how far from 0 the off-axis entries of a joint axis in its parent's frame may be (those of
#: angles written in decimal, as `model.Transform.from_rpy` snaps them).
AXIS_TOLERANCE = 1e-15


def axis_turn(kind: str, axis, Xtree) -> tuple:
    """``(angle, Xtree)``: a revolute joint's tree rotation E = R(a, angle)^T P written as a turn about its own
    axis a (a coordinate axis) after a signed permutation P, so that XJ(q) Xtree = XJ(q + angle) (P, r).

    A URDF that writes pi/2 with 11 digits (UR5's ``1.57079632679``) gives a rotation 5e-12 away from a
    permutation, whose products do not fold; about the joint's own axis it is the angle instead, and XJ's
    matrix keeps the pattern of a rotation about a coordinate axis. Taken where the joint axis in the parent's
    frame, E^T a, is a coordinate axis to `AXIS_TOLERANCE`; of the four P, the one of the smallest turn.
    The transform is the same to rounding (the turn is added to q before its sine and cosine). Otherwise
    ``(0, Xtree)``.
    """
    E, r = Xtree
    nonzero = [k for k in range(3) if not sp.is_zero(axis[k])]
    if kind != "revolute" or len(nonzero) != 1 or type(axis[nonzero[0]]) is not int:
        return 0, Xtree
    k = nonzero[0]
    sigma = axis[k]
    b = [E[k][m] * sigma for m in range(3)]  # E^T a: the joint axis in the parent's frame
    m = max(range(3), key=lambda n: abs(b[n]))
    if any(abs(b[n]) > AXIS_TOLERANCE for n in range(3) if n != m):
        return 0, Xtree
    i, j = (k + 1) % 3, (k + 2) % 3
    best = None
    for P in _rotations_taking(m, sigma * (1 if b[m] > 0 else -1), k):  # P b = a
        R = sp.mm3(P, sp.transpose3(E))  # R(a, turn) = P E^T
        angle = sigma * math.atan2(R[j][i], R[i][i])
        if best is None or abs(angle) < abs(best[0]):
            best = angle, P
    angle, P = best
    if angle == 0:
        return 0, Xtree
    return angle, (P, r)


def _rotations_taking(m: int, sign: int, k: int) -> list:
    """The signed permutation matrices of determinant 1 that take ``e_m`` to ``sign e_k`` (four of them)."""
    out = []
    for perm in itertools.permutations(range(3)):
        if perm[m] != k:
            continue
        for signs in itertools.product((1, -1), repeat=3):
            P = [[0] * 3 for _ in range(3)]
            for col in range(3):
                P[perm[col]][col] = signs[col]
            if P[k][m] * sign == 1 and _det3(P) == 1:
                out.append(tuple(tuple(row) for row in P))
    return out


def _det3(P) -> int:
    return (P[0][0] * (P[1][1] * P[2][2] - P[1][2] * P[2][1]) - P[0][1] * (P[1][0] * P[2][2] - P[1][2] * P[2][0])
            + P[0][2] * (P[1][0] * P[2][1] - P[1][1] * P[2][0]))


def _body_links(model: RobotModel):
    """The link of each body: the first link welded to it (the joint's child, at the body frame)."""
    first = {}
    for link in model.links:
        first.setdefault(link.body, link.name)
    return (first.get(i, model.joints[i].name) for i in range(len(model.joints)))


def body_scope(tree: Tree, ops, i: int, what: str):
    """``ops.scope`` of body ``i``'s share of a pass computing ``what``: ``body 3 panda_link4: v, a, f`` (the
    body's index, as in q, and its link's name from the robot file; `body_scope_head`, then ``what``)."""
    return ops.scope(body_scope_head(tree, i) + what)


def body_scope_head(tree: Tree, i: int) -> str:
    """What every `body_scope` of body ``i`` starts with: ``body 3 panda_link4: ``."""
    return f"body {i} {tree.bodies[i]}: "


def per_body(tree: Tree, ops, what: str, value) -> list:
    """``[value(i) for each body i]``, each in its `body_scope` of ``what``."""
    out = []
    for i in range(tree.nb):
        with body_scope(tree, ops, i, what):
            out.append(value(i))
    return out


def joint_xform(tree: Tree, i: int, qi, ops):
    """XJ: from the joint frame at q = 0 to the moved body frame (RBDA table 4.1).

    Revolute: E = R(axis, q)^T with R = a a^T + cos q (1 - a a^T) + sin q ax (Rodrigues);
    prismatic: a translation by q along the axis.
    """
    a = tree.axis[i]
    if tree.kind[i] == "prismatic":
        return ((1, 0, 0), (0, 1, 0), (0, 0, 1)), tuple(sp.mul(x, qi) for x in a)
    if tree.turn:
        qi = sp.add(qi, tree.turn[i])                                                   # `axis_turn`
    c, s = ops.cos(qi), ops.sin(qi)
    ax = sp.skew(a)
    R = tuple(
        tuple(
            sp.add(sp.add(sp.mul(a[r], a[k]), sp.mul(c, sp.sub(int(r == k), sp.mul(a[r], a[k])))), sp.mul(s, ax[r][k]))
            for k in range(3)
        )
        for r in range(3)
    )
    return sp.transpose3(R), (0, 0, 0)


def coordinate_axis(tree: Tree, i: int):
    """k when joint i is revolute about a coordinate axis of its frame (``axis = +-e_k``), else None."""
    a = tree.axis[i]
    nonzero = [k for k in range(3) if not sp.is_zero(a[k])]
    if tree.kind[i] != "revolute" or len(nonzero) != 1 or type(a[nonzero[0]]) is not int:
        return None
    return nonzero[0]


def xup_congruence(tree: Tree, i: int, XJ, M):
    """Xup^T M Xup for a symmetric 6x6 M in body i's frame (an articulated inertia), in two steps,
    Xtree^T (XJ^T M XJ) Xtree: each factor is sparse (an axis rotation, a constant transform), their
    product usually is not; a rotation about a coordinate axis by `spatial.mat_rotate_back`."""
    k = coordinate_axis(tree, i)
    MJ = sp.mat_congruence(XJ, M) if k is None else sp.mat_rotate_back(XJ[0], k, M)
    return sp.mat_congruence(tree.Xtree[i], MJ)


def rigid_congruence(tree: Tree, i: int, XJ, I):
    """Xup^T I Xup of a rigid inertia I in body i's frame, in two sparse steps: Xtree^T (XJ^T I XJ) Xtree
    (`joint_frame_inertia`, then the constant tree transform)."""
    Xtree = sp.Xform(tree.Xtree[i])
    return Xtree.T @ sp.RigidInertia(joint_frame_inertia(tree, i, XJ, I)) @ Xtree


def joint_frame_inertia(tree: Tree, i: int, XJ, I):
    """XJ^T I XJ: a rigid inertia in body i's coordinates taken to its joint's frame at q = 0; for a revolute
    joint about a coordinate axis only the plane of the other two axes turns (`spatial.rigid_rotate_back`)."""
    k = coordinate_axis(tree, i)
    return sp.rigid_xform_back(XJ, I) if k is None else sp.rigid_rotate_back(XJ[0], k, I)


def depth_first(tree: Tree) -> list:
    """The bodies in depth-first order (each before its subtree, children in index order): a pass over them
    finishes one branch before the next, so little is pending at once."""
    return preorder(tree.parent)


def children_of(parent) -> dict:
    """``{node: its children in index order}`` of a forest given by its ``parent`` array (key -1: the roots);
    a leaf has no key."""
    children = {}
    for i, p in enumerate(parent):
        children.setdefault(p, []).append(i)
    return children


def preorder(parent) -> list:
    """The nodes of a forest given by its ``parent`` array (-1: a root) depth first, each before its subtree,
    children in index order: every ancestor of a node comes before it, and a subtree is one run."""
    children = children_of(parent)
    order, stack = [], children.get(-1, [])[::-1]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(children.get(i, [])[::-1])
    return order


def quaternion_rotation(quat, ops):
    """R (world <- base) of a quaternion (x, y, z, w); it need not be unit (s = 2 / |q|^2). The checks keep s
    finite, |q|^2 above the precision's smallest normal value ``tiny`` (not a subnormal, which flush-to-zero
    reads as zero; 2 / tiny is finite) and under the largest (`rbdgen.ir.ranges` bounds the rotation's entries,
    and what is computed from them, by them)."""
    x, y, z, w = quat
    n2 = x * x + y * y + z * z + w * w
    ops.require_positive(n2, InvalidInputError, "base quaternion is zero")
    s = 2 / n2
    ops.require_positive(s, InvalidInputError, "base quaternion is too large: normalise it")
    ops.require_positive(n2 - ops.tiny, InvalidInputError, "base quaternion is too small: normalise it")
    return quaternion_matrix(quat, s)


def base_rotation(quat, ops):
    """E0 = R^T: rotates A0 (world-aligned) coordinates into base-body coordinates."""
    return sp.transpose3(quaternion_rotation(quat, ops))


def joint_xforms(tree: Tree, q, ops):
    """XJ[i] = XJ(q_i) for every joint."""
    XJ = []
    for i in range(tree.nb):
        with body_scope(tree, ops, i, "XJ"):
            XJ.append(joint_xform(tree, i, q[i], ops))
    return XJ


def body_xforms(tree: Tree, XJ, ops):
    """Xup[i] = XJ[i] Xtree[i] (`sp.Xform`): from body parent(i) (the root/base body for -1) to body i."""
    Xup = []
    for i in range(tree.nb):
        with body_scope(tree, ops, i, "Xup"):
            Xup.append(sp.Xform(sp.xform_compose(XJ[i], tree.Xtree[i])))
    return Xup


def body_velocities(tree: Tree, ops, Xup, qd, v0=None) -> list:
    """v[i] = Xup[i] v[parent] + S[i] qd[i]: each body's spatial velocity in its frame (``v0``: the base
    body's, floating base; the root is still otherwise)."""
    v = [None] * tree.nb
    for i in range(tree.nb):
        with body_scope(tree, ops, i, "v"):
            p = tree.parent[i]
            vp = (v0 or sp.Motion((0,) * 6)) if p == -1 else v[p]
            v[i] = Xup[i] @ vp + tree.S[i] * qd[i]
            ops.label(v[i], f"v{i}")
    return v


def base_velocity(tree: Tree, ops, base):
    """(E0, v0) of a floating base ``(quat_xyzw, velocity)``: v0 = X0 v_W in the base frame; (None, None) if fixed."""
    if not tree.floating:
        return None, None
    quat, velocity = base
    E0 = base_rotation(quat, ops)
    return E0, sp.Motion(rotate(E0, velocity))


def base_spatial_acceleration(velocity, acceleration):
    """Spatial acceleration in A0 of a base with classical acceleration [omegadot, pddot].

    The linear part of a spatial acceleration is pddot - omega x pdot (RBDA sec. 2.11).
    """
    w, pdot = velocity[:3], velocity[3:]
    return tuple(acceleration[:3]) + sp.vsub(acceleration[3:], sp.cross(w, pdot))


def link_forces(tree: Tree, loads):
    """Loads (link wrenches at the link origin, link frame) summed per body.

    Returns ``(f_body, f_root)``: a list with one force (or None) per body in its
    frame, and the base body's total (floating base; loads on a fixed base's
    world-welded links have no effect and are dropped).
    """
    f_body = [None] * tree.nb
    f_root = None
    if loads is None:
        return f_body, f_root
    for link, load in enumerate(loads):
        body = tree.link_body[link]
        f = sp.xform_force_back(tree.Xlink[link], tuple(load))
        if body == -1:
            if tree.floating:
                f_root = f if f_root is None else sp.vadd(f_root, f)
        else:
            f_body[body] = f if f_body[body] is None else sp.vadd(f_body[body], f)
    return f_body, f_root


def rotate(E, v):
    """Both halves of a 6-vector rotated by E (a pure-rotation X applied to motion or force)."""
    return sp.mv3(E, v[:3]) + sp.mv3(E, v[3:])


def rotate_back(E, v):
    """Both halves of a 6-vector rotated by E^T."""
    return sp.mtv3(E, v[:3]) + sp.mtv3(E, v[3:])


def add_load(f, load):
    return f if load is None else sp.vadd(f, load)
