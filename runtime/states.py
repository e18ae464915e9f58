"""Random states of one robot: the one generator of the tests, the benchmarks and
`CompiledSolver.validate`.

`random_states` draws q uniform in [-pi, pi], qd ~ 2 N(0, 1), qdd ~ 5 N(0, 1),
generalized forces tau ~ 10 N(0, 1), a floating base within 3 m of the origin with a
uniformly random unit quaternion and N(0, 1) velocity and acceleration, and one random
load (torque ~ N(0, 1), force ~ 10 N(0, 1)) per state on each link asked for.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

from .algorithms.operations import BASE, OPERATIONS
from .interface import BaseState

#: The state arrays each operation takes after the base (rbdgen's argument order, no loads).
ARGUMENTS = {name: tuple(n for n in op.inputs if n != "loads") for name, op in OPERATIONS.items()}


@dataclasses.dataclass
class States:
    """A batch of N states of one robot, with loads in two forms.

    ``loads`` is the dense ``(N, L, 6)`` array of link wrenches ``[torque, force]``,
    ``load_lists[i]`` the same loads of state ``i`` as ``(link, torque, force)`` triples
    (the references' form). The base fields are None for a fixed base.
    """

    translation: Optional[np.ndarray]
    quat: Optional[np.ndarray]
    velocity: Optional[np.ndarray]
    acceleration: Optional[np.ndarray]
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    loads: np.ndarray
    load_lists: list

    @property
    def n(self) -> int:
        return self.q.shape[0]

    @property
    def floating(self) -> bool:
        return self.quat is not None

    @property
    def base(self) -> Optional[BaseState]:
        """The batched `BaseState` (None for a fixed base)."""
        return self.state_base(slice(None)) if self.floating else None

    def state_base(self, i) -> BaseState:
        """State ``i``'s `BaseState` (``i`` a slice: several states)."""
        return BaseState(self.translation[i], self.quat[i], self.velocity[i], self.acceleration[i])

    def head(self, i: Optional[int] = None) -> tuple:
        """The leading solver arguments: ``(base,)`` of the batch (``i`` None) or of state ``i``
        for a floating base, ``()`` for a fixed one."""
        if not self.floating:
            return ()
        return (self.state_base(slice(None) if i is None else i),)

    def ref_base(self, i: int):
        """State ``i``'s base for `rbdgen.testing.references` (None for a fixed base)."""
        if not self.floating:
            return None
        return (self.translation[i], self.quat[i], self.velocity[i], self.acceleration[i])

    def args(self, op: str, i: Optional[int] = None) -> tuple:
        """The positional arguments of solver operation ``op``: the batch (``i`` None) or state ``i``."""
        pick = slice(None) if i is None else i
        return self.head(i) + tuple(getattr(self, name)[pick] for name in ARGUMENTS[op])

    def call(self, solver, op: str, i: Optional[int] = None, loads: bool = False, **options):
        """``solver.<op>`` on the batch (``i`` None) or on state ``i``, with this batch's loads if asked."""
        if loads:
            options["loads"] = self.loads if i is None else self.loads[i]
        return getattr(solver, op)(*self.args(op, i), **options)

    def rows(self, index) -> "States":
        """The states ``index`` (a slice or an index array) as a batch."""
        index = np.arange(self.n)[index]
        return States(**{f.name: self._take(getattr(self, f.name), index) for f in dataclasses.fields(self)})

    @staticmethod
    def _take(value, index):
        if value is None:
            return None
        if isinstance(value, list):
            return [value[k] for k in index]
        return value[index]

    def velocities(self) -> np.ndarray:
        """The generalized velocities ``(N, G)``: the base velocity then ``qd`` (a fixed base: ``qd``)."""
        return np.concatenate([self.velocity, self.qd], axis=1) if self.floating else self.qd

    def accelerations(self) -> np.ndarray:
        """The generalized accelerations ``(N, G)``: the base acceleration then ``qdd`` (a fixed base: ``qdd``)."""
        return np.concatenate([self.acceleration, self.qdd], axis=1) if self.floating else self.qdd

    def flat(self) -> dict:
        """The generated C's flat inputs, ``(N, size)`` arrays: ``base`` (`operations.BASE`),
        ``q``, ``qd``, ``qdd``, ``tau`` and ``loads`` (``6 L`` values per state)."""
        flat = {"q": self.q, "qd": self.qd, "qdd": self.qdd, "tau": self.tau, "loads": self.loads.reshape(self.n, -1)}
        if self.floating:
            flat["base"] = np.concatenate([getattr(self, field) for field in BASE], axis=1)
        return flat


def random_states(robot, n: int, seed: int, load_links=(), base_wrench: bool = True) -> States:
    """``n`` random states of ``robot`` (a `RobotModel` or a solver), see the module docstring.

    ``load_links``: names of the links that get a load. ``base_wrench=False`` zeroes the
    first six generalized forces of a floating base (an unactuated base).
    """
    model = getattr(robot, "model", robot)
    rng = np.random.default_rng(seed)
    J, G, L = model.joint_count, model.generalized_count, len(model.links)
    base = [None] * 4
    if model.floating:
        quat = rng.normal(size=(n, 4))
        base = [rng.uniform(-3.0, 3.0, (n, 3)), quat / np.linalg.norm(quat, axis=1, keepdims=True),
                rng.normal(size=(n, 6)), rng.normal(size=(n, 6))]
    q = rng.uniform(-np.pi, np.pi, (n, J))
    qd = 2.0 * rng.normal(size=(n, J))
    qdd = 5.0 * rng.normal(size=(n, J))
    tau = 10.0 * rng.normal(size=(n, G))
    if model.floating and not base_wrench:
        tau[:, :6] = 0.0
    loads = np.zeros((n, L, 6))
    load_lists = []
    for i in range(n):
        entries = []
        for link in load_links:
            torque, force = rng.normal(size=3), 10.0 * rng.normal(size=3)
            loads[i, model.link_id(link)] += np.concatenate([torque, force])
            entries.append((link, torque, force))
        load_lists.append(entries)
    return States(*base, q, qd, qdd, tau, loads, load_lists)


def contact_inputs(contacts, n: int, seed: int) -> dict:
    """The constrained operations' inputs for ``n`` states of the declared ``contacts``
    (`rbdgen.contacts.ContactModel`): ``active`` 1.0 or 0.0 at random (every contact active in the first
    state) and, where kp is not zero, a ``reference`` of positions in [-1, 1] m and random unit quaternions."""
    rng = np.random.default_rng(seed)
    active = rng.integers(0, 2, (n, len(contacts.contacts))).astype(float)
    active[0] = 1.0
    out = {"active": active}
    if contacts.kp:
        parts = []
        for c in contacts.contacts:
            parts.append(rng.uniform(-1.0, 1.0, (n, 3)))
            if c.kind == "frame":
                quat = rng.normal(size=(n, 4))
                parts.append(quat / np.linalg.norm(quat, axis=1, keepdims=True))
        out["reference"] = np.concatenate(parts, axis=1)
    return out
