"""What feeds the C templates: the operations as `CFunction`s (`c_function`), the files of a robot (`render`)
and the checked solve and the sine and cosine alone, for their tests."""

from __future__ import annotations

import jinja2

from ...algorithms.operations import INPUTS, operation
from ...errors import OK, IllConditionedError, InvalidInputError, NonFiniteError, SingularError
from ...manifest import interface_key
from ...names import check_prefix, checked
from ...ir.optimize import COUNT_KEYS, Schedule
from ...ir.ranges import bounded_outputs
from ...ir.trace import Call, Expr, Guard, Kernel
from .. import sincos
from . import checks, printer
from .function import Bound, CFunction, Check, Param, Part
from .layout import Layout
from .parts import part
from .solves import CholeskyCopy, ltdl_kernel
from .stack import FRAME, LEVELS, part_frame, stack_bound


def optional_inputs(kernel: Kernel) -> list:
    """The inputs of ``kernel`` that may be NULL (`optimize.schedule`'s ``optional``)."""
    return [n for n in kernel.inputs if INPUTS[n].optional]


def c_function(kernel: Kernel, plan: Schedule, prefix: str, precision: str, sizes: dict) -> CFunction:
    """Lay out one kernel, scheduled as ``plan``, as C statements: in one `Part`, or in `layout.PART_STEPS`-sized
    ones."""
    record = operation(kernel.operation)
    docs = {p.name: p.doc for p in record.outputs}
    inputs = [Param(n, sizes[n], False, INPUTS[n].optional, INPUTS[n].doc) for n in kernel.inputs]
    outputs = [Param(n, sizes[n], True, record.optional_outputs, docs[n]) for n in kernel.outputs]
    fn = CFunction(kernel.name, inputs + outputs, fail=printer.zero_outputs(prefix, outputs), doc=kernel.doc)
    fn.invalid = checks.invalid_inputs(prefix, fn.params)
    fn.counts = plan.counts
    layout = Layout(plan, kernel, early=not record.optional_outputs)
    fn.handover = layout.slots
    frames = []  # per part: reals it names and holds in arrays
    for k in range(layout.count):
        this, spelled, arrays = part(fn, k, layout, plan, kernel, outputs, prefix, precision)
        fn.parts.append(this)
        frames.append(part_frame(spelled, arrays, this.checks))
    computed = {p.name: {} for p in outputs}  # per output: each distinct computed value -> its first entry
    for p in outputs:
        for k, v in enumerate(kernel.outputs[p.name]):
            if isinstance(v, Expr) and v.op != "in":
                computed[p.name].setdefault(v.id, k)
    bounded = bounded_outputs(kernel, precision)
    optional = [p for p in inputs if p.optional]
    unproven = any(computed[p.name] and p.name not in bounded for p in outputs)  # to prove without the optional
    without = bounded_outputs(kernel, precision, absent=[p.name for p in optional]) if optional and unproven else {}
    every = []  # the check of each output with computed entries, whatever is given: kept under -ffast-math
    for p in outputs:
        if not computed[p.name]:
            continue
        sparse = not fn.split and 2 * len(computed[p.name]) <= p.size
        at = tuple(computed[p.name].values()) if sparse else ()
        every.append(Check(p, at))
        if p.name in bounded:
            fn.bounded.append(Bound(p.name, bounded[p.name]))
            continue
        given = tuple(optional) if p.name in without else ()
        if given:
            fn.bounded.append(Bound(p.name, without[p.name], tuple(q.name for q in given)))
        fn.checked.append(Check(p, at, given))
    fn.nonfinite = checks.nonfinite_outputs(prefix, fn.checked)
    if fn.bounded:
        fn.fast_checked = every
        fn.fast_nonfinite = checks.nonfinite_outputs(prefix, every)
    fn.statuses = returned_statuses(plan, bool(fn.checked))
    fn.summary = ", ".join(f"{fn.counts[k]} {k}" for k in COUNT_KEYS if fn.counts[k])
    fn.stack = stack_bound(fn, max(frames), 4 if precision == "float" else 8, trig=precision == "double",
                           pairs=bool(plan.twins))
    return fn


def returned_statuses(plan: Schedule, checked: bool) -> tuple:
    """The names (`printer.STATUS_NAMES`) of the statuses a function can return, in order: OK, INVALID_INPUT
    (its inputs' check), each check's (`Guard`), the checked solve's, NON_FINITE where an output is checked."""
    codes = {OK, InvalidInputError.status}
    for step in plan.steps:
        if isinstance(step, Guard):
            codes.add(step.status)
        elif isinstance(step, Call):
            codes |= {SingularError.status, IllConditionedError.status, NonFiniteError.status}
    if checked:
        codes.add(NonFiniteError.status)
    return tuple(printer.status_name(code) for code in sorted(codes))


def alias_function(kernel: Kernel, target: CFunction) -> CFunction:
    """``kernel``'s function as a call of ``target``, which traced the same algorithm with the same parameters
    (`forward_dynamics_crba` where `forward_dynamics` is CRBA's): its checks, counts and results are the
    target's; its stack one frame more."""
    fn = CFunction(kernel.name, list(target.params), fail=target.fail, doc=kernel.doc, calls=target.op)
    fn.counts, fn.summary, fn.stack = dict(target.counts), target.summary, target.stack + FRAME
    fn.statuses, fn.fast_checked = target.statuses, target.fast_checked
    return fn


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
    env.filters.update(c_param=printer.c_param, batch_argument=printer.batch_argument,
                       int_table=printer.int_table, checked_table=checks.checked_table,
                       bound_comment=checks.bound_comment)
    env.globals["generic_copies"] = [CholeskyCopy()]
    env.globals["sincos"] = sincos
    return env


def source_names(prefix: str, functions: list) -> list:
    """The files of a robot's C: the header, the internal header, one source per operation and one per part
    of a split one (`layout.PART_STEPS`)."""
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
    context = dict(header_info, **printer.spellings(prefix, precision), functions=functions, sources=names,
                   base_size=sizes["base"], frame=FRAME, levels=LEVELS,
                   interface=interface_key({**interface, "sources": names}))
    files = {names[0]: env.get_template("robot.h.j2").render(context),
             names[1]: env.get_template("internal.h.j2").render(context)}
    for fn in functions:
        parts = fn.parts if fn.split else []
        whole = fn.parts[0] if fn.parts and not parts else Part()
        files[f"{prefix}_{fn.op}.c"] = env.get_template("operation.c.j2").render(
            context, fn=fn, cholesky_copies=_copies(whole.solves), ltdl_kernels=_kernels(prefix, whole))
        for index, this in enumerate(parts):
            files[f"{prefix}_{this.name}.c"] = env.get_template("part.c.j2").render(
                context, fn=fn, part=this, index=index, cholesky_copies=_copies(this.solves),
                ltdl_kernels=_kernels(prefix, this))
    return files, functions


def _copies(solves) -> list:
    """The copies of the checked solve a source needs, by size: deterministic."""
    return sorted(solves, key=lambda copy: (copy.n or 0, copy.m or 0))


def _kernels(prefix: str, this: Part) -> list:
    """The `ltdl_kernel` of each tree solve a part runs, by index: deterministic."""
    return [ltdl_kernel(prefix, index, plan) for index, plan in sorted(this.tree_solves.items())]


def cholesky_source(prefix: str, precision: str, fixed=()) -> str:
    """The checked Cholesky solve alone (for its tests): the status macros, the checks, the generic solver and
    a copy with the sizes fixed for each ``(n, m)`` of ``fixed`` (`solves.CholeskyCopy`), after the headers
    they need."""
    env = environment()
    copies = [CholeskyCopy()] + [CholeskyCopy(n, m) for n, m in fixed]
    context = dict(printer.spellings(prefix, precision), cholesky_copies=copies)
    return "\n".join([printer.includes(("math", "stddef", "stdint", "string")), printer.status_defines(prefix),
                      env.get_template("checks.c.j2").render(context),
                      env.get_template("cholesky.c.j2").render(context)])


def sincos_source(prefix: str) -> str:
    """The sine and cosine of the double precision C alone (for its tests), after the header it needs."""
    env = environment()
    return "\n".join([printer.includes(("math", "stdint", "string")), env.get_template("host_device.c.j2").render(),
                      env.get_template("sincos.c.j2").render(prefix=check_prefix(prefix))])
