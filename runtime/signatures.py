"""The public operations with their real signatures: `FixedBaseSolver` and `FloatingBaseSolver`.

A fixed-base robot's operations take the joint state, ``inverse_dynamics(q, qd, qdd,
*, loads=None, out=None, mask=None)``; a floating-base robot's take a `BaseState`
first, ``inverse_dynamics(base, q, qd, qdd, *, ...)``. Every engine (`NumpySolver`,
`CompiledSolver`) has one class of each kind, picked from the model when it is
made. Each method only names its arguments and hands them to
`SolverBase._run`; the doc strings are assembled from the tables below and the
operation records (`rbdgen.algorithms.operations.OPERATIONS`), so each argument is
described once. The kinematics operations take a link last (a name or an id from
`link_id`); ``inverse_kinematics`` (fixed base only) is `rbdgen.ik`.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from . import ik
from .algorithms.operations import OPERATIONS
from .interface import BaseState, Load, Pose, SolverBase

#: A link: its name or its id from `link_id`.
LinkRef = Union[str, int]

#: ``tool=``: a point on the link, in the link frame ((3,) array or a `Pose`'s translation).
Tool = Union[Pose, ArrayLike, None]

#: ``loads=``: `Load` objects, or a dense (L, 6) / (N, L, 6) array.
Loads = Union[Sequence[Load], ArrayLike, None]

#: ``out=``: a float64 array of the result's shape that receives it.
Out = Optional[np.ndarray]

#: ``mask=``: booleans, one per state of a batch.
Mask = Optional[ArrayLike]

#: ``threads=``: the threads a batch is split over (None: `rbdgen.threads.default_threads`).
Threads = Optional[int]

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
    "forward_dynamics": ("Forward dynamics qdd = M^-1 (tau - C qd - g - J^T loads) (articulated-body algorithm; the\n"
                         "generated C usually uses CRBA and a tree-sparse solve instead: its manifest says which).",
                         "acc : ndarray, shape (G,) or (N, G)\n    Generalized accelerations; floating base: the "
                         "base's classical acceleration [omegadot_W, pddot_W] first [rad/s^2, m/s^2]."),
    "forward_dynamics_crba": ("Forward dynamics by M (CRBA), the bias of one RNEA and one checked Cholesky solve.",
                              "acc : ndarray, shape (G,) or (N, G)\n    As `forward_dynamics`, to rounding."),
    "coriolis_matrix": ("Coriolis matrix C(q, qd) (Echeandia and Wensing's recursive factorisation).",
                        "C : ndarray, shape (G, G) or (N, G, G)\n    C qd equals `velocity_product_forces` and "
                        "Mdot = C + C^T (Christoffel-consistent:\n    Mdot - 2 C is skew-symmetric); floating base: "
                        "nu = [base velocity, qd] [kg m^2/s, kg m/s, kg/s]."),
    "mass_matrix_inverse": ("Inverse mass matrix M(q)^-1 (the checked tree-sparse LTDL factor of M).",
                            "Minv : ndarray, shape (G, G) or (N, G, G)\n    Symmetric positive definite."),
    "kinetic_energy": ("Kinetic energy T = 1/2 nu^T M nu (the rotors' armature included).",
                       "kinetic_energy : float or ndarray, shape (N,)\n    [J]."),
    "potential_energy": ("Potential energy V = -g . sum m c of the moving bodies (a fixed base's root excluded).",
                         "potential_energy : float or ndarray, shape (N,)\n    [J], zero with the centre of mass "
                         "at the world origin."),
    "passivity_forces": ("Passivity-based control's torques M qdd_ref + C(q, qd) qd_ref + g + J^T loads (one pass).",
                         "tau : ndarray, shape (G,) or (N, G)\n    Generalized forces [N m, N]; with qd_ref = nu and "
                         "qdd_ref = nudot, `inverse_dynamics`."),
    "operational_space_inertia": ("Task-space inertia Lambda = (J M^-1 J^T)^-1 of a link frame (J: `jacobian`).",
                                  "Lambda : ndarray, shape (6, 6) or (N, 6, 6)\n    Symmetric, angular first "
                                  "[kg m^2, kg m, kg]; a link that cannot move in every\n    direction there raises "
                                  "a SolverError (SingularError or IllConditionedError)."),
    "dynamically_consistent_inverse": ("Dynamically consistent inverse J# = M^-1 J^T Lambda of a link Jacobian.",
                                       "jacobian_inverse : ndarray, shape (G, 6) or (N, G, 6)\n    J J# = I; "
                                       "a singular task raises as for `operational_space_inertia`."),
    "inverse_dynamics_regressor": ("Inverse dynamics regressor Y(q, qd, qdd): tau = Y pi + armature qdd + J^T loads.",
                                   "regressor : ndarray, shape (G, P) or (N, G, P)\n    P = 10 per body (the "
                                   "floating base's first), in rbdgen.parameters' order:\n    m, m c, inertia "
                                   "about the body origin (Pinocchio's computeJointTorqueRegressor)."),
    "inverse_dynamics_base_regressor": ("The regressor's identifiable columns: tau = Y_base pi_base + armature qdd "
                                        "+ J^T loads.",
                                        "base_regressor : ndarray, shape (G, Pb) or (N, G, Pb)\n    The columns "
                                        "rbdgen.identifiable(model).columns of the regressor."),
    "inverse_dynamics_known_forces": ("What inverse dynamics adds to the regressor's Y pi: armature qdd + J^T loads.",
                                      "tau_known : ndarray, shape (G,) or (N, G)\n    Generalized forces [N m, N]; "
                                      "floating base: the base wrench first."),
    "energy_regressor": ("Energy regressor: kinetic energy T = row 0 . pi + 1/2 sum armature qd^2, potential V = row "
                         "1 . pi.",
                         "energy_regressor : ndarray, shape (2, P) or (N, 2, P)\n    Kinetic and potential rows "
                         "[J per parameter unit]."),
    "momentum": ("Generalized momentum p = M nu.",
                 "momentum : ndarray, shape (G,) or (N, G)\n    [kg m^2/s, kg m/s]; floating base: the base's "
                 "[angular, linear]\n    momentum (world axes, about the base origin) first."),
}

#: What each kinematics operation returns, after its name and shape (its summary is the record's ``doc``).
KINEMATICS_RETURNS = {
    "forward_kinematics": "[x, y, z, qx, qy, qz, qw]: the link origin [m] and the unit quaternion of its frame, "
                          "world frame.",
    "forward_kinematics_all": "One row [x, y, z, qx, qy, qz, qw] per link, in `link_id` order.",
    "jacobian": "The link origin's twist [omega, pdot] (world axes) is J nu, nu = qd, or [base velocity, qd]\n"
                "    for a floating base (its six columns first).",
    "jacobian_derivative": "dJ/dt; Jdot nu is the link's classical acceleration at nudot = 0.",
    "forward_velocity_kinematics": "[omega, pdot] of the link origin (of ``tool`` where given), world axes "
                                   "[rad/s, m/s].",
    "forward_acceleration_kinematics": "Classical acceleration [omegadot, pddot] = J nudot + Jdot nu of the link "
                                       "origin, world axes [rad/s^2, m/s^2].",
    "center_of_mass": "The centre of mass of the moving bodies (a fixed base's root link excluded), world "
                      "frame [m].",
    "center_of_mass_jacobian": "Jc: the centre of mass's velocity is Jc nu (world axes).",
    "centroidal_momentum_matrix": "A_G: A_G nu is the momentum about the centre of mass, angular first, world "
                                  "axes (Pinocchio's computeCentroidalMap puts the linear part first).",
    "centroidal_momentum_bias": "Adot_G nu, angular first, world axes [N m, N].",
}
KINEMATICS_RETURNS["center_of_mass_velocity"] = "Jc nu: the velocity of the centre of mass, world axes [m/s]."

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
    "qd_ref": "qd_ref : array_like, shape (G,) or (N, G)\n    Reference velocity; floating base: the base's "
              "[omega_W, pdot_W] first.",
    "qdd_ref": "qdd_ref : array_like, shape (G,) or (N, G)\n    Reference acceleration; floating base: the base's "
               "classical [omegadot_W, pddot_W] first.",
    "v": "v : array_like, shape (G,) or (N, G)\n    Velocity held for dt; floating base: the base's [omega_W, pdot_W] "
         "first\n    [rad/s, m/s].",
    "dt": "dt : float or array_like, shape (N,)\n    Time step [s].",
    "base1": "base1 : BaseState\n    The second state's base (its velocity and acceleration are not used).",
    "q1": "q1 : array_like, shape (J,) or (N, J)\n    The second state's joint positions [rad, m].",
    "loads": "loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional\n"
             "    Wrenches [torque, force] the links apply to their environment, at each link's origin\n"
             "    in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.",
    "link": "link : str or int\n    The link (its frame's origin): a name or an id from `link_id`.",
    "tool": "tool : array_like, shape (3,), or Pose, optional\n    A point on the link, in the link frame (a "
            "`Pose`: its translation; the\n    rotation does not change the twist): the twist of that point instead.",
    "out": "out : ndarray, optional\n    A writeable, aligned float64 array of the result's shape that receives it\n"
           "    (and is returned).",
    "mask": "mask : array_like of bool, shape (N,), optional\n    Batches only: evaluate the selected states; "
            "the others' results are zero.",
    "threads": "threads : int, optional\n    Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that\n"
               "    many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):\n"
               "    results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the\n"
               "    ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.",
}

#: The configuration-space operations: summary, and what they return for a fixed and a floating base (the
#: Jacobians: None, their outputs are listed from `CONFIGURATION_JACOBIANS`).
CONFIGURATION = {
    "integrate": ("The state moved by the velocity v held constant for dt: q + qd dt; a floating base on R3 x SO(3),\n"
                  "p + pdot dt and exp(omega dt) R (world axes; not Pinocchio's SE(3) exponential of a body twist).",
                  "q_next : ndarray, shape (J,) or (N, J)\n    Joint positions q + qd dt [rad, m].",
                  "(base_next, q_next) : (BaseState, ndarray)\n    The moved base (unit quaternion; velocity and "
                  "acceleration those of ``base``) and\n    the joint positions q + qd dt, shape (J,) or (N, J)."),
    "difference": ("The velocity v that moves the state (base, q) to (base1, q1) in unit time: integrate(x0, v, 1) = x1.",
                   "v : ndarray, shape (G,) or (N, G)\n    q1 - q.",
                   "v : ndarray, shape (G,) or (N, G)\n    [log(R1 R^T), p1 - p, q1 - q]: the shortest rotation "
                   "(angle at most pi) as a\n    world-frame rotation vector, then the translation and joint "
                   "differences."),
    "integrate_derivatives": ("Jacobians of `integrate` on tangent vectors [dtheta_W, dp_W, dq] (R -> exp(dtheta x) R).",
                              None, None),
    "difference_derivatives": ("Jacobians of `difference` by either state's tangent vector [dtheta_W, dp_W, dq]\n"
                               "(R -> exp(dtheta x) R).", None, None),
}

#: The Jacobians of the configuration operations, by output.
CONFIGURATION_JACOBIANS = {
    "dx_next_dx": "d next/dx: diag(exp(omega dt), I, I); the base rotation's columns first.",
    "dx_next_dv": "d next/dv: dt diag(J_l(omega dt), I, I), J_l the left Jacobian of SO(3).",
    "dx_next_ddt": "d next/d dt: v.",
    "dv_dx0": "d v/dx0, the state (base, q): -diag(J_l(-v_rot)^-1, I, I).",
    "dv_dx1": "d v/dx1, the state (base1, q1): diag(J_l(v_rot)^-1, I, I).",
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


def _returns(op: str) -> str:
    """The Returns section of a kinematics operation: name and shape from its record, then its meaning."""
    (port,) = OPERATIONS[op].outputs
    dims = ", ".join(str(d) for d in port.shape)
    single = f"({dims},)" if len(port.shape) == 1 else f"({dims})"
    return f"{port.name} : ndarray, shape {single} or (N, {dims})\n    {KINEMATICS_RETURNS[op]}"


def _docstring(op: str, floating: bool) -> str:
    """The NumPy-style doc string of ``op`` for a fixed or floating base."""
    record = OPERATIONS[op]
    summary, returns = SUMMARIES[op] if op in SUMMARIES else (record.doc, _returns(op))
    names = [n for n in record.input_names(floating) if n != "loads"]
    names += (["link"] if record.link else []) + (["loads"] if record.loads else [])
    names += (["tool"] if op == "forward_velocity_kinematics" else []) + ["out", "mask", "threads"]
    params = "\n".join(PARAMETERS[n] for n in names)
    return (f"{summary}\n\n{CONVENTIONS}\n\nParameters\n----------\n{params}\n\n"
            f"Returns\n-------\n{returns}\n\nRaises\n------\n{RAISES}\n")


IK_DOC = """Joint positions that put a link's frame at a target pose (damped least squares, from ``q0``).

Same semantics as dynibo 0.5.2's ``inverse_kinematics``: iterates on this solver's own
`forward_kinematics` and `jacobian` (a compiled solver: its generated C, built with both
for ``link``); the steps are ``J^T (J J^T + damping^2 I)^-1 e`` with ``e`` the rotation
vector (world axes) and the position error of the link frame, at most ``max_step_norm``
long, until both errors are within their tolerances. See `rbdgen.ik`.

Parameters
----------
q0 : array_like, shape (J,)
    The start, within the joint limits [rad, m]; the solution is usually the one nearest it.
{link}
target_pose : Pose or array_like, shape (7,)
    The link frame's target ``[x, y, z, qx, qy, qz, qw]`` in the world (a `forward_kinematics`
    result); a non-unit quaternion is normalised.
options : IkOptions, optional
    Iterations, tolerances, damping and step length (dynibo's ``IkOptions`` fields and defaults;
    its own objects are accepted too).
out : ndarray, optional
    A writeable, aligned float64 array of shape (J,) that receives the result (and is returned).

Returns
-------
q : ndarray, shape (J,)
    Joint positions within the model's joint limits.

Raises
------
IkNotConvergedError
    No convergence within ``max_iterations`` steps (a SolverError; the message and the
    error's attributes give the iterations and both residuals).
IkJointLimitError
    Converged outside a joint's limits (a SolverError naming the joint, its value and limits).
ValueError
    ``q0`` of the wrong shape, non-finite or outside the limits; a bad ``target_pose`` (shape,
    non-finite, zero quaternion); an invalid option; a build without forward_kinematics and jacobian.
TypeError
    Non-numbers, a link that is neither a name nor an id, options that are not an `IkOptions`.
NotImplementedError
    A floating-base robot (see `FloatingBaseSolver.inverse_kinematics`).
"""

#: What each derivative operation differentiates, and what its base columns mean.
DERIVATIVES = {
    "inverse_dynamics_derivatives": ("Jacobians of `inverse_dynamics` (analytic derivatives of the recursive "
                                     "Newton-Euler algorithm).", "tau"),
    "forward_dynamics_derivatives": ("Jacobians of `forward_dynamics`: -M^-1 dID/dx and dacc/dtau = M^-1.", "acc"),
}

#: The meaning of each Jacobian by the input it differentiates by (its name: ``d<result>_d<input>``).
JACOBIAN_DOCS = {
    "q": "By the joint positions.",
    "qd": "By the joint velocities.",
    "qdd": "By the joint accelerations (the mass matrix's columns of the joints).",
    "tau": "By the generalized forces: M^-1.",
    "base_velocity": "By the base velocity [omega_W, pdot_W].",
    "base_acceleration": "By the base's classical acceleration [omegadot_W, pddot_W].",
    "base_rotation": "By a world-frame rotation vector of the base, R -> exp(dtheta x) R.",
}

DERIVATIVES.update({
    "forward_velocity_kinematics_derivatives": ("Jacobians of `forward_velocity_kinematics`: the link origin's "
                                                "twist [omega, pdot] (world axes), analytic.", "twist"),
    "forward_acceleration_kinematics_derivatives": ("Jacobians of `forward_acceleration_kinematics`: the link "
                                                    "origin's classical acceleration [omegadot, pddot] (world "
                                                    "axes), analytic.", "acceleration"),
    "center_of_mass_derivatives": ("Jacobians of `center_of_mass_velocity` (analytic); dvcom/dqd is also "
                                   "d com/dq and, floating, dvcom/dbase_velocity's angular columns d com/dtheta.",
                                   "vcom"),
})

#: Kinematic Jacobians whose meaning differs from `JACOBIAN_DOCS`'s (by output name).
KINEMATIC_JACOBIAN_DOCS = {
    "dtwist_dqd": "By the joint velocities: the link Jacobian's joint columns.",
    "dtwist_dbase_velocity": "By the base velocity [omega_W, pdot_W]: the link Jacobian's base columns.",
    "dacceleration_dqdd": "By the joint accelerations: the link Jacobian's joint columns.",
    "dacceleration_dbase_acceleration": "By the base's classical acceleration: the link Jacobian's base columns.",
    "dvcom_dqd": "By the joint velocities: the centre-of-mass Jacobian's joint columns, also d com/dq.",
    "dvcom_dbase_velocity": "By the base velocity [omega_W, pdot_W]: the centre-of-mass Jacobian's base columns.",
}


def _derivatives_doc(op: str, floating: bool) -> str:
    """The NumPy-style doc string of a derivative operation: its Jacobians from the operation record."""
    summary, result = DERIVATIVES[op]
    record = OPERATIONS[op]
    names = [n for n in record.input_names(floating) if n != "loads"] + (["link"] if record.link else [])
    names += (["loads"] if record.loads else []) + ["mask", "threads"]
    params = "\n".join(PARAMETERS[n] for n in names)
    rows = []
    for port in record.output_ports(floating):
        dims = ", ".join(str(d) for d in port.shape)
        meaning = KINEMATIC_JACOBIAN_DOCS.get(port.name, JACOBIAN_DOCS[port.wrt])
        rows.append(f'    ``"{port.name}"``: shape ({dims}) or (N, {dims}). {meaning}')
    keys = "\n".join(rows)
    height = record.outputs[0].shape[0]
    layout = "G rows (floating base: the base's six first)" if height == "G" else f"{height} rows"
    return (f"{summary}\n\n{CONVENTIONS}\n\nParameters\n----------\n{params}\n\nReturns\n-------\n"
            f"dict of ndarray\n    d{result}/dx by name, {layout}:\n{keys}\n\n"
            f"Raises\n------\n{RAISES}\n")


def _configuration_doc(op: str, floating: bool, out: bool) -> str:
    """The NumPy-style doc string of a configuration operation (``out``: whether it takes ``out=``)."""
    summary, fixed, moving = CONFIGURATION[op]
    record = OPERATIONS[op]
    names = list(record.input_names(floating)) + (["out"] if out else []) + ["mask", "threads"]
    params = "\n".join(PARAMETERS[n] for n in names)
    returns = moving if floating else fixed
    if record.name.endswith("_derivatives"):
        keys = "\n".join(f'    ``"{p.name}"``: shape ({", ".join(str(d) for d in p.shape)}) or (N, ...). '
                         f"{CONFIGURATION_JACOBIANS[p.name]}" for p in record.output_ports(floating))
        returns = f"dict of ndarray\n    By name, G rows (tangent vectors of the result):\n{keys}"
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
{threads}

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

    def mass_matrix(self, q: ArrayLike, *, out: Out = None,
                    mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("mass_matrix", (q,), None, out, mask, threads)

    def velocity_product_forces(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                                mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("velocity_product_forces", (q, qd), None, out, mask, threads)

    def gravity(self, q: ArrayLike, *, loads: Loads = None, out: Out = None,
                mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("gravity", (q,), loads, out, mask, threads)

    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None,
                         out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("inverse_dynamics", (q, qd, qdd), loads, out, mask, threads)

    def forward_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None,
                         out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_dynamics", (q, qd, tau), loads, out, mask, threads)

    def forward_dynamics_crba(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None,
                              out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_dynamics_crba", (q, qd, tau), loads, out, mask, threads)

    def passive_terms(self, q: ArrayLike, qd: ArrayLike, *, mass_matrix: bool = True, gravity: bool = True,
                      coriolis: bool = True, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._passive_terms((q, qd), mass_matrix, gravity, coriolis, mask, threads)

    def coriolis_matrix(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                        mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("coriolis_matrix", (q, qd), None, out, mask, threads)

    def mass_matrix_inverse(self, q: ArrayLike, *, out: Out = None,
                            mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("mass_matrix_inverse", (q,), None, out, mask, threads)

    def kinetic_energy(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                       mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("kinetic_energy", (q, qd), None, out, mask, threads)

    def potential_energy(self, q: ArrayLike, *, out: Out = None,
                         mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("potential_energy", (q,), None, out, mask, threads)

    def momentum(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                 mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("momentum", (q, qd), None, out, mask, threads)

    def inverse_dynamics_regressor(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, out: Out = None,
                                   mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("inverse_dynamics_regressor", (q, qd, qdd), None, out, mask, threads)

    def inverse_dynamics_base_regressor(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, out: Out = None,
                                        mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("inverse_dynamics_base_regressor", (q, qd, qdd), None, out, mask, threads)

    def inverse_dynamics_known_forces(self, q: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, out: Out = None,
                                      mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("inverse_dynamics_known_forces", (q, qdd), loads, out, mask, threads)

    def energy_regressor(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                         mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("energy_regressor", (q, qd), None, out, mask, threads)

    def passivity_forces(self, q: ArrayLike, qd: ArrayLike, qd_ref: ArrayLike, qdd_ref: ArrayLike, *,
                         loads: Loads = None, out: Out = None, mask: Mask = None,
                         threads: Threads = None) -> np.ndarray:
        return self._run("passivity_forces", (q, qd, qd_ref, qdd_ref), loads, out, mask, threads)

    def operational_space_inertia(self, q: ArrayLike, link: LinkRef, *, out: Out = None,
                                  mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("operational_space_inertia", (q, link), None, out, mask, threads)

    def dynamically_consistent_inverse(self, q: ArrayLike, link: LinkRef, *, out: Out = None,
                                       mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("dynamically_consistent_inverse", (q, link), None, out, mask, threads)

    def inverse_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None,
                                     mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("inverse_dynamics_derivatives", (q, qd, qdd), loads, mask, threads)

    def forward_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None,
                                     mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("forward_dynamics_derivatives", (q, qd, tau), loads, mask, threads)

    # -- kinematics (a link's origin, world axes, angular first) --------------------------------
    def forward_kinematics(self, q: ArrayLike, link: LinkRef, *, out: Out = None,
                           mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_kinematics", (q, link), None, out, mask, threads)

    def forward_kinematics_all(self, q: ArrayLike, *, out: Out = None,
                               mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_kinematics_all", (q,), None, out, mask, threads)

    def jacobian(self, q: ArrayLike, link: LinkRef, *, out: Out = None,
                 mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("jacobian", (q, link), None, out, mask, threads)

    def jacobian_derivative(self, q: ArrayLike, qd: ArrayLike, link: LinkRef, *, out: Out = None,
                            mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("jacobian_derivative", (q, qd, link), None, out, mask, threads)

    def forward_velocity_kinematics(self, q: ArrayLike, qd: ArrayLike, link: LinkRef, *, tool: Tool = None,
                                    out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._twist((q, qd, link), tool, out, mask, threads)

    def forward_acceleration_kinematics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, link: LinkRef, *,
                                        out: Out = None,
                                        mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_acceleration_kinematics", (q, qd, qdd, link), None, out, mask, threads)

    def center_of_mass(self, q: ArrayLike, *, out: Out = None,
                       mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("center_of_mass", (q,), None, out, mask, threads)

    def center_of_mass_jacobian(self, q: ArrayLike, *, out: Out = None,
                                mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("center_of_mass_jacobian", (q,), None, out, mask, threads)

    def centroidal_momentum_matrix(self, q: ArrayLike, *, out: Out = None,
                                   mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("centroidal_momentum_matrix", (q,), None, out, mask, threads)

    def centroidal_momentum_bias(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                                 mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("centroidal_momentum_bias", (q, qd), None, out, mask, threads)

    def inverse_kinematics(self, q0: ArrayLike, link: LinkRef, target_pose: Union[Pose, ArrayLike],
                           options: Optional[ik.IkOptions] = None, *, out: Out = None) -> np.ndarray:
        return ik.inverse_kinematics(self, q0, link, target_pose, options, out)

    def center_of_mass_velocity(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                                mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("center_of_mass_velocity", (q, qd), None, out, mask, threads)

    def forward_velocity_kinematics_derivatives(self, q: ArrayLike, qd: ArrayLike, link: LinkRef, *,
                                                mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("forward_velocity_kinematics_derivatives", (q, qd, link), None, mask, threads)

    def forward_acceleration_kinematics_derivatives(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                                                    link: LinkRef, *, mask: Mask = None,
                                                    threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("forward_acceleration_kinematics_derivatives", (q, qd, qdd, link), None, mask,
                               threads)

    def center_of_mass_derivatives(self, q: ArrayLike, qd: ArrayLike, *, mask: Mask = None,
                                   threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("center_of_mass_derivatives", (q, qd), None, mask, threads)
    # -- the configuration space (rbdgen.algorithms.configuration) ---------------------------------
    def integrate(self, q: ArrayLike, v: ArrayLike, dt: ArrayLike, *, out: Out = None,
                  mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("integrate", (q, v, dt), None, out, mask, threads)

    def difference(self, q: ArrayLike, q1: ArrayLike, *, out: Out = None,
                   mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("difference", (q, q1), None, out, mask, threads)

    def integrate_derivatives(self, q: ArrayLike, v: ArrayLike, dt: ArrayLike, *,
                              mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("integrate_derivatives", (q, v, dt), None, mask, threads)

    def difference_derivatives(self, q: ArrayLike, q1: ArrayLike, *,
                               mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("difference_derivatives", (q, q1), None, mask, threads)


class FloatingBaseSolver(SolverBase):
    """A floating-base robot's operations: a `BaseState` first, then the joint state."""

    def mass_matrix(self, base: BaseState, q: ArrayLike, *, out: Out = None,
                    mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("mass_matrix", (base, q), None, out, mask, threads)

    def velocity_product_forces(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *,
                                out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("velocity_product_forces", (base, q, qd), None, out, mask, threads)

    def gravity(self, base: BaseState, q: ArrayLike, *, loads: Loads = None, out: Out = None,
                mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("gravity", (base, q), loads, out, mask, threads)

    def inverse_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None,
                         out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("inverse_dynamics", (base, q, qd, qdd), loads, out, mask, threads)

    def forward_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None,
                         out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_dynamics", (base, q, qd, tau), loads, out, mask, threads)

    def forward_dynamics_crba(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *,
                              loads: Loads = None, out: Out = None,
                              mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_dynamics_crba", (base, q, qd, tau), loads, out, mask, threads)

    def passive_terms(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, mass_matrix: bool = True,
                      gravity: bool = True, coriolis: bool = True,
                      mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._passive_terms((base, q, qd), mass_matrix, gravity, coriolis, mask, threads)

    def coriolis_matrix(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                        mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("coriolis_matrix", (base, q, qd), None, out, mask, threads)

    def mass_matrix_inverse(self, base: BaseState, q: ArrayLike, *, out: Out = None,
                            mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("mass_matrix_inverse", (base, q), None, out, mask, threads)

    def kinetic_energy(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                       mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("kinetic_energy", (base, q, qd), None, out, mask, threads)

    def potential_energy(self, base: BaseState, q: ArrayLike, *, out: Out = None,
                         mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("potential_energy", (base, q), None, out, mask, threads)

    def momentum(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                 mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("momentum", (base, q, qd), None, out, mask, threads)

    def inverse_dynamics_regressor(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *,
                                   out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("inverse_dynamics_regressor", (base, q, qd, qdd), None, out, mask, threads)

    def inverse_dynamics_base_regressor(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *,
                                        out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("inverse_dynamics_base_regressor", (base, q, qd, qdd), None, out, mask, threads)

    def inverse_dynamics_known_forces(self, base: BaseState, q: ArrayLike, qdd: ArrayLike, *, loads: Loads = None,
                                      out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("inverse_dynamics_known_forces", (base, q, qdd), loads, out, mask, threads)

    def energy_regressor(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                         mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("energy_regressor", (base, q, qd), None, out, mask, threads)

    def passivity_forces(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qd_ref: ArrayLike, qdd_ref: ArrayLike,
                         *, loads: Loads = None, out: Out = None, mask: Mask = None,
                         threads: Threads = None) -> np.ndarray:
        return self._run("passivity_forces", (base, q, qd, qd_ref, qdd_ref), loads, out, mask, threads)

    def operational_space_inertia(self, base: BaseState, q: ArrayLike, link: LinkRef, *, out: Out = None,
                                  mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("operational_space_inertia", (base, q, link), None, out, mask, threads)

    def dynamically_consistent_inverse(self, base: BaseState, q: ArrayLike, link: LinkRef, *, out: Out = None,
                                       mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("dynamically_consistent_inverse", (base, q, link), None, out, mask, threads)

    def inverse_dynamics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *,
                                     loads: Loads = None, mask: Mask = None,
                                     threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("inverse_dynamics_derivatives", (base, q, qd, qdd), loads, mask, threads)

    def forward_dynamics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *,
                                     loads: Loads = None, mask: Mask = None,
                                     threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("forward_dynamics_derivatives", (base, q, qd, tau), loads, mask, threads)

    # -- kinematics (a link's origin, world axes, angular first) --------------------------------
    def forward_kinematics(self, base: BaseState, q: ArrayLike, link: LinkRef, *, out: Out = None,
                           mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_kinematics", (base, q, link), None, out, mask, threads)

    def forward_kinematics_all(self, base: BaseState, q: ArrayLike, *, out: Out = None,
                               mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_kinematics_all", (base, q), None, out, mask, threads)

    def jacobian(self, base: BaseState, q: ArrayLike, link: LinkRef, *, out: Out = None,
                 mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("jacobian", (base, q, link), None, out, mask, threads)

    def jacobian_derivative(self, base: BaseState, q: ArrayLike, qd: ArrayLike, link: LinkRef, *,
                            out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("jacobian_derivative", (base, q, qd, link), None, out, mask, threads)

    def forward_velocity_kinematics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, link: LinkRef, *,
                                    tool: Tool = None, out: Out = None,
                                    mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._twist((base, q, qd, link), tool, out, mask, threads)

    def forward_acceleration_kinematics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                                        link: LinkRef, *, out: Out = None,
                                        mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("forward_acceleration_kinematics", (base, q, qd, qdd, link), None, out, mask, threads)

    def center_of_mass(self, base: BaseState, q: ArrayLike, *, out: Out = None,
                       mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("center_of_mass", (base, q), None, out, mask, threads)

    def center_of_mass_jacobian(self, base: BaseState, q: ArrayLike, *, out: Out = None,
                                mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("center_of_mass_jacobian", (base, q), None, out, mask, threads)

    def centroidal_momentum_matrix(self, base: BaseState, q: ArrayLike, *, out: Out = None,
                                   mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("centroidal_momentum_matrix", (base, q), None, out, mask, threads)

    def centroidal_momentum_bias(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *,
                                 out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("centroidal_momentum_bias", (base, q, qd), None, out, mask, threads)

    def inverse_kinematics(self, base: BaseState, q0: ArrayLike, link: LinkRef, target_pose: Union[Pose, ArrayLike],
                           options: Optional[ik.IkOptions] = None, *, out: Out = None) -> np.ndarray:
        """Not supported for a floating base: a NotImplementedError that says what to do instead.

        The base pose would be six more unknowns. Load the robot with ``floating=False`` and give
        the target relative to the base, or step with `jacobian`, whose first six columns are the base's.
        """
        return ik.inverse_kinematics(self, q0, link, target_pose, options, out)

    def center_of_mass_velocity(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None,
                                mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("center_of_mass_velocity", (base, q, qd), None, out, mask, threads)

    def forward_velocity_kinematics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, link: LinkRef,
                                                *, mask: Mask = None,
                                                threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("forward_velocity_kinematics_derivatives", (base, q, qd, link), None, mask, threads)

    def forward_acceleration_kinematics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike,
                                                    qdd: ArrayLike, link: LinkRef, *, mask: Mask = None,
                                                    threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("forward_acceleration_kinematics_derivatives", (base, q, qd, qdd, link), None, mask,
                               threads)

    def center_of_mass_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, mask: Mask = None,
                                   threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("center_of_mass_derivatives", (base, q, qd), None, mask, threads)
    # -- the configuration space (rbdgen.algorithms.configuration) ---------------------------------
    def integrate(self, base: BaseState, q: ArrayLike, v: ArrayLike, dt: ArrayLike, *,
                  mask: Mask = None, threads: Threads = None) -> Tuple[BaseState, np.ndarray]:
        return self._integrate((base, q, v, dt), mask, threads)

    def difference(self, base: BaseState, q: ArrayLike, base1: BaseState, q1: ArrayLike, *, out: Out = None,
                   mask: Mask = None, threads: Threads = None) -> np.ndarray:
        return self._run("difference", (base, q, base1, q1), None, out, mask, threads)

    def integrate_derivatives(self, base: BaseState, q: ArrayLike, v: ArrayLike, dt: ArrayLike, *,
                              mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("integrate_derivatives", (base, q, v, dt), None, mask, threads)

    def difference_derivatives(self, base: BaseState, q: ArrayLike, base1: BaseState, q1: ArrayLike, *,
                               mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        return self._jacobians("difference_derivatives", (base, q, base1, q1), None, mask, threads)


def _base_first(method: Callable) -> Callable:
    """``method`` of `FloatingBaseSolver`, first checking that a `BaseState` was given (by position or as
    ``base=``): without one, Python's own message ("missing 1 required positional argument: 'q'") would
    blame the last argument. The signature and doc string stay the method's (``__wrapped__``)."""
    positional = [p.name for p in inspect.signature(method).parameters.values()
                  if p.kind is p.POSITIONAL_OR_KEYWORD][1:]
    usage = f"solver.{method.__name__}({', '.join(positional)})"

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        given = args[0] if args else kwargs.get("base")
        if not isinstance(given, BaseState):
            got = "no arguments" if not args and "base" not in kwargs else f"{type(given).__name__} for base"
            raise TypeError(f"{method.__name__}: floating-base solver: pass a rbdgen.BaseState first: {usage} "
                            f"(got {got})")
        return method(self, *args, **kwargs)

    return checked


def _unsupported(method: Callable) -> Callable:
    """A floating base's ``inverse_kinematics``, whatever its arguments: its NotImplementedError (what to do
    instead) rather than Python's complaint about a missing argument. The signature and doc stay the method's."""

    @functools.wraps(method)
    def unsupported(self, *args, **kwargs):
        return ik.inverse_kinematics(self, None, None, None)

    return unsupported


def _document(cls: Any, floating: bool) -> None:
    for op in list(SUMMARIES) + list(KINEMATICS_RETURNS) + list(DERIVATIVES) + list(CONFIGURATION) + ["passive_terms"]:
        if floating:
            setattr(cls, op, _base_first(getattr(cls, op)))
    for op in list(SUMMARIES) + list(KINEMATICS_RETURNS):
        getattr(cls, op).__doc__ = _docstring(op, floating)
    head = PARAMETERS["base"] + "\n" if floating else ""
    cls.passive_terms.__doc__ = PASSIVE_DOC.format(head=head, threads=PARAMETERS["threads"], raises=RAISES)
    for op in DERIVATIVES:
        getattr(cls, op).__doc__ = _derivatives_doc(op, floating)
    for op in CONFIGURATION:
        method = getattr(cls, op)
        method.__doc__ = _configuration_doc(op, floating, "out" in inspect.signature(method).parameters)


_document(FixedBaseSolver, False)
FixedBaseSolver.inverse_kinematics.__doc__ = IK_DOC.format(link=PARAMETERS["link"])
_document(FloatingBaseSolver, True)
FloatingBaseSolver.inverse_kinematics = _unsupported(FloatingBaseSolver.inverse_kinematics)  # type: ignore[method-assign]

