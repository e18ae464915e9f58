"""Contacts declared at generation time: `Contact` and the settings of the constrained operations.

A `Contact` names a link, a kind and an offset (a point in the link frame, metres). A
``point`` contact holds that point's world position: 3 constraint rows, its force ``[fx, fy,
fz]``. A ``frame`` contact holds the whole link frame placed at the offset: 6 rows, its wrench
``[torque, force]`` about the point. Rows and forces are in world axes; a force is what the
environment exerts on the robot.

`ContactModel` is the declaration checked against one model: the contacts (with their link
ids), the Baumgarte gains ``(kp, kd)`` of ``contact_dynamics``, the proximal damping
``(mu, iterations)`` of its solve and the restitution of ``impulse_dynamics``. It is what the
algorithms read (`Tree.contacts`), what a manifest records (`as_dict`, `from_dict`) and what the
command line writes (`parse`: ``LINK[:point|frame][@x,y,z]``). Link names are data here: they
reach generated text only through `rbdgen.names.c_text`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Optional

KINDS = {"point": 3, "frame": 6}

#: Proximal iterations of a damped solve where ``damping=`` gives only mu.
DAMPING_ITERATIONS = 10

#: The reference of each kind: a point's target position; a frame's position and unit quaternion xyzw.
REFERENCE_SIZE = {"point": 3, "frame": 7}


def _real(value, what: str, low: float = -math.inf, high: float = math.inf) -> float:
    """``value`` as a float when it is a finite real number in [low, high]; a ValueError or TypeError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what}: expected a real number, got {value!r}")
    x = float(value)
    if not (math.isfinite(x) and low <= x <= high):
        raise ValueError(f"{what}: expected a finite number in [{low}, {high}], got {value!r}")
    return x


@dataclass(frozen=True)
class Contact:
    """A contact on ``link``: ``kind`` ``"point"`` (3 rows) or ``"frame"`` (6 rows), at ``offset`` (link frame, m)."""

    link: str
    kind: str = "point"
    offset: tuple = (0.0, 0.0, 0.0)

    def __post_init__(self):
        if not isinstance(self.link, str) or not self.link:
            raise TypeError(f"Contact: link must be a link name (a non-empty string), got {self.link!r}")
        if self.kind not in KINDS:
            raise ValueError(f"Contact {self.link!r}: kind must be one of {list(KINDS)}, got {self.kind!r}")
        if isinstance(self.offset, (str, bytes)) or not hasattr(self.offset, "__len__") or len(self.offset) != 3:
            raise ValueError(f"Contact {self.link!r}: offset must be three numbers (x, y, z), got {self.offset!r}")
        object.__setattr__(self, "offset", tuple(_real(x, f"Contact {self.link!r} offset") for x in self.offset))

    @property
    def rows(self) -> int:
        return KINDS[self.kind]

    def as_dict(self) -> dict:
        return {"link": self.link, "kind": self.kind, "offset": list(self.offset)}

    @staticmethod
    def parse(spec: str) -> "Contact":
        """``LINK[:point|frame][@x,y,z]`` (the command line's ``--contact``)."""
        link, at, offset = spec.rpartition("@") if "@" in spec else (spec, "", "")
        kind = "point"
        head, colon, tail = link.rpartition(":")
        if colon and tail in KINDS:
            link, kind = head, tail
        values = (0.0, 0.0, 0.0)
        if at:
            try:
                values = tuple(float(x) for x in offset.split(","))
            except ValueError:
                raise ValueError(f"--contact {spec!r}: the offset after '@' must be three numbers x,y,z") from None
        return Contact(link, kind, values)


@dataclass(frozen=True)
class ContactModel:
    """The contacts and their settings, checked against one model (see the module docstring)."""

    contacts: tuple  # Contact
    links: tuple  # the link id of each contact
    kp: float = 0.0
    kd: float = 0.0
    mu: float = 0.0  # proximal damping; 0: an exact solve that reports dependent contacts
    iterations: int = 0  # proximal iterations (0 when mu is 0)
    restitution: float = 0.0
    actuated: tuple = ()  # the actuated joints of a model with loops (`loop_inverse_dynamics`), by name

    @staticmethod
    def declare(model, contacts, baumgarte=(0.0, 0.0), damping=0.0, restitution=0.0,
                actuated=()) -> Optional["ContactModel"]:
        """The `ContactModel` of ``contacts`` (`Contact` objects) on ``model``; None for no contacts (then the
        settings must be their defaults, or the settings of the model's loops). ``damping``: mu, or
        ``(mu, iterations)``; ``actuated``: joint names (a model with loops)."""
        contacts = tuple(contacts or ())
        for c in contacts:
            if not isinstance(c, Contact):
                raise TypeError(f"contacts: expected rbdgen.Contact objects, got {type(c).__name__}")
        if isinstance(baumgarte, (str, bytes)) or not hasattr(baumgarte, "__len__") or len(baumgarte) != 2:
            raise ValueError(f"baumgarte: expected (kp, kd), got {baumgarte!r}")
        kp, kd = (_real(x, f"baumgarte {n}", 0.0) for x, n in zip(baumgarte, ("kp", "kd")))
        mu, iterations = damping if isinstance(damping, (tuple, list)) else (damping, None)
        mu = _real(mu, "damping mu", 0.0)
        if iterations is None:
            iterations = DAMPING_ITERATIONS if mu > 0 else 0
        if isinstance(iterations, bool) or not isinstance(iterations, numbers.Integral) or not (
                (mu > 0 and 1 <= iterations <= 1000) or (mu == 0 and iterations == 0)):
            raise ValueError(f"damping: iterations must be an integer in [1, 1000] with mu > 0 (none without "
                             f"damping), got {damping!r}")
        restitution = _real(restitution, "restitution", 0.0, 1.0)
        if isinstance(actuated, str) or not all(isinstance(j, str) for j in actuated):
            raise TypeError(f"actuated: expected a list of joint names, got {actuated!r}")
        actuated = tuple(actuated)
        if actuated and not model.loops:
            raise ValueError("actuated joints are for the inverse dynamics of a model with closed loops; this "
                             "model has none")
        unknown = [j for j in actuated if j not in model.joint_names]
        if unknown or len(set(actuated)) != len(actuated):
            raise ValueError(f"actuated: {unknown or actuated} are not distinct independent joints of the model; "
                             f"its joints are {list(model.joint_names)}")
        if not contacts:
            if (kp, kd, mu, restitution, actuated) == (0.0, 0.0, 0.0, 0.0, ()):
                return None
            if not model.loops:
                raise ValueError("baumgarte, damping and restitution need contacts or closed loops: declare them "
                                 "with contacts=[rbdgen.Contact(link), ...]")
            # the settings of a model's loops (`rbdgen.loops`): no contacts, so false in a boolean test
        links = tuple(model.link_id(c.link) for c in contacts)
        fixed = [c.link for c, k in zip(contacts, links) if not model.floating and model.links[k].body == -1]
        if fixed:
            raise ValueError(f"contacts: {fixed} welded to the fixed base never move: a contact there constrains "
                             f"nothing; put contacts on moving links")
        return ContactModel(contacts, links, kp, kd, mu, int(iterations), restitution, actuated)

    def __bool__(self) -> bool:
        """Whether contacts are declared (settings alone are a model's loops')."""
        return bool(self.contacts)

    @property
    def rows(self) -> int:
        """C: the constraint rows of every contact."""
        return sum(c.rows for c in self.contacts)

    @property
    def reference_size(self) -> int:
        """R: the size of the ``reference`` input (0: none, kp is 0)."""
        return sum(REFERENCE_SIZE[c.kind] for c in self.contacts) if self.kp else 0

    def dimensions(self) -> dict:
        """The sizes K (contacts), C (constraint rows) and R (reference values)."""
        return {"K": len(self.contacts), "C": self.rows, "R": self.reference_size}

    def as_dict(self) -> dict:
        """The manifest's and `NumpySolver`'s form: ``contacts``, ``baumgarte``, ``damping``, ``restitution``."""
        return {"contacts": [c.as_dict() for c in self.contacts], "baumgarte": [self.kp, self.kd],
                "damping": [self.mu, self.iterations], "restitution": self.restitution,
                **({"actuated": list(self.actuated)} if self.actuated else {})}

    def options(self) -> dict:
        """The keyword arguments of `rbdgen.generate` and `rbdgen.NumpySolver` that declare these contacts."""
        return {"contacts": self.contacts, "baumgarte": (self.kp, self.kd), "damping": (self.mu, self.iterations),
                "restitution": self.restitution, "actuated": self.actuated}

    @staticmethod
    def from_dict(model, options: Optional[dict]) -> Optional["ContactModel"]:
        """The `ContactModel` a manifest's options record (None where they have no contacts)."""
        if not options or "contacts" not in options:
            return None
        contacts = [Contact(c["link"], c["kind"], tuple(c["offset"])) for c in options["contacts"]]
        return ContactModel.declare(model, contacts, tuple(options["baumgarte"]), tuple(options["damping"]),
                                    options["restitution"], tuple(options.get("actuated", ())))
