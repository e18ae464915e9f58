"""Kernel -> C99: Python prepares every line, the jinja2 templates only lay them out."""

from __future__ import annotations

import bisect
import heapq
import re
from dataclasses import dataclass, field

import jinja2
import numpy as np

from ..algorithms.ltdl import ancestors
from ..algorithms.operations import INPUTS, operation
from ..errors import STATUS
from ..manifest import interface_key
from ..names import c_text, check_prefix, checked
from ..ir.optimize import COUNT_KEYS, Schedule, operands
from ..ir.trace import Call, Expr, Guard, Kernel, TreeSolve

BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}

#: The functions of two arguments, from libm (the configuration operations' quaternion logarithm).
LIBM_BINARY = ("atan2", "copysign")

#: Per-precision spellings: C type, literal suffix, math function suffix, machine epsilon.
PRECISIONS = {
    "double": ("double", "", "", "2.220446049250313e-16"),
    "float": ("float", "f", "f", "1.1920928955078125e-07"),
}

#: Per precision, for the checks that read a value's bits (checks.c.j2): the unsigned type as
#: wide as the real, the exponent mask (all ones: inf or NaN), its lowest bit and the sign bit.
BITS = {
    "double": dict(bits="uint64_t", exponent="UINT64_C(0x7ff0000000000000)", exponent_low="UINT64_C(0x0010000000000000)",
                   sign="UINT64_C(0x8000000000000000)"),
    "float": dict(bits="uint32_t", exponent="UINT32_C(0x7f800000)", exponent_low="UINT32_C(0x00800000)",
                  sign="UINT32_C(0x80000000)"),
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
    restrict: bool = False  # no other parameter reaches its memory (C99 ``restrict``)


@dataclass
class Part:
    """Statements of an operation, in one function: the operation itself, or one of the parts it calls."""

    name: str = ""  # the part's function after the prefix (`part_name`); empty: the operation itself
    params: list = field(default_factory=list)  # the operation's parameters that it reads or writes
    body: list = field(default_factory=list)  # (statement, comment): either may be empty; a comment is `CText`
    stores: list = field(default_factory=list)  # (output, optional, lines)
    optional_blocks: list = field(default_factory=list)  # (input, declarations): variables zero when it is NULL
    solves: set = field(default_factory=set)  # the `cholesky_copy` of each checked solve it calls
    tree_solves: dict = field(default_factory=dict)  # index of each `TreeSolve` it runs -> its `LtdlPlan`
    checks: bool = False  # it has checks (guards, solves): ``status`` keeps the first failing one's, to its end
    hands: bool = False  # it writes values to ``w``, through ``hand``: volatile, so that GCC's SLP vectoriser does not
    # pair stores to neighbouring slots (a pair's values, computed far apart, would both stay live until the store)


@dataclass
class Check:
    """An output's finiteness check after storing: of every entry, or only of the entries ``at`` (one per
    distinct computed value) where the others are constants, inputs (checked on entry) or repeats, and are at
    least as many (a Jacobian's columns off the link's path are zero), in an operation of one part. A split
    operation's check reads every entry, contiguous memory four values at a time: its parts stored them long
    before, while wide loads of values just stored one by one wait for the stores (Solo12's mass matrix: 1.13x)."""

    param: Param
    at: tuple = ()


@dataclass
class CFunction:
    """One generated operation, ready for the templates: its statements in one `Part`, or split into several
    (each in a source of its own, `PART_STEPS`) that hand values over in the array ``w``."""

    op: str
    params: list
    parts: list = field(default_factory=list)
    checked: list = field(default_factory=list)  # `Check` of each output whose finiteness is checked after storing
    fail: str = ""  # statement that zeroes the outputs on a failed check
    counts: dict = field(default_factory=dict)
    handover: int = 0  # reals in ``w``: the values a part computes for a later one
    stack: int = 0  # bytes, see `stack_bound`
    summary: str = ""
    doc: str = ""
    calls: str = ""  # the operation whose function computes this one's results, called as it is (`render`)

    @property
    def split(self) -> bool:
        return len(self.parts) > 1


#: The unary operators whose argument shares a reduction: ``sin(x)`` and ``cos(x)`` of one ``x``.
TRIG = ("sin", "cos")


class Printer:
    """Names and spells scalars as C expressions.

    In double precision, sine and cosine are the generated ``<prefix>_sincos`` (templates/c/sincos.c.j2):
    the two of one argument in one call (`pair`), a lone one as ``<prefix>_sin`` or ``<prefix>_cos``.
    In float, libm's ``sinf`` and ``cosf`` (docs/generated-c.md, "Sine and cosine").
    """

    def __init__(self, precision: str, prefix: str):
        self.real, self.suffix, self.fsuffix, self.eps = PRECISIONS[precision]
        self.trig = f"{prefix}_" if precision == "double" else ""
        self.pairs = {}  # node id -> the other of its sin/cos pair, both computed by one call
        self.deferred = set()  # node ids of a pair computed in the call of another (`pair`)
        self.group = {}  # node id -> the two (sin, cos) pairs that one call at the node computes
        self.names = {}
        self.checked = 0  # values renamed after their check (`after_check`): reals named beside `names`
        self.arrays = set()  # the inputs it has read ("w": values handed over)
        self.handed = {}  # node id -> ``w[slot]``: a value an earlier part computed
        self.solved = {}  # index of a `TreeSolve` -> (rows, array columns, column -> its array column)

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
        if x.id in self.handed:
            self.arrays.add("w")
            return self.handed[x.id]
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
        raise KeyError(f"{x} is used before it is computed")

    def declare(self, node: Expr) -> str:
        """``real tK = 0;``: a variable for ``node``, set later by `copy` or `define`."""
        name = self.names[node.id] = f"t{len(self.names)}"
        return f"{self.real} {name} = 0;"

    def copy(self, node: Expr) -> str:
        """``tK = input[i];`` for an input entry read through a declared variable."""
        self.arrays.add(node.args[0])
        return f"{self.names[node.id]} = {node.args[0]}[{node.args[1]}];"

    def pair(self, steps, keep=(), barriers=()) -> None:
        """Compute the sine and cosine of one argument among ``steps`` (nodes not yet named) in one call, and two
        such pairs, one after the other in ``steps``, in one call of ``<prefix>_sincos2``: at the first pair's
        place where the second's argument is known there (an input, or computed before), else at the second's
        where nothing reads the first pair's results before: no step, no computation at the indices
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
            return x.op == "in" or x.id in self.handed or where.get(x.id, at) < at

        def unread(ids, start, stop) -> bool:  # is none of ids read by steps[start + 1:stop + 1]?
            return not ids & keep and not any(start < b <= stop for b in barriers) and not any(
                not isinstance(step, Expr) or any(isinstance(a, Expr) and a.id in ids for a in step.args)
                for step in steps[start + 1:stop + 1])

        while pairs:
            (at, one), rest = pairs[0], pairs[1:]
            if rest:
                later, two = rest[0]
                here = known(two[0].args[0], at)
                if here or unread({n.id for n in one}, at, later):
                    for n in (two if here else one):
                        self.deferred.add(n.id)  # named at the call
                    for n in (one if here else two):
                        self.group[n.id] = (one, two)
                    rest = rest[1:]
            pairs = rest

    def after_check(self, node: Expr, ok: str) -> str:
        """``const real tcK = ok ? x : 1;``: ``node`` as the statements after its check read it. Once a check has
        failed the rest of the part runs on (its results discarded), and a pivot that failed its check is then 1,
        so no division by zero or square root of a negative number follows (no floating-point exception where
        a program traps them)."""
        value = self.ref(node)
        name = self.names[node.id] = f"tc{self.checked}"
        self.checked += 1
        return f"const {self.real} {name} = {ok} ? {value} : {self.literal(1)};"

    def define(self, node: Expr) -> str:
        """``const real tK = expr;`` (``tK = expr;`` for a declared variable); for a sin/cos pair (`pair`), at the
        first of the two, ``real tS, tC; <prefix>_sincos(x, &tS, &tC);`` and nothing at the second; for two pairs
        in one call, ``real tS, tC, tS2, tC2; <prefix>_sincos2(x, x2, &tS, &tC, &tS2, &tC2);`` at the place `pair`
        chose."""
        if node.id in self.pairs:
            if node.id in self.names or node.id in self.deferred:
                return ""
            group = self.group.get(node.id) or [sorted((node, self.pairs[node.id]), key=lambda n: n.op != "sin")]
            for n in (n for sc in group for n in sc):
                self.deferred.discard(n.id)
                self.names[n.id] = f"t{len(self.names)}"
            names = [self.names[n.id] for sc in group for n in sc]
            args = [self.ref(sin.args[0]) for sin, _ in group]
            kernel = f"{self.trig}sincos{'2' if len(group) == 2 else ''}"
            return f"{self.real} {', '.join(names)}; {kernel}({', '.join(args + [f'&{n}' for n in names])});"
        declared = node.id in self.names
        if not declared:
            self.names[node.id] = f"t{len(self.names)}"
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


#: An operation of more than this many steps (`optimize.schedule`) is split into parts of at most about this
#: many, each a function in a source of its own. GCC's register allocation takes more than linear time in a
#: function's length (Talos' forward_dynamics, 22,000 steps, compiled at 14 ms per KiB of C, Solo12's 5,000
#: at 7), and the parts compile in parallel. Shorter parts also run faster at -O2: GCC's basic-block SLP
#: vectoriser pairs the operands of neighbouring stores back through a whole function and spills the pairs
#: (G1's velocity_product_forces, 5,826 steps: 0.72x the time in three parts as in one; docs/generated-c.md).
#: Parts of at most 3,000 steps split Solo12's passive_terms (3,800 steps) too, 1.02-1.07x slower.
PART_STEPS = 4000

#: A part of a split operation also ends before it would hold more than this many values at once itself
#: (`_Held.peak`): values it computes and reads again, and values it reads from ``w`` more than once (GCC keeps
#: the first read for the later ones). Its frame grows with that count and adds to ``w`` in the caller's. Talos'
#: forward_dynamics (GCC 12 -O2, ``w`` + the deepest part, parts of at most 6,000 steps): 4 even parts, 4,992 +
#: 4,312 bytes; with 200, 7 parts, 6,016 + 2,184; with 100, 13 parts, 6,032 + 1,648, its first part (no checks,
#: few values handed) the deepest. With at most 4,000 steps: 13 parts, 6,096 + 1,648; with 40 values, 35 parts,
#: 7,056 bytes in all. Parts that hold fewer values also run faster (GCC spills less): the A/B runs of 40
#: against 100, 25 and 60 are in docs/generated-c.md.
PART_VALUES = 40


def part_name(op: str, k: int) -> str:
    """Part ``k`` of operation ``op``, after the prefix: ``_<k>_<op>``, so the symbol is ``<prefix>__<k>_<op>``.
    A prefix contains no ``__`` and does not end in ``_`` (`names.check_prefix`), so no robot's public name
    (``<other prefix>_<op>``) can be a part of another's: ``arm__2_gravity`` is no function of a robot ``arm_2``
    (whose parts are ``arm_2__<k>_<op>``). The parts are external symbols (each is its own translation unit),
    declared only in ``<prefix>_internal.h``."""
    return f"_{k}_{op}"


def optional_inputs(kernel: Kernel) -> list:
    """The inputs of ``kernel`` that may be NULL (`optimize.schedule`'s ``optional``)."""
    return [n for n in kernel.inputs if INPUTS[n].optional]


def c_function(kernel: Kernel, plan: Schedule, prefix: str, precision: str, sizes: dict) -> CFunction:
    """Lay out one kernel, scheduled as ``plan``, as C statements: in one `Part`, or in `PART_STEPS`-sized ones."""
    record = operation(kernel.operation)
    docs = {p.name: p.doc for p in record.outputs}
    inputs = [Param(n, sizes[n], False, INPUTS[n].optional, INPUTS[n].doc) for n in kernel.inputs]
    outputs = [Param(n, sizes[n], True, record.optional_outputs, docs[n]) for n in kernel.outputs]
    zero = "; ".join(f"{prefix}_zero({p.name}, {p.size})" for p in outputs)
    fn = CFunction(kernel.name, inputs + outputs, fail=zero, doc=kernel.doc)
    fn.counts = plan.counts
    layout = _Layout(plan, kernel, early=not record.optional_outputs)
    fn.handover = layout.slots
    frames = []  # per part: reals it names and holds in arrays
    for k in range(layout.count):
        part, printer, arrays = _part(fn, k, layout, plan, kernel, outputs, prefix, precision)
        fn.parts.append(part)
        frames.append(len(printer.names) + printer.checked + arrays + 2 * part.checks)  # status: an int, padded to 16 bytes at -O0
    for p in outputs:
        computed = {}  # each distinct computed value -> its first entry
        for k, v in enumerate(kernel.outputs[p.name]):
            if isinstance(v, Expr) and v.op != "in":
                computed.setdefault(v.id, k)
        if computed:
            sparse = not fn.split and 2 * len(computed) <= p.size
            fn.checked.append(Check(p, tuple(computed.values()) if sparse else ()))
    fn.summary = ", ".join(f"{fn.counts[k]} {k}" for k in COUNT_KEYS if fn.counts[k])
    fn.stack = stack_bound(fn, max(frames), 4 if precision == "float" else 8, trig=precision == "double")
    return fn


def alias_function(kernel: Kernel, target: CFunction) -> CFunction:
    """``kernel``'s function as a call of ``target``, which traced the same algorithm with the same parameters
    (`forward_dynamics_crba` where `forward_dynamics` is CRBA's): its checks, counts and results are the
    target's; its stack one frame more."""
    fn = CFunction(kernel.name, list(target.params), fail=target.fail, doc=kernel.doc, calls=target.op)
    fn.counts, fn.summary, fn.stack = dict(target.counts), target.summary, target.stack + FRAME
    return fn


class _Layout:
    """Which part computes each step and value, and the slot in ``w`` of each value a later part reads.

    The parts are runs of steps (`part_starts`; the last one also has index ``len(steps)``: the outputs). A
    value (a step, a solve's result, a term of an optional input) is handed over when a later part reads it:
    written to its slot when computed; the slot is free again for a value computed after the step that
    reads it for the last time.

    ``early``: the outputs cannot be NULL, so a step's value is stored in them when computed (`stores`), and
    neither GCC nor `part_starts` holds it to the end of its part; the other entries are stored at the end.
    """

    def __init__(self, plan, kernel: Kernel, early: bool = False):
        steps = plan.steps
        self.steps = len(steps)
        self.defined = {}  # value id -> the index of the step that computes it
        for index, step in enumerate(steps):
            if isinstance(step, Expr):
                self.defined[step.id] = index
            elif isinstance(step, (Call, TreeSolve)):
                self.defined.update((r.id, index) for column in step.results for r in column)
        self.block_at = {}  # term id of an optional input -> the step index of its block
        for opt in plan.optional:
            for index, terms in opt.blocks.items():
                self.block_at.update((n.id, index) for n in terms)
        self.defined.update(self.block_at)
        reads = [(x.id, index) for index, step in enumerate(steps) for x in operands(step) if x.id in self.defined]
        reads += [(x.id, index) for opt in plan.optional for index, terms in opt.blocks.items()
                  for n in terms for x in operands(n) if x.id in self.defined]
        stored = {x.id for values in kernel.outputs.values() for x in values if isinstance(x, Expr)}
        self.stores = {}  # step value id -> [(output, entry)] stored right after the step (``early``)
        if early:
            computed = {step.id for step in steps if isinstance(step, Expr)} - self.block_at.keys()
            for name, values in kernel.outputs.items():
                for j, x in enumerate(values):
                    if isinstance(x, Expr) and x.id in computed and x.op not in TRIG:  # a sin/cos pair's call may come later
                        self.stores.setdefault(x.id, []).append((name, j))
        self.starts = part_starts(self.steps, self.defined, reads, (stored - self.stores.keys()) & self.defined.keys())
        self.count = len(self.starts)
        self.home = {i: self.of(index) for i, index in self.defined.items()}  # value id -> the part computing it
        # an output is stored by the part computing it, else (a constant or an input entry) by the last
        self.store_in = {i: self.home.get(i, self.count - 1) for i in stored}
        last = {}  # handed-over value id -> the index of the last step that reads it
        for i, index in reads:
            if self.of(index) > self.home[i]:
                last[i] = max(last.get(i, index), index)
        self.slot = {}
        self.last = {i: self.of(index) for i, index in last.items()}  # handed-over value id -> the last part reading it
        free, busy, self.slots = [], [], 0
        for i in sorted(last, key=lambda i: (self.defined[i], i)):  # in the order they are computed
            while busy and busy[0][0] < self.defined[i]:
                heapq.heappush(free, heapq.heappop(busy)[1])
            self.slot[i] = heapq.heappop(free) if free else self.slots
            self.slots = max(self.slots, self.slot[i] + 1)
            heapq.heappush(busy, (last[i], self.slot[i]))

    def of(self, index: int) -> int:
        return bisect.bisect_right(self.starts, index) - 1

    def indices(self, k: int) -> range:
        """The step indices of part ``k`` (the last one also has ``len(steps)``: the outputs)."""
        return range(self.starts[k], self.starts[k + 1] if k < self.count - 1 else self.steps + 1)

    def handed(self, x: Expr, printer: "Printer") -> list:
        """``hand[slot] = x;`` (``hand``: ``w`` as volatile, `Part.hands`) if a later part reads ``x`` (after it is
        computed), else nothing."""
        if x.id not in self.slot:
            return []
        printer.arrays.add("w")
        return [(f"hand[{self.slot[x.id]}] = {printer.ref(x)};", "")]


def part_starts(length: int, defined: dict, reads: list, stored: set) -> list:
    """The first step of each part of an operation of ``length`` steps: one part up to `PART_STEPS` steps;
    beyond, each part takes an even share of the steps left (at most `PART_STEPS`), or fewer where it would
    hold more than `PART_VALUES` values at once (`_Held.peak`), but at least a tenth of `PART_STEPS`.

    ``defined``: value id -> the step computing it; ``reads``: (value id, step index) of every read;
    ``stored``: the ids of the values in an output (held by the part computing them until it ends)."""
    if length <= PART_STEPS:
        return [0]
    held = _Held(defined, reads, stored)
    starts = [0]
    while True:
        start, left = starts[-1], length - starts[-1]
        lo, hi = start + max(PART_STEPS // 10, 1), start + -(-left // -(-left // PART_STEPS))
        while lo < hi:  # the longest part from ``start`` within PART_VALUES (the peak grows with the end)
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if held.peak(start, mid) <= PART_VALUES else (lo, mid - 1)
        if lo >= length:
            return starts
        starts.append(lo)


class _Held:
    """`peak`: the most values a run of steps holds at once itself (`PART_VALUES`)."""

    def __init__(self, defined: dict, reads: list, stored: set):
        ids = {i: k for k, i in enumerate(defined)}
        self.defined = np.array(list(defined.values()), dtype=np.int64)
        order = sorted(reads, key=lambda read: read[1])
        self.value = np.array([ids[i] for i, _ in order], dtype=np.int64)
        self.at = np.array([index for _, index in order], dtype=np.int64)
        self.stored = np.array(sorted(ids[i] for i in stored), dtype=np.int64)

    def peak(self, start: int, end: int) -> int:
        """The most values held at once by a part of steps ``start`` to ``end`` (exclusive): each value it
        computes, from there to its last read in the part (to the end if it is stored), and each value of
        an earlier part, from its first read in the part to its last."""
        lo, hi = np.searchsorted(self.at, [start, end])
        mine = self.stored[(self.defined[self.stored] >= start) & (self.defined[self.stored] < end)]
        value = np.concatenate([self.value[lo:hi], mine])
        at = np.concatenate([self.at[lo:hi], np.full(len(mine), end)])
        values, which = np.unique(value, return_inverse=True)
        first = np.full(len(values), end)
        np.minimum.at(first, which, at)
        last = np.full(len(values), start)
        np.maximum.at(last, which, at)
        computed = self.defined[values]
        begin = np.where((computed >= start) & (computed < end), computed, first)
        held = last > begin
        change = (np.bincount(begin[held] - start, minlength=end - start + 1)
                  - np.bincount(last[held] - start, minlength=end - start + 1))
        return int(np.cumsum(change).max(initial=0))


def _part(fn: CFunction, k: int, layout: _Layout, plan, kernel: Kernel, outputs: list, prefix: str,
          precision: str):
    """Part ``k`` of ``fn``: (`Part`, its `Printer`, the reals in its solves' arrays)."""
    status = status_macros(prefix)
    printer = Printer(precision, prefix)
    printer.handed.update((i, f"w[{layout.slot[i]}]") for i in layout.slot if layout.home[i] < k <= layout.last[i])
    part = Part(part_name(fn.op, k + 1) if layout.count > 1 else "")
    arrays = 0
    steps = plan.steps
    indices = layout.indices(k)
    blocks = {}  # step index -> [(optional input, its terms that the step needs first)]
    for opt in plan.optional:
        part.optional_blocks.append((opt.name, [printer.declare(n) for n in opt.variables
                                                if layout.of(layout.block_at.get(n.id, 0)) == k]))
        for index, terms in opt.blocks.items():
            if index in indices:
                blocks.setdefault(index, []).append((opt.name, terms))
    printer.pair(steps[indices.start:indices.stop], keep=layout.slot, barriers=[i - indices.start for i in blocks])
    reread = _reread_checks(steps, indices, blocks)
    body = part.body
    early = set()  # the outputs this part stores a value in when computed
    for index in indices:
        step = steps[index] if index < len(steps) else None  # None: the stores
        for name, terms in blocks.get(index, ()):
            lines = [printer.copy(n) if n.op == "in" else printer.define(n) for n in terms]
            if len(lines) == 1:
                body.append((f"if ({name} != NULL) {{ {lines[0]} }}", ""))
            else:
                body.extend((line, "") for line in [f"if ({name} != NULL) {{", *(f"    {x}" for x in lines), "}"])
            for n in terms:
                body.extend(layout.handed(n, printer))
        if isinstance(step, Expr):
            line = printer.define(step)
            if line:  # the second of a sin/cos pair has none
                body.append((line, ""))
            body.extend(layout.handed(step, printer))
            stores = layout.stores.get(step.id, ())
            body.extend((f"{name}[{j}] = {printer.ref(step)};", "") for name, j in stores)
            early.update(name for name, _ in stores)
        elif isinstance(step, Guard):
            value = printer.ref(step.value)
            test = f"!{prefix}_positive({value})" if step.strict else f"{prefix}_negative({value})"
            body.append((f"if (status == {status['OK']} && {test}) status = {status[_status_name(step.status)]};",
                         c_text(step.message)))
            if index in reread:
                body.append((printer.after_check(step.value, f"status == {status['OK']}"), ""))
        elif isinstance(step, Call):
            body.extend(_call_lines(step, printer, prefix))
            for column in step.results:
                for r in column:
                    body.extend(layout.handed(r, printer))
            part.solves.add(cholesky_copy(step))
            arrays += call_arrays(step)
        elif isinstance(step, TreeSolve):
            plan = part.tree_solves[step.index] = ltdl_plan(step.lam, step.B)
            body.extend(_tree_solve_lines(step, plan, printer, prefix))
            for column in step.results:
                for r in column:
                    body.extend(layout.handed(r, printer))
            arrays += tree_solve_arrays(step, plan)
    last = k == layout.count - 1
    part.checks = fails = any(isinstance(step, (Guard, Call)) for step in steps[indices.start:indices.stop])
    part.hands = any(layout.home[i] == k for i in layout.slot)  # it computes a value a later part reads
    for p in outputs:
        values = kernel.outputs[p.name]
        mine = [j for j, v in enumerate(values) if not (isinstance(v, Expr) and v.id in layout.stores)
                and (layout.store_in.get(v.id, layout.count - 1) if isinstance(v, Expr) else layout.count - 1) == k]
        runs = _zero_runs(values, mine) if layout.count > 1 else []
        zeroed = {j for start, n in runs for j in range(start, start + n)}
        lines = [f"{prefix}_zero({p.name} + {start}, {n});" for start, n in runs]
        copied = _solved_columns(p.name, values, printer) if len(mine) == len(values) else None
        if copied:
            lines.append(copied)
        else:
            lines += [f"{p.name}[{j}] = {printer.ref(values[j])};" for j in mine if j not in zeroed]
        if lines or (last and layout.count == 1):
            part.stores.append((p.name, p.optional, lines))
    used = (printer.arrays | {name for entries in blocks.values() for name, _ in entries}
            | {name for name, _, _ in part.stores} | early)
    part.params = [p for p in fn.params if p.name in used or (p.output and fails)]
    if "w" in used:
        part.params.append(Param("w", layout.slots, True, False, "values handed from part to part", restrict=True))
    return part, printer, arrays


#: A part of a split operation stores each run of at least this many consecutive zero entries of an output
#: (a tree's mass matrix between branches) with one `<prefix>_zero` call: GCC's alias analysis takes
#: superlinear time over thousands of single stores (the 100-joint tree's last part of passive_terms,
#: 9,000 zeros, compiled in 14 s of CPU).
ZERO_RUN = 4


def _reread_checks(steps: list, indices: range, blocks: dict) -> set:
    """The indices of the checks (`Guard`) whose value a later step or optional-input block of the part reads
    (`Printer.after_check`)."""
    checked = {steps[i].value.id for i in indices
               if i < len(steps) and isinstance(steps[i], Guard) and isinstance(steps[i].value, Expr)}
    read, reread = set(), set()  # checked values read after the index, the checks of those
    for index in reversed(indices):
        step = steps[index] if index < len(steps) else None
        if isinstance(step, Guard):
            if isinstance(step.value, Expr) and step.value.id in read:
                reread.add(index)
        elif step is not None:
            read.update(x.id for x in operands(step) if x.id in checked)
        for _, terms in blocks.get(index, ()):  # computed just before the step at index
            read.update(x.id for n in terms for x in operands(n) if x.id in checked)
    return reread


def _zero_runs(values: list, entries: list) -> list:
    """``(start, length)`` of each run of at least `ZERO_RUN` consecutive ``entries`` whose value is zero."""
    runs = []
    for j in entries:
        if isinstance(values[j], Expr) or values[j] != 0:
            continue
        if runs and runs[-1][0] + runs[-1][1] == j:
            runs[-1][1] += 1
        else:
            runs.append([j, 1])
    return [(start, n) for start, n in runs if n >= ZERO_RUN]


#: Stack bound: bytes allowed per call level for what a function does not name (saved registers, the
#: return address, loop counters, pointers), and the call levels below an operation (the checked
#: solve and its helpers, or the checks; at -O0 none of them is inlined).
FRAME, LEVELS = 256, 3
#: Stack bound: bytes for the sine and cosine kernels (templates/c/sincos.c.j2) in double precision: their frames
#: together, GCC -O0, are 1,144 bytes (the vector form alone 512; every source holds the out-of-line rare case).
SINCOS_FRAMES = 1536


def stack_bound(fn: CFunction, frame: int, size: int, trig: bool = False) -> int:
    """Bytes of stack ``fn`` needs at most: the reals of its largest part's ``frame`` (the scalars it names
    in `Printer.names` and its solves' arrays, one slot each: what an unoptimised build gives them; an
    optimising compiler keeps most in registers) and of the array ``w`` that hands values from part to part,
    plus `FRAME` bytes for each of 1 + `LEVELS` call levels (one more for split functions, which call their
    parts) and, in double precision (``trig``: the sources hold the sine and cosine kernels), `SINCOS_FRAMES`.
    A test measures it (-fstack-usage)."""
    return size * (frame + fn.handover) + FRAME * (1 + LEVELS + fn.split) + (SINCOS_FRAMES if trig else 0)


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


def _call_lines(call: Call, printer: Printer, prefix: str) -> list:
    """The checked Cholesky solve: A (lower triangle) and B (m columns) into column-major arrays, then the call,
    whose status the part keeps if no check failed before (`Part.checks`)."""
    n, m, k, real = len(call.A), len(call.B), call.index, printer.real
    tag, fixed, _ = cholesky_copy(call)
    sizes = "" if fixed else f"{n}, {m}, "
    # x zeroed: the solve writes it on every path, but GCC's -Wmaybe-uninitialized cannot always tell
    lines = [f"{real} A{k}[{n * n}], b{k}[{n * m}], x{k}[{n * m}] = {{0}}, w{k}[{n * n + 4 * n}];"]
    for c in range(n):
        for r in range(c, n):
            lines.append(f"A{k}[{c * n + r}] = {printer.ref(call.A[r][c])};")
    lines += [f"b{k}[{c * n + r}] = {printer.ref(x)};" for c, col in enumerate(call.B) for r, x in enumerate(col)]
    lines.append(f"{{ const int s = {prefix}_cholesky_solve{tag}({sizes}A{k}, b{k}, x{k}, w{k}); "
                 f"if (status == {status_macros(prefix)['OK']}) status = s; }}")
    return [("", c_text(f"{call.what}: checked Cholesky solve"))] + [(line, "") for line in lines]


#: Columns a `TreeSolve` kernel solves at a time (each row's in local accumulators) and the measured time of
#: one column in a block that wide, on G1's pattern (35 rows, GCC 12 -O3 -march=native, AVX2): 32 (eight
#: 4-wide registers) 42 ns, 16 53 ns, 8 79 ns (-O2 without -march: 32 and 16 alike); a row-by-row loop over
#: all the columns (two loads and a store per term) 40% slower. `ltdl_plan` picks from them.
LTDL_WIDTHS = {32: 42, 16: 53, 8: 79}


@dataclass(frozen=True)
class LtdlPlan:
    """How a `TreeSolve` kernel lays out and sweeps its columns (`ltdl_plan`).

    ``order``: the solve's columns in array order (array column ``p`` holds column ``order[p]``);
    ``blocks``: ``(width, rows)`` from the first array column on, ``rows`` the ascending rows the L^T
    sweep visits for every column of the block (the array's columns past the last column are padding)."""

    n: int
    lam: tuple
    order: tuple
    blocks: tuple

    @property
    def columns(self) -> int:
        """The columns of the array, padding included."""
        return sum(width for width, _ in self.blocks)


def column_rows(lam, column) -> frozenset:
    """The rows of ``column`` that the L^T sweep (from the leaves) can make non-zero: its entries that are
    not structural zeros and their ancestors (``x_j -= L_kj x_k`` reaches only ancestors j of k)."""
    rows = set()
    for k, value in enumerate(column):
        if isinstance(value, Expr) or value != 0:
            rows.add(k)
            rows.update(ancestors(lam, k))
    return frozenset(rows)


def _block_cost(width: int, rows, lam, dense: int) -> float:
    """The modelled time of one block: `LTDL_WIDTHS` (a block that sweeps every row) scaled by the terms and
    rows it sweeps: the L^T sweep visits ``rows`` and their terms among them, D^-1 and L every row (``dense``:
    the rows and terms of a whole sweep)."""
    inside = set(rows)
    upward = sum(1 + sum(1 for j in ancestors(lam, k) if j in inside) for k in rows)
    return width * LTDL_WIDTHS[width] * (dense + upward) / (2 * dense)


def ltdl_plan(lam, columns) -> LtdlPlan:
    """The columns of a `TreeSolve` in blocks of `LTDL_WIDTHS` at the least modelled cost (`_block_cost`).

    A column whose non-zero entries lie in one branch (a Jacobian column of a leg joint, the identity's
    column of a joint) stays zero outside those rows and their ancestors during the L^T sweep, so a block
    of such columns sweeps only the union of their rows (D^-1 and L fill every row). The columns are
    ordered by their sorted rows, descending (a branch's columns, whose rows follow their common ancestors',
    come together; a column that reaches every row comes before the columns whose rows are a prefix of its
    own), and cut into blocks by dynamic programming over that order.
    """
    rows = [column_rows(lam, column) for column in columns]
    dense = len(lam) + sum(len(list(ancestors(lam, k))) for k in range(len(lam)))
    order = sorted(range(len(columns)), key=lambda c: sorted(rows[c]), reverse=True)
    m = len(order)
    best = [(float("inf"), None)] * m + [(0.0, None)]  # the least cost of columns i.. on, and its first block
    for i in reversed(range(m)):
        for width in sorted(LTDL_WIDTHS, reverse=True):  # on a tie the widest block first
            j = min(i + width, m)
            rows_ij = tuple(sorted(frozenset().union(*(rows[c] for c in order[i:j]))))
            cost = _block_cost(width, rows_ij, lam, dense) + best[j][0]
            if cost < best[i][0]:
                best[i] = (cost, (width, rows_ij, j))
    blocks, i = [], 0
    while i < m:
        width, rows_ij, i = best[i][1]
        blocks.append((width, rows_ij))
    return LtdlPlan(len(lam), tuple(lam), tuple(order), tuple(blocks))


def ltdl_kernel_name(prefix: str, index: int, plan: LtdlPlan) -> str:
    """The C function of `ltdl_kernel`: one per `TreeSolve` of an operation (``index``), static in its source."""
    return f"{prefix}_ltdl_solve{index}_{plan.n}x{plan.columns}"


def ltdl_kernel(prefix: str, index: int, plan: LtdlPlan) -> tuple:
    """``(name, n, m, blocks, tables)`` for templates/c/ltdl.c.j2: the kernel of the `TreeSolve` ``index`` by
    ``plan``; blocks as ``(first column, count, width, first row, last row)``: runs of one width and one set
    of rows, whose L^T sweep visits ``rows[first row .. last row)``; tables as ``(name, comment, values)``
    (an empty one holds a single unread 0: C has no empty arrays)."""
    n, lam, m = plan.n, plan.lam, plan.columns
    above, above_start, position = [], [], {}
    for k in range(n):
        above_start.append(len(above))
        for j in ancestors(lam, k):
            position[k, j] = len(above)
            above.append(j)
    above_start.append(len(above))
    rows, below, below_entry, below_start, blocks, first = [], [], [], [], [], 0
    for width, visited in plan.blocks:
        if blocks and blocks[-1][2] == width and tuple(rows[blocks[-1][3]:blocks[-1][4]]) == tuple(reversed(visited)):
            blocks[-1][1] += 1
        else:
            start = len(rows)
            for k in reversed(visited):
                rows.append(k)
                below_start.append(len(below))
                for i in reversed(visited):
                    if (i, k) in position:
                        below.append(i)
                        below_entry.append(position[i, k])
            blocks.append([first, 1, width, start, len(rows)])
        first += width
    below_start.append(len(below))
    tables = [("above", "the ancestors j of each row k, nearest first: L_kj is L[p]", above),
              ("above_start", "row k's entries: above_start[k] to above_start[k + 1]", above_start),
              ("rows", "the rows each block's L^T sweep visits, descending", rows),
              ("below", "the descendants i among them of each visited row rows[t], descending", below),
              ("below_entry", "L_ik is L[below_entry[p]]", below_entry),
              ("below_start", "rows[t]'s descendants: below_start[t] to below_start[t + 1]", below_start)]
    return (ltdl_kernel_name(prefix, index, plan), n, m, [tuple(block) for block in blocks],
            [(name, comment, values or [0]) for name, comment, values in tables])


def _tree_solve_lines(solve: TreeSolve, plan: LtdlPlan, printer: Printer, prefix: str) -> list:
    """A `TreeSolve`: L and Dinv into arrays, the columns into ``x<k>`` as ``plan`` lays them out (zero elsewhere),
    the kernel."""
    k, real, n, m = solve.index, printer.real, plan.n, plan.columns
    entries = [v for row in solve.L for v in row.values()]
    lines = [f"{real} L{k}[{max(len(entries), 1)}], d{k}[{n}], x{k}[{n * m}] = {{0}};"]
    lines += [f"L{k}[{p}] = {printer.ref(v)};" for p, v in enumerate(entries)]
    lines += [f"d{k}[{r}] = {printer.ref(v)};" for r, v in enumerate(solve.Dinv)]
    lines += [f"x{k}[{r * m + p}] = {printer.ref(v)};" for p, c in enumerate(plan.order)
              for r, v in enumerate(solve.B[c]) if isinstance(v, Expr) or v != 0]
    lines.append(f"{ltdl_kernel_name(prefix, k, plan)}(L{k}, d{k}, x{k});")
    printer.solved[k] = (n, m, {c: p for p, c in enumerate(plan.order)})
    comment = c_text(f"the tree-sparse LTDL solve of {len(solve.B)} columns (x{k}: row r of column c at r * {m} "
                     f"+ its array column, columns grouped by the rows they reach)")
    return [("", comment)] + [(line, "") for line in lines]


def _solved_columns(name: str, values: list, printer: Printer):
    """One loop that copies output ``name`` from the array of a `TreeSolve` this part ran, where its ``values``
    are that solve's columns c0, c0 + 1, ... in order (a Jacobian of the forward-dynamics derivatives): the
    same stores as one line an entry, in a few lines instead of thousands. None otherwise."""
    first = values[0] if values else None
    if not (isinstance(first, Expr) and first.op == "ret" and first.args[0] in printer.solved):
        return None
    k, start = first.args
    n, m, position = printer.solved[k]
    if start % n or any(not (isinstance(v, Expr) and v.op == "ret" and v.args == (k, start + j))
                        for j, v in enumerate(values)):
        return None
    at = [position[start // n + c] for c in range(len(values) // n)]
    return (f"{{ static const int at[{len(at)}] = {{{', '.join(map(str, at))}}}; int col, row; "
            f"for (col = 0; col < {len(at)}; ++col) for (row = 0; row < {n}; ++row) "
            f"{name}[col * {n} + row] = x{k}[row * {m} + at[col]]; }}")


def tree_solve_arrays(solve: TreeSolve, plan: LtdlPlan) -> int:
    """Reals in the arrays of one `TreeSolve` laid out by ``plan`` (`_tree_solve_lines`): L, Dinv and the columns."""
    return max(sum(len(row) for row in solve.L), 1) + plan.n + plan.n * plan.columns


def call_arrays(call: Call) -> int:
    """Reals in the arrays of one checked solve (`_call_lines`): A, b, x and the work space."""
    n, m = len(call.A), len(call.B)
    return n * n + 2 * n * m + n * n + 4 * n


def c_param(p: Param, real: str, definition: bool = False) -> str:
    """One parameter of a prototype, or of a ``definition``: there an output is also ``restrict`` (outputs
    overlap no input, docs/generated-c.md), so that stores to it do not make GCC read the inputs again; a
    prototype without it is the same type (C99 6.7.5.3), and the public header stays C++."""
    pointer = "*restrict " if p.restrict or (definition and p.output) else "*"
    return f"{real} {pointer}{p.name}" if p.output else f"const {real} {pointer}{p.name}"


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


def source_names(prefix: str, functions: list) -> list:
    """The files of a robot's C: the header, the internal header, one source per operation and one per part
    of a split one (`PART_STEPS`)."""
    return [f"{prefix}.h", f"{prefix}_internal.h", *(f"{prefix}_{name}.c" for fn in functions
                                                      for name in [fn.op, *(p.name for p in fn.parts if fn.split)])]


def render(kernels: list, plans: list, prefix: str, precision: str, sizes: dict, header_info: dict,
           interface: dict, aliases=None):
    """The C files of a robot (`source_names`) from its kernels and their `Schedule`: ({filename: text},
    [CFunction]). ``interface`` is the manifest's interface (`rbdgen.manifest.INTERFACE`) but the sources:
    with them, its key goes into the header and every source checks it. ``aliases``: ``{function: function
    before it}`` of kernels that trace the same algorithm; each calls the other (`alias_function`)."""
    aliases = aliases or {}
    check_prefix(prefix)
    functions = []
    for kernel, plan in zip(kernels, plans):
        same = aliases.get(kernel.name)
        target = next((fn for fn in functions if fn.op == same), None)
        functions.append(c_function(kernel, plan, prefix, precision, sizes) if target is None
                         else alias_function(kernel, target))
    env = environment()
    names = source_names(prefix, functions)
    context = dict(header_info, **spellings(prefix, precision), functions=functions, sources=names,
                   base_size=sizes["base"], frame=FRAME, levels=LEVELS,
                   interface=interface_key({**interface, "sources": names}))
    files = {names[0]: env.get_template("robot.h.j2").render(context),
             names[1]: env.get_template("internal.h.j2").render(context)}
    for fn in functions:
        parts = fn.parts if fn.split else []
        whole = fn.parts[0] if fn.parts and not parts else Part()
        files[f"{prefix}_{fn.op}.c"] = env.get_template("operation.c.j2").render(
            context, fn=fn, cholesky_copies=_copies(whole.solves), ltdl_kernels=_kernels(prefix, whole))
        for index, part in enumerate(parts):
            files[f"{prefix}_{part.name}.c"] = env.get_template("part.c.j2").render(
                context, fn=fn, part=part, index=index, cholesky_copies=_copies(part.solves),
                ltdl_kernels=_kernels(prefix, part))
    return files, functions


def _copies(solves) -> list:
    """The copies of the checked solve a source needs, by (n, m): deterministic."""
    return sorted(solves, key=lambda copy: (copy[1] or 0, copy[2] or 0))


def _kernels(prefix: str, part: Part) -> list:
    """The `ltdl_kernel` of each tree solve a part runs, by index: deterministic."""
    return [ltdl_kernel(prefix, index, plan) for index, plan in sorted(part.tree_solves.items())]


def cholesky_source(prefix: str, precision: str, copies=(("", None, None),)) -> str:
    """The checked Cholesky solve alone (for its tests): the status macros, the checks and ``copies`` of the
    solver (`cholesky_copy`), after the headers they need."""
    env = environment()
    context = dict(spellings(prefix, precision), cholesky_copies=list(copies))
    headers = "".join(f"#include <{name}.h>\n" for name in ("math", "stddef", "stdint", "string"))
    macros = "".join(f"#define {macro} {STATUS_NAMES[name]}\n" for name, macro in context["S"].items())
    return "\n".join([headers, macros, env.get_template("checks.c.j2").render(context),
                      env.get_template("cholesky.c.j2").render(context)])


def sincos_source(prefix: str) -> str:
    """The sine and cosine of the double precision C alone (for its tests), after the header it needs."""
    headers = "".join(f"#include <{name}.h>\n" for name in ("math", "stdint", "string"))
    return headers + "\n" + environment().get_template("sincos.c.j2").render(prefix=check_prefix(prefix))
