"""The URDF elements and attributes rbdgen reads, and a warning for misspelled ones.

urdfdom and rbdgen skip what they do not know, so ``<orign>``, ``<axes>`` or
``xzy=`` would be dropped without a word and the joint would sit at the parent's
origin or turn about x. `check_spelling` logs one warning per unknown name (the
first place, a line where known, the link or joint, how many more, the nearest
known name), in the parts of the file rbdgen reads: the robot, its links and
joints, ``<inertial>`` and the elements whose values it takes. It stays quiet
for what other tools put there and rbdgen leaves aside on purpose (``QUIET``:
visuals, collisions, gazebo, transmissions, ros2_control, materials,
``<dynamics>``, ``<safety_controller>``, ``<calibration>``, ...), for the insides
of those, and for namespaced names (``xacro:``, ``drake:``).
"""

from __future__ import annotations

import collections
import difflib
import logging

__all__ = ["check_spelling"]

logger = logging.getLogger(__name__)

#: element -> (its attributes, its child elements) that rbdgen reads.
READ = {
    "robot": ({"name"}, {"link", "joint"}),
    "link": ({"name"}, {"inertial"}),
    "inertial": (set(), {"origin", "mass", "inertia"}),
    "origin": ({"xyz", "rpy"}, set()),
    "mass": ({"value"}, set()),
    "inertia": ({"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}, set()),
    "joint": ({"name", "type"}, {"origin", "parent", "child", "axis", "limit", "mimic"}),
    "parent": ({"link"}, set()),
    "child": ({"link"}, set()),
    "axis": ({"xyz"}, set()),
    "limit": ({"lower", "upper", "effort", "velocity"}, set()),
    "mimic": ({"joint", "multiplier", "offset"}, set()),
}

#: element -> the attributes and child elements other tools put there, which rbdgen ignores.
QUIET = {
    "robot": {"version", "material", "gazebo", "transmission", "ros2_control", "sensor", "mujoco"},
    "link": {"type", "visual", "collision", "contact", "gravity", "kinematic", "surface", "self_collision_checking",
             "collision_checking", "self_filter", "velocity_decay"},
    "joint": {"dynamics", "calibration", "safety_controller", "dont_collapse"},
    "limit": {"command_effort", "current", "gear_velocity"},
}


def check_spelling(root, lines: dict):
    """Warn about the unknown elements and attributes under ``root`` (`READ`, `QUIET`); ``lines``:
    {id(element): its line} where known."""
    found = collections.defaultdict(list)  # (kind, name, in element) -> [(line, owner)]
    pending = collections.deque([(root, "the robot")])
    while pending:
        element, owner = pending.popleft()
        attributes, children = READ[element.tag]
        quiet = QUIET.get(element.tag, set())
        line = lines.get(id(element))
        for name in element.attrib:
            if name not in attributes and name not in quiet and not name.startswith("{"):
                found[("attribute", name, element.tag, tuple(sorted(attributes)))].append((line, owner))
        for child in element:
            if not isinstance(child.tag, str) or child.tag.startswith("{") or child.tag in quiet:
                continue
            if child.tag not in children:
                found[("element", child.tag, element.tag, tuple(sorted(children)))].append((lines.get(id(child)), owner))
                continue
            pending.append((child, _owner(child, owner)))
    for (kind, name, parent, known), places in found.items():
        line, owner = places[0]
        guess = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        shown = f"<{name}>" if kind == "element" else f"{name}="
        logger.warning("%s%s: unknown %s %s in <%s>, ignored%s%s", f"line {line}: " if line else "", owner, kind,
                       shown, parent, f" (did you mean {guess[0]}?)" if guess else
                       f" (rbdgen reads {', '.join(known)} there)" if known else " (rbdgen reads none there)",
                       f"; {len(places) - 1} more like it" if len(places) > 1 else "")


def _owner(element, owner: str) -> str:
    """What names a place in the file: the link or joint an element is in."""
    if element.tag in ("link", "joint"):
        return f"{element.tag} {element.get('name')!r}"
    return owner
