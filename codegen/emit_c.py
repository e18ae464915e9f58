"""Kernel -> C99: Python prepares every line, the jinja2 templates only lay them out."""

from __future__ import annotations

from dataclasses import dataclass, field

import jinja2

from ..errors import InvalidInputError, NonFiniteError
from .optimize import COUNT_KEYS, schedule
from .trace import Call, Expr, Guard, Kernel

BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}

#: Per-precision spellings: C type, literal suffix, math function suffix, machine epsilon.
PRECISIONS = {
    "double": ("double", "", "", "2.220446049250313e-16"),
    "float": ("float", "f", "f", "1.1920928955078125e-07"),
}

#: Checked solves of at most this many unknowns get a copy of the solver with the sizes fixed (`cholesky_copy`).
#: Measured with GCC -O2: the floating base's 6x6 solve runs about 3x faster unrolled, Solo12's 18x18 mass
#: matrix 1.4x faster (its source compiles in 4.3 s instead of 3.0 s), G1's 35x35 no faster.
FIXED_SOLVE_MAX = 20

#: What each input and output holds, for the header's documentation.
DOCS = {
    "base": "base state, 19 values: translation (3), quaternion xyzw (4), velocity [omega_W, pdot_W] (6), "
            "acceleration [omegadot_W, pddot_W] (6); world frame, angular first",
    "q": "joint positions (J)",
    "qd": "joint velocities (J)",
    "qdd": "joint accelerations (J)",
    "tau": "generalized forces (G)",
    "loads": "link wrenches [torque, force] at each link origin in the link frame (L x 6, row per link); may be NULL",
    "M": "mass matrix (G x G, column-major)",
    "c": "velocity-product forces C(q, qd) qd (G)",
    "g": "gravity forces g(q) (G)",
    "acc": "generalized accelerations (G); floating base: [omegadot_W, pddot_W (classical), qdd]",
}
OUTPUT_DOCS = {("gravity", "g"): "gravity and load forces g(q) + J^T loads (G)"}


@dataclass
class Param:
    name: str
    size: int
    output: bool
    optional: bool
    doc: str


@dataclass
class CFunction:
    """One generated operation, ready for the templates."""

    op: str
    params: list
    body: list = field(default_factory=list)
    stores: list = field(default_factory=list)
    checks: list = field(default_factory=list)  # values whose finiteness is checked before storing
    fail: str = ""  # statement that zeroes the outputs on a failed check
    optional_blocks: list = field(default_factory=list)  # (input, declarations): variables zero when it is NULL
    solves: set = field(default_factory=set)  # the `cholesky_copy` of each checked solve it calls
    counts: dict = field(default_factory=dict)
    summary: str = ""
    doc: str = ""


class Printer:
    """Names and spells scalars as C expressions."""

    def __init__(self, precision: str):
        self.real, self.suffix, self.fsuffix, _ = PRECISIONS[precision]
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


def c_function(kernel: Kernel, prefix: str, precision: str, sizes: dict, optional: set) -> CFunction:
    """Lay out one kernel as C statements."""
    printer = Printer(precision)
    inputs = [Param(n, sizes[n], False, n in optional, DOCS[n]) for n in kernel.inputs]
    outputs = [Param(n, sizes[n], True, kernel.name == "passive_terms",
                     OUTPUT_DOCS.get((kernel.name, n)) or DOCS.get(n) or _jacobian_doc(n)) for n in kernel.outputs]
    zero = "; ".join(f"{prefix}_zero({p.name}, {p.size})" for p in outputs)
    fn = CFunction(kernel.name, inputs + outputs, fail=zero, doc=kernel.doc)
    plan = schedule(kernel)
    fn.counts = plan.counts
    steps = plan.steps
    blocks = {}  # step index -> [(optional input, its terms that the step needs first)]
    for p in inputs:
        if p.optional:
            hoisted = _linear_in(p.name, steps)
            ids = {n.id for n in hoisted}
            steps = [step for step in steps if not (isinstance(step, Expr) and step.id in ids)]
            used = _referenced(steps, kernel)
            # entries of the input read directly by the rest become variables too (zero without it)
            direct = [x for x in kernel.graph.nodes if x.op == "in" and x.args[0] == p.name and x.id in used]
            terms = direct + hoisted
            at = _first_needed(terms, steps, kernel)
            # variables: the terms the rest reads, and those read by a term of a later block
            shared = {a.id for n in hoisted for a in _operands(n) if a.id in at and at[a.id] != at[n.id]}
            fn.optional_blocks.append((p.name, [printer.declare(n) for n in terms if n.id in used | shared]))
            for index in sorted(set(at.values())):
                blocks.setdefault(index, []).append((p.name, [n for n in terms if at[n.id] == index]))
    for index, step in enumerate(steps + [None]):  # None: the stores
        for name, terms in blocks.get(index, ()):
            lines = [printer.copy(n) if n.op == "in" else printer.define(n) for n in terms]
            if len(lines) == 1:
                fn.body.append(f"if ({name} != NULL) {{ {lines[0]} }}")
            else:
                fn.body.extend([f"if ({name} != NULL) {{", *(f"    {line}" for line in lines), "}"])
        if isinstance(step, Expr):
            fn.body.append(printer.define(step))
        elif isinstance(step, Guard):
            fn.body.append(f"if (!({printer.ref(step.value)} > 0)) {{ {zero}; return {step.status}; }}"
                           f"  /* {step.message} */")
        elif isinstance(step, Call):
            fn.body.extend(_call_lines(step, printer, prefix, zero))
            fn.solves.add(cholesky_copy(step))
    for p in outputs:
        values = kernel.outputs[p.name]
        lines = [f"{p.name}[{k}] = {printer.ref(v)};" for k, v in enumerate(values)]
        fn.stores.append((p.name, p.optional, lines))
        fn.checks.extend(dict.fromkeys(printer.ref(v) for v in values if isinstance(v, Expr)))
    fn.summary = ", ".join(f"{fn.counts[k]} {k}" for k in COUNT_KEYS if fn.counts[k])
    return fn


def _linear_in(name: str, steps: list) -> list:
    """The nodes that are linear in input ``name`` alone (zero when it is): computed only when it is given.

    An optional input (the loads) enters through such nodes, the link wrenches
    turned into body frames; with the input NULL they are all zero, and skipping
    them leaves the rest of the kernel exact.
    """
    linear = set()

    def is_linear(x):
        return isinstance(x, Expr) and (x.id in linear or (x.op == "in" and x.args[0] == name))

    out = []
    for node in steps:
        if not isinstance(node, Expr):
            continue
        a = node.args
        if node.op in ("add", "sub"):
            ok = is_linear(a[0]) and is_linear(a[1])
        elif node.op == "neg":
            ok = is_linear(a[0])
        elif node.op == "mul":
            ok = (is_linear(a[0]) and not isinstance(a[1], Expr)) or (is_linear(a[1]) and not isinstance(a[0], Expr))
        elif node.op == "div":
            ok = is_linear(a[0]) and not isinstance(a[1], Expr)
        else:
            ok = False
        if ok:
            linear.add(node.id)
            out.append(node)
    return out


def _operands(step) -> list:
    """The nodes a step (computation, guard or call) reads."""
    if isinstance(step, Expr):
        values = step.args
    elif isinstance(step, Guard):
        values = [step.value]
    else:
        values = [a for row in step.A for a in row] + [b for col in step.B for b in col]
    return [x for x in values if isinstance(x, Expr)]


def _outputs(kernel: Kernel) -> list:
    return [x for values in kernel.outputs.values() for x in values if isinstance(x, Expr)]


def _referenced(steps: list, kernel: Kernel) -> set:
    """Ids of the nodes that ``steps`` (computations, guards, calls) and the outputs read."""
    return {x.id for step in steps for x in _operands(step)} | {x.id for x in _outputs(kernel)}


def _first_needed(terms: list, steps: list, kernel: Kernel) -> dict:
    """Id of each of ``terms`` -> index of the first step that needs it, directly or through other terms
    (``len(steps)``: the outputs alone).

    An optional input's terms are computed there, each block guarded by the input being given: their
    values live briefly, where computing them all at the start keeps hundreds of (zero, without the
    input) values alive across the function, mostly in memory.
    """
    ids = {n.id for n in terms}
    at = {}

    def need(x, index):
        if x.id in ids and x.id not in at:
            at[x.id] = index
            for a in _operands(x):
                need(a, index)

    for index, step in enumerate(steps):
        for x in _operands(step):
            need(x, index)
    for x in _outputs(kernel):
        need(x, len(steps))
    return at


def _jacobian_doc(name: str) -> str:
    of, wrt = name[1:].split("_d", 1)
    return f"Jacobian d{of}/d{wrt} (G rows, column-major)"


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
    lines = [f"/* {call.what}: checked Cholesky solve */",
             f"{real} A{k}[{n * n}], b{k}[{n * m}], x{k}[{n * m}], w{k}[{n * n + 4 * n}];"]
    for c in range(n):
        for r in range(c, n):
            lines.append(f"A{k}[{c * n + r}] = {printer.ref(call.A[r][c])};")
    lines += [f"b{k}[{c * n + r}] = {printer.ref(x)};" for c, col in enumerate(call.B) for r, x in enumerate(col)]
    lines.append(f"{{ const int s = {prefix}_cholesky_solve{tag}({sizes}A{k}, b{k}, x{k}, w{k}); "
                 f"if (s) {{ {zero}; return s; }} }}")
    return lines


def c_param(p: Param, real: str) -> str:
    return f"{real} *{p.name}" if p.output else f"const {real} *{p.name}"


def render(kernels: list, prefix: str, precision: str, sizes: dict, header_info: dict):
    """The header and the source for a robot: ({filename: text}, [CFunction])."""
    functions = [c_function(k, prefix, precision, sizes, optional={"loads"}) for k in kernels]
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("rbdgen.templates", "c"),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["c_param"] = c_param
    real, _, fsuffix, eps = PRECISIONS[precision]
    solves = set().union(*(fn.solves for fn in functions))
    context = dict(
        header_info,
        prefix=prefix,
        PREFIX=prefix.upper(),
        real=real,
        eps=eps,
        sqrt=f"sqrt{fsuffix}",
        fabs=f"fabs{fsuffix}",
        functions=functions,
        uses_cholesky=bool(solves),
        cholesky_copies=sorted(solves, key=lambda copy: (copy[1] or 0, copy[2] or 0)),  # by (n, m): deterministic
        status_invalid=InvalidInputError.status,
        status_nonfinite=NonFiniteError.status,
    )
    files = {
        f"{prefix}.h": env.get_template("robot.h.j2").render(context),
        f"{prefix}.c": env.get_template("robot.c.j2").render(context),
    }
    return files, functions
