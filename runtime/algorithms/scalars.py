"""`ScalarOps`: what the algorithms need of a scalar type beyond ``+ - * /``.

The algorithms are written once over a scalar backend, the ``ops`` argument of every
algorithm. Three backends implement this protocol explicitly: NumPy arrays
(`rbdgen.backends.NumpyOps`, one value per state of a batch), the symbols of rbdgen's
tracer (`rbdgen.ir.trace.SymbolicOps`, from which the C and the NumPy engine's single
states are emitted) and CasADi SX (`rbdgen.codegen.casadi.sx.CasadiOps`).

A backend supplies one `ScalarOps.function` for the elementary functions `FUNCTIONS`
(``sin``, ``cos``, ``sqrt``, ``atan2``, ``copysign``, named as in Python's `math`), its
precision's machine epsilon ``eps``, the checks ``require_positive`` (``x > 0``: raises,
or becomes a guard of the generated code) and ``require_not_negative`` (``!(x < 0)``:
NaN passes), ``solve_spd`` (the dense checked Cholesky solve) and ``solve_ltdl``
(`ltdl.ltdl_apply_inverse` of many columns with one factor).
"""

from __future__ import annotations

from typing import Any, Protocol

#: The elementary functions, by their names in Python's `math`.
FUNCTIONS = ("sin", "cos", "sqrt", "atan2", "copysign")


class ScalarOps(Protocol):
    """The scalar backend the algorithms run on (see the module docstring)."""

    #: The machine epsilon of the backend's precision (a number, or a symbol of it).
    eps: Any

    def function(self, name: str, *args: Any) -> Any:
        """The elementary function ``name`` (one of `FUNCTIONS`) of ``args``."""
        ...

    def sin(self, x: Any) -> Any:
        return self.function("sin", x)

    def cos(self, x: Any) -> Any:
        return self.function("cos", x)

    def sqrt(self, x: Any) -> Any:
        return self.function("sqrt", x)

    def atan2(self, y: Any, x: Any) -> Any:
        return self.function("atan2", y, x)

    def copysign(self, x: Any, y: Any) -> Any:
        return self.function("copysign", x, y)

    def require_positive(self, x: Any, error: type, message: str) -> None:
        """Check ``x > 0``: raise ``error(message)`` where it fails, or record the check."""
        ...

    def require_not_negative(self, x: Any, error: type, message: str) -> None:
        """Check ``!(x < 0)`` (NaN passes): raise ``error(message)`` where it fails, or record the check."""
        ...

    def solve_spd(self, A: Any, b: Any, what: str) -> list:
        """``x`` of ``A x = b`` by the checked Cholesky solve (``A`` symmetric positive definite, lower triangle
        read; ``what`` names A in errors)."""
        ...

    def solve_ltdl(self, L: Any, Dinv: Any, lam: Any, columns: Any) -> list:
        """`ltdl.ltdl_apply_inverse` of each of ``columns`` with the factors of `ltdl.ltdl`."""
        ...
