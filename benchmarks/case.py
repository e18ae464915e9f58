"""One robot's benchmark case: its generated code and solver, its states, and the independent
results every tool is checked against.

The check results come from two implementations that share nothing with the compiled
solver's generated C: rbdgen's NumPy engine (`rbdgen.NumpySolver`) and Pinocchio
(through `rbdgen.testing.references`). A tool is checked against each of them that is
not itself (`Peer.implementation`).

The other tools take no mimic joints (Talos' grippers have twelve): they run `Case.full`, the
robot of the URDF without its ``<mimic>`` tags, and `Case.reduce` brings their results back to
rbdgen's (reduced) coordinates.
"""

from __future__ import annotations

import dataclasses
import functools
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.testing import States, load_reference
from rbdgen.testing.compare import call_reference
from rbdgen.testing.references import mimic_map, mimic_tags, without_mimic
from tests.robots import strip_urdf

#: The benchmarked operations, in table order.
OPS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "gravity", "velocity_product_forces")

#: The independent implementations results are checked against, with their labels.
REFERENCES = {"numpy": "NumPy engine", "pinocchio": "Pinocchio"}


class Unavailable(Exception):
    """A tool cannot run here (not installed, cannot build, cannot load the robot)."""


@dataclass
class Case:
    """One robot's benchmark: its generated code, solver, states and the reference results."""

    name: str
    urdf: str
    floating: bool
    generated: object  # rbdgen.codegen.generator.Generated
    solver: object  # rbdgen.CompiledSolver
    check: States  # the states every tool's results are checked on (also the C loops' states)
    batch: States  # the batch states (its first rows are `check`)
    flags: tuple
    cache: Path  # builds shared between runs
    work: Path  # this run's scratch folder
    references: dict = field(default_factory=dict)  # implementation -> {op: (S, G) or (S, G, G)}
    notes: list = field(default_factory=list)  # why a reference is missing
    c_bench: object = None  # a Future of `RbdgenC.build`, started early to compile in parallel

    @property
    def joint_names(self) -> list:
        return list(self.solver.joint_names)

    @property
    def J(self) -> int:
        return self.solver.joint_count

    @property
    def G(self) -> int:
        return self.solver.generalized_count

    @property
    def S(self) -> int:
        return self.check.n

    def compute_references(self) -> None:
        """The NumPy engine's and Pinocchio's results of every operation at the check states."""
        engine = rbdgen.NumpySolver(self.solver.model)
        self.references["numpy"] = {op: np.asarray(self.check.call(engine, op)) for op in OPS}
        try:
            pin = load_reference(self.urdf, self.floating, joint_names=self.joint_names)
        except ImportError as exc:
            self.notes.append(f"no Pinocchio reference: pinocchio is not installed ({exc})")
            return
        self.references["pinocchio"] = {op: np.array([call_reference(pin, op, self.check, i) for i in range(self.S)])
                                        for op in OPS}

    @functools.cached_property
    def _mimic(self):
        """``(full case, PG, independent)`` where the URDF has mimic joints (see `full`), else None."""
        text = Path(self.urdf).read_text()
        tags = mimic_tags(text)
        if not tags:
            return None
        urdf = self.work / f"{self.name}.without_mimic.urdf"
        urdf.write_text(without_mimic(text))
        engine = rbdgen.NumpySolver(rbdgen.load_urdf(urdf, floating=self.floating))
        names = list(engine.joint_names)
        P, o = mimic_map(tags, self.joint_names, names)
        off = self.G - self.J
        PG = np.zeros((off + len(names), self.G))
        PG[:off, :off] = np.eye(off)
        PG[off:, off:] = P
        independent = np.r_[np.arange(off), off + np.array([names.index(n) for n in self.joint_names], dtype=int)]
        st = self.check
        check = dataclasses.replace(st, q=st.q @ P.T + o, qd=st.qd @ P.T, qdd=st.qdd @ P.T)
        # the forces whose forward dynamics is P times the reduced one: ID at that acceleration
        acc = self.references["numpy"]["forward_dynamics"]
        at_acc = dataclasses.replace(check, qdd=acc[:, off:] @ P.T,
                                     acceleration=acc[:, :off] if self.floating else None)
        check.tau = at_acc.call(engine, "inverse_dynamics")
        full = dataclasses.replace(self, urdf=str(urdf), generated=None, solver=engine, check=check,
                                   batch=None, references={}, notes=[], c_bench=None)
        return full, PG, independent

    @property
    def full(self) -> "Case":
        """The robot as tools without mimic joints run it: the URDF without its ``<mimic>`` tags (every
        joint independent), its NumPy engine as ``solver``, the check states in its coordinates
        (``q_full = P q + o``, rates ``P qd``, ``P qdd``) and the forces whose forward dynamics is ``P``
        times the reduced one (inverse dynamics of the full robot there). This case itself when the
        URDF has no mimic joints. Needs `compute_references` first."""
        return self if self._mimic is None else self._mimic[0]

    def reduce(self, op, rows) -> np.ndarray:
        """Results of ``op`` on `full` (per state) in this case's coordinates: ``PG^T M PG``, ``PG^T tau``,
        and the independent joints' (and the base's) rows of forward dynamics."""
        rows = np.asarray(rows, dtype=float)
        if self._mimic is None:
            return rows
        _, PG, independent = self._mimic
        if op == "mass_matrix":
            return PG.T @ rows @ PG
        if op == "forward_dynamics":
            return rows[:, independent]
        return rows @ PG

    def stripped_urdf(self) -> str:
        """A copy of the URDF without visual/collision/simulator elements (for MuJoCo)."""
        out = self.work / f"{self.name}.stripped.urdf"
        if not out.exists():
            strip_urdf(self.urdf, out)
        return str(out)

    def normalized_urdf(self) -> str:
        """`stripped_urdf` with the URDF defaults written out: an ``<origin>`` on every joint and
        inertial that has none (adam's parser needs them; identity is the URDF default)."""
        out = self.work / f"{self.name}.normalized.urdf"
        if not out.exists():
            tree = ET.parse(self.stripped_urdf())
            for elem in list(tree.getroot().iter("joint")) + list(tree.getroot().iter("inertial")):
                if elem.find("origin") is None:
                    elem.insert(0, ET.Element("origin", {"xyz": "0 0 0", "rpy": "0 0 0"}))
            tree.write(out, encoding="utf-8", xml_declaration=True)
        return str(out)


def rel_errors(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per state ``||got - ref|| / max(||ref||, 1e-9)`` (Frobenius for matrices)."""
    got = np.asarray(got, dtype=float).reshape(ref.shape[0], -1)
    ref = ref.reshape(ref.shape[0], -1)
    return np.linalg.norm(got - ref, axis=1) / np.maximum(np.linalg.norm(ref, axis=1), 1e-9)
