"""Inverse kinematics of one link of a fixed-base robot (dynibo 0.5.2's semantics).

Damped least squares on the solver's own `forward_kinematics` and `jacobian`, so a
`CompiledSolver` iterates on its generated C and a `NumpySolver` on the NumPy engine.
At each iterate ``q`` the error of the link frame is ``e = [r, p* - p]``: the rotation
vector ``r`` of ``R* R^T`` (world axes, angular first, like the Jacobian's rows) and the
position error. The iteration stops, with ``q``, once ``|p* - p|`` and the angle ``|r|``
are both within their tolerances; otherwise it steps

    dq = J^T (J J^T + damping^2 I)^-1 e,    scaled down to max_step_norm if longer.

After ``max_iterations`` steps without convergence it raises `IkNotConvergedError`
(the iterations and both residuals). Joint limits are the model's (URDF ``<limit>``;
continuous joints have none): the start must be within them, the steps are not
clipped (a clipped step is no longer a least-squares step), and a converged solution
outside them is an `IkJointLimitError`, as dynibo reports it.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from typing import Any, Optional

import numpy as np

from .algorithms.operations import INVERSE_KINEMATICS
from .errors import IkJointLimitError, IkNotConvergedError, NonFiniteError
from .interface import _array, _check_out, _scaled_quaternion

log = logging.getLogger(__name__)

#: The iteration budget where ``max_iterations`` is None (dynibo's).
DEFAULT_MAX_ITERATIONS = 100


@dataclasses.dataclass(frozen=True)
class IkOptions:
    """Options of `inverse_kinematics` (dynibo's ``IkOptions``: same fields and defaults).

    max_iterations : int or None
        Steps allowed before `IkNotConvergedError`; None means 100.
    translation_tolerance : float
        Largest position error of the link origin at convergence [m].
    rotation_tolerance : float
        Largest rotation angle between the link frame and the target at convergence [rad].
    damping : float
        lambda of the step ``J^T (J J^T + lambda^2 I)^-1 e``: larger is slower but steadier
        near singular configurations.
    max_step_norm : float
        Longest step ``|dq|`` (Euclidean norm over the joints) [rad, m].

    Each is checked here: a ValueError (a TypeError for a non-integer ``max_iterations``)
    names the option.
    """

    max_iterations: Optional[int] = None
    translation_tolerance: float = 1e-6
    rotation_tolerance: float = 1e-6
    damping: float = 1e-3
    max_step_norm: float = 0.5

    def __post_init__(self):
        n = DEFAULT_MAX_ITERATIONS if self.max_iterations is None else self.max_iterations
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"invalid inverse-kinematics option max_iterations: must be an integer, got {n!r}")
        if n <= 0:
            raise ValueError(f"invalid inverse-kinematics option max_iterations: must be greater than zero, got {n}")
        object.__setattr__(self, "max_iterations", int(n))
        for name in ("translation_tolerance", "rotation_tolerance", "damping", "max_step_norm"):
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
                raise TypeError(f"invalid inverse-kinematics option {name}: must be a number, got {value!r}")
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"invalid inverse-kinematics option {name}: must be finite and greater than zero, "
                                 f"got {value}")
            object.__setattr__(self, name, float(value))


FIELDS = tuple(f.name for f in dataclasses.fields(IkOptions))


def _options(options: Any) -> IkOptions:
    """``options`` as `IkOptions`: None gives the defaults; an object with the same fields
    (dynibo's ``IkOptions``) is read field by field."""
    if options is None or isinstance(options, IkOptions):
        return options or IkOptions()
    if not all(hasattr(options, name) for name in FIELDS):
        raise TypeError(f"options: expected an IkOptions (fields {', '.join(FIELDS)}), got {type(options).__name__}")
    return IkOptions(**{name: getattr(options, name) for name in FIELDS})


def _target(target_pose: Any) -> tuple:
    """(position (3,), quaternion xyzw (4,)) from a `Pose` or a ``[x, y, z, qx, qy, qz, qw]`` array.

    The quaternion's norm does not matter (`rotation_error`); it is only rescaled where its
    square would overflow or underflow. A zero or non-finite one is a ValueError.
    """
    if hasattr(target_pose, "translation") and hasattr(target_pose, "rotation_xyzw"):
        position = _array(target_pose.translation, "target_pose translation", 3, batched=False)
        rotation = target_pose.rotation_xyzw
    else:
        pose = _array(target_pose, "target_pose", 7, batched=False)
        position, rotation = pose[:3], pose[3:]
    return position, _scaled_quaternion(_array(rotation, "target_pose rotation_xyzw", 4, batched=False),
                                        "target_pose rotation_xyzw")


def rotation_error(target: np.ndarray, quat: np.ndarray) -> tuple:
    """``(r, angle)``: the rotation vector ``r`` (world axes) that turns the frame of quaternion ``quat``
    onto ``target``'s, ``log(R* R^T)``, and its angle ``|r|`` in [0, pi]. Neither needs a unit norm:
    the axis and the angle of ``target * conj(quat)`` do not depend on the quaternions' scales."""
    tx, ty, tz, tw = target
    x, y, z, w = quat
    x, y, z = -x, -y, -z
    dx, dy = tw * x + tx * w + ty * z - tz * y, tw * y - tx * z + ty * w + tz * x
    dz, dw = tw * z + tx * y - ty * x + tz * w, tw * w - tx * x - ty * y - tz * z
    if dw < 0:  # d and -d are one rotation: the one of angle <= pi
        dx, dy, dz, dw = -dx, -dy, -dz, -dw
    sin_half = math.sqrt(dx * dx + dy * dy + dz * dz)  # times the scales
    if sin_half == 0:
        return np.zeros(3), 0.0
    angle = 2 * math.atan2(sin_half, dw)
    return np.array([dx, dy, dz]) * (angle / sin_half), angle


def joint_limits(model) -> tuple:
    """(lower, upper), shape (J,) each: the limits of the independent joints (inf where none)."""
    joints = [j for j in model.joints if j.mimic is None]
    return (np.array([j.limits.lower for j in joints], dtype=float),
            np.array([j.limits.upper for j in joints], dtype=float))


def _outside(q: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> Optional[int]:
    """The first coordinate of ``q`` outside [lower, upper], or None."""
    bad = np.flatnonzero((q < lower) | (q > upper))
    return int(bad[0]) if bad.size else None


def inverse_kinematics(solver, q0, link, target_pose, options=None, out=None) -> np.ndarray:
    """Joint positions (J,) that put ``link``'s frame at ``target_pose``, from ``q0`` (see the module
    docstring); ``solver`` is a fixed-base `NumpySolver` or `CompiledSolver`."""
    if solver.floating:
        raise NotImplementedError(
            "inverse_kinematics: a floating base is not supported (its pose would be unknowns too); load the "
            "robot with floating=False and give the target relative to the base, or step with "
            "jacobian(base, q, link), whose first six columns are the base's")
    missing = [op for op in INVERSE_KINEMATICS if op not in solver.operations]
    if missing:
        raise ValueError(f"inverse_kinematics iterates on forward_kinematics and jacobian; this build lacks "
                         f"{', '.join(missing)}: generate with ops=[..., 'forward_kinematics', 'jacobian'] and "
                         f"frames=[...] naming the link")
    opts = _options(options)
    link = solver._link(link, "link", "the link")
    position, quat = _target(target_pose)
    q = _array(q0, "q0", solver.joint_count, batched=False).copy()
    if out is not None:
        _check_out(out, q.shape)
    lower, upper = joint_limits(solver.model)
    k = _outside(q, lower, upper)
    if k is not None:
        raise ValueError(f"q0: {solver.joint_names[k]} = {q[k]:.6g} is outside its limits [{lower[k]:.6g}, "
                         f"{upper[k]:.6g}]; start from a configuration within the limits "
                         "(e.g. np.clip(q0, lower, upper))")
    pose_of, jacobian_of = (solver._link_function(op, link) for op in INVERSE_KINEMATICS)
    target = quat.tolist()
    damping, budget = opts.damping ** 2 * np.eye(6), opts.max_iterations
    assert budget is not None  # IkOptions resolves None to DEFAULT_MAX_ITERATIONS
    for iteration in range(budget + 1):
        pose = pose_of(q)
        r, rotation = rotation_error(target, pose[3:].tolist())
        p = position - pose[:3]
        translation = math.sqrt(p @ p)
        if translation <= opts.translation_tolerance and rotation <= opts.rotation_tolerance:
            break
        if iteration == budget:
            raise IkNotConvergedError(
                f"inverse kinematics did not converge after {iteration} iterations (translation error "
                f"{translation:.6e} m, rotation error {rotation:.6e} rad, tolerances {opts.translation_tolerance:g} "
                f"and {opts.rotation_tolerance:g}); start closer to the target or raise max_iterations",
                iteration, translation, rotation)
        J = jacobian_of(q)
        step = J.T @ np.linalg.solve(J @ J.T + damping, np.concatenate((r, p)))
        length = math.sqrt(step @ step)
        if not math.isfinite(length):
            raise NonFiniteError(f"inverse_kinematics: numerical failure (non-finite step) at iteration {iteration}")
        if length > opts.max_step_norm:
            step *= opts.max_step_norm / length
        q += step
    log.debug("inverse_kinematics of link %d converged in %d iterations", link, iteration)
    k = _outside(q, lower, upper)
    if k is not None:
        raise IkJointLimitError(
            f"inverse-kinematics solution {q[k]:.6e} for joint {k} ({solver.joint_names[k]}) is outside its limits "
            f"[{lower[k]:.6e}, {upper[k]:.6e}]; start from a configuration nearer a solution within the limits",
            k, float(q[k]), float(lower[k]), float(upper[k]))
    if out is None:
        return q
    out[...] = q
    return out
