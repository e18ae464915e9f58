"""Assemble a `RobotModel` from links and joints: what every loader shares, and `RobotBuilder`.

The URDF and MJCF loaders and `RobotBuilder` (a model written in Python, with no
file) describe a robot as links (name, inertia) and joints (`JointSpec`: the
URDF's joint element as data); `assemble` turns them into a validated model:

* Moving joints are ``revolute``, ``continuous`` (a revolute joint without
  position limits) and ``prismatic``; ``fixed`` joints are merged away: their
  child link keeps a frame on the moving body it is welded to and adds its
  inertia to that body.
* A joint with a ``mimic`` ``(master, multiplier, offset)`` moves its body but
  takes no coordinate (its position is ``multiplier * q_master + offset``);
  chains of mimics are resolved to the first independent joint, whatever their
  order in the description. A mimic on a fixed joint is ignored (with a
  warning): the joint stays fixed; so is a mimic of a joint the robot does not
  have: the joint takes its own coordinate.
* Joint order: ``"breadth_first"`` (the default, dynibo's: over *all* joints
  from the root, children in the order given, fixed joints traversed without a
  coordinate), ``"depth_first"`` (Pinocchio's and MuJoCo's), or the independent
  joints' names in any order with parents first (mimic joints then follow their
  parent body). Links are always in breadth-first order: the root, then the
  child link of each joint. Traversals use queues, never recursion.
* A fixed base makes the root link the world: the root and the links welded to
  it belong to body ``-1`` and their inertia is ignored. A floating base keeps
  their merged inertia as ``base_inertia``.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import math
import os
import re
import stat
from collections.abc import Mapping
from typing import Optional

from .errors import ModelError
from .loops import Loop
from .model import STANDARD_GRAVITY, Inertia, Joint, Limits, Link, Mimic, RobotModel, Transform, unit_axis
from .inertias import inertia_policy, police, report
from .names import default_prefix

__all__ = ["JOINT_TYPES", "JointSpec", "RobotBuilder", "assemble", "read_robot_file", "robot_file", "symbol_name"]

logger = logging.getLogger(__name__)

#: Joint types and the model kind of the moving ones.
JOINT_TYPES = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic", "fixed": None}
TRAVERSALS = ("breadth_first", "depth_first")


@dataclasses.dataclass(frozen=True)
class JointSpec:
    """A joint as a robot description states it: ``origin`` is the joint frame in the parent
    link's frame, ``axis`` in the joint frame (any length), ``mimic`` None or
    ``(master joint, multiplier, offset)``."""

    name: str
    type: str
    parent: str
    child: str
    origin: Transform = Transform()
    axis: tuple = (1.0, 0.0, 0.0)
    limits: Limits = Limits()
    mimic: tuple | None = None


_FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a device"),
               (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(path: str, mode: int) -> ModelError:
    kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
    return ModelError(f"{path} is {kind}, not a regular file: a robot description must be a file (rbdgen never "
                      f"opens anything else, as reading a FIFO or a device can wait forever)")


def robot_file(path, what: str) -> str:
    """``path`` as a str if it names a regular file (symbolic links followed): FileNotFoundError when
    nothing is there, a `ModelError` for a folder, FIFO, device or socket, which is never opened."""
    path = os.fspath(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(2, f"{what} file not found", path) from None
    if not stat.S_ISREG(mode):
        raise _not_regular(path, mode)
    return path


def read_robot_file(path, what: str) -> bytes:
    """The bytes of the regular file at ``path`` (see `robot_file`); opened without blocking and
    checked again once open, so a file swapped for a FIFO meanwhile is refused, not waited on."""
    path = robot_file(path, what)
    with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
        return handle.read()


def symbol_name(raw) -> str:
    """A robot name as a symbol prefix valid in C and CasADi (the rule of `rbdgen.names.default_prefix`)."""
    if not re.search(r"[0-9A-Za-z]", raw or ""):
        logger.warning("the robot has no usable name (%r); using 'robot'", raw)
    return default_prefix(raw or "")


def assemble(name: str, links: Mapping, joints, floating=False, joint_order=None, armature=None,
             gravity=STANDARD_GRAVITY, inertia="warn") -> RobotModel:
    """The validated model of links ``{name: Inertia in the link frame}`` (in order) and
    `JointSpec` s (in order); options as for `rbdgen.load_urdf`; ``inertia``: the policy for
    link inertias no rigid body has (`rbdgen.inertias`)."""
    policy = inertia_policy(inertia)
    policed, notes = {}, []
    for link_name, value in links.items():
        policed[link_name], note = police(link_name, value, policy)
        notes += [note] if note else []
    links = policed
    by_name: dict[str, JointSpec] = {}
    parent_of: dict[str, str] = {}  # child link -> joint name
    for joint in joints:
        where = f"joint {joint.name!r}"
        if joint.type not in JOINT_TYPES:
            raise ModelError(f"{where}: unsupported joint type {joint.type!r} (supported: {', '.join(JOINT_TYPES)})")
        if joint.name in by_name:
            raise ModelError(f"duplicate joint name {joint.name!r}")
        for role in ("parent", "child"):
            if getattr(joint, role) not in links:
                raise ModelError(f"{where}: {role} link {getattr(joint, role)!r} is not defined")
        if joint.child in parent_of:
            raise ModelError(f"link {joint.child!r} is the child of two joints: {parent_of[joint.child]!r} "
                             f"and {joint.name!r}")
        if joint.type != "fixed":
            unit_axis(joint.axis, where)
        parent_of[joint.child] = joint.name
        by_name[joint.name] = joint
    if not links:
        raise ModelError(f"robot {name!r} has no link")
    mimics = _resolve_mimics(by_name)

    roots = [link for link in links if link not in parent_of]
    if len(roots) > 1:
        raise ModelError(f"several root links (links that are no joint's child): {', '.join(roots)}")
    if not roots:
        raise ModelError("no root link: every link is a joint's child (the joints form a cycle)")
    root_link = roots[0]
    children = collections.defaultdict(list)
    for joint in by_name.values():
        children[joint.parent].append(joint)
    bfs = _traverse(root_link, children, depth_first=False)
    if len(bfs) != len(by_name):
        reached = {j.name for j in bfs}
        stray = [j for j in by_name if j not in reached]
        raise ModelError(f"joints {stray} are not connected to the root link {root_link!r} (the joints form a cycle)")

    # Weld every link to a moving joint's body (None: the root): (joint name, pose in the body frame).
    placement = {root_link: (None, Transform())}
    origins = {}  # moving joint -> (its parent body's joint name or None, joint frame in that body)
    for joint in bfs:
        body, pose = placement[joint.parent]
        if joint.type == "fixed":
            placement[joint.child] = (body, pose.compose(joint.origin))
        else:
            origins[joint.name] = (body, pose.compose(joint.origin))
            placement[joint.child] = (joint.name, Transform())

    parents = {n: p for n, (p, _) in origins.items()}
    order = _body_order(root_link, children, parents, mimics, joint_order)
    index = {None: -1, **{n: k for k, n in enumerate(order)}}
    link_order = [root_link] + [j.child for j in bfs]
    merged = collections.defaultdict(Inertia)
    for link_name in link_order:
        body, pose = placement[link_name]
        merged[index[body]] = merged[index[body]] + links[link_name].transformed(pose)

    armatures = _armature(armature, order, [n for n in order if n not in mimics])
    model_joints = []
    for k, joint_name in enumerate(order):
        joint = by_name[joint_name]
        model_joints.append(Joint(
            name=joint_name,
            kind=JOINT_TYPES[joint.type],
            parent=index[parents[joint_name]],
            origin=origins[joint_name][1],
            axis=joint.axis,
            inertia=merged[k],
            armature=armatures[joint_name],
            limits=Limits(-math.inf, math.inf, joint.limits.effort, joint.limits.velocity)
            if joint.type == "continuous" else joint.limits,
            mimic=Mimic(*mimics[joint_name]) if joint_name in mimics else None,
        ))
    model_links = [Link(n, index[placement[n][0]], placement[n][1]) for n in link_order]
    base_inertia = merged[-1] if floating else Inertia()
    if floating and base_inertia.mass + sum(j.inertia.mass for j in model_joints) <= 0.0:
        raise ModelError(f"robot {name!r}: floating base, but the whole tree (root {root_link!r}) is massless")
    model = RobotModel(name, tuple(model_joints), tuple(model_links), bool(floating), base_inertia, gravity)
    logger.debug("robot %r: %d joints (%d mimic), %d links, root %r", name, model.joint_count, len(mimics),
                 len(model_links), root_link)
    return report(model, policy, notes, links)


def _traverse(root_link, children, depth_first: bool) -> list:
    """All joints reachable from ``root_link``, breadth- or depth-first (pre-order), children in
    the order given."""
    out, pending = [], collections.deque(children[root_link])
    while pending:
        joint = pending.popleft()
        out.append(joint)
        if depth_first:
            pending.extendleft(reversed(children[joint.child]))
        else:
            pending.extend(children[joint.child])
    return out


def _resolve_mimics(joints: dict) -> dict:
    """``{mimic joint: (independent master, multiplier, offset)}`` with chains followed to their end."""
    direct = {}
    for name, joint in joints.items():
        if joint.mimic is None:
            continue
        master, multiplier, offset = joint.mimic
        where = f"joint {name!r}: mimic"
        if joint.type == "fixed":  # e.g. a gripper welded shut in a reduced model: it stays fixed
            logger.warning("%s of %r on a fixed joint ignored: the joint stays fixed", where, master)
            continue
        if master not in joints:  # a typo in the file: Pinocchio (mimic=False) and urdfdom load it too
            logger.warning("%s of %r, which is not a joint of the robot, ignored: the joint moves on its own "
                           "coordinate", where, master)
            continue
        if joints[master].type == "fixed":
            raise ModelError(f"{where} of the fixed joint {master!r}, which has no coordinate")
        direct[name] = (master, Mimic(master, multiplier, offset))
    resolved = {}
    for name in direct:
        multiplier, offset, current, chain = 1.0, 0.0, name, [name]
        while current in direct:
            master, step = direct[current]
            # q = m q_current + o and q_current = m' q_master + o'  =>  q = m m' q_master + m o' + o
            multiplier, offset = multiplier * step.multiplier, multiplier * step.offset + offset
            current = master
            if current in chain:
                raise ModelError(f"mimic joints form a cycle: {' -> '.join(chain + [current])}")
            chain.append(current)
        resolved[name] = (current, multiplier, offset)
    return resolved


def _body_order(root_link, children, parents, mimics, joint_order) -> list[str]:
    """The moving joints (bodies) in their final order, parents first."""
    if joint_order is None or joint_order in TRAVERSALS:
        walk = _traverse(root_link, children, depth_first=joint_order == "depth_first")
        return [j.name for j in walk if j.name in parents]
    if isinstance(joint_order, str):
        raise ModelError(f"joint_order must be one of {TRAVERSALS} or a sequence of joint names, got {joint_order!r}")
    names = list(joint_order)
    default = _body_order(root_link, children, parents, mimics, None)
    independent = [n for n in default if n not in mimics]
    listed_mimics = [n for n in names if n in mimics]
    if listed_mimics:
        raise ModelError(f"joint_order lists mimic joints {listed_mimics}: they take no coordinate, leave them out")
    unknown = [n for n in names if n not in independent]
    missing = [n for n in independent if n not in names]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if unknown or missing or duplicates:
        raise ModelError(f"joint_order is not a permutation of the moving joints: unknown {unknown}, "
                         f"missing {missing}, repeated {duplicates}")
    mimic_children = collections.defaultdict(list)  # body -> the mimic joints it carries
    for n in default:
        if n in mimics:
            mimic_children[parents[n]].append(n)
    order, placed = [], set()

    def place(first):  # these joints and the mimic joints they carry, parents first
        pending = collections.deque(first)
        while pending:
            n = pending.popleft()
            order.append(n)
            placed.add(n)
            pending.extendleft(reversed(mimic_children[n]))

    place(mimic_children[None])
    for n in names:
        parent = parents[n]
        if parent is not None and parent not in placed:
            while parent in mimics:  # name the joint the user has to move: an independent one
                parent = parents[parent]
            raise ModelError(f"joint_order puts joint {n!r} before its parent joint {parent!r}")
        place([n])
    return order


def _armature(armature, bodies, independent) -> dict:
    """``{joint name: armature}`` for every body: ``armature`` is None, a mapping (any moving
    joint) or one value per independent joint."""
    if armature is None:
        values = {}
    elif isinstance(armature, Mapping):
        unknown = [n for n in armature if n not in bodies]
        if unknown:
            raise ModelError(f"armature names unknown joints {unknown} (not moving joints of the robot)")
        values = dict(armature)
    elif isinstance(armature, (str, bytes)):
        raise ModelError("armature must be a mapping or a sequence of numbers, not a string")
    else:
        try:
            sequence = list(armature)
        except TypeError:
            raise ModelError(f"armature must be a mapping or a sequence of {len(independent)} numbers") from None
        if len(sequence) != len(independent):
            raise ModelError(f"armature has {len(sequence)} values, expected {len(independent)} (one per joint)")
        values = dict(zip(independent, sequence))
    out = {}
    for n in bodies:
        value = values.get(n, 0.0)
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"joint {n!r}: armature {value!r} is not a number") from None
        if not math.isfinite(value) or value < 0.0:
            raise ModelError(f"joint {n!r}: armature must be finite and non-negative, got {value}")
        out[n] = value
    return out


class RobotBuilder:
    """A robot written in Python, validated like a URDF::

        model = (RobotBuilder("arm")
                 .add_link("base")
                 .add_link("upper", mass=1.0, com=(0, 0, -0.2), rotational=((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.001)))
                 .add_joint("shoulder", "revolute", "base", "upper", axis=(0, 1, 0), lower=-2, upper=2)
                 .build())

    Links and joints take the URDF's elements and defaults: ``com`` and
    ``rotational`` (the inertia about the centre of mass, link axes) in the link
    frame; a joint's ``xyz``/``rpy`` place it in the parent link's frame, ``axis``
    is in the joint frame; ``mimic`` is ``(joint, multiplier, offset)``. The order
    of `add_joint` calls is the document order of a URDF (it decides the
    breadth- and depth-first joint orders).
    """

    def __init__(self, name: str = "robot"):
        self.name = symbol_name(name)
        self._links: dict[str, Inertia] = {}
        self._joints: list[JointSpec] = []
        self._loops: list[Loop] = []

    def add_link(self, name: str, mass: float = 0.0, com=(0.0, 0.0, 0.0), rotational=((0.0,) * 3,) * 3):
        if not isinstance(name, str) or not name:
            raise ModelError(f"link name must be a non-empty string, got {name!r}")
        if name in self._links:
            raise ModelError(f"duplicate link name {name!r}")
        try:
            self._links[name] = Inertia(mass, com, rotational)
        except ModelError as exc:
            raise ModelError(f"link {name!r}: {exc}") from None
        return self

    def add_joint(self, name: str, type: str, parent: str, child: str, xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0),
                  axis=(1.0, 0.0, 0.0), lower=-math.inf, upper=math.inf, effort=math.inf, velocity=math.inf,
                  mimic=None):
        if not isinstance(name, str) or not name:
            raise ModelError(f"joint name must be a non-empty string, got {name!r}")
        try:
            origin = Transform.from_rpy(xyz, rpy)
            limits = Limits(lower, upper, effort, velocity)
            if mimic is not None:
                mimic = mimic if isinstance(mimic, Mimic) else Mimic(*mimic)
                mimic = (mimic.joint, mimic.multiplier, mimic.offset)
            spec = JointSpec(name, type, parent, child, origin, tuple(float(a) for a in axis), limits, mimic)
        except (ModelError, TypeError, ValueError) as exc:
            raise ModelError(f"joint {name!r}: {exc}") from None
        self._joints.append(spec)
        return self

    def loop(self, link1: str, link2: Optional[str], kind: str = "point", offset1=(0.0, 0.0, 0.0),
             offset2=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0)):
        """Close a loop (`rbdgen.Loop`): the point ``offset1`` of ``link1`` stays on the point ``offset2`` of
        ``link2`` (None: the world); ``kind="frame"`` also holds link2's orientation at ``rpy`` in link1's frame."""
        try:
            rotation = Transform.from_rpy((0.0, 0.0, 0.0), rpy).quaternion
            self._loops.append(Loop(link1, link2, kind, offset1, offset2, rotation))
        except (ModelError, TypeError, ValueError) as exc:
            raise ModelError(f"loop {link1!r}-{link2!r}: {exc}") from None
        return self

    def build(self, floating=False, joint_order=None, armature=None, gravity=STANDARD_GRAVITY,
              inertia="warn") -> RobotModel:
        """The validated model; options as for `rbdgen.load_urdf` (``inertia``: the policy for
        link inertias no rigid body has, applied here)."""
        model = assemble(self.name, self._links, self._joints, floating=floating, joint_order=joint_order,
                         armature=armature, gravity=gravity, inertia=inertia)
        return dataclasses.replace(model, loops=tuple(self._loops)) if self._loops else model
