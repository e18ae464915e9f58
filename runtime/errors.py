"""Exceptions raised by rbdgen.

`ModelError` is raised while a robot description is read or validated.
`SolverError` and its subclasses are raised by the dynamics operations; the
generated C returns the matching status code (see `STATUS`). `BuildError` and its
subclasses are raised when the generated C cannot be compiled or loaded; their
message is one line that says what to install or set.
"""

from __future__ import annotations


class ModelError(ValueError):
    """The robot description is malformed or physically invalid."""


class ManifestError(ValueError):
    """A generated folder's manifest (``<prefix>.json``) is unreadable or not rbdgen's."""


class SolverError(RuntimeError):
    """A dynamics operation could not produce a finite, accurate result.

    Each subclass in `STATUS` has the ``status`` the generated C returns for it and a
    ``reason``, the message a compiled solver gives for that status; the inverse-kinematics
    errors come from the Python iteration and have no status of their own.
    """

    status = 1
    reason = "invalid input"


class InvalidInputError(SolverError, ValueError):
    """Input rejected by generated code (wrong size or non-finite value)."""

    status = 1
    reason = "invalid input"


class SingularError(SolverError):
    """A matrix the operation factorises is not positive definite: a joint's or the floating base's
    articulated inertia, the mass matrix, or a link's task-space inertia."""

    status = 2
    reason = ("a matrix it factorises (an articulated inertia, the mass matrix or a task-space inertia) is not "
              "positive definite")


class IllConditionedError(SolverError):
    """The scaled reciprocal condition number is below sqrt(eps), or the residual check failed."""

    status = 3
    reason = "ill-conditioned solve"


class ConstraintError(SolverError):
    """The constraints cannot be solved: the active contacts or the closed loops are dependent or redundant
    (``J M^-1 J^T`` singular or ill-conditioned, no damping declared: `rbdgen.contacts`), or a loop mechanism's
    actuated joints and loops cannot give the forces its inverse dynamics asks (under-actuated)."""

    status = 5
    reason = ("the constraints cannot be solved: active contacts or closed loops dependent or redundant (J M^-1 J^T "
              "singular or ill-conditioned; generate with damping=), or, in loop inverse dynamics, an under-actuated "
              "mechanism (the actuated joints and loops do not span the motion)")


class NonFiniteError(SolverError):
    """An intermediate or final result is not finite (numerical failure)."""

    status = 4
    reason = "numerical failure (non-finite result)"


class IkNotConvergedError(SolverError):
    """Inverse kinematics did not reach its tolerances within ``max_iterations`` steps.

    ``iterations``, ``translation_error`` [m] and ``rotation_error`` [rad] are those of the last iterate.
    """

    reason = "inverse kinematics did not converge"

    def __init__(self, message: str, iterations: int, translation_error: float, rotation_error: float):
        super().__init__(message)
        self.iterations, self.translation_error, self.rotation_error = iterations, translation_error, rotation_error


class IkJointLimitError(SolverError):
    """Inverse kinematics converged to a solution outside a joint's limits.

    ``joint`` is the coordinate's index in ``joint_names``; ``value``, ``lower`` and ``upper`` its
    position and limits.
    """

    reason = "inverse-kinematics solution outside the joint limits"

    def __init__(self, message: str, joint: int, value: float, lower: float, upper: float):
        super().__init__(message)
        self.joint, self.value, self.lower, self.upper = joint, value, lower, upper


class BuildError(RuntimeError):
    """The generated C could not be compiled, or the built library could not be loaded."""


class CompilerNotFoundError(BuildError):
    """This machine cannot compile C extensions (no C compiler, no Python headers, no setuptools)."""


class CacheError(BuildError):
    """The build cache folder cannot be used (a file, unwritable, not creatable)."""


class SettingError(ValueError):
    """An environment variable rbdgen reads (``RBDGEN_CACHE``, ``RBDGEN_JOBS``, ``RBDGEN_THREADS``, ``CC``...)
    is malformed; the one-line message names it and says what it expects."""


class ValidationError(RuntimeError):
    """A compiled solver disagrees with the NumPy reference engine."""


#: The status of a successful call.
OK = 0

#: Status codes returned by generated C functions, and the exception for each.
STATUS = {
    OK: None,
    InvalidInputError.status: InvalidInputError,
    SingularError.status: SingularError,
    IllConditionedError.status: IllConditionedError,
    NonFiniteError.status: NonFiniteError,
    ConstraintError.status: ConstraintError,
}
