"""Closed kinematic loops: `Loop`, a constraint between two links that is part of the model.

A ``point`` loop holds a point of ``link1`` (``offset1``, link1 frame) on a point of ``link2``
(``offset2``, link2 frame): 3 rows, what MJCF's ``<equality><connect>`` says. A ``frame`` loop
also holds link2's orientation at ``rotation`` (a unit quaternion xyzw) in link1's frame: 6 rows,
MJCF's ``<weld>``. ``link2`` None is the world (``offset2`` a world point, the world's axes).

The constraint rows are in world axes, angular first for a frame loop: the error is
``e = [vee(R1 Rrel R2^T - R2 Rrel^T R1^T) / 2, p1 - p2]`` and ``J = J1(p1) - J2(p2)``; a loop's
force (``[torque, force]`` for a frame loop, about the point) is what link2 exerts on link1
(link2 feels the opposite). Loops are always active: `forward_dynamics` of a model with loops
solves for their forces (`rbdgen.algorithms.loop_dynamics`), with the Baumgarte gains and the
damping declared at generation, as for contacts (`rbdgen.contacts.ContactModel`).

Link names are data: they reach generated text only through `rbdgen.names.c_text`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .contacts import KINDS, _real

IDENTITY = (0.0, 0.0, 0.0, 1.0)


def _triple(values, what: str) -> tuple:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) != 3:
        raise ValueError(f"{what}: expected three numbers (x, y, z), got {values!r}")
    return tuple(_real(x, what) for x in values)


@dataclass(frozen=True)
class Loop:
    """A loop between ``link1`` and ``link2`` (None: the world): see the module docstring."""

    link1: str
    link2: Optional[str]
    kind: str = "point"
    offset1: tuple = (0.0, 0.0, 0.0)
    offset2: tuple = (0.0, 0.0, 0.0)
    rotation: tuple = IDENTITY  # frame loops: link2's orientation in link1's frame (xyzw)

    def __post_init__(self):
        where = f"loop {self.link1!r}-{self.link2!r}"
        for link in (self.link1, self.link2):
            if link is not None and (not isinstance(link, str) or not link):
                raise TypeError(f"{where}: links must be link names (non-empty strings; link2 None: the world)")
        if self.link1 is None:
            raise TypeError(f"{where}: link1 must be a link name")
        if self.link1 == self.link2:
            raise ValueError(f"{where}: a loop joins two different links")
        if self.kind not in KINDS:
            raise ValueError(f"{where}: kind must be one of {list(KINDS)}, got {self.kind!r}")
        object.__setattr__(self, "offset1", _triple(self.offset1, f"{where} offset1"))
        object.__setattr__(self, "offset2", _triple(self.offset2, f"{where} offset2"))
        quat = self.rotation
        if isinstance(quat, (str, bytes)) or not hasattr(quat, "__len__") or len(quat) != 4:
            raise ValueError(f"{where}: rotation must be a quaternion (x, y, z, w), got {quat!r}")
        quat = tuple(_real(x, f"{where} rotation") for x in quat)
        norm = math.sqrt(sum(x * x for x in quat))
        if abs(norm - 1.0) > 1e-6:
            raise ValueError(f"{where}: rotation must be a unit quaternion (x, y, z, w), its norm is {norm:g}")
        object.__setattr__(self, "rotation", tuple(x / norm for x in quat))

    @property
    def rows(self) -> int:
        return KINDS[self.kind]

    def as_dict(self) -> dict:
        return {"link1": self.link1, "link2": self.link2, "kind": self.kind, "offset1": list(self.offset1),
                "offset2": list(self.offset2), "rotation": list(self.rotation)}

    @staticmethod
    def from_dict(data: dict) -> "Loop":
        return Loop(data["link1"], data["link2"], data["kind"], tuple(data["offset1"]), tuple(data["offset2"]),
                    tuple(data["rotation"]))


@dataclass(frozen=True)
class LoopModel:
    """The model's loops with their link ids (-1: the world) and the solve's settings (`ContactModel`'s)."""

    loops: tuple  # Loop
    links: tuple  # (link1 id, link2 id or -1) of each loop
    kp: float = 0.0
    kd: float = 0.0
    mu: float = 0.0
    iterations: int = 0
    actuated: tuple = ()  # the G coordinates of the actuated joints (`loop_inverse_dynamics`)

    @staticmethod
    def declare(model, settings=None) -> Optional["LoopModel"]:
        """The loops of ``model`` with the gains and damping of ``settings`` (a `ContactModel`, or None: none)."""
        if not model.loops:
            return None
        links = tuple((model.link_id(lp.link1), -1 if lp.link2 is None else model.link_id(lp.link2))
                      for lp in model.loops)
        if settings is None:
            return LoopModel(model.loops, links)
        first = 6 if model.floating else 0
        actuated = tuple(first + model.joint_names.index(j) for j in settings.actuated)
        return LoopModel(model.loops, links, settings.kp, settings.kd, settings.mu, settings.iterations, actuated)

    @property
    def rows(self) -> int:
        return sum(lp.rows for lp in self.loops)

    def dimensions(self) -> dict:
        """The sizes LC (loop rows) and A (actuated joints)."""
        return {"LC": self.rows, "A": len(self.actuated)}
