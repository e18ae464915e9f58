"""Python emission: a traced `Kernel` as one straight-line Python function on floats.

`NumpySolver` runs the generic algorithms with a NumPy array per scalar, which
amortises Python over a batch but costs about a microsecond per scalar operation
for a single state. For single states it uses these functions instead: the same
trace the C is emitted from (constants folded, common subexpressions shared,
dead code removed), one assignment a line on Python floats. Python floats are
IEEE doubles with no contraction, and every fold of the tracer is exact, so
the values are those of the NumPy pass (up to the sign of a zero); ``sin`` and
``cos`` are the C library's, as in the generated C.

The function takes the flat inputs (sequences of floats, in the kernel's input
order) and returns ``{output name: list of floats}``. A failed check raises `CheckFailed`, and
a checked solve is ``solve_spd`` of the backend `function` is given (the NumPy engine's
`NumpyOps`, which raises the solver's error): the caller reruns the state on the NumPy pass,
which raises the precise error. A tree-sparse solve of many columns (`TreeSolve`) is that
backend's ``solve_ltdl`` on floats.
"""

from __future__ import annotations

import math


from ..algorithms.cholesky import EPS, TINY
from ..algorithms.scalars import ScalarOps
from .optimize import schedule
from .trace import PRECISION_LEAVES, Call, Expr, Guard, Kernel, TreeSolve

#: Each node operator as a Python expression of its operands.
FORMATS = {"add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "div": "{} / {}", "neg": "-{}",
           "sin": "sin({})", "cos": "cos({})", "sqrt": "sqrt({})",
           "atan2": "atan2({}, {})", "copysign": "copysign({}, {})"}


class CheckFailed(Exception):
    """A check of the kernel failed (the NumPy pass names it and the state)."""


def reference(x, leaves: dict) -> str:
    """The text of a traced value: a constant's literal, ``leaves[op]`` for a precision's leaf (``eps``, ``tiny``),
    ``x<call>[<k>]`` for a solve's result, else its variable ``v<id>`` (the JAX emitter's too)."""
    if not isinstance(x, Expr):
        return repr(float(x))
    if x.op in leaves:
        return leaves[x.op]
    if x.op == "ret":
        call, k = x.args
        return f"x{call}[{k}]"
    return f"v{x.id}"


#: The precision's leaves of a double (its epsilon and smallest positive normal value), as literals.
LEAVES = dict(zip(PRECISION_LEAVES, (repr(EPS), repr(TINY))))


def _ref(x) -> str:
    return reference(x, LEAVES)


def source(kernel: Kernel) -> str:
    """The text of ``def kernel(<inputs>)``: unpack the inputs, compute, return the outputs."""
    lines = [f"def kernel({', '.join(kernel.inputs)}):"]
    leaves = {(x.args[0], x.args[1]): x for x in kernel.graph.nodes if x.op == "in"}
    for name, size in kernel.inputs.items():
        targets = [_ref(leaves[name, k]) if (name, k) in leaves else "_" for k in range(size)]
        if size:
            lines.append(f"    {', '.join(targets)}, = {name}")
    for step in schedule(kernel).steps:
        if isinstance(step, Expr):
            lines.append(f"    {_ref(step)} = " + FORMATS[step.op].format(*(_ref(a) for a in step.args)))
        elif isinstance(step, Guard):
            test = f"not {_ref(step.value)} > 0" if step.strict else f"{_ref(step.value)} < 0"
            lines.append(f"    if {test}: raise CheckFailed({step.message!r})")
        elif isinstance(step, Call):
            (b,) = step.B
            A = ", ".join("(" + ", ".join(_ref(a) for a in row) + ",)" for row in step.A)
            lines.append(f"    x{step.index} = solve(({A},), ({', '.join(_ref(v) for v in b)},), {step.what!r})")
        elif isinstance(step, TreeSolve):
            L = ", ".join("{" + ", ".join(f"{j}: {_ref(v)}" for j, v in row.items()) + "}" for row in step.L)
            Dinv = ", ".join(_ref(v) for v in step.Dinv)
            B = ", ".join("(" + ", ".join(_ref(v) for v in column) + ",)" for column in step.B)
            lines.append(f"    x{step.index} = solve_ltdl(({L},), ({Dinv},), {step.lam!r}, ({B},))")
    outputs = ", ".join(f"{name!r}: [" + ", ".join(_ref(v) for v in values) + "]"
                        for name, values in kernel.outputs.items())
    lines.append(f"    return {{{outputs}}}")
    return "\n".join(lines) + "\n"


def function(kernel: Kernel, ops: ScalarOps):
    """``kernel`` compiled into a Python function whose solves are those of ``ops`` (see the module docstring)."""

    def solve(A, b, what):
        """The checked Cholesky solve of one state, as floats."""
        return [float(x[0]) for x in ops.solve_spd(A, b, what)]

    def solve_ltdl(L, Dinv, lam, columns):
        """`TreeSolve` on floats: the solutions, column after column, as one list."""
        return [x for column in ops.solve_ltdl(L, Dinv, lam, columns) for x in column]

    namespace = {"sin": math.sin, "cos": math.cos, "sqrt": math.sqrt, "atan2": math.atan2, "copysign": math.copysign,
                 "solve": solve,
                 "solve_ltdl": solve_ltdl, "CheckFailed": CheckFailed}
    exec(compile(source(kernel), f"<rbdgen kernel {kernel.name}>", "exec"), namespace)
    return namespace["kernel"]
