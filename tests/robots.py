"""Registry of the test robots (example-robot-data URDFs).

``ROBOTS[name]`` gives a :class:`Robot` with the URDF path and whether the model
is used with a floating base; ``path(name)`` gives the URDF path alone.

The files under ``tests/data`` were made from example-robot-data 6.0.0 with
:func:`strip_urdf` (see ``tests/data/README.md``); ``python tests/robots.py``
remakes them from the installed package.

Talos is the exception: its URDF carries a "Creative Commons
Attribution-NonCommercial-NoDerivs 3.0" notice from PAL Robotics, so no copy is
kept in the repository.  ``path("talos")`` is the installed example-robot-data
file itself, unmodified: Talos full v2 with the mimic joints of its grippers.
"""

from __future__ import annotations

import importlib.metadata
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Robot:
    name: str
    floating: bool

    @property
    def path(self) -> str:
        """URDF path (resolved on use: Talos is built on first use)."""
        return path(self.name)


# name -> (file in tests/data, floating, source under example-robot-data/robots,
#          joints turned fixed); the hand's inertias are balanced (see strip_urdf)
_SOURCES = {
    "double_pendulum": ("double_pendulum.urdf", False,
                        "double_pendulum_description/urdf/double_pendulum.urdf", ()),
    "ur5": ("ur5.urdf", False, "ur_description/urdf/ur5_robot.urdf", ()),
    "panda": ("panda.urdf", False, "panda_description/urdf/panda.urdf",
              ("panda_finger_joint1", "panda_finger_joint2")),
    "hand": ("hand.urdf", False,
             "allegro_hand_description/urdf/allegro_right_hand.urdf", ()),
    "solo12": ("solo12.urdf", True, "solo_description/robots/solo12.urdf", ()),
    "g1": ("g1.urdf", True, "g1_description/urdf/g1_29dof_rev_1_0.urdf", ()),
    "talos": (None, True, "talos_data/robots/talos_full_v2.urdf", ()),
}

# Elements dropped everywhere: none of them affects kinematics or dynamics.
_DROP = ("visual", "collision", "gazebo", "transmission", "contact")


def example_robot_data_dir() -> Path:
    """The ``robots`` folder of the installed example-robot-data distribution."""
    dist = importlib.metadata.distribution("example-robot-data")
    return Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots"))


def strip_urdf(src, dst, fixed_joints=(), note=None) -> None:
    """Write a copy of ``src`` without visual/collision/simulator elements.

    Removes ``<visual>``, ``<collision>``, ``<gazebo>``, ``<transmission>`` and
    (PyBullet) ``<contact>`` elements and the top-level ``<material>``
    definitions, and balances the inertias that violate the triangle inequality
    (the note then names their links).  Joints named in ``fixed_joints`` become ``type="fixed"`` (their
    ``<axis>``, ``<limit>``, ``<dynamics>``, ``<mimic>``, ``<safety_controller>``
    are dropped).  Links, inertials, joint origins, axes,
    limits and dynamics are kept byte-for-byte as values; comments are kept.
    """
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    tree = ET.parse(src, parser)
    root = tree.getroot()
    if root.tag != "robot":
        raise ValueError(f"{src}: root element is {root.tag!r}, not 'robot'")

    def prune(elem):
        for child in list(elem):
            if child.tag in _DROP:
                elem.remove(child)
            else:
                prune(child)

    prune(root)
    for child in list(root):
        if child.tag == "material":
            root.remove(child)

    joints = {j.get("name"): j for j in root.iter("joint")}
    for name in fixed_joints:
        joint = joints[name]  # KeyError if the source changed
        joint.set("type", "fixed")
        for child in list(joint):
            if child.tag in ("axis", "limit", "dynamics", "mimic", "safety_controller"):
                joint.remove(child)

    balanced = [link.get("name") for link in root.iter("link")
                if link.find("inertial/inertia") is not None and _balance(link.find("inertial/inertia"))]
    if balanced:
        root.insert(0, ET.Comment(" the inertias of links " + ", ".join(balanced) + ", which violate the triangle "
                                  "inequality, balanced to their mean principal moment "))
    if note:
        root.insert(0, ET.Comment(f" {note} "))
    for elem in root.iter():
        if elem.text is not None and not elem.text.strip():
            elem.text = None
        if elem.tail is not None and not elem.tail.strip():
            elem.tail = None
    ET.indent(tree, space="  ")
    body = ET.tostring(root, encoding="unicode")
    # ElementTree drops what precedes the root element: keep its comments (the
    # generator banners and, for some robots, the copyright notice).
    with open(src, encoding="utf-8") as f:
        text = f.read()
    prologue = text[: text.index("<robot")]
    comments = []
    while "<!--" in prologue:
        i = prologue.index("<!--")
        j = prologue.index("-->", i) + 3
        comments.append(prologue[i:j])
        prologue = prologue[j:]
    with open(dst, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n')
        for c in comments:
            f.write(c + "\n")
        f.write(body + "\n")


def _balance(element) -> bool:
    """An ``<inertia>`` that violates the triangle inequality (MuJoCo refuses it) is written as
    its mean principal moment times the identity, as MuJoCo's ``balanceinertia`` and
    rbdgen's ``inertia="balance"`` do; a valid one is left as it is."""
    from rbdgen.inertias import balance_inertia

    names = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    xx, xy, xz, yy, yz, zz = (float(element.get(n)) for n in names)
    tensor = ((xx, xy, xz), (xy, yy, yz), (xz, yz, zz))
    balanced = balance_inertia(tensor)
    if balanced == tensor:
        return False
    for n, value in zip(names, (balanced[0][0], 0.0, 0.0, balanced[1][1], 0.0, balanced[2][2])):
        element.set(n, repr(value))
    return True


def _note(name: str, src_rel: str) -> str:
    fixed = _SOURCES[name][3]
    parts = ["Stripped copy of example-robot-data 6.0.0 robots/" + src_rel + " for the rbdgen tests",
             "visual, collision, gazebo, transmission, contact and top-level material elements removed"]
    if fixed:
        parts.append("joints " + ", ".join(fixed) + " made fixed")
    return "; ".join(parts) + ". See tests/data/README.md."


def build(name: str, dst) -> None:
    """Make the stripped URDF of ``name`` at ``dst`` from example-robot-data."""
    _, _, src_rel, fixed = _SOURCES[name]
    strip_urdf(example_robot_data_dir() / src_rel, dst, fixed, _note(name, src_rel))


def path(name: str) -> str:
    """Path of the URDF of test robot ``name``."""
    if name not in _SOURCES:
        raise KeyError(f"unknown test robot {name!r}; known: {sorted(_SOURCES)}")
    file, _, src_rel, _ = _SOURCES[name]
    return str(DATA / file) if file else str(example_robot_data_dir() / src_rel)


ROBOTS: dict[str, Robot] = {n: Robot(n, s[1]) for n, s in _SOURCES.items()}

#: Links that get loads: moving links, links welded through fixed joints (feet,
#: hands, tool frames, finger tips), links moved by mimic joints (Talos' fingertips)
#: and, for floating robots, the base link.
LOAD_LINKS = {
    "double_pendulum": ["link1", "link2"],
    "ur5": ["forearm_link", "wrist_3_link", "ee_link", "tool0"],
    "panda": ["panda_link3", "panda_hand", "panda_leftfinger", "panda_hand_tcp"],
    "hand": ["link_1.0", "link_3.0_tip", "link_11.0_tip", "link_14.0", "palm_link"],
    "solo12": ["base_link", "FL_FOOT", "HR_FOOT", "FR_LOWER_LEG"],
    "g1": ["pelvis", "left_ankle_roll_link", "right_rubber_hand", "head_link", "torso_link"],
    "talos": ["base_link", "left_sole_link", "right_sole_link", "gripper_left_base_link",
              "gripper_left_fingertip_1_link", "arm_right_4_link", "torso_2_link"],
}

FIXED = [n for n, s in _SOURCES.items() if not s[1]]
FLOATING = [n for n, s in _SOURCES.items() if s[1]]


if __name__ == "__main__":
    # Remake tests/data/*.urdf (not Talos: see the module docstring).
    for n in (n for n, s in _SOURCES.items() if s[0]):
        build(n, DATA / _SOURCES[n][0])
        print("wrote", os.path.relpath(DATA / _SOURCES[n][0]))
