"""The public operations with their real signatures: `FixedBaseSolver` and `FloatingBaseSolver`.

A fixed-base robot's operations take the joint state, ``inverse_dynamics(q, qd, qdd,
*, loads=None, out=None, mask=None)``; a floating-base robot's take a `BaseState`
first, ``inverse_dynamics(base, q, qd, qdd, *, ...)``. Every engine (`NumpySolver`,
`CompiledSolver`) has one class of each kind, picked from the model when it is
made. Each method only names its arguments and hands them to
`SolverBase._run`; the doc strings are assembled from the tables below, so each
argument is described once.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike

from .algorithms.operations import OPERATIONS
from .interface import BaseState, Load, SolverBase

#: ``loads=``: `Load` objects, or a dense (L, 6) / (N, L, 6) array.
Loads = Union[Sequence[Load], ArrayLike, None]

#: One line per operation, and what it returns.
SUMMARIES = {
    "mass_matrix": ("Joint-space inertia matrix M(q) (composite-rigid-body algorithm).",
                    "M : ndarray, shape (G, G) or (N, G, G)\n"
                    "    Symmetric positive definite (armature on the joint diagonal) [kg m^2, kg m, kg]."),
    "velocity_product_forces": ("Coriolis and centrifugal forces C(q, qd) qd (no gravity, base acceleration or loads).",
                                "c : ndarray, shape (G,) or (N, G)\n    Generalized forces [N m, N]."),
    "gravity": ("Forces that hold the robot still: g(q) + J^T loads = ID(q, 0, 0, loads), motionless base.",
                "g : ndarray, shape (G,) or (N, G)\n    Generalized forces [N m, N]."),
    "inverse_dynamics": ("Inverse dynamics tau = M qdd + C qd + g + J^T loads (recursive Newton-Euler).",
                         "tau : ndarray, shape (G,) or (N, G)\n    Generalized forces [N m, N]; floating base: "
                         "the base wrench [torque, force] (world axes, about the base origin) first."),
    "forward_dynamics": ("Forward dynamics qdd = M^-1 (tau - C qd - g - J^T loads) (articulated-body algorithm).",
                         "acc : ndarray, shape (G,) or (N, G)\n    Generalized accelerations; floating base: the "
                         "base's classical acceleration [omegadot_W, pddot_W] first [rad/s^2, m/s^2]."),
    "forward_dynamics_crba": ("Forward dynamics by M (CRBA), the bias of one RNEA and one checked Cholesky solve.",
                              "acc : ndarray, shape (G,) or (N, G)\n    As `forward_dynamics`, to rounding."),
}

#: Every argument's description (J joints, G = J (+ 6 with a floating base), L links, N states).
PARAMETERS = {
    "base": "base : BaseState\n    The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),\n"
            "    velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,\n"
            "    world axes, angular first, default 0); each field unbatched or with a leading N.",
    "q": "q : array_like, shape (J,) or (N, J)\n    Joint positions [rad, m] in `joint_names` order.",
    "qd": "qd : array_like, shape (J,) or (N, J)\n    Joint velocities [rad/s, m/s].",
    "qdd": "qdd : array_like, shape (J,) or (N, J)\n    Joint accelerations [rad/s^2, m/s^2].",
    "tau": "tau : array_like, shape (G,) or (N, G)\n    Generalized forces [N m, N]; floating base: the base wrench\n"
           "    [torque, force] (world axes, about the base origin) first.",
    "loads": "loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional\n"
             "    Wrenches [torque, force] the links apply to their environment, at each link's origin\n"
             "    in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.",
    "out": "out : ndarray, optional\n    A writeable, aligned float64 array of the result's shape that receives it\n"
           "    (and is returned).",
    "mask": "mask : array_like of bool, shape (N,), optional\n    Batches only: evaluate the selected states; "
            "the others' results are zero.",
}

CONVENTIONS = """Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
float64 once); an unbatched argument is shared by every state of a batch."""

RAISES = """ValueError
    An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
    (each message names the argument); batch sizes that differ.
TypeError
    An argument that is not real numbers (bool, complex, strings, objects), a mask that is
    not boolean, a wrong call.
SolverError
    A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
    the message says which state."""


def _docstring(op: str, floating: bool) -> str:
    """The NumPy-style doc string of ``op`` for a fixed or floating base."""
    summary, returns = SUMMARIES[op]
    record = OPERATIONS[op]
    names = [n for n in record.input_names(floating) if n != "loads"]
    names += (["loads"] if record.loads else []) + ["out", "mask"]
    params = "\n".join(PARAMETERS[n] for n in names)
    return (f"{summary}\n\n{CONVENTIONS}\n\nParameters\n----------\n{params}\n\n"
            f"Returns\n-------\n{returns}\n\nRaises\n------\n{RAISES}\n")


PASSIVE_DOC = """Any of M(q), g(q) and C(q, qd) qd from one pass (one recursive pass over the tree).

Parameters
----------
{head}q, qd : array_like, shape (J,) or (N, J)
    Joint positions and velocities.
mass_matrix, gravity, coriolis : bool
    Which results to compute (at least one).
mask : array_like of bool, shape (N,), optional
    Batches only: evaluate the selected states; the others' results are zero.

Returns
-------
dict
    The requested keys among ``"mass_matrix"`` (G, G), ``"gravity"`` (G,) and
    ``"velocity_product_forces"`` (G,), batches with a leading N.

Raises
------
{raises}
"""


class FixedBaseSolver(SolverBase):
    """A fixed-base robot's operations: joint positions, velocities and accelerations only."""

    def mass_matrix(self, q: ArrayLike, *, out: Optional[np.ndarray] = None,
                    mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("mass_matrix", (q,), None, out, mask)

    def velocity_product_forces(self, q: ArrayLike, qd: ArrayLike, *, out: Optional[np.ndarray] = None,
                                mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("velocity_product_forces", (q, qd), None, out, mask)

    def gravity(self, q: ArrayLike, *, loads: Loads = None, out: Optional[np.ndarray] = None,
                mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("gravity", (q,), loads, out, mask)

    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None,
                         out: Optional[np.ndarray] = None, mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("inverse_dynamics", (q, qd, qdd), loads, out, mask)

    def forward_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None,
                         out: Optional[np.ndarray] = None, mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("forward_dynamics", (q, qd, tau), loads, out, mask)

    def forward_dynamics_crba(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None,
                              out: Optional[np.ndarray] = None, mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("forward_dynamics_crba", (q, qd, tau), loads, out, mask)

    def passive_terms(self, q: ArrayLike, qd: ArrayLike, *, mass_matrix: bool = True, gravity: bool = True,
                      coriolis: bool = True, mask: Optional[ArrayLike] = None) -> Dict[str, np.ndarray]:
        return self._passive_terms((q, qd), mass_matrix, gravity, coriolis, mask)


class FloatingBaseSolver(SolverBase):
    """A floating-base robot's operations: a `BaseState` first, then the joint state."""

    def mass_matrix(self, base: BaseState, q: ArrayLike, *, out: Optional[np.ndarray] = None,
                    mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("mass_matrix", (base, q), None, out, mask)

    def velocity_product_forces(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *,
                                out: Optional[np.ndarray] = None, mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("velocity_product_forces", (base, q, qd), None, out, mask)

    def gravity(self, base: BaseState, q: ArrayLike, *, loads: Loads = None, out: Optional[np.ndarray] = None,
                mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("gravity", (base, q), loads, out, mask)

    def inverse_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None,
                         out: Optional[np.ndarray] = None, mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("inverse_dynamics", (base, q, qd, qdd), loads, out, mask)

    def forward_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None,
                         out: Optional[np.ndarray] = None, mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("forward_dynamics", (base, q, qd, tau), loads, out, mask)

    def forward_dynamics_crba(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *,
                              loads: Loads = None, out: Optional[np.ndarray] = None,
                              mask: Optional[ArrayLike] = None) -> np.ndarray:
        return self._run("forward_dynamics_crba", (base, q, qd, tau), loads, out, mask)

    def passive_terms(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, mass_matrix: bool = True,
                      gravity: bool = True, coriolis: bool = True,
                      mask: Optional[ArrayLike] = None) -> Dict[str, np.ndarray]:
        return self._passive_terms((base, q, qd), mass_matrix, gravity, coriolis, mask)


def _document(cls: Any, floating: bool) -> None:
    for op in SUMMARIES:
        getattr(cls, op).__doc__ = _docstring(op, floating)
    head = PARAMETERS["base"] + "\n" if floating else ""
    cls.passive_terms.__doc__ = PASSIVE_DOC.format(head=head, raises=RAISES)


_document(FixedBaseSolver, False)
_document(FloatingBaseSolver, True)

