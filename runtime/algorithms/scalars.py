"""`ScalarOps`: what the algorithms need of a scalar type beyond ``+ - * /``.

The algorithms are written once over a scalar backend, the ``ops`` argument of every
algorithm. Three backends implement this protocol explicitly: NumPy arrays
(`rbdgen.backends.NumpyOps`, one value per state of a batch), the symbols of rbdgen's
tracer (`rbdgen.ir.trace.SymbolicOps`, from which the C and the NumPy engine's single
states are emitted) and CasADi SX (`rbdgen.codegen.casadi.sx.CasadiOps`).

A backend supplies one `ScalarOps.function` for the elementary functions `FUNCTIONS`
(``sin``, ``cos``, ``sqrt``, ``atan2``, ``copysign``, named as in Python's `math`), its
precision's machine epsilon ``eps`` and smallest positive normal value ``tiny``, the checks ``require_positive`` (``x > 0``: raises,
or becomes a guard of the generated code) and ``require_not_negative`` (``!(x < 0)``:
NaN passes), ``solve_spd`` (the dense checked Cholesky solve) and ``solve_ltdl``
(`ltdl.ltdl_apply_inverse` of many columns with one factor).

Two markers leave the arithmetic alone and only tell a reader of generated code where a value
comes from: ``with ops.scope("body 3 panda_link4: v, a, f"):`` around one body's share of a pass
(`kinematics.body_scope` spells it), and ``ops.label(v[i], f"v{i}")`` on a quantity, which names
its scalars by `component_names`. Both do nothing here (NumPy, CasADi); the tracer records them
and the C emitter writes the scopes as comments and the labels as variable names.
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

from ..spatial import Force, Motion

#: The elementary functions, by their names in Python's `math`.
FUNCTIONS = ("sin", "cos", "sqrt", "atan2", "copysign")

#: The suffixes of a labelled spatial vector's six scalars, angular part first (spatial_v2's order):
#: a motion (``v3_wx``... ``v3_z``: angular velocity w, then the linear part) and a force (``f3_nx``...
#: ``f3_z``: the moment n, then the linear force).
MOTION_PARTS = ("wx", "wy", "wz", "x", "y", "z")
FORCE_PARTS = ("nx", "ny", "nz", "x", "y", "z")


def component_names(value: Any, name: str) -> list:
    """The names of the scalars of ``value`` labelled ``name``: a scalar is ``name`` itself, a `spatial.Motion`
    ``name_wx`` ... ``name_z`` (`MOTION_PARTS`), a `spatial.Force` ``name_nx`` ... ``name_z`` (`FORCE_PARTS`),
    any other sequence ``name_0``, ``name_1``...; pairs ``(name, scalar)``."""
    if not isinstance(value, (list, tuple)):
        return [(name, value)]
    parts = MOTION_PARTS if isinstance(value, Motion) else FORCE_PARTS if isinstance(value, Force) else None
    suffixes = parts if parts and len(value) == 6 else [str(k) for k in range(len(value))]
    return [(f"{name}_{s}", x) for s, x in zip(suffixes, value)]


class ScalarOps(Protocol):
    """The scalar backend the algorithms run on (see the module docstring)."""

    #: The machine epsilon of the backend's precision (a number, or a symbol of it).
    eps: Any
    #: The smallest positive normal value of the backend's precision (a number, or a symbol of it).
    tiny: Any

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

    def scope(self, text: str) -> contextlib.AbstractContextManager:
        """A context in which the values computed belong to ``text`` (one body's share of a pass): nothing to
        do for a numeric backend; the tracer records it on each new node."""
        return contextlib.nullcontext()

    def label(self, value: Any, name: str) -> None:
        """Name the scalars of ``value`` after the quantity ``name`` (`component_names`): nothing to do for a
        numeric backend; the tracer records the name of each node that has none yet."""
