"""Frame kinematics: link poses, velocities, accelerations and Jacobians (spatial_v2 style).

Everything is in world coordinates. A body's pose is ``X0[i] = (E, r)``, the
transform from the world to body i (``E = R^T`` rotates world coordinates into
body coordinates, ``r`` is the body origin in the world); spatial vectors
(motion subspaces ``s``, velocities ``v``, accelerations ``a``) are world
coordinates at the world origin, angular first. ``base`` is None for a fixed base, else
``(translation, quaternion xyzw, velocity, acceleration)``. A frame depends only on its
ancestors, so each function walks the path from the root to one link: traced for
code generation, it computes nothing else.

The public quantities follow dynibo 0.5.2 at a link origin, world axes
(LOCAL_WORLD_ALIGNED): a twist ``[omega, pdot]``, a classical acceleration
``[omegadot, pddot] = J nudot + Jdot nu``, a ``6 x G`` Jacobian, angular rows
first, whose floating-base columns (``[omega_W, pdot_W]`` of the base origin)
come first, and a pose ``[x, y, z, qx, qy, qz, qw]``. The quaternion is composed
along the chain (each joint origin's constant quaternion with the sign the model gives
it, see `rbdgen.model.Transform`, then the joint's ``[sin(q/2) axis, cos(q/2)]``), so it
is a smooth function of q and has dynibo's sign.
"""

from __future__ import annotations

from .. import spatial as sp
from ..errors import InvalidInputError
from ..model import quaternion_matrix
from .kinematics import Tree, base_rotation, body_scope, joint_xform

UNIT = ((1, 0, 0), (0, 1, 0), (0, 0, 1))


def path(tree: Tree, body: int) -> list:
    """The bodies from the root to ``body`` (none for the root), root first."""
    out = []
    while body != -1:
        out.append(body)
        body = tree.parent[body]
    return out[::-1]


def link_path(tree: Tree, link: int) -> list:
    return path(tree, tree.link_body[link])


# -- quaternions (x, y, z, w) ---------------------------------------------------------------------------
def quat_mul(a, b):
    """a b: first rotate by b, then by a."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (sp.add(sp.add(sp.mul(aw, bx), sp.mul(ax, bw)), sp.sub(sp.mul(ay, bz), sp.mul(az, by))),
            sp.add(sp.sub(sp.mul(aw, by), sp.mul(ax, bz)), sp.add(sp.mul(ay, bw), sp.mul(az, bx))),
            sp.add(sp.add(sp.mul(aw, bz), sp.mul(ax, by)), sp.sub(sp.mul(az, bw), sp.mul(ay, bx))),
            sp.sub(sp.sub(sp.mul(aw, bw), sp.mul(ax, bx)), sp.add(sp.mul(ay, by), sp.mul(az, bz))))


def half_angles(tree: Tree, ops, q, bodies) -> dict:
    """(cos(q/2), sin(q/2)) of each revolute joint of ``bodies``."""
    half = {}
    for i in bodies:
        if tree.kind[i] != "prismatic":
            with body_scope(tree, ops, i, "half angle"):
                angle = sp.mul(0.5, q[i])
                half[i] = ops.cos(angle), ops.sin(angle)
    return half


def joint_quaternion(tree: Tree, i: int, half: dict):
    """The rotation of a joint: ``[sin(q/2) axis, cos(q/2)]`` (revolute) or none (prismatic)."""
    if i not in half:
        return 0, 0, 0, 1
    c, s = half[i]
    return tuple(sp.mul(a, s) for a in tree.axis[i]) + (c,)


def base_quaternion(tree: Tree, ops, base):
    """The base quaternion normalised (any non-zero scale is accepted), or the identity for a fixed base."""
    if not tree.floating:
        return 0, 0, 0, 1
    _, (x, y, z, w), _, _ = base
    n2 = x * x + y * y + z * z + w * w
    ops.require_positive(n2, InvalidInputError, "base quaternion is zero")
    inverse_norm = 1 / ops.sqrt(n2)
    ops.require_positive(inverse_norm, InvalidInputError, "base quaternion is too large: normalise it")
    return tuple(c * inverse_norm for c in (x, y, z, w))


# -- poses ------------------------------------------------------------------------------------------
def base_pose(tree: Tree, ops, base):
    """X0 of the root: identity for a fixed base; ``(R^T, translation)`` of the base state."""
    if not tree.floating:
        return UNIT, (0, 0, 0)
    translation, quat, _, _ = base
    return base_rotation(quat, ops), tuple(translation)


def body_poses(tree: Tree, ops, q, base, bodies) -> dict:
    """X0[i] for each of ``bodies`` (a root-first path or every body in order); key -1: the root."""
    X0 = {-1: base_pose(tree, ops, base)}
    for i in bodies:
        with body_scope(tree, ops, i, "X0"):
            Xup = sp.xform_compose(joint_xform(tree, i, q[i], ops), tree.Xtree[i])
            X0[i] = sp.xform_compose(Xup, X0[tree.parent[i]])                 # X0 = Xup X0_parent
    return X0


def oriented_poses(tree: Tree, ops, q, base, bodies):
    """(Q, R, r): the world orientation (quaternion, its matrix) and origin of each of ``bodies``; key -1: the root.

    The orientation is composed along the path, Q = Q_parent Q_tree Q_J, and the origins use its
    matrix, r = r_parent + R(Q_parent) p_tree (+ R(Q) a q after a prismatic joint): the
    quaternions are needed anyway for poses, and a matrix from one costs fewer operations than
    a product of matrices.
    """
    half = half_angles(tree, ops, q, bodies)
    Q = {-1: base_quaternion(tree, ops, base)}
    R = {-1: quaternion_matrix(Q[-1])}
    r = {-1: tuple(base[0]) if tree.floating else (0, 0, 0)}
    for i in bodies:
        with body_scope(tree, ops, i, "Q, R, r"):
            p = tree.parent[i]
            Q[i] = quat_mul(quat_mul(Q[p], tree.Qtree[i]), joint_quaternion(tree, i, half))  # Q = Q_parent Q_tree Q_J
            R[i] = quaternion_matrix(Q[i])
            r[i] = sp.vadd(r[p], sp.mv3(R[p], tree.Xtree[i][1]))                          # r = r_parent + R_parent p_tree
            if tree.kind[i] == "prismatic":
                r[i] = sp.vadd(r[i], sp.mv3(R[i], sp.vscale(tree.axis[i], q[i])))
            ops.label(Q[i], f"Q{i}")
            ops.label(r[i], f"r{i}")
    return Q, R, r


def moved_to(X, p):
    """X0 = (E, r) with its origin moved to the world point p, ``(E, r - p)``: motions and forces
    taken back with it are at p instead of the world origin (one cross product fewer than moving them)."""
    E, r = X
    return E, sp.vsub(r, p)


def link_pose(tree: Tree, X0: dict, link: int):
    """X0 of a link frame: its constant placement on its body after the body's X0."""
    return sp.xform_compose(tree.Xlink[link], X0[tree.link_body[link]])


def _poses(tree: Tree, ops, q, base, bodies, links) -> list:
    """``[x, y, z, qx, qy, qz, qw]`` of each of ``links``, row by row."""
    Q, R, r = oriented_poses(tree, ops, q, base, bodies)
    rows = []
    for k in links:
        body = tree.link_body[k]
        rows += list(sp.vadd(r[body], sp.mv3(R[body], tree.Xlink[k][1]))) + list(quat_mul(Q[body], tree.Qlink[k]))
    return rows


def forward_kinematics(tree: Tree, ops, q, base, link: int) -> list:
    """``[x, y, z, qx, qy, qz, qw]`` of the link frame in the world."""
    return _poses(tree, ops, q, base, link_path(tree, link), [link])


def forward_kinematics_all(tree: Tree, ops, q, base) -> list:
    """The pose of every link, row by row (L x 7)."""
    return _poses(tree, ops, q, base, range(tree.nb), range(len(tree.link_body)))


# -- motion ------------------------------------------------------------------------------------------------
def at_point(m, p):
    """A spatial motion at the world origin as ``[omega, velocity of the point p]`` (world axes)."""
    w = m[:3]
    return tuple(w) + sp.vadd(m[3:], sp.cross(w, p))


def base_columns(tree: Tree, base):
    """The spatial motions (world origin) of the floating base's six generalized velocities: none if fixed.

    ``[omega_W, pdot_W]`` of the base origin p_b is the spatial motion ``[omega, pdot + p_b x omega]``.
    """
    if not tree.floating:
        return []
    p_b = tuple(base[0])  # the base translation
    return [e + sp.cross(p_b, e) for e in UNIT] + [(0, 0, 0) + e for e in UNIT]


def base_motion(tree: Tree, base):
    """(v, a): the base's spatial velocity and acceleration (world origin); zero for a fixed base.

    v = [omega, pdot + p x omega]; a = d/dt v = [omegadot, pddot + p x omegadot + pdot x omega].
    """
    if not tree.floating:
        return (0,) * 6, (0,) * 6
    p, _, velocity, acceleration = base
    w, pdot, wdot, pddot = tuple(velocity[:3]), tuple(velocity[3:]), tuple(acceleration[:3]), tuple(acceleration[3:])
    v = w + sp.vadd(pdot, sp.cross(p, w))
    a = wdot + sp.vadd(sp.vadd(pddot, sp.cross(p, wdot)), sp.cross(pdot, w))
    return v, a


def motion_subspaces(tree: Tree, ops, X0: dict, bodies) -> dict:
    """s[i] = X0[i]^-1 S[i]: each joint's motion subspace in world coordinates at the world origin."""
    s = {}
    for i in bodies:
        with body_scope(tree, ops, i, "s"):
            s[i] = sp.xform_motion_back(X0[i], tree.S[i])
    return s


def velocities(tree: Tree, ops, base, s: dict, qd, bodies, qdd=None):
    """Spatial velocities v[i] (and, with ``qdd``, accelerations a[i]) of ``bodies`` (world origin).

    v = v_parent + s qd; a = a_parent + s qdd + v x s qd (RBDA eq. 7.3 in world coordinates).
    """
    v0, a0 = base_motion(tree, base)
    v, a = {-1: v0}, {-1: a0}
    for i in bodies:
        with body_scope(tree, ops, i, "v" if qdd is None else "v, a"):
            p = tree.parent[i]
            v[i] = sp.vadd(v[p], sp.vscale(s[i], qd[i]))
            if qdd is not None:
                a[i] = sp.vadd(sp.vadd(a[p], sp.vscale(s[i], qdd[i])), sp.crm(v[i], sp.vscale(s[i], qd[i])))
    return v, a


def classical(a, v, p):
    """``[omegadot, pddot]`` of the point p from the spatial acceleration a and velocity v (world origin)."""
    w, wdot = v[:3], a[:3]
    pdot = sp.vadd(v[3:], sp.cross(w, p))
    return tuple(wdot) + sp.vadd(sp.vadd(a[3:], sp.cross(wdot, p)), sp.cross(w, pdot))


def _frame(tree: Tree, ops, q, base, link: int, offset=None):
    """(bodies on the link's path, their motion subspaces s, the link origin p, or the point ``offset`` of the
    link frame)."""
    bodies = link_path(tree, link)
    X0 = body_poses(tree, ops, q, base, bodies)
    E, r = link_pose(tree, X0, link)
    return bodies, motion_subspaces(tree, ops, X0, bodies), r if offset is None else sp.vadd(r, sp.mtv3(E, offset))


def _column_major(columns) -> list:
    return [x for col in columns for x in col]


def jacobian(tree: Tree, ops, q, base, link: int) -> list:
    """The 6 x G Jacobian of the link origin p (world axes), column-major: ``J nu`` is its twist.

    A joint's column is its motion subspace in world axes at p, ``X0^-1 S`` with X0 moved to p.
    """
    bodies = link_path(tree, link)
    X0 = body_poses(tree, ops, q, base, bodies)
    p = link_pose(tree, X0, link)[1]
    columns = [at_point(c, p) for c in base_columns(tree, base)]
    on_path = set(bodies)
    for i in range(tree.nb):
        with body_scope(tree, ops, i, "J column"):
            columns.append(sp.xform_motion_back(moved_to(X0[i], p), tree.S[i]) if i in on_path else (0,) * 6)
    return _column_major(columns)


def jacobian_derivative(tree: Tree, ops, q, qd, base, link: int) -> list:
    """dJ/dt, 6 x G column-major: ``Jdot nu`` is the link's classical acceleration at nudot = 0.

    A column ``[w, u + w x p]`` of a joint whose subspace moves with its body (sdot = v x s)
    changes as ``[wdot, udot + wdot x p + w x pdot]``; the base columns only through p_b and p.
    """
    bodies, s, p = _frame(tree, ops, q, base, link)
    v, _ = velocities(tree, ops, base, s, qd, bodies)
    vl = v[tree.link_body[link]]
    pdot = sp.vadd(vl[3:], sp.cross(vl[:3], p))                                  # velocity of the link origin

    def column(c, cdot):
        w, wdot = c[:3], cdot[:3]
        return tuple(wdot) + sp.vadd(sp.vadd(cdot[3:], sp.cross(wdot, p)), sp.cross(w, pdot))

    columns = []
    if tree.floating:
        pbdot = tuple(base[2][3:])  # the base origin's velocity
        columns += [column(c, (0, 0, 0) + sp.cross(pbdot, c[:3])) for c in base_columns(tree, base)]
    on_path = set(bodies)
    for i in range(tree.nb):
        with body_scope(tree, ops, i, "Jdot column"):
            columns.append(column(s[i], sp.crm(v[i], s[i])) if i in on_path else (0,) * 6)
    return _column_major(columns)


def forward_velocity_kinematics(tree: Tree, ops, q, qd, base, link: int) -> list:
    """The link origin's twist ``[omega, pdot]`` (world axes)."""
    bodies, s, p = _frame(tree, ops, q, base, link)
    v, _ = velocities(tree, ops, base, s, qd, bodies)
    return list(at_point(v[tree.link_body[link]], p))


def forward_acceleration_kinematics(tree: Tree, ops, q, qd, qdd, base, link: int) -> list:
    """The link origin's classical acceleration ``[omegadot, pddot] = J nudot + Jdot nu`` (world axes)."""
    bodies, s, p = _frame(tree, ops, q, base, link)
    v, a = velocities(tree, ops, base, s, qd, bodies, qdd)
    body = tree.link_body[link]
    return list(classical(a[body], v[body], p))
