"""C syntax: every expression, declaration and statement the C backend writes.

`Printer` names the scalars of one part of an operation and spells them, and the statements that
compute, check, hand over and store them; the functions spell C names (macros, status codes, parts,
solve kernels), parameters and tables. The jinja2 templates (`templates/c/`) only lay
out what these return.
"""

from __future__ import annotations

import math
import re

from ...errors import STATUS, ModelError
from ...names import c_text, check_prefix
from ...ir.ranges import PRECISIONS as RANGE_PRECISIONS
from ...ir.trace import Expr

BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}

#: The functions of two arguments, from libm (the configuration operations' quaternion logarithm).
LIBM_BINARY = ("atan2", "copysign")

#: Per-precision spellings: C type, literal suffix, math function suffix, machine epsilon.
PRECISIONS = {
    "double": ("double", "", "", "2.220446049250313e-16"),
    "float": ("float", "f", "f", "1.1920928955078125e-07"),
}

#: Per precision, the smallest positive normal value (DBL_MIN, FLT_MIN): the ``tiny`` leaf.
TINY = {name: repr(p.normal) for name, p in RANGE_PRECISIONS.items()}

#: Per precision, the magnitude from which a literal rounds to infinity: halfway between the largest finite
#: value (FLT_MAX = 2^128 - 2^104) and 2^128, which rounds to even, 2^128 (C99 6.4.4.2: the nearest value).
OVERFLOW = {"double": math.inf, "float": 2.0 ** 128 - 2.0 ** 103}

#: Per precision, for the checks that read a value's bits (checks.c.j2): the unsigned type as
#: wide as the real, the exponent mask (all ones: inf or NaN), its lowest bit and the sign bit.
BITS = {
    "double": dict(bits="uint64_t", exponent="UINT64_C(0x7ff0000000000000)",
                   exponent_low="UINT64_C(0x0010000000000000)", sign="UINT64_C(0x8000000000000000)"),
    "float": dict(bits="uint32_t", exponent="UINT32_C(0x7f800000)", exponent_low="UINT32_C(0x00800000)",
                  sign="UINT32_C(0x80000000)"),
}

#: The status codes of the generated C, named after the exceptions (`errors.STATUS`):
#: InvalidInputError -> INVALID_INPUT.
STATUS_NAMES = {"OK": 0, **{re.sub(r"(?<=[a-z])(?=[A-Z])", "_", error.__name__[:-len("Error")]).upper(): code
                            for code, error in STATUS.items() if error is not None}}

#: The unary operators whose argument shares a reduction: ``sin(x)`` and ``cos(x)`` of one ``x``.
TRIG = ("sin", "cos")

#: The names of a part's own values, which a label (a quantity's name) never takes: a ``tK``, a ``tcK``
#: (`Printer.after_check`), a solve's arrays (``AK``, ``bK``, ``xK``, ``wK``, ``LK``, ``dK``).
TEMPORARY = re.compile(r"(t|tc|A|b|x|w|L|d)[0-9]+")

#: C's keywords and the other local names of an operation's function (`templates/c/statements.c.j2`).
RESERVED = frozenset("""auto break case char const continue default do double else enum extern float for goto if inline
int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
status hand w""".split())


def macro_prefix(prefix: str) -> str:
    """The prefix of a robot's macros, ``RBDGEN_<prefix>``: no C, POSIX or library header defines such names,
    and the prefix keeps its case, so robots whose names differ in case only do not share macros."""
    return f"RBDGEN_{prefix}"


def status_macros(prefix: str) -> dict:
    """Status name (`STATUS_NAMES`) -> its macro, e.g. ``"OK"`` -> ``"RBDGEN_panda_OK"``."""
    return {name: f"{macro_prefix(prefix)}_{name}" for name in STATUS_NAMES}


def status_name(code: int) -> str:
    return next(name for name, value in STATUS_NAMES.items() if value == code)


def spellings(prefix: str, precision: str) -> dict:
    """The template variables every C file of a robot uses: names, macros, the real type's spellings."""
    real, _, fsuffix, eps = PRECISIONS[precision]
    return dict(prefix=check_prefix(prefix), M=macro_prefix(prefix), S=status_macros(prefix), status=STATUS_NAMES,
                real=real, eps=eps, sqrt=f"sqrt{fsuffix}", fabs=f"fabs{fsuffix}", **BITS[precision])


def part_name(op: str, k: int) -> str:
    """Part ``k`` of operation ``op``, after the prefix: ``_<k>_<op>``, so the symbol is ``<prefix>__<k>_<op>``.
    A prefix contains no ``__`` and does not end in ``_`` (`names.check_prefix`), so no robot's public name
    (``<other prefix>_<op>``) can be a part of another's: ``arm__2_gravity`` is no function of a robot ``arm_2``
    (whose parts are ``arm_2__<k>_<op>``). The parts are external symbols (each is its own translation unit),
    declared only in ``<prefix>_internal.h``."""
    return f"_{k}_{op}"


def solve_tag(n, m) -> str:
    """The suffix of the checked solve's copy for sizes ``n`` x ``m`` (none: the generic copy)."""
    return "" if n is None else f"_{n}x{m}"


def ltdl_name(prefix: str, index: int, n: int, m: int) -> str:
    """The static function of a tree-sparse solve kernel: its `TreeSolve`'s index, rows and columns."""
    return f"{prefix}_ltdl_solve{index}_{n}x{m}"


def c_param(p, real: str, definition: bool = False) -> str:
    """One parameter of a prototype, or of a ``definition``: there an output is also ``restrict`` (outputs
    overlap no input, docs/generated-c.md), so that stores to it do not make GCC read the inputs again; a
    prototype without it is the same type (C99 6.7.5.3), and the public header stays C++."""
    pointer = "*restrict " if p.restrict or (definition and p.output) else "*"
    return f"{real} {pointer}{p.name}" if p.output else f"const {real} {pointer}{p.name}"


def batch_argument(p) -> str:
    """Parameter ``p`` of state ``k`` in a batch: NULL stays NULL where it may be NULL."""
    at = f"{p.name} + k * {p.size}"
    return f"{p.name} == NULL ? NULL : {at}" if p.optional or p.output else at


def int_table(name: str, values) -> str:
    """``static const int name[n] = {...};``"""
    return f"static const int {name}[{len(values)}] = {{{', '.join(map(str, values))}}};"


def zero_outputs(prefix: str, params: list) -> str:
    """The statement that zeroes every output (a failed check)."""
    return "; ".join(f"{prefix}_zero({p.name}, {p.size})" for p in params)


def cdef(prefix: str, kernels: list, precision: str) -> str:
    """The cffi declarations of the operations of ``kernels`` and their batch forms."""
    real = PRECISIONS[precision][0]
    lines = []
    for k in kernels:
        params = [f"const {real} *{n}" for n in k.inputs] + [f"{real} *{n}" for n in k.outputs]
        lines.append(f"int {prefix}_{k.name}({', '.join(params)});")
        lines.append(f"int {prefix}_{k.name}_batch(int n, {', '.join(params)}, const unsigned char *mask, int *status);")
    return "\n".join(lines) + "\n"


def includes(headers) -> str:
    """``#include <name.h>`` lines."""
    return "".join(f"#include <{name}.h>\n" for name in headers)


def status_defines(prefix: str) -> str:
    """``#define <status macro> <code>`` lines."""
    return "".join(f"#define {macro} {STATUS_NAMES[name]}\n" for name, macro in status_macros(prefix).items())


class Printer:
    """Names and spells scalars as C expressions, and the statements of one part around them.

    In double precision, sine and cosine are the generated ``<prefix>_sincos`` (templates/c/sincos.c.j2):
    the two of one argument in one call (`pair`), a lone one as ``<prefix>_sin`` or ``<prefix>_cos``.
    In float, libm's ``sinf`` and ``cosf`` (docs/generated-c.md, "Sine and cosine").
    """

    def __init__(self, precision: str, prefix: str, reserved=(), twins=None, lefts=None):
        self.real, self.suffix, self.fsuffix, self.eps = PRECISIONS[precision]
        self.precision = precision
        self.prefix = prefix
        self.reserved = set(reserved) | RESERVED  # identifiers a label must not take: the parameters, C's words
        self.taken = set()  # the labels given as names
        self.status = status_macros(prefix)
        self.trig = f"{prefix}_" if precision == "double" else ""
        self.pairs = {}  # node id -> the other of its sin/cos pair, both computed by one call
        self.deferred = set()  # node ids of a pair computed in the call of another (`pair`)
        self.group = {}  # node id -> the two (sin, cos) pairs that one call at the node computes
        self.names = {}
        self.checked = 0  # values renamed after their check (`after_check`): reals named beside `names`
        self.arrays = set()  # the inputs it has read ("w": values handed over)
        self.slots = {}  # node id -> its slot in ``w``: a value an earlier part computed
        self.solved = {}  # index of a `TreeSolve` -> (rows, array columns, column -> its array column)
        self.twins = twins or {}  # left node id -> its `rbdgen.ir.twins.Twin`: the two computed as one pair
        self.left = lefts or {}  # right node id -> the left one's (`Schedule.lefts`)
        self.vectors = {}  # left node id -> the name of its pair (``<prefix>_pair``), once computed

    def literal(self, x) -> str:
        """A constant as a C literal of the real type; one that is not finite in that type (a model's value
        beyond the float range, or a folded one that overflowed: 1 / a subnormal mass) is refused."""
        if not abs(float(x)) < OVERFLOW[self.precision]:
            raise ModelError(f"the generated {self.precision} code would need the constant {float(x)!r}, which is not "
                             f"finite in {self.precision} precision: check the model's values (masses, inertias, "
                             f"lengths)" + (", or generate in double precision" if self.precision == "float" else ""))
        text = repr(float(x))
        if "e" not in text and "." not in text:
            text += ".0"
        text += self.suffix
        return f"({text})" if text.startswith("-") else text

    def receive(self, node_id: int, slot: int) -> None:
        """Read the value ``node_id``, computed by an earlier part, from ``w[slot]``."""
        self.slots[node_id] = slot

    def ref(self, x) -> str:
        if not isinstance(x, Expr):
            return self.literal(x)
        if x.id in self.names:
            return self.names[x.id]
        if x.id in self.vectors:
            return f"{self.prefix}_lo({self.vectors[x.id]})"
        if self.left.get(x.id) in self.vectors:
            return f"{self.prefix}_hi({self.vectors[self.left[x.id]]})"
        if x.id in self.slots:
            self.arrays.add("w")
            return f"w[{self.slots[x.id]}]"
        if x.op == "in":
            self.arrays.add(x.args[0])
            return f"{x.args[0]}[{x.args[1]}]"
        if x.op == "ret" and x.args[0] in self.solved:
            n, m, position = self.solved[x.args[0]]
            c, r = divmod(x.args[1], n)
            return f"x{x.args[0]}[{r * m + position[c]}]"
        if x.op == "ret":
            return f"x{x.args[0]}[{x.args[1]}]"
        if x.op == "eps":
            return self.eps + self.suffix
        if x.op == "tiny":
            return TINY[self.precision] + self.suffix
        raise KeyError(f"{x} is used before it is computed")

    def fresh(self, node: Expr) -> str:
        """A new name for ``node``: the name of its quantity (`trace.Graph.labels`, docs/generated-c.md, "Names and
        blocks") where it has one that is free, else ``tK`` (K: the values named before it)."""
        return self._free(node.graph.labels.get(node.id))

    def _free(self, label) -> str:
        """``label`` where it is free, else a new ``tK``."""
        if (label is None or label in self.taken or label in self.reserved or TEMPORARY.fullmatch(label)
                or label.startswith(f"{self.prefix}_")):
            return f"t{len(self.names) + len(self.vectors)}"
        self.taken.add(label)
        return label

    def define_twins(self, node: Expr) -> str:
        """``const <prefix>_pair tK = <prefix>_mul2(a, b);``: a left node and its twin (`Printer.twins`), lane by
        lane; an operand pair is a pair computed before, else two values packed (``<prefix>_pack``). Named
        ``<left>_<right>`` after the two quantities where both have a name."""
        twin = self.twins[node.id]
        labels = node.graph.labels
        left, right = labels.get(node.id), labels.get(twin.node.id)
        name = self._free(f"{left}_{right}" if left and right else None)
        args = zip(node.args, reversed(twin.node.args) if twin.swapped else twin.node.args)
        operands = ", ".join(self.pair_ref(x, y) for x, y in args)
        self.vectors[node.id] = name
        return f"const {self.prefix}_pair {name} = {self.prefix}_{node.op}2({operands});"

    def pair_ref(self, x, y) -> str:
        """Lanes ``x`` and ``y`` as a pair: one computed as such, or handed over in neighbouring slots of ``w``,
        else the two packed."""
        if isinstance(x, Expr) and isinstance(y, Expr) and x.id not in self.names and y.id not in self.names:
            if x.id in self.vectors and self.twins[x.id].node is y:
                return self.vectors[x.id]
            if x.id in self.slots and self.slots.get(y.id) == self.slots[x.id] + 1:
                self.arrays.add("w")
                return f"{self.prefix}_load2(w + {self.slots[x.id]})"
        return f"{self.prefix}_pack({self.ref(x)}, {self.ref(y)})"

    def declare(self, node: Expr) -> str:
        """``real tK = 0;``: a variable for ``node``, set later by `copy` or `define`."""
        name = self.names[node.id] = self.fresh(node)
        return f"{self.real} {name} = 0;"

    def copy(self, node: Expr) -> str:
        """``tK = input[i];`` for an input entry read through a declared variable."""
        self.arrays.add(node.args[0])
        return f"{self.names[node.id]} = {node.args[0]}[{node.args[1]}];"

    def pair(self, steps, keep=(), barriers=()) -> None:
        """Compute the sine and cosine of one argument among ``steps`` (nodes not yet named) in one call, and two or
        four such pairs, one after the other in ``steps``, in one call of ``<prefix>_sincos2`` or ``_sincos4``: at
        the first pair's place where the next one's argument is known there (an input, or computed before), else
        at the next one's where nothing reads the results of those before: no step, no computation at the indices
        ``barriers`` of ``steps``, no later part (``keep``: the node ids handed to one)."""
        if not self.trig:
            return
        trig, first = {}, {}  # argument id -> {op: node}, the index of its first sin or cos
        for index, step in enumerate(steps):
            if isinstance(step, Expr) and step.op in TRIG and step.id not in self.names:
                trig.setdefault(step.args[0].id, {})[step.op] = step
                first.setdefault(step.args[0].id, index)
        pairs = sorted((first[x], (found["sin"], found["cos"])) for x, found in trig.items() if len(found) == 2)
        for _, (sin, cos) in pairs:
            self.pairs[sin.id], self.pairs[cos.id] = cos, sin
        where = {step.id: index for index, step in enumerate(steps) if isinstance(step, Expr)}
        keep = set(keep)

        def known(x, at) -> bool:  # is x computed before steps[at]?
            return x.op == "in" or x.id in self.slots or where.get(x.id, at) < at

        def unread(ids, start, stop) -> bool:  # is none of ids read by steps[start + 1:stop + 1]?
            return not ids & keep and not any(start < b <= stop for b in barriers) and not any(
                not isinstance(step, Expr) or any(isinstance(a, Expr) and a.id in ids for a in step.args)
                for step in steps[start + 1:stop + 1])

        while pairs:
            group, calls = [pairs[0][1]], [(pairs[0][0], 0)]  # the pairs of one call; (its place, the pair there)
            for later, two in pairs[1:4]:
                at, _ = calls[-1]
                if known(two[0].args[0], at):
                    calls.append((at, calls[-1][1]))
                elif unread({n.id for one in group for n in one}, at, later):
                    calls.append((later, len(group)))
                else:
                    break
                group.append(two)
            if len(group) == 3:  # calls take two or four pairs
                group, calls = group[:2], calls[:2]
            anchor = group[calls[-1][1]]
            for one in group:
                for n in one:
                    if one is anchor:
                        self.group[n.id] = tuple(group)
                    else:
                        self.deferred.add(n.id)  # named at the call
            pairs = pairs[len(group):]

    def after_check(self, node: Expr) -> str:
        """``const real tcK = status == OK ? x : 1;``: ``node`` as the statements after its check read it. Once a
        check has failed the rest of the part runs on (its results discarded), and a pivot that failed its check
        is then 1, so no division by zero or square root of a negative number follows (no floating-point
        exception where a program traps them)."""
        value = self.ref(node)
        name = self.names[node.id] = f"tc{self.checked}"
        self.checked += 1
        return f"const {self.real} {name} = status == {self.status['OK']} ? {value} : {self.literal(1)};"

    def define(self, node: Expr) -> str:
        """``const real tK = expr;`` (``tK = expr;`` for a declared variable); for a sin/cos pair (`pair`), at the
        first of the two, ``real tS, tC; <prefix>_sincos(x, &tS, &tC);`` and nothing at the second; for two pairs
        in one call, ``real tS, tC, tS2, tC2; <prefix>_sincos2(x, x2, &tS, &tC, &tS2, &tC2);`` at the place `pair`
        chose (four pairs: ``<prefix>_sincos4``)."""
        if node.id in self.pairs:
            if node.id in self.names or node.id in self.deferred:
                return ""
            group = self.group.get(node.id) or [sorted((node, self.pairs[node.id]), key=lambda n: n.op != "sin")]
            for n in (n for sc in group for n in sc):
                self.deferred.discard(n.id)
                self.names[n.id] = self.fresh(n)
            names = [self.names[n.id] for sc in group for n in sc]
            args = [self.ref(sin.args[0]) for sin, _ in group]
            kernel = f"{self.trig}sincos{len(group) if len(group) > 1 else ''}"
            return f"{self.real} {', '.join(names)}; {kernel}({', '.join(args + [f'&{n}' for n in names])});"
        if node.id in self.twins:
            return self.define_twins(node)
        if node.id in self.left:
            return ""  # computed in its pair
        declared = node.id in self.names
        if not declared:
            self.names[node.id] = self.fresh(node)
        name = self.names[node.id]
        if node.op in BINARY:
            expr = f"{self.ref(node.args[0])} {BINARY[node.op]} {self.ref(node.args[1])}"
        elif node.op == "neg":
            expr = f"-{self.ref(node.args[0])}"
        elif node.op in LIBM_BINARY:
            expr = f"{node.op}{self.fsuffix}({self.ref(node.args[0])}, {self.ref(node.args[1])})"
        elif node.op in TRIG and self.trig:
            expr = f"{self.trig}{node.op}({self.ref(node.args[0])})"
        else:
            expr = f"{node.op}{self.fsuffix}({self.ref(node.args[0])})"
        return f"{name} = {expr};" if declared else f"const {self.real} {name} = {expr};"

    def guard(self, value, strict: bool, status: int) -> str:
        """The check of ``value`` (positive where ``strict``, else not negative): the part keeps the status of
        the first one that fails."""
        value = self.ref(value)
        test = f"!{self.prefix}_positive({value})" if strict else f"{self.prefix}_negative({value})"
        return f"if (status == {self.status['OK']} && {test}) status = {self.status[status_name(status)]};"

    def when_given(self, name: str, lines: list) -> list:
        """``lines``, run only when the optional input ``name`` is not NULL."""
        if len(lines) == 1:
            return [f"if ({name} != NULL) {{ {lines[0]} }}"]
        return [f"if ({name} != NULL) {{", *(f"    {x}" for x in lines), "}"]

    def hand(self, slot: int, x) -> str:
        """``hand[slot] = x;``: a value for a later part (``hand``: ``w`` as volatile, `Part.hands`)."""
        self.arrays.add("w")
        return f"hand[{slot}] = {self.ref(x)};"

    def store(self, name: str, entry: int, x) -> str:
        return f"{name}[{entry}] = {self.ref(x)};"

    def zero(self, name: str, start: int, count: int) -> str:
        return f"{self.prefix}_zero({name if start == 0 else f'{name} + {start}'}, {count});"

    def cholesky_solve(self, call, copy) -> tuple:
        """The checked Cholesky solve ``call`` by ``copy`` (`solves.CholeskyCopy`): (comment, statements): A (lower
        triangle) and B (m columns) into column-major arrays, then the call, whose status the part keeps if no
        check failed before (`Part.checks`)."""
        n, m, k, real = len(call.A), len(call.B), call.index, self.real
        sizes = "" if copy.n else f"{n}, {m}, "
        # x zeroed: the solve writes it on every path, but GCC's -Wmaybe-uninitialized cannot always tell
        lines = [f"{real} A{k}[{n * n}], b{k}[{n * m}], x{k}[{n * m}] = {{0}}, w{k}[{n * n + 4 * n}];"]
        for c in range(n):
            for r in range(c, n):
                lines.append(f"A{k}[{c * n + r}] = {self.ref(call.A[r][c])};")
        lines += [f"b{k}[{c * n + r}] = {self.ref(x)};" for c, col in enumerate(call.B) for r, x in enumerate(col)]
        lines.append(f"{{ const int s = {self.prefix}_cholesky_solve{copy.tag}({sizes}A{k}, b{k}, x{k}, w{k}); "
                     f"if (status == {self.status['OK']}) status = s; }}")
        return c_text(f"{call.what}: checked Cholesky solve"), lines

    def tree_solve(self, solve, plan, kernel: str) -> tuple:
        """A `TreeSolve` by ``plan`` (`solves.LtdlPlan`): (comment, statements): L and Dinv into arrays, the
        columns into ``x<k>`` as ``plan`` lays them out (zero elsewhere), the call of ``kernel``."""
        k, real, n, m = solve.index, self.real, plan.n, plan.columns
        entries = [row[j] for row, above in zip(solve.L, plan.entries) for j in above]
        lines = [f"{real} L{k}[{max(len(entries), 1)}], d{k}[{n}], x{k}[{n * m}] = {{0}};"]
        lines += [f"L{k}[{p}] = {self.ref(v)};" for p, v in enumerate(entries)]
        lines += [f"d{k}[{r}] = {self.ref(v)};" for r, v in enumerate(solve.Dinv)]
        lines += [f"x{k}[{r * m + p}] = {self.ref(v)};" for p, c in enumerate(plan.order)
                  for r, v in enumerate(solve.B[c]) if isinstance(v, Expr) or v != 0]
        lines.append(f"{kernel}(L{k}, d{k}, x{k});")
        self.solved[k] = (n, m, {c: p for p, c in enumerate(plan.order)})
        comment = c_text(f"the tree-sparse LTDL solve of {len(solve.B)} columns (x{k}: row r of column c at "
                         f"r * {m} + its array column, columns grouped by the rows they reach)")
        return comment, lines

    def solved_columns(self, name: str, values: list):
        """One loop that copies output ``name`` from the array of a `TreeSolve` this part ran, where its
        ``values`` are that solve's columns c0, c0 + 1, ... in order (a Jacobian of the forward-dynamics
        derivatives): the same stores as one line an entry, in a few lines instead of thousands. None
        otherwise."""
        first = values[0] if values else None
        if not (isinstance(first, Expr) and first.op == "ret" and first.args[0] in self.solved):
            return None
        k, start = first.args
        n, m, position = self.solved[k]
        if start % n or len(values) % n or any(not (isinstance(v, Expr) and v.op == "ret" and v.args == (k, start + j))
                                               for j, v in enumerate(values)):
            return None
        at = [position[start // n + c] for c in range(len(values) // n)]
        return (f"{{ {int_table('at', at)} int col, row; "
                f"for (col = 0; col < {len(at)}; ++col) for (row = 0; row < {n}; ++row) "
                f"{name}[col * {n} + row] = x{k}[row * {m} + at[col]]; }}")
