"""URDF loader: read a robot description into a validated `RobotModel`.

The file is read into links and joints (`rbdgen.builder.JointSpec`) and
assembled by `rbdgen.builder.assemble`, which holds the conventions (dynibo
0.5.2): joint types, merging of fixed joints, mimic joints, joint and link
order, fixed and floating bases. Here:

* ``revolute``, ``continuous``, ``prismatic`` and ``fixed`` joints are read;
  ``planar``, ``floating`` and ``spherical`` are a `ModelError` that says how
  to model them. ``<mimic joint= multiplier= offset=>`` (defaults 1 and 0)
  makes a joint follow another one.
* Visuals, collisions, meshes, transmissions, ``<dynamics>`` and gazebo tags
  are ignored; an unknown element or attribute where rbdgen reads the file
  (``<orign>``, ``xzy=``) is logged (`rbdgen.urdf_schema`). ``defusedxml`` parses with DTDs forbidden: a robot file is
  untrusted input, and a DTD is where entity expansion (billion laughs) and
  external entities (reading local files) come from; no real URDF has one.
"""

from __future__ import annotations

import logging
import math
import re

import xml.etree.ElementTree

import defusedxml
import defusedxml.ElementTree

from .errors import ModelError
from .builder import JOINT_TYPES, JointSpec, assemble, read_robot_file, robot_file, symbol_name
from .model import STANDARD_GRAVITY, Inertia, Limits, RobotModel, Transform
from .inertias import inertia_policy
from .urdf_schema import check_spelling
from .xacros import expand_xacro, require_trust

__all__ = ["load_urdf", "load_urdf_string"]

logger = logging.getLogger(__name__)

_INERTIA_ATTRIBUTES = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def load_urdf(path, floating=False, joint_order=None, armature=None, gravity=STANDARD_GRAVITY,
              balance_inertia=None, xacro_args=None, package_paths=None, trust_xacro=False,
              inertia="warn") -> RobotModel:
    """Load the URDF file at ``path`` (str or os.PathLike).

    ``floating``: a free-floating base (G = J + 6) instead of a fixed one.
    ``joint_order``: ``"breadth_first"`` (default, dynibo's), ``"depth_first"``
    (Pinocchio's and MuJoCo's) or the independent joints' names in any order with
    parents first. ``armature``: None, a mapping {joint name: value} (mimic joints
    too) or J values in the final joint order. ``gravity``: the gravity vector
    stored on the model. ``inertia``: what to do with a link inertia no rigid body
    has (not positive semi-definite, or breaking the triangle inequality):
    ``"warn"`` (default: load it as given, as Pinocchio and dynibo do, with a logging
    warning), ``"balance"`` (MuJoCo's correction: its mean principal moment) or
    ``"strict"`` (a `ModelError`); see `rbdgen.inertias`. ``balance_inertia=True`` is
    the deprecated spelling of ``inertia="balance"``. ``trust_xacro=True`` lets xacro
    expand a file named ``*.xacro`` (or any file given ``xacro_args`` or
    ``package_paths``) first (see `rbdgen.xacros`): xacro runs the code such a file
    holds, so without it the file is a `ModelError` and nothing runs. ``xacro_args``
    {name: value} for ``$(arg name)``,
    ``package_paths`` {package: folder} for ``$(find package)``. A missing file is
    a FileNotFoundError, a folder, FIFO or device a `ModelError` (never opened);
    anything wrong in the description is a `ModelError` naming the element.
    """
    path = robot_file(path, "URDF")
    if require_trust(path, trust_xacro, xacro_args is not None or package_paths is not None):
        data = expand_xacro(path, xacro_args, package_paths)
    else:
        data = read_robot_file(path, "URDF")
    logger.debug("loading URDF %s", path)
    return load_urdf_string(data, floating=floating, joint_order=joint_order, armature=armature, gravity=gravity,
                            inertia=inertia_policy(inertia, balance_inertia))


def load_urdf_string(text, floating=False, joint_order=None, armature=None, gravity=STANDARD_GRAVITY,
                     balance_inertia=None, inertia="warn") -> RobotModel:
    """Load a URDF given as text (str or bytes); options as for `load_urdf`."""
    policy = inertia_policy(inertia, balance_inertia)
    try:
        root, lines = _parse(text)
    except defusedxml.ElementTree.ParseError as exc:
        raise ModelError(f"malformed URDF XML: {exc}") from exc
    except defusedxml.DefusedXmlException as exc:
        raise ModelError(f"URDF XML with a DTD, entity or external reference ({exc!r}): not allowed in a "
                         f"robot file (it can expand without bound or read other files); remove the "
                         f"<!DOCTYPE ...> declaration") from None
    if root.tag == "mujoco":
        raise ModelError("the root element is <mujoco>: an MJCF file, load it with rbdgen.load_mjcf")
    if root.tag != "robot":
        raise ModelError(f"the root element is <{root.tag}>, expected <robot>")
    check_spelling(root, lines)
    name = symbol_name(root.get("name"))

    inertias: dict[str, Inertia] = {}
    for element in root.findall("link"):
        link_name = _required_name(element, "link")
        if link_name in inertias:
            raise ModelError(f"duplicate link name {link_name!r}")
        inertias[link_name] = _parse_inertial(element, link_name)
    if not inertias:
        raise ModelError(f"robot {name!r} has no <link>")

    joints = [_parse_joint(element) for element in root.findall("joint")]
    return assemble(name, inertias, joints, floating=floating, joint_order=joint_order, armature=armature,
                    gravity=gravity, inertia=policy)


class _Lines(xml.etree.ElementTree.TreeBuilder):
    """A tree builder that records the line of each element: {id(element): line}."""

    def __init__(self):
        super().__init__()
        self.lines, self.parser = {}, None

    def start(self, tag, attributes):
        element = super().start(tag, attributes)
        self.lines[id(element)] = self.parser.parser.CurrentLineNumber
        return element


def _parse(text):
    """(root element, {id(element): line}) of URDF text, DTDs forbidden."""
    builder = _Lines()
    builder.parser = defusedxml.ElementTree.DefusedXMLParser(target=builder, forbid_dtd=True)
    builder.parser.feed(text)
    return builder.parser.close(), builder.lines


# -- elements ------------------------------------------------------------------
def _required_name(element, what: str) -> str:
    name = element.get("name")
    if name is None or not name.strip():
        raise ModelError(f"a <{what}> element has no name attribute")
    return name


#: A number as urdfdom reads it (C++ streams, classic locale): ASCII digits, an optional sign, point
#: and exponent. Python's float() also takes '1_000', 'inf', 'nan' and non-ASCII digits ('١', '１'),
#: which urdfdom refuses; so does rbdgen (inf and nan too: no field rbdgen reads may be infinite).
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_SEPARATOR = re.compile(r"[ \t\n\r]+")


def _numbers(element, attribute: str, count: int, default, where: str) -> tuple[float, ...]:
    """``count`` finite numbers from ``element``'s attribute (``default`` if absent), separated by
    ASCII white space; each one a decimal number of `_NUMBER`'s grammar."""
    raw = None if element is None else element.get(attribute)
    if raw is None:
        return tuple(default)
    what = f"{where}: <{element.tag} {attribute}={raw!r}>"
    words = [w for w in _SEPARATOR.split(raw) if w]
    wrong = [w for w in words if not _NUMBER.fullmatch(w)]
    if wrong:
        raise ModelError(f"{what}: {wrong[0]!r} is not a number (a URDF number is written in ASCII digits with "
                         f"an optional sign, decimal point and exponent, as in -1.5e-3)")
    if len(words) != count:
        raise ModelError(f"{what}: expected {count} number{'s' if count > 1 else ''}, got {len(words)}")
    values = tuple(float(w) for w in words)
    if not all(math.isfinite(x) for x in values):
        raise ModelError(f"{what}: a number beyond the range of double precision")
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
    rotational = ((ixx, ixy, ixz), (ixy, iyy, iyz), (ixz, iyz, izz))
    try:
        local = Inertia(mass, (0.0, 0.0, 0.0), rotational)
    except ModelError as exc:
        raise ModelError(f"{where}: {exc}") from None
    return local.transformed(frame)


_UNSUPPORTED = {
    "planar": "replace it by two prismatic joints and a revolute joint through massless links",
    "floating": "a floating base is the root link loaded with floating=True: remove the joint (and its parent "
                "link, usually 'world') and load with floating=True",
    "spherical": "replace it by three revolute joints through massless links",
}


def _parse_joint(element) -> JointSpec:
    name = _required_name(element, "joint")
    where = f"joint {name!r}"
    kind = element.get("type")
    if kind in _UNSUPPORTED:
        raise ModelError(f"{where}: joint type {kind!r} is not supported inside the tree: {_UNSUPPORTED[kind]}")
    if kind not in JOINT_TYPES:
        raise ModelError(f"{where}: unsupported joint type {kind!r} (supported: {', '.join(JOINT_TYPES)})")
    limit = element.find("limit")
    try:
        limits = Limits(*(_numbers(limit, a, 1, (d,), where)[0] for a, d in (
            ("lower", -math.inf), ("upper", math.inf), ("effort", math.inf), ("velocity", math.inf))))
    except ModelError as exc:
        raise ModelError(f"{where}: <limit> {exc}") from None
    mimic = element.find("mimic")
    if mimic is not None:
        if not mimic.get("joint"):
            raise ModelError(f"{where}: <mimic> has no joint attribute")
        mimic = (mimic.get("joint"), _numbers(mimic, "multiplier", 1, (1.0,), where)[0],
                 _numbers(mimic, "offset", 1, (0.0,), where)[0])
    return JointSpec(
        name=name,
        type=kind,
        parent=_link_name(element, "parent", where),
        child=_link_name(element, "child", where),
        origin=_origin(element, where),
        axis=_numbers(element.find("axis"), "xyz", 3, (1.0, 0.0, 0.0), where),
        limits=limits,
        mimic=mimic,
    )


def _link_name(element, tag: str, where: str) -> str:
    ref = element.find(tag)
    name = None if ref is None else ref.get("link")
    if name is None:
        raise ModelError(f"{where}: missing <{tag} link=...>")
    return name
