"""What a loader does with a link inertia that no rigid body has: the inertia policy.

A rigid body's rotational inertia is positive semi-definite and its principal
moments satisfy the triangle inequality (the largest is at most the sum of the
other two). Robot files break both: point masses written as ``ixx = iyy = izz``
with off-diagonal entries, moments rounded to a few digits, placeholders such as
Go1's 1e-6 kg base with every entry 1e-6. Pinocchio, dynibo and Drake load such
files; MuJoCo refuses them unless ``balanceinertia`` is set. Every loader
(`rbdgen.load_urdf` and xacro, `rbdgen.load_mjcf`, `rbdgen.RobotBuilder`) takes
``inertia=``, applied to each link's inertia as the description states it:

* ``"warn"`` (default): the values as given, as Pinocchio and dynibo load them,
  with a logging warning per link naming the violation and its size (at INFO level
  for a link welded to a fixed base, whose inertia plays no part). A non-PSD link
  can make the mass matrix singular or indefinite at some states: the checked
  solves report that with their own status (`rbdgen.SingularError`, status 2, and
  friends), never a wrong number.
* ``"balance"``: MuJoCo's correction, the tensor replaced by its mean principal
  moment times the identity (mass and centre of mass kept); the warning says how
  much the inertia and the mass matrix at ``q = 0`` change.
* ``"strict"``: a `ModelError` naming the link.

Negative or non-finite masses and non-symmetric tensors are errors under every
policy (`rbdgen.Inertia` refuses them). The model records what was done
(`RobotModel.inertia_report`, an `InertiaReport`) and the generated manifest carries it.
"""

from __future__ import annotations

import dataclasses
import logging
import warnings

import numpy as np

from .errors import ModelError
from .model import Inertia, InertiaNote, InertiaReport, Mat3, RobotModel, quaternion_matrix, symmetric_eigenvalues

__all__ = ["INERTIA_POLICIES", "InertiaNote", "InertiaReport", "balance_inertia", "inertia_policy", "noted", "police",
           "report"]

logger = logging.getLogger(__name__)

INERTIA_POLICIES = ("warn", "balance", "strict")


def inertia_policy(inertia="warn", balance_inertia=None) -> str:
    """The policy of a loader's ``inertia=`` and its deprecated ``balance_inertia=`` alias."""
    if inertia not in INERTIA_POLICIES:
        raise ModelError(f"inertia must be one of {INERTIA_POLICIES}, got {inertia!r}")
    if balance_inertia is None:
        return inertia
    warnings.warn('balance_inertia= is deprecated: use inertia="balance" (or "warn", the default, or "strict")',
                  DeprecationWarning, stacklevel=3)
    if not balance_inertia:
        return inertia
    if inertia != "warn":
        raise ModelError(f'balance_inertia=True contradicts inertia={inertia!r}: pass inertia="balance" alone')
    return "balance"


def _violation(rotational: Mat3, allowance: bool = True):
    """(violation, size, largest principal moment in magnitude) of a tensor no rigid body has, else None.

    Allowances: 1e-9 of the largest entry (absolute below 1) for round-off, and for the triangle
    inequality also 1e-6 of the trace for moments written to a few significant digits (real
    URDFs hold point masses with eigenvalues like -2e-22 and thin discs I3 = I1 + I2 rounded in
    the last digit); none with ``allowance=False`` (MuJoCo's check)."""
    scale = max(1.0, max(abs(x) for row in rotational for x in row)) if allowance else 0.0
    low, _, high = symmetric_eigenvalues(rotational)
    if low < -1e-9 * scale:
        return "not positive semi-definite", -low, max(-low, abs(high))
    trace = sum(rotational[i][i] for i in range(3))
    excess = high - (trace - high)
    if excess > 1e-9 * scale + (1e-6 * trace if allowance else 0.0):
        return "triangle inequality", excess, high
    return None


def balance_inertia(rotational: Mat3) -> Mat3:
    """``rotational`` if a rigid body has it (to rounding), else its mean principal moment times
    the identity: what MuJoCo's ``balanceinertia`` does."""
    if _violation(rotational) is None:
        return rotational
    mean = sum(rotational[i][i] for i in range(3)) / 3.0
    return ((mean, 0.0, 0.0), (0.0, mean, 0.0), (0.0, 0.0, mean))


def _describe(note: InertiaNote) -> str:
    if note.violation == "triangle inequality":
        what = (f"inertia tensor violates the triangle inequality: its largest principal moment exceeds the sum "
                f"of the other two by {note.size:.3g} kg m^2")
    else:
        what = f"inertia tensor is not positive semi-definite: a principal moment is {-note.size:.3g} kg m^2"
    return (f"link {note.link!r}: {what} ({100 * note.relative:.3g}% of its largest principal moment); no rigid "
            f"body has it")


def noted(name: str, rotational: Mat3, policy: str, allowance: bool = True) -> InertiaNote | None:
    """The note of link ``name`` whose rotational inertia is ``rotational`` (None for a rigid
    body's, to rounding unless ``allowance`` is False)."""
    found = _violation(rotational, allowance)
    if found is None:
        return None
    violation, size, largest = found
    return InertiaNote(name, policy, violation, size, size / largest, rotational)


def police(name: str, inertia: Inertia, policy: str) -> tuple[Inertia, InertiaNote | None]:
    """The inertia of link ``name`` under ``policy``, and the note of what was done (None for a
    rigid body's inertia); a `ModelError` under ``"strict"``."""
    note = noted(name, inertia.rotational, policy)
    if note is None:
        return inertia, None
    if policy == "strict":
        raise ModelError(f"{_describe(note)}: correct the values, or load with inertia=\"warn\" (--inertia warn: "
                         f"as given, as Pinocchio and dynibo load it) or inertia=\"balance\" (--inertia balance: "
                         f"MuJoCo's correction)")
    if policy == "balance":
        inertia = Inertia(inertia.mass, inertia.com, balance_inertia(inertia.rotational))
    return inertia, note


def report(model: RobotModel, policy: str, notes, used: dict) -> RobotModel:
    """``model`` with its `InertiaReport`: each note completed with what it changes (``used``:
    {link name: its inertia in the model}) and logged."""
    done = []
    mass_matrix = frame = None
    for note in notes:
        link = model.links[model.link_id(note.link)]
        in_use = link.body >= 0 or model.floating
        changes = {}
        if note.policy == "balance" and in_use:
            if mass_matrix is None:
                mass_matrix, frame = _zero_state(model)
            # a balanced inertia keeps the mass and the centre of mass: only the rotational part changes
            delta = np.array(used[note.link].rotational) - np.array(note.given)
            rotation, angular = frame(note.link)
            change = angular.T @ rotation @ delta @ rotation.T @ angular
            scale = np.linalg.norm(mass_matrix, 2)
            changes = dict(inertia_change=float(np.linalg.norm(delta, 2)),
                           mass_matrix_change=float(np.linalg.norm(change, 2) / scale) if scale > 0.0 else 0.0)
        note = dataclasses.replace(note, in_use=in_use, **changes)
        done.append(note)
        _log(note)
    return dataclasses.replace(model, inertia_report=InertiaReport(policy, tuple(done)))


def _zero_state(model: RobotModel):
    """The mass matrix at q = 0 (base at the origin, unrotated) and a function of a link name
    giving (rotation of the link frame in world axes, angular rows of its Jacobian) there."""
    from .fallback import NumpySolver
    from .interface import BaseState

    solver = NumpySolver(model)
    state = ([BaseState([0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0])] if model.floating else []) + [
        np.zeros(model.joint_count)]
    mass_matrix = solver.mass_matrix(*state)

    def frame(link):
        pose = solver.forward_kinematics(*state, link)
        rotation = np.array(quaternion_matrix(tuple(float(v) for v in pose[3:])))
        return rotation, solver.jacobian(*state, link)[:3]

    return mass_matrix, frame


def _log(note: InertiaNote):
    text = _describe(note)
    if note.policy == "balance":
        text += (f"; balanced to its mean principal moment (MuJoCo's balanceinertia): the inertia changes by "
                 f"{note.inertia_change:.3g} kg m^2, the mass matrix at q = 0 by {100 * note.mass_matrix_change:.3g}% "
                 f"of its norm")
    else:
        text += "; loaded as given, as Pinocchio and dynibo do (inertia=\"balance\" corrects it)"
    if not note.in_use:
        logger.info("%s; it plays no part (welded to the fixed base)", text)
    else:
        logger.warning("%s", text)
