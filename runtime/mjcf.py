"""MJCF loader: a MuJoCo model, compiled by MuJoCo itself (``rbdgen[mjcf]``), as a `RobotModel`.

MuJoCo's compiler reads the file (includes, defaults, ``angle="degree"``,
``inertiafromgeom``, ``balanceinertia``, ...); rbdgen reads the compiled
``MjModel``: every body's pose in its parent (``body_pos``/``body_quat``), its
mass and inertia as compiled (``body_mass``, ``body_ipos``/``body_iquat``,
``body_inertia``), its joints and the gravity (``opt.gravity``).

* ``hinge`` and ``slide`` joints are revolute and prismatic joints with q equal
  to MuJoCo's ``qpos``: the joint's ``ref`` (the position at which the body is
  where the file puts it) is folded into the joint's origin. A hinge turns about
  its ``pos`` (the anchor); several joints in one body act one after the other,
  as in MuJoCo, through massless frames named ``<body>.<joint>``.
  ``armature`` is kept; damping, springs, friction loss, actuators and contacts
  are not dynamics of the tree and are ignored.
* ``<equality>``: ``connect`` and ``weld`` between bodies or between sites become
  the model's closed loops (`rbdgen.loops`), held exactly (MuJoCo's
  ``solref``/``solimp`` softness is not modelled); ``joint``, ``tendon`` and
  ``flex`` equalities are left out with a warning.
* A ``free`` joint on a child of the world is the floating base; its body is
  the root link. ``floating=None`` follows the file; ``floating=True`` makes the
  world's only child a floating base, ``floating=False`` welds a free body at
  its pose in the file. ``ball`` joints are a `ModelError`.
* The robot's name is the file's ``<mujoco model=...>`` (else the file name).
* Joint order: MuJoCo's (depth-first over bodies, joints of a body in file
  order), so ``q`` is MuJoCo's ``qpos`` for hinge and slide joints. Links: the
  root (``world`` for a fixed base), then every body and joint frame in
  breadth-first order (dynibo's convention, as for URDF).
* A floating base's generalized velocity is ``[omega_W, pdot_W]`` (rbdgen's
  convention), MuJoCo's free joint ``[pdot_W, omega_body]``.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import math
import os

import defusedxml
import defusedxml.ElementTree
import numpy as np

from .builder import JointSpec, assemble, read_robot_file, robot_file, symbol_name
from .errors import ModelError
from .loops import Loop
from .inertias import inertia_policy, noted, report
from .model import Inertia, Limits, RobotModel, Transform, quaternion_matrix

__all__ = ["is_mjcf", "load_mjcf"]

logger = logging.getLogger(__name__)

IDENTITY_WXYZ = (1.0, 0.0, 0.0, 0.0)  # a unit quaternion in MuJoCo's order, wxyz


def load_mjcf(path, floating=None, gravity=None, inertia="warn") -> RobotModel:
    """Load the MJCF file at ``path`` through MuJoCo's compiler (see the module docstring).

    ``gravity``: None for the file's (``<option gravity>``), else a 3-vector. ``inertia``:
    MuJoCo's compiler refuses a body inertia that breaks the triangle inequality, so
    ``"warn"`` and ``"strict"`` give its error; ``"balance"`` compiles such a file with
    MuJoCo's ``balanceinertia`` (logged). See `rbdgen.inertias`.
    """
    try:
        import mujoco
    except ImportError:
        raise ImportError("loading MJCF needs MuJoCo: install it with pip install 'rbdgen[mjcf]'") from None
    policy = inertia_policy(inertia)
    path = robot_file(path, "MJCF")
    _confine_files(path)
    try:
        m = mujoco.MjModel.from_xml_path(path)
    except ValueError as exc:  # MuJoCo's compiler errors
        message = " ".join(str(exc).split())
        if "balanceinertia" not in message:
            raise ModelError(f"{path}: MuJoCo cannot compile it: {message}") from None
        if policy != "balance":
            raise ModelError(f"{path}: MuJoCo cannot compile it: {message}; MuJoCo cannot load such an inertia "
                             f"as given: load with inertia=\"balance\" (--inertia balance) for its correction") from None
        logger.info("%s: %s: compiled with MuJoCo's balanceinertia (inertia=\"balance\"), which replaces every "
                       "such body inertia by its mean principal moment", path, message)
        spec = mujoco.MjSpec.from_file(path)
        spec.compiler.balanceinertia = True
        m = spec.compile()
        balanced = _balanced_bodies(spec, m)
    else:
        balanced = []
    name = bytes(m.names).split(b"\0", 1)[0].decode(errors="replace")  # <mujoco model=...>, first of the names
    if name == "MuJoCo Model":  # MuJoCo's default: the file's name says more
        name = os.path.basename(path).split(".")[0]
    return _from_mjmodel(m, mujoco, symbol_name(name), floating, gravity, policy, balanced)


def is_mjcf(path) -> bool:
    """Whether the file at ``path`` is MJCF: its root element is ``<mujoco>`` (read without DTDs;
    an unreadable or malformed file, or no regular file, is not, and its own loader says what is
    wrong with it)."""
    try:
        data = io.BytesIO(read_robot_file(path, "robot"))
        for _, element in defusedxml.ElementTree.iterparse(data, events=("start",), forbid_dtd=True):
            return element.tag == "mujoco"
    except (OSError, ModelError, defusedxml.ElementTree.ParseError, defusedxml.DefusedXmlException):
        return False
    return False


#: Attributes that name files MuJoCo reads: ``file`` and every attribute that starts with it (``<include>``,
#: meshes, textures and a cube's ``fileright``... ``fileback``, height fields, skins, models), and the
#: ``<compiler>`` folders those are looked up in.
_FILE_ATTRIBUTE = "file"
_FOLDER_ATTRIBUTES = ("assetdir", "meshdir", "texturedir")


def _confine_files(path: str):
    """Refuse an MJCF file that has MuJoCo read a file outside its own folder: every ``<include>``
    (followed, relative to the main file's folder as MuJoCo resolves them) and every file and
    folder an element names must be a relative path without ``..`` that stays in that folder
    (symbolic links resolved). A robot file is untrusted input: it must not read ``/etc/...``."""
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    pending, seen, folders, files = [path], set(), [""], []
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            root = defusedxml.ElementTree.fromstring(read_robot_file(current, "MJCF"), forbid_dtd=True)
        except (defusedxml.ElementTree.ParseError, defusedxml.DefusedXmlException) as exc:
            # MuJoCo's parser would read it (a DTD, say): one file left unchecked would unconfine them all
            raise ModelError(f"{current}: not XML that rbdgen can check without a DTD ({exc}); MJCF files and "
                             f"their includes must be plain XML") from None
        for element in root.iter():
            for attribute, value in element.attrib.items():
                if not (attribute.startswith(_FILE_ATTRIBUTE) or attribute in _FOLDER_ATTRIBUTES):
                    continue
                where = f"{current}: <{element.tag} {attribute}={value!r}>"
                target = _inside(folder, value, where)
                if element.tag == "include":
                    pending.append(target)
                elif attribute not in _FOLDER_ATTRIBUTES:
                    files.append((where, value))
                else:
                    folders.append(value)
    for where, value in files:  # an asset is looked up in a <compiler> folder: inside each one too
        for base in folders:
            _inside(folder, os.path.join(base, value), where)


def _inside(folder: str, value: str, where: str) -> str:
    """``value`` resolved in ``folder``; a `ModelError` if it leaves the folder."""
    parts = value.replace("\\", "/").split("/")
    target = os.path.realpath(os.path.join(folder, value))
    if os.path.isabs(value) or ".." in parts or os.path.commonpath([folder, target]) != folder:
        raise ModelError(f"{where}: names a file outside the model's folder {folder}; an MJCF file may only "
                         f"read files in its own folder and below (copy the file there and name it relatively)")
    return target


def _name(mujoco, m, kind, index: int, default: str) -> str:
    return mujoco.mj_id2name(m, kind, index) or default


def _wxyz_rotation(quat):
    """Rotation matrix of a MuJoCo quaternion (w, x, y, z)."""
    w, x, y, z = quat
    return quaternion_matrix((x, y, z, w))


def _in_body_axes(quat, principal):
    """``R diag(principal) R^T``: a rotational inertia given by its principal moments and the
    quaternion (w, x, y, z) of its principal axes, as MuJoCo gives it."""
    rotation = _wxyz_rotation(quat)
    return tuple(tuple(sum(rotation[i][k] * float(principal[k]) * rotation[j][k] for k in range(3)) for j in range(3))
                 for i in range(3))


def _axis_rotation(axis, angle):
    """Rotation by ``angle`` about the unit ``axis`` (Rodrigues)."""
    x, y, z = axis
    c, s, t = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    return (
        (t * x * x + c, t * x * y - s * z, t * x * z + s * y),
        (t * x * y + s * z, t * y * y + c, t * y * z - s * x),
        (t * x * z - s * y, t * y * z + s * x, t * z * z + c),
    )


def _translation(v) -> Transform:
    return Transform(translation=tuple(float(x) for x in v))


def _balanced_bodies(spec, m) -> list:
    """(body id, its rotational inertia as the file gives it, about its centre of mass in body axes)
    of every body whose inertia MuJoCo's ``balanceinertia`` replaced (an explicit ``<inertial>``
    that breaks the triangle inequality: MuJoCo's check, without allowance)."""
    out = []
    for b, body in enumerate(spec.bodies):  # the compiled bodies are the spec's, in order
        if not body.explicitinertial:
            continue
        full = [float(x) for x in body.fullinertia]
        if not math.isnan(full[0]):  # fullinertia="xx yy zz xy xz yz" in body axes
            given = ((full[0], full[3], full[4]), (full[3], full[1], full[5]), (full[4], full[5], full[2]))
        else:  # diaginertia in the frame of the compiled iquat (MuJoCo resolves quat, euler, axisangle ...)
            given = _in_body_axes(m.body_iquat[b], body.inertia)
        if noted("", given, "balance", allowance=False) is not None:
            out.append((b, given))
    return out


def _from_mjmodel(m, mujoco, robot_name, floating, gravity, policy, balanced) -> RobotModel:
    BODY, JOINT = mujoco.mjtObj.mjOBJ_BODY, mujoco.mjtObj.mjOBJ_JOINT
    FREE, BALL, SLIDE = int(mujoco.mjtJoint.mjJNT_FREE), int(mujoco.mjtJoint.mjJNT_BALL), int(mujoco.mjtJoint.mjJNT_SLIDE)
    body_names = [_name(mujoco, m, BODY, b, f"body{b}") for b in range(m.nbody)]
    joint_names = [_name(mujoco, m, JOINT, j, f"joint{j}") for j in range(m.njnt)]
    world_children = [b for b in range(1, m.nbody) if m.body_parentid[b] == 0]
    free = [j for j in range(m.njnt) if m.jnt_type[j] == FREE]
    for j in range(m.njnt):
        where = f"joint {joint_names[j]!r} (body {body_names[m.jnt_bodyid[j]]!r})"
        if m.jnt_type[j] == BALL:
            raise ModelError(f"{where}: ball joints are not supported; replace it by three hinge joints")
        if m.jnt_type[j] == FREE and (m.body_parentid[m.jnt_bodyid[j]] != 0 or len(free) > 1):
            raise ModelError(f"{where}: a free joint is supported only as the one floating base (on a child of "
                             f"the world); {len(free)} free joints in the file")
    if floating is None:
        floating = bool(free)
    if floating and len(world_children) != 1:
        raise ModelError(f"a floating base needs exactly one body on the world, the file has "
                         f"{[body_names[b] for b in world_children]}")
    root = world_children[0] if floating else 0
    hinged = [j for j in range(m.body_jntadr[root], m.body_jntadr[root] + m.body_jntnum[root]) if m.jnt_type[j] != FREE]
    if floating and hinged:
        raise ModelError(f"body {body_names[root]!r} is joined to the world by joint {joint_names[hinged[0]]!r}: "
                         f"it cannot be a floating base (load with floating=False)")

    links, joints, armature = {}, [], {}

    def add_link(name, inertia=Inertia()):
        if name in links:
            raise ModelError(f"two frames are named {name!r} (a body, or a <body>.<joint> frame): rename one")
        links[name] = inertia

    for b in range(m.nbody):
        if floating and b == 0:
            continue  # the world of a floating base
        rotational = _in_body_axes(m.body_iquat[b], m.body_inertia[b])
        try:
            add_link(body_names[b], Inertia(float(m.body_mass[b]), tuple(m.body_ipos[b]), rotational))
        except ModelError as exc:
            raise ModelError(f"body {body_names[b]!r}: {exc}") from None
        if b == root or b == 0:
            continue
        # frame by frame from the parent body: the body's pose, then each joint about its anchor
        parent = body_names[m.body_parentid[b]]
        pose = Transform(_wxyz_rotation(m.body_quat[b]), tuple(m.body_pos[b]))
        moving = [j for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b]) if m.jnt_type[j] != FREE]
        for j in moving:
            anchor, axis = tuple(m.jnt_pos[j]), tuple(float(a) for a in m.jnt_axis[j])
            ref = float(m.qpos0[m.jnt_qposadr[j]])
            if m.jnt_type[j] == SLIDE:  # q = qpos: a slide by -ref first
                zero = Transform(translation=tuple(-ref * a for a in axis))
            else:
                zero = Transform(_axis_rotation(axis, -ref))
            frame = f"{body_names[b]}.{joint_names[j]}"
            add_link(frame)
            lower, upper = (m.jnt_range[j] if m.jnt_limited[j] else (-math.inf, math.inf))
            joints.append(JointSpec(
                name=joint_names[j], type="prismatic" if m.jnt_type[j] == SLIDE else "revolute", parent=parent,
                child=frame, origin=pose.compose(_translation(anchor)).compose(zero), axis=axis,
                limits=Limits(float(lower), float(upper))))
            armature[joint_names[j]] = float(m.dof_armature[m.jnt_dofadr[j]])
            parent, pose = frame, _translation(tuple(-x for x in anchor))
        if b in world_children and free and not floating:
            logger.info("body %r: free joint welded at its pose in the file (floating=False)", body_names[b])
        joints.append(JointSpec(name=f"{body_names[b]}.weld", type="fixed", parent=parent, child=body_names[b],
                                origin=pose))
    loops = _equality_loops(m, mujoco, body_names, floating)
    model = assemble(robot_name, links, joints, floating=floating, joint_order="depth_first", armature=armature,
                     gravity=tuple(float(g) for g in (m.opt.gravity if gravity is None else gravity)), inertia=policy)
    if loops:
        model = dataclasses.replace(model, loops=loops)
    if not balanced:
        return model
    notes = [noted(body_names[b], given, policy, allowance=False) for b, given in balanced]
    return report(model, policy, notes, links)


def _equality_loops(m, mujoco, body_names, floating) -> tuple:
    """The ``<equality>`` constraints as `Loop` objects, the world None for a floating base. Between bodies:
    ``connect`` (MuJoCo's ``eq_data``: the anchor in body1's frame, then in body2's) and ``weld`` (the anchor in
    body2's frame, then in body1's, then body2's orientation relative to body1, wxyz). Between sites (MuJoCo 3's
    ``site1``/``site2``, without ``anchor`` or ``relpose``): ``connect`` holds the two sites' positions together,
    ``weld`` their frames, each site where its body's frame puts it (``site_pos``, ``site_quat``). Other kinds
    and those inactive in the file are left out with a warning."""
    CONNECT, WELD = int(mujoco.mjtEq.mjEQ_CONNECT), int(mujoco.mjtEq.mjEQ_WELD)
    SITE = int(mujoco.mjtObj.mjOBJ_SITE)
    EQ = mujoco.mjtObj.mjOBJ_EQUALITY
    loops = []
    for k in range(m.neq):
        name = _name(mujoco, m, EQ, k, f"equality {k}")
        kind = int(m.eq_type[k])
        if kind not in (CONNECT, WELD):
            logger.warning("equality %r: %s constraints are not supported (only connect and weld); ignored", name,
                           mujoco.mjtEq(kind).name[len("mjEQ_"):].lower())
            continue
        if not m.eq_active0[k]:
            logger.warning("equality %r: inactive in the file (active=\"false\"); ignored", name)
            continue
        data = [float(x) for x in m.eq_data[k]]
        if kind == WELD and data[10] != 1.0:
            logger.warning("equality %r: torquescale %g ignored (a hard weld holds the orientation)", name, data[10])
        sites = int(m.eq_objtype[k]) == SITE
        objects = (m.eq_obj1id[k], m.eq_obj2id[k])
        bodies = [m.site_bodyid[s] for s in objects] if sites else objects
        ends = [None if b == 0 and floating else body_names[b] for b in bodies]
        if sites:
            offset1, offset2 = (tuple(float(x) for x in m.site_pos[s]) for s in objects)
            rotation = _site_rotation(mujoco, *(m.site_quat[s] for s in objects)) if kind == WELD else IDENTITY_WXYZ
        elif kind == CONNECT:
            offset1, offset2, rotation = data[0:3], data[3:6], IDENTITY_WXYZ
        else:
            offset1, offset2, rotation = data[3:6], data[0:3], data[6:10]
        w, x, y, z = rotation
        loops.append(Loop(ends[0], ends[1], "point" if kind == CONNECT else "frame", offset1, offset2, (x, y, z, w)))
    return tuple(loops)


def _site_rotation(mujoco, quat1, quat2):
    """Body2's orientation in body1's frame (wxyz) where the two sites' frames coincide:
    ``R1 Q1 = R2 Q2``, so ``R1^T R2 = Q1 Q2^T``."""
    inverse, relative = np.zeros(4), np.zeros(4)
    mujoco.mju_negQuat(inverse, np.asarray(quat2, dtype=float))
    mujoco.mju_mulQuat(relative, np.asarray(quat1, dtype=float), inverse)
    return tuple(float(x) for x in relative)
