"""The part function: the statements of one part of an operation (`part`), laid out by `layout.Layout` and
spelled by a `printer.Printer`."""

from __future__ import annotations

from ...names import c_text
from ...ir.trace import Call, Expr, Guard, Kernel, TreeSolve, operands
from .function import CFunction, Line, OptionalBlock, Param, Part, Store
from .layout import Layout
from .printer import Printer, part_name
from .scopes import Scopes
from .solves import cholesky_copy, ltdl_kernel_name, ltdl_plan
from .stack import call_arrays, tree_solve_arrays

#: A part of a split operation stores each run of at least this many consecutive zero entries of an output
#: not zeroed whole (`ZERO_FILL`; a tree's mass matrix between branches) with one `<prefix>_zero` call: GCC's
#: alias analysis takes superlinear time over thousands of single stores (docs/benchmarks.md, "Decisions of
#: the C backend").
ZERO_RUN = 4

#: An output whose entries are more than this fraction zero (a configuration Jacobian: identity blocks, zeros
#: elsewhere; a floating base's regressor) is zeroed whole by one `<prefix>_zero` call before the function
#: computes (by its first part, where it is split), and its zero entries are not stored (docs/benchmarks.md,
#: "Decisions of the C backend").
ZERO_FILL = 0.5


def _handed(layout: Layout, x: Expr, printer: Printer) -> list:
    """The store of ``x`` in ``w`` if a later part reads it (after it is computed), else nothing."""
    return [Line(printer.hand(layout.slot[x.id], x))] if x.id in layout.slot else []


def part(fn: CFunction, k: int, layout: Layout, plan, kernel: Kernel, outputs: list, prefix: str,
         precision: str):
    """Part ``k`` of ``fn``: (`Part`, its `Printer`, the reals in its solves' arrays)."""
    printer = Printer(precision, prefix, reserved=[p.name for p in fn.params], twins=plan.twins, lefts=plan.lefts)
    for i in layout.slot:
        if layout.home[i] < k <= layout.last[i]:
            printer.receive(i, layout.slot[i])
    this = Part(part_name(fn.op, k + 1) if layout.count > 1 else "")
    arrays = 0
    steps = plan.steps
    indices = layout.indices(k)
    blocks = {}  # step index -> [(optional input, its terms that the step needs first)]
    for opt in plan.optional:
        this.optional_blocks.append(OptionalBlock(opt.name, [printer.declare(n) for n in opt.variables
                                                             if layout.of(layout.block_at.get(n.id, 0)) == k]))
        for index, terms in opt.blocks.items():
            if index in indices:
                blocks.setdefault(index, []).append((opt.name, terms))
    printer.pair(steps[indices.start:indices.stop], keep=layout.slot, barriers=[i - indices.start for i in blocks])
    reread = _reread_checks(steps, indices, blocks)
    body = this.body
    filled = [p.name for p in outputs if _zero_fill(kernel.outputs[p.name])]
    zeroing = filled if k == 0 else []  # the first part zeroes them whole
    body.extend(Line(printer.zero(name, 0, len(kernel.outputs[name]))) for name in zeroing)
    scopes = Scopes(kernel.graph, body)
    early = set()  # the outputs this part stores a value in when computed
    for index in indices:
        step = steps[index] if index < len(steps) else None  # None: the stores
        for name, terms in blocks.get(index, ()):
            lines = [printer.copy(n) if n.op == "in" else printer.define(n) for n in terms]
            body.extend(Line(line) for line in printer.when_given(name, lines))
            for n in terms:
                body.extend(_handed(layout, n, printer))
        if isinstance(step, Expr):
            line = printer.define(step)
            if line:  # the second of a sin/cos pair, or of twins, has none
                scopes.enter(step, plan.twins.get(step.id))
                body.append(Line(line))
            body.extend(_handed(layout, step, printer))
            stores = layout.stores.get(step.id, ())
            body.extend(Line(printer.store(name, j, step)) for name, j in stores)
            early.update(name for name, _ in stores)
        elif isinstance(step, Guard):
            body.append(Line(printer.guard(step.value, step.strict, step.status), c_text(step.message)))
            if index in reread:
                body.append(Line(printer.after_check(step.value)))
        elif isinstance(step, (Call, TreeSolve)):
            if isinstance(step, Call):
                copy = cholesky_copy(step)
                comment, lines = printer.cholesky_solve(step, copy)
                this.solves.add(copy)
                arrays += call_arrays(step)
            else:
                read = [[r.id in plan.live for r in column] for column in step.results]
                ltdl = this.tree_solves[step.index] = ltdl_plan(step.lam, step.B, read, step.L)
                comment, lines = printer.tree_solve(step, ltdl, ltdl_kernel_name(prefix, step.index, ltdl))
                arrays += tree_solve_arrays(ltdl)
            body.append(Line("", comment))
            body.extend(Line(line) for line in lines)
            for column in step.results:
                for r in column:
                    body.extend(_handed(layout, r, printer))
    last = k == layout.count - 1
    this.checks = fails = any(isinstance(step, (Guard, Call)) for step in steps[indices.start:indices.stop])
    this.hands = any(layout.home[i] == k for i in layout.slot)  # it computes a value a later part reads
    for p in outputs:
        values = kernel.outputs[p.name]
        mine = [j for j, v in enumerate(values) if not (isinstance(v, Expr) and v.id in layout.stores)
                and (layout.store_in.get(v.id, layout.count - 1) if isinstance(v, Expr) else layout.count - 1) == k]
        runs = _zero_runs(values, mine) if layout.count > 1 and p.name not in filled else []
        zeroed = {j for start, n in runs for j in range(start, start + n)} | (
            {j for j in mine if _is_zero(values[j])} if p.name in filled else set())
        lines = [printer.zero(p.name, start, n) for start, n in runs]
        copied = printer.solved_columns(p.name, values) if len(mine) == len(values) else None
        if copied:
            lines.append(copied)
        else:
            lines += [printer.store(p.name, j, values[j]) for j in mine if j not in zeroed]
        if lines or (last and layout.count == 1):
            this.stores.append(Store(p.name, p.optional, lines))
    used = (printer.arrays | {name for entries in blocks.values() for name, _ in entries}
            | {store.output for store in this.stores} | early | set(zeroing))
    this.params = [p for p in fn.params if p.name in used or (p.output and fails)]
    if "w" in used:
        this.params.append(Param("w", layout.slots, True, False, "values handed from part to part", restrict=True))
    return this, printer, arrays


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


def _is_zero(value) -> bool:
    return not isinstance(value, Expr) and value == 0


def _zero_fill(values: list) -> bool:
    """Whether an output is zeroed whole first (at least `ZERO_RUN` and more than `ZERO_FILL` of its
    ``values`` zero), its zero entries then not stored."""
    zeros = sum(_is_zero(x) for x in values)
    return zeros >= ZERO_RUN and zeros > ZERO_FILL * len(values)


def _zero_runs(values: list, entries: list) -> list:
    """``(start, length)`` of each run of at least `ZERO_RUN` consecutive ``entries`` whose value is zero."""
    runs = []
    for j in entries:
        if not _is_zero(values[j]):
            continue
        if runs and runs[-1][0] + runs[-1][1] == j:
            runs[-1][1] += 1
        else:
            runs.append([j, 1])
    return [(start, n) for start, n in runs if n >= ZERO_RUN]
