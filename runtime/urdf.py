"""URDF loader: read a robot description into a validated `RobotModel`.

Conventions (dynibo 0.5.2):

* Moving joints are ``revolute``, ``continuous`` (a revolute joint without
  position limits) and ``prismatic``; ``fixed`` joints are merged away (see
  `rbdgen.model`). Any other type, and ``<mimic>``, is a `ModelError`.
* The default joint order is breadth-first over *all* joints from the root,
  children in document order; fixed joints are traversed but take no
  coordinate. Links are ordered the same way: the root first, then the child
  link of each joint in that breadth-first order.
* A fixed base makes the root link the world: the root and the links welded to
  it belong to body ``-1`` and their inertia is ignored. A floating base keeps
  their merged inertia as ``base_inertia``.
* Visuals, collisions, meshes, transmissions, ``<dynamics>`` and gazebo tags
  are ignored. ``defusedxml`` parses with DTDs forbidden: a robot file is
  untrusted input, and a DTD is where entity expansion (billion laughs) and
  external entities (reading local files) come from; no real URDF has one.
"""

from __future__ import annotations

import collections
import logging
import math
import os
import re
from collections.abc import Mapping

import defusedxml
import defusedxml.ElementTree

from .errors import ModelError
from .model import STANDARD_GRAVITY, Inertia, Joint, Limits, Link, RobotModel, Transform

__all__ = ["load_urdf", "load_urdf_string"]

logger = logging.getLogger(__name__)

_MOVING_TYPES = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic"}
_INERTIA_ATTRIBUTES = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def load_urdf(path, floating=False, joint_order=None, armature=None, gravity=STANDARD_GRAVITY) -> RobotModel:
    """Load the URDF file at ``path`` (str or os.PathLike).

    ``floating``: a free-floating base (G = J + 6) instead of a fixed one.
    ``joint_order``: the moving joints' names in another order (parents first);
    default: dynibo's breadth-first order. ``armature``: None, a mapping
    {joint name: value} or J values in the final joint order. ``gravity``: the
    gravity vector stored on the model. A missing file is a FileNotFoundError;
    anything wrong in the description is a `ModelError` naming the element.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(2, "URDF file not found", path)
    with open(path, "rb") as handle:
        data = handle.read()
    logger.debug("loading URDF %s", path)
    return load_urdf_string(data, floating=floating, joint_order=joint_order, armature=armature, gravity=gravity)


def load_urdf_string(text, floating=False, joint_order=None, armature=None, gravity=STANDARD_GRAVITY) -> RobotModel:
    """Load a URDF given as text (str or bytes); options as for `load_urdf`."""
    try:
        root = defusedxml.ElementTree.fromstring(text, forbid_dtd=True)
    except defusedxml.ElementTree.ParseError as exc:
        raise ModelError(f"malformed URDF XML: {exc}") from exc
    except defusedxml.DefusedXmlException as exc:
        raise ModelError(f"URDF XML with a DTD, entity or external reference ({exc!r}): not allowed in a "
                         f"robot file (it can expand without bound or read other files); remove the "
                         f"<!DOCTYPE ...> declaration") from None
    if root.tag != "robot":
        raise ModelError(f"the root element is <{root.tag}>, expected <robot>")
    name = _robot_name(root.get("name"))

    inertias: dict[str, Inertia] = {}
    for element in root.findall("link"):
        link_name = _required_name(element, "link")
        if link_name in inertias:
            raise ModelError(f"duplicate link name {link_name!r}")
        inertias[link_name] = _parse_inertial(element, link_name)
    if not inertias:
        raise ModelError(f"robot {name!r} has no <link>")

    joints: dict[str, dict] = {}
    parent_of: dict[str, str] = {}  # child link -> joint name
    for element in root.findall("joint"):
        joint = _parse_joint(element, inertias)
        if joint["name"] in joints:
            raise ModelError(f"duplicate joint name {joint['name']!r}")
        child = joint["child"]
        if child in parent_of:
            raise ModelError(f"link {child!r} is the child of two joints: {parent_of[child]!r} and {joint['name']!r}")
        parent_of[child] = joint["name"]
        joints[joint["name"]] = joint

    roots = [link for link in inertias if link not in parent_of]
    if len(roots) > 1:
        raise ModelError(f"several root links (links that are no joint's child): {', '.join(roots)}")
    if not roots:
        raise ModelError("no root link: every link is a joint's child (the joints form a cycle)")
    root_link = roots[0]

    # Breadth-first over all joints from the root, children in document order.
    children = collections.defaultdict(list)
    for joint in joints.values():
        children[joint["parent"]].append(joint)
    bfs, queue = [], collections.deque([root_link])
    while queue:
        link_name = queue.popleft()
        for joint in children[link_name]:
            bfs.append(joint)
            queue.append(joint["child"])
    if len(bfs) != len(joints):
        reached = {j["name"] for j in bfs}
        stray = [j for j in joints if j not in reached]
        raise ModelError(f"joints {stray} are not connected to the root link {root_link!r} (the joints form a cycle)")

    # Weld every link to a body: (body index in breadth-first order, pose in the body frame).
    placement = {root_link: (-1, Transform())}
    moving, origins = [], {}
    for joint in bfs:
        body, pose = placement[joint["parent"]]
        if joint["type"] == "fixed":
            placement[joint["child"]] = (body, pose.compose(joint["origin"]))
        else:
            origins[joint["name"]] = (body, pose.compose(joint["origin"]))
            placement[joint["child"]] = (len(moving), Transform())
            moving.append(joint)

    order = _joint_order(moving, origins, joint_order)
    new_index = {-1: -1, **{bfs_index: k for k, bfs_index in enumerate(order)}}
    merged = collections.defaultdict(Inertia)
    for link_name in [root_link] + [j["child"] for j in bfs]:
        body, pose = placement[link_name]
        merged[new_index[body]] = merged[new_index[body]] + inertias[link_name].transformed(pose)

    armatures = _armature(armature, [moving[i]["name"] for i in order])
    model_joints = []
    for k, bfs_index in enumerate(order):
        joint = moving[bfs_index]
        parent_body, origin = origins[joint["name"]]
        model_joints.append(
            Joint(
                name=joint["name"],
                kind=_MOVING_TYPES[joint["type"]],
                parent=new_index[parent_body],
                origin=origin,
                axis=joint["axis"],
                inertia=merged[k],
                armature=armatures[k],
                limits=joint["limits"],
            )
        )
    links = [
        Link(link_name, new_index[placement[link_name][0]], placement[link_name][1])
        for link_name in [root_link] + [j["child"] for j in bfs]
    ]
    base_inertia = merged[-1] if floating else Inertia()
    if floating and base_inertia.mass + sum(j.inertia.mass for j in model_joints) <= 0.0:
        raise ModelError(f"robot {name!r}: floating base, but the whole tree (root {root_link!r}) is massless")
    model = RobotModel(name, tuple(model_joints), tuple(links), bool(floating), base_inertia, gravity)
    logger.debug("URDF robot %r: %d joints, %d links, root %r", name, model.joint_count, len(links), root_link)
    return model


# -- elements ------------------------------------------------------------------
def _robot_name(raw) -> str:
    """The robot name as a symbol prefix valid in C and CasADi: letters, digits, single underscores."""
    name = re.sub(r"_+", "_", re.sub(r"[^0-9A-Za-z_]", "_", (raw or "").strip())).strip("_")
    if not name:
        logger.warning("URDF <robot> has no usable name (%r); using 'robot'", raw)
        return "robot"
    return "robot_" + name if name[0].isdigit() else name


def _required_name(element, what: str) -> str:
    name = element.get("name")
    if name is None or not name.strip():
        raise ModelError(f"a <{what}> element has no name attribute")
    return name


def _numbers(element, attribute: str, count: int, default, where: str) -> tuple[float, ...]:
    """``count`` finite numbers from ``element``'s attribute (``default`` if absent)."""
    raw = None if element is None else element.get(attribute)
    if raw is None:
        return tuple(default)
    what = f"{where}: <{element.tag} {attribute}={raw!r}>"
    try:
        values = tuple(float(x) for x in raw.split())
    except ValueError:
        raise ModelError(f"{what}: not a number") from None
    if len(values) != count:
        raise ModelError(f"{what}: expected {count} number{'s' if count > 1 else ''}, got {len(values)}")
    if not all(math.isfinite(x) for x in values):
        raise ModelError(f"{what}: non-finite value")
    return values


def _origin(element, where: str) -> Transform:
    origin = element.find("origin")
    xyz = _numbers(origin, "xyz", 3, (0.0, 0.0, 0.0), where)
    rpy = _numbers(origin, "rpy", 3, (0.0, 0.0, 0.0), where)
    return Transform.from_rpy(xyz, rpy)


def _parse_inertial(link, name: str) -> Inertia:
    """The link's inertia in the link frame (massless without ``<inertial>``)."""
    inertial = link.find("inertial")
    where = f"link {name!r}"
    if inertial is None:
        return Inertia()
    frame = _origin(inertial, where)
    mass_element = inertial.find("mass")
    if mass_element is None or mass_element.get("value") is None:
        raise ModelError(f"{where}: <inertial> has no <mass value>")
    (mass,) = _numbers(mass_element, "value", 1, (), where)
    if mass < 0.0:
        raise ModelError(f"{where}: negative mass {mass}")
    tensor = inertial.find("inertia")
    if tensor is None:
        raise ModelError(f"{where}: <inertial> has no <inertia>")
    missing = [a for a in _INERTIA_ATTRIBUTES if tensor.get(a) is None]
    if missing:
        raise ModelError(f"{where}: <inertia> lacks {', '.join(missing)}")
    ixx, ixy, ixz, iyy, iyz, izz = (_numbers(tensor, a, 1, (), where)[0] for a in _INERTIA_ATTRIBUTES)
    try:
        local = Inertia(mass, (0.0, 0.0, 0.0), ((ixx, ixy, ixz), (ixy, iyy, iyz), (ixz, iyz, izz)))
    except ModelError as exc:
        raise ModelError(f"{where}: {exc}") from None
    return local.transformed(frame)


def _link_reference(element, tag: str, where: str, links) -> str:
    ref = element.find(tag)
    name = None if ref is None else ref.get("link")
    if name is None:
        raise ModelError(f"{where}: missing <{tag} link=...>")
    if name not in links:
        raise ModelError(f"{where}: {tag} link {name!r} is not defined")
    return name


def _parse_joint(element, links) -> dict:
    name = _required_name(element, "joint")
    where = f"joint {name!r}"
    kind = element.get("type")
    if kind not in _MOVING_TYPES and kind != "fixed":
        raise ModelError(f"{where}: unsupported joint type {kind!r} (supported: revolute, continuous, prismatic, fixed)")
    if element.find("mimic") is not None:
        raise ModelError(f"{where}: <mimic> joints are not supported")
    joint = {
        "name": name,
        "type": kind,
        "parent": _link_reference(element, "parent", where, links),
        "child": _link_reference(element, "child", where, links),
        "origin": _origin(element, where),
    }
    axis = _numbers(element.find("axis"), "xyz", 3, (1.0, 0.0, 0.0), where)
    norm = math.sqrt(sum(x * x for x in axis))
    if kind != "fixed" and norm < 1e-12:
        raise ModelError(f"{where}: zero <axis xyz>")
    joint["axis"] = tuple(x / norm for x in axis) if norm >= 1e-12 else axis
    limit = element.find("limit")
    lower, upper, effort, velocity = (
        _numbers(limit, a, 1, (d,), where)[0]
        for a, d in (("lower", -math.inf), ("upper", math.inf), ("effort", math.inf), ("velocity", math.inf))
    )
    if kind == "continuous":
        lower, upper = -math.inf, math.inf
    try:
        joint["limits"] = Limits(lower, upper, effort, velocity)
    except ModelError as exc:
        raise ModelError(f"{where}: <limit> {exc}") from None
    return joint


# -- options -------------------------------------------------------------------
def _joint_order(moving, origins, joint_order) -> list[int]:
    """Indices into ``moving`` (breadth-first) in the final order, parents first."""
    if joint_order is None:
        return list(range(len(moving)))
    if isinstance(joint_order, str):
        raise ModelError("joint_order must be a sequence of joint names, not a string")
    names = list(joint_order)
    index = {j["name"]: i for i, j in enumerate(moving)}
    unknown = [n for n in names if n not in index]
    missing = [n for n in index if n not in names]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if unknown or missing or duplicates:
        raise ModelError(
            f"joint_order is not a permutation of the moving joints: unknown {unknown}, "
            f"missing {missing}, repeated {duplicates}"
        )
    placed = set()
    for n in names:
        parent = origins[n][0]
        if parent != -1 and parent not in placed:
            raise ModelError(f"joint_order puts joint {n!r} before its parent joint {moving[parent]['name']!r}")
        placed.add(index[n])
    return [index[n] for n in names]


def _armature(armature, names) -> list[float]:
    """One armature value per joint name (zeros for None)."""
    if armature is None:
        return [0.0] * len(names)
    if isinstance(armature, Mapping):
        unknown = [n for n in armature if n not in names]
        if unknown:
            raise ModelError(f"armature names unknown joints {unknown} (not moving joints of the robot)")
        values = [armature.get(n, 0.0) for n in names]
    elif isinstance(armature, (str, bytes)):
        raise ModelError("armature must be a mapping or a sequence of numbers, not a string")
    else:
        try:
            values = list(armature)
        except TypeError:
            raise ModelError(f"armature must be a mapping or a sequence of {len(names)} numbers") from None
        if len(values) != len(names):
            raise ModelError(f"armature has {len(values)} values, expected {len(names)} (one per joint)")
    out = []
    for n, value in zip(names, values):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"joint {n!r}: armature {value!r} is not a number") from None
        if not math.isfinite(value) or value < 0.0:
            raise ModelError(f"joint {n!r}: armature must be finite and non-negative, got {value}")
        out.append(value)
    return out
