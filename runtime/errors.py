"""Exceptions raised by rbdgen.

`ModelError` is raised while a robot description is read or validated.
`SolverError` and its subclasses are raised by the dynamics operations; the
generated C returns the matching status code (see `STATUS`).
"""

from __future__ import annotations


class ModelError(ValueError):
    """The robot description is malformed or physically invalid."""


class SolverError(RuntimeError):
    """A dynamics operation could not produce a finite, accurate result."""

    status = 1


class InvalidInputError(SolverError, ValueError):
    """Input rejected by generated code (wrong size or non-finite value)."""

    status = 1


class SingularError(SolverError):
    """A joint's articulated inertia, or the floating base's, is not positive."""

    status = 2


class IllConditionedError(SolverError):
    """The scaled reciprocal condition number is below sqrt(eps), or the residual check failed."""

    status = 3


class NonFiniteError(SolverError):
    """An intermediate or final result is not finite (numerical failure)."""

    status = 4


class ValidationError(AssertionError):
    """A compiled solver disagrees with the NumPy reference engine."""


#: Status codes returned by generated C functions, and the exception for each.
STATUS = {
    0: None,
    InvalidInputError.status: InvalidInputError,
    SingularError.status: SingularError,
    IllConditionedError.status: IllConditionedError,
    NonFiniteError.status: NonFiniteError,
}
