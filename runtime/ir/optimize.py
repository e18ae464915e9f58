"""Scheduling a traced `Kernel`: dead-code elimination, statement order and operation counts.

Constant folding and common-subexpression elimination already happened while
tracing (`trace.Graph` folds numbers and hash-conses nodes). What is left is to
keep only what the outputs, guards and calls need, in creation order (which is
topological), to count the arithmetic that remains, and to place the terms of an
optional input (the loads, which may be NULL) where they are first needed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .trace import Expr, Kernel, operands
from .twins import twin_nodes, twin_order

#: The node operators that are computed, and how each is counted in the reports (``atan2`` and ``copysign``,
#: one each in a quaternion logarithm of the configuration operations, are not: None).
COUNT_AS = {"add": "add", "sub": "add", "neg": "add", "mul": "mul", "div": "div",
            "sin": "sin", "cos": "cos", "sqrt": "sqrt", "atan2": None, "copysign": None}
COUNT_KEYS = ("mul", "add", "div", "sin", "cos", "sqrt", "calls")

#: Rough latencies in cycles of a current x86-64 core (double precision) for `estimated_cycles`;
#: a call (the checked dense solve) as a whole.
LATENCY = {"add": 3, "sub": 3, "neg": 1, "mul": 4, "div": 14, "sqrt": 18, "sin": 40, "cos": 40, "atan2": 60,
           "copysign": 1, "call": 150}

#: Arithmetic operations a core retires per cycle in straight-line code, for `estimated_cycles`.
THROUGHPUT = 2


@dataclass
class OptionalInput:
    """The terms of an optional input: zero without it, each computed when it is given just before first use."""

    name: str
    variables: list  # terms declared up front: read by the other steps or by a later block
    blocks: dict  # step index -> the terms computed just before that step (len(steps): the outputs)


@dataclass
class Schedule:
    """What to emit for a kernel, in order: nodes, guards after their value, calls before their results."""

    steps: list  # Expr (compute), Guard, Call or TreeSolve, in emission order (an optional input's terms left out)
    counts: dict
    optional: list = field(default_factory=list)  # OptionalInput, one per optional input
    live: frozenset = frozenset()  # the ids of the nodes the outputs, guards and calls need (a solve's results among them)
    twins: dict = field(default_factory=dict)  # left node id -> its `twins.Twin`: the two are neighbours in ``steps``

    @functools.cached_property
    def lefts(self) -> dict:
        """Right node id of each pair of `twins` -> the left one's."""
        return {t.node.id: a for a, t in self.twins.items()}


def schedule(kernel: Kernel, optional=(), twins=None) -> Schedule:
    """The steps of ``kernel``; the terms of each input named in ``optional`` go to `OptionalInput` blocks.
    ``twins``: the kernel's `Tree`, whose twin bodies' statements are paired (`twins`; none of the optional
    inputs' terms), each pair's two steps neighbours."""
    plan = _live_steps(kernel)
    linear = {name: {n.id for n in _linear_in(name, plan.steps)} for name in optional}  # each input's terms
    if twins is not None:
        pairs = twin_nodes(kernel.graph, twins, plan.steps, exclude=set().union(*linear.values()))
        plan.steps, plan.twins = twin_order(plan.steps, pairs)
    for name in optional:
        ids = linear[name]
        hoisted = [step for step in plan.steps if isinstance(step, Expr) and step.id in ids]
        plan.steps = [step for step in plan.steps if not (isinstance(step, Expr) and step.id in ids)]
        used = _referenced(plan.steps, kernel)
        # entries of the input read directly by the rest become variables too (zero without it)
        direct = [x for x in kernel.graph.nodes if x.op == "in" and x.args[0] == name and x.id in used]
        terms = direct + hoisted
        at = _first_needed(terms, plan.steps, kernel, plan.twins)
        # variables: the terms the rest reads, and those read by a term of a later block
        variables = used | {a.id for n in hoisted for a in operands(n) if a.id in at and at[a.id] != at[n.id]}
        grouped = {}  # first-needed step index -> the terms computed there, in order
        for n in terms:
            if n.id in at:
                grouped.setdefault(at[n.id], []).append(n)
        blocks = {index: grouped[index] for index in sorted(grouped)}
        plan.optional.append(OptionalInput(name, [n for n in terms if n.id in variables], blocks))
    return plan


def _live_steps(kernel: Kernel) -> Schedule:
    graph = kernel.graph
    live = [False] * len(graph.nodes)
    live_calls = set()
    stack = []

    def visit(node):
        if isinstance(node, Expr) and not live[node.id]:
            live[node.id] = True
            stack.append(node)

    for node in [x for values in kernel.outputs.values() for x in values] + [g.value for g in graph.guards]:
        visit(node)
    while stack:
        node = stack.pop()
        if node.op == "ret":
            call = graph.calls[node.args[0]]
            if call.index not in live_calls:
                live_calls.add(call.index)
                for x in call.values():
                    visit(x)
        elif node.op != "in":
            for a in node.args:
                visit(a)
    guards_at = {}
    steps = [g for g in graph.guards if not isinstance(g.value, Expr)]  # a structural failure: at once
    for guard in graph.guards:
        if isinstance(guard.value, Expr):
            guards_at.setdefault(guard.value.id, []).append(guard)
    first_ret = {}
    for node in graph.nodes:
        if node.op == "ret" and live[node.id]:
            first_ret.setdefault(node.args[0], node.id)
    calls_at = {nid: graph.calls[c] for c, nid in first_ret.items()}
    counts = dict.fromkeys(COUNT_KEYS, 0)
    for node in graph.nodes:
        if not live[node.id]:
            continue
        if node.id in calls_at:
            steps.append(calls_at[node.id])
            counts["calls"] += 1
        if node.op in COUNT_AS:
            steps.append(node)
            if COUNT_AS[node.op]:
                counts[COUNT_AS[node.op]] += 1
        steps.extend(guards_at.get(node.id, ()))
    return Schedule(steps, counts, live=frozenset(node.id for node in graph.nodes if live[node.id]))


def critical_path(kernel: Kernel) -> int:
    """The longest chain of dependent operations from the inputs to an output or a guard, in cycles
    (`LATENCY`): how long the kernel takes however many operations a core overlaps."""
    depth, done = {}, {}

    def at(x):
        return depth.get(x.id, 0) if isinstance(x, Expr) else 0

    graph = kernel.graph
    for node in graph.nodes:
        if node.op == "ret":
            c = node.args[0]
            if c not in done:
                done[c] = max((at(x) for x in graph.calls[c].values()), default=0) + LATENCY["call"]
            depth[node.id] = done[c]
        elif node.op != "in":
            depth[node.id] = max((at(a) for a in node.args), default=0) + LATENCY.get(node.op, 0)
    ends = _outputs(kernel) + [g.value for g in graph.guards if isinstance(g.value, Expr)]
    return max((at(x) for x in ends), default=0)


def estimated_cycles(kernel: Kernel, plan: Schedule) -> float:
    """A cost to choose between two kernels of one operation: the arithmetic at `THROUGHPUT` operations a
    cycle plus the `critical_path` (docs/benchmarks.md: how it ranks ABA against CRBA forward dynamics)."""
    c = plan.counts
    work = c["mul"] + c["add"] + c["div"] + c["sqrt"] + c["sin"] + c["cos"]
    return work / THROUGHPUT + critical_path(kernel)


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


def _outputs(kernel: Kernel) -> list:
    return [x for values in kernel.outputs.values() for x in values if isinstance(x, Expr)]


def _referenced(steps: list, kernel: Kernel) -> set:
    """Ids of the nodes that ``steps`` (computations, guards, calls) and the outputs read."""
    return {x.id for step in steps for x in operands(step)} | {x.id for x in _outputs(kernel)}


def _first_needed(terms: list, steps: list, kernel: Kernel, twins=None) -> dict:
    """Id of each of ``terms`` -> index of the first step that needs it, directly or through other terms
    (``len(steps)``: the outputs alone); a step of a pair of ``twins`` (`Schedule.twins`) needs what its twin
    needs.

    An optional input's terms are computed there, each block guarded by the input being given: their
    values live briefly, where computing them all at the start keeps hundreds of (zero, without the
    input) values alive across the function, mostly in memory.
    """
    ids = {n.id for n in terms}
    at = {}

    def need(roots, index):  # an explicit stack: term chains are as deep as the tree
        stack = list(roots)
        while stack:
            x = stack.pop()
            if x.id in ids and x.id not in at:
                at[x.id] = index
                stack.extend(operands(x))

    twins = twins or {}
    for index, step in enumerate(steps):
        need(operands(step), index)
        if isinstance(step, Expr) and step.id in twins:  # its twin, the next step, is computed with it
            need(operands(twins[step.id].node), index)
    need(_outputs(kernel), len(steps))
    return at
