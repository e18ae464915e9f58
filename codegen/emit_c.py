"""Kernel -> C99: Python prepares every line, the jinja2 templates only lay them out."""

from __future__ import annotations

from dataclasses import dataclass, field

import re

import jinja2

from ..algorithms.operations import INPUTS, operation
from ..errors import STATUS
from ..names import c_text, check_prefix, checked
from .optimize import COUNT_KEYS, schedule
from .trace import Call, Expr, Guard, Kernel

BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}

#: Per-precision spellings: C type, literal suffix, math function suffix, machine epsilon.
PRECISIONS = {
    "double": ("double", "", "", "2.220446049250313e-16"),
    "float": ("float", "f", "f", "1.1920928955078125e-07"),
}

#: Per precision, for the checks that read a value's bits (checks.c.j2): the unsigned type as
#: wide as the real, the exponent mask (all ones: inf or NaN) and the sign bit.
BITS = {
    "double": dict(bits="uint64_t", exponent="UINT64_C(0x7ff0000000000000)", sign="UINT64_C(0x8000000000000000)"),
    "float": dict(bits="uint32_t", exponent="UINT32_C(0x7f800000)", sign="UINT32_C(0x80000000)"),
}

#: The status codes of the generated C, named after the exceptions (`errors.STATUS`):
#: InvalidInputError -> INVALID_INPUT.
STATUS_NAMES = {"OK": 0, **{re.sub(r"(?<=[a-z])(?=[A-Z])", "_", error.__name__[:-len("Error")]).upper(): code
                            for code, error in STATUS.items() if error is not None}}

#: Checked solves of at most this many unknowns get a copy of the solver with the sizes fixed (`cholesky_copy`).
#: Measured with GCC -O2: the floating base's 6x6 solve runs about 3x faster unrolled, Solo12's 18x18 mass
#: matrix 1.4x faster (its source compiles in 4.3 s instead of 3.0 s), G1's 35x35 no faster.
FIXED_SOLVE_MAX = 20

@dataclass
class Param:
    name: str
    size: int
    output: bool
    optional: bool
    doc: str


@dataclass
class Check:
    """An output's finiteness check after storing: of every entry, or only of the entries ``at`` (one
    per distinct computed value) where the others are constants, inputs (checked on entry) or
    repeats, and are at least as many (a Jacobian's columns off the link's path are zero)."""

    param: Param
    at: tuple = ()


@dataclass
class CFunction:
    """One generated operation, ready for the templates."""

    op: str
    params: list
    body: list = field(default_factory=list)  # (statement, comment): either may be empty; a comment is `CText`
    stores: list = field(default_factory=list)
    checked: list = field(default_factory=list)  # `Check` of each output whose finiteness is checked after storing
    fail: str = ""  # statement that zeroes the outputs on a failed check
    optional_blocks: list = field(default_factory=list)  # (input, declarations): variables zero when it is NULL
    solves: set = field(default_factory=set)  # the `cholesky_copy` of each checked solve it calls
    counts: dict = field(default_factory=dict)
    arrays: int = 0  # reals in the arrays of the checked solves
    stack: int = 0  # bytes, see `stack_bound`
    summary: str = ""
    doc: str = ""


class Printer:
    """Names and spells scalars as C expressions."""

    def __init__(self, precision: str):
        self.real, self.suffix, self.fsuffix, self.eps = PRECISIONS[precision]
        self.names = {}

    def literal(self, x) -> str:
        text = repr(float(x))
        if "e" not in text and "." not in text:
            text += ".0"
        text += self.suffix
        return f"({text})" if text.startswith("-") else text

    def ref(self, x) -> str:
        if not isinstance(x, Expr):
            return self.literal(x)
        if x.id in self.names:
            return self.names[x.id]
        if x.op == "in":
            return f"{x.args[0]}[{x.args[1]}]"
        if x.op == "ret":
            return f"x{x.args[0]}[{x.args[1]}]"
        if x.op == "eps":
            return self.eps + self.suffix
        raise KeyError(f"{x} is used before it is computed")

    def declare(self, node: Expr) -> str:
        """``real tK = 0;``: a variable for ``node``, set later by `copy` or `define`."""
        name = self.names[node.id] = f"t{len(self.names)}"
        return f"{self.real} {name} = 0;"

    def copy(self, node: Expr) -> str:
        """``tK = input[i];`` for an input entry read through a declared variable."""
        return f"{self.names[node.id]} = {node.args[0]}[{node.args[1]}];"

    def define(self, node: Expr) -> str:
        """``const real tK = expr;`` (``tK = expr;`` for a declared variable)."""
        declared = node.id in self.names
        if not declared:
            self.names[node.id] = f"t{len(self.names)}"
        name = self.names[node.id]
        if node.op in BINARY:
            expr = f"{self.ref(node.args[0])} {BINARY[node.op]} {self.ref(node.args[1])}"
        elif node.op == "neg":
            expr = f"-{self.ref(node.args[0])}"
        else:
            expr = f"{node.op}{self.fsuffix}({self.ref(node.args[0])})"
        return f"{name} = {expr};" if declared else f"const {self.real} {name} = {expr};"


def c_function(kernel: Kernel, prefix: str, precision: str, sizes: dict) -> CFunction:
    """Lay out one kernel as C statements."""
    status = status_macros(prefix)
    printer = Printer(precision)
    record = operation(kernel.operation)
    docs = {p.name: p.doc for p in record.outputs}
    inputs = [Param(n, sizes[n], False, INPUTS[n].optional, INPUTS[n].doc) for n in kernel.inputs]
    outputs = [Param(n, sizes[n], True, record.optional_outputs, docs[n]) for n in kernel.outputs]
    zero = "; ".join(f"{prefix}_zero({p.name}, {p.size})" for p in outputs)
    fn = CFunction(kernel.name, inputs + outputs, fail=zero, doc=kernel.doc)
    plan = schedule(kernel, optional=[p.name for p in inputs if p.optional])
    fn.counts = plan.counts
    steps = plan.steps
    blocks = {}  # step index -> [(optional input, its terms that the step needs first)]
    for opt in plan.optional:
        fn.optional_blocks.append((opt.name, [printer.declare(n) for n in opt.variables]))
        for index, terms in opt.blocks.items():
            blocks.setdefault(index, []).append((opt.name, terms))
    for index, step in enumerate(steps + [None]):  # None: the stores
        for name, terms in blocks.get(index, ()):
            lines = [printer.copy(n) if n.op == "in" else printer.define(n) for n in terms]
            if len(lines) == 1:
                fn.body.append((f"if ({name} != NULL) {{ {lines[0]} }}", ""))
            else:
                fn.body.extend((line, "") for line in [f"if ({name} != NULL) {{", *(f"    {x}" for x in lines), "}"])
        if isinstance(step, Expr):
            fn.body.append((printer.define(step), ""))
        elif isinstance(step, Guard):
            value = printer.ref(step.value)
            test = f"!{prefix}_positive({value})" if step.strict else f"{prefix}_negative({value})"
            fn.body.append((f"if ({test}) {{ {zero}; return {status[_status_name(step.status)]}; }}",
                            c_text(step.message)))
        elif isinstance(step, Call):
            fn.body.extend(_call_lines(step, printer, prefix, zero))
            fn.solves.add(cholesky_copy(step))
            fn.arrays += call_arrays(step)
    for p in outputs:
        values = kernel.outputs[p.name]
        lines = [f"{p.name}[{k}] = {printer.ref(v)};" for k, v in enumerate(values)]
        fn.stores.append((p.name, p.optional, lines))
        computed = {}  # C name of each distinct computed value -> its first entry
        for k, v in enumerate(values):
            if isinstance(v, Expr) and v.op != "in":
                computed.setdefault(printer.ref(v), k)
        if computed:
            fn.checked.append(Check(p, tuple(computed.values()) if 2 * len(computed) <= p.size else ()))
    fn.summary = ", ".join(f"{fn.counts[k]} {k}" for k in COUNT_KEYS if fn.counts[k])
    fn.stack = stack_bound(fn, printer)
    return fn


#: Stack bound: bytes allowed per call level for what a function does not name (saved registers, the
#: return address, loop counters, pointers), and the call levels below an operation (the checked
#: solve and its helpers, or the checks; at -O0 none of them is inlined).
FRAME, LEVELS = 256, 3


def stack_bound(fn: CFunction, printer: Printer) -> int:
    """Bytes of stack ``fn`` needs at most: its named scalars (`Printer.names`) and its solves' arrays,
    one slot each (what an unoptimised build gives them; an optimising compiler keeps most in registers),
    plus `FRAME` bytes for each of 1 + `LEVELS` call levels. A test measures it (-fstack-usage)."""
    size = 4 if printer.real == "float" else 8
    return size * (len(printer.names) + fn.arrays) + FRAME * (1 + LEVELS)


def macro_prefix(prefix: str) -> str:
    """The prefix of a robot's macros, ``RBDGEN_<prefix>``: no C, POSIX or library header defines such names,
    and the prefix keeps its case, so robots whose names differ in case only do not share macros."""
    return f"RBDGEN_{prefix}"


def status_macros(prefix: str) -> dict:
    """Status name (`STATUS_NAMES`) -> its macro, e.g. ``"OK"`` -> ``"RBDGEN_panda_OK"``."""
    return {name: f"{macro_prefix(prefix)}_{name}" for name in STATUS_NAMES}


def _status_name(code: int) -> str:
    return next(name for name, value in STATUS_NAMES.items() if value == code)


def cholesky_copy(call: Call) -> tuple:
    """``(tag, n, m)``: the copy of the solver that ``call`` uses, ``{prefix}_cholesky_solve{tag}``.

    A solve of at most `FIXED_SOLVE_MAX` unknowns gets a copy with its sizes fixed, whose
    loops the compiler unrolls completely; larger ones share the generic solver
    ``("", None, None)``, which takes the sizes as arguments.
    """
    n, m = len(call.A), len(call.B)
    return (f"_{n}x{m}", n, m) if n <= FIXED_SOLVE_MAX else ("", None, None)


def _call_lines(call: Call, printer: Printer, prefix: str, zero: str) -> list:
    """The checked Cholesky solve: A (lower triangle) and B (m columns) into column-major arrays, then the call."""
    n, m, k, real = len(call.A), len(call.B), call.index, printer.real
    tag, fixed, _ = cholesky_copy(call)
    sizes = "" if fixed else f"{n}, {m}, "
    lines = [f"{real} A{k}[{n * n}], b{k}[{n * m}], x{k}[{n * m}], w{k}[{n * n + 4 * n}];"]
    for c in range(n):
        for r in range(c, n):
            lines.append(f"A{k}[{c * n + r}] = {printer.ref(call.A[r][c])};")
    lines += [f"b{k}[{c * n + r}] = {printer.ref(x)};" for c, col in enumerate(call.B) for r, x in enumerate(col)]
    lines.append(f"{{ const int s = {prefix}_cholesky_solve{tag}({sizes}A{k}, b{k}, x{k}, w{k}); "
                 f"if (s) {{ {zero}; return s; }} }}")
    return [("", c_text(f"{call.what}: checked Cholesky solve"))] + [(line, "") for line in lines]


def call_arrays(call: Call) -> int:
    """Reals in the arrays of one checked solve (`_call_lines`): A, b, x and the work space."""
    n, m = len(call.A), len(call.B)
    return n * n + 2 * n * m + n * n + 4 * n


def c_param(p: Param, real: str) -> str:
    return f"{real} *{p.name}" if p.output else f"const {real} *{p.name}"


def environment() -> jinja2.Environment:
    """The C templates, which print every value through `names.checked` (no raw string from a robot file)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("rbdgen.templates", "c"),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        finalize=lambda value: value if isinstance(value, jinja2.Undefined) else checked(value),
    )
    env.filters["c_param"] = c_param
    return env


def spellings(prefix: str, precision: str) -> dict:
    """The template variables every C file of a robot uses: names, macros, the real type's spellings."""
    real, _, fsuffix, eps = PRECISIONS[precision]
    return dict(prefix=check_prefix(prefix), M=macro_prefix(prefix), S=status_macros(prefix), status=STATUS_NAMES,
                real=real, eps=eps, sqrt=f"sqrt{fsuffix}", fabs=f"fabs{fsuffix}", **BITS[precision])


def source_names(prefix: str, ops) -> list:
    """The files of a robot's C: the header, the internal header, one source per operation."""
    return [f"{prefix}.h", f"{prefix}_internal.h", *(f"{prefix}_{op}.c" for op in ops)]


def render(kernels: list, prefix: str, precision: str, sizes: dict, header_info: dict):
    """The C files of a robot (`source_names`): ({filename: text}, [CFunction])."""
    check_prefix(prefix)
    functions = [c_function(k, prefix, precision, sizes) for k in kernels]
    env = environment()
    names = source_names(prefix, [fn.op for fn in functions])
    context = dict(header_info, **spellings(prefix, precision), functions=functions, sources=names,
                   base_size=sizes["base"], frame=FRAME, levels=LEVELS)
    files = {names[0]: env.get_template("robot.h.j2").render(context),
             names[1]: env.get_template("internal.h.j2").render(context)}
    for name, fn in zip(names[2:], functions):
        copies = sorted(fn.solves, key=lambda copy: (copy[1] or 0, copy[2] or 0))  # by (n, m): deterministic
        files[name] = env.get_template("operation.c.j2").render(context, fn=fn, cholesky_copies=copies)
    return files, functions


def cholesky_source(prefix: str, precision: str, copies=(("", None, None),)) -> str:
    """The checked Cholesky solve alone (for its tests): the status macros, the checks and ``copies`` of the
    solver (`cholesky_copy`), after the headers they need."""
    env = environment()
    context = dict(spellings(prefix, precision), cholesky_copies=list(copies))
    headers = "".join(f"#include <{name}.h>\n" for name in ("math", "stddef", "stdint", "string"))
    macros = "".join(f"#define {macro} {STATUS_NAMES[name]}\n" for name, macro in context["S"].items())
    return "\n".join([headers, macros, env.get_template("checks.c.j2").render(context),
                      env.get_template("cholesky.c.j2").render(context)])
