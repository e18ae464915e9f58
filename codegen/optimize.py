"""Scheduling a traced `Kernel`: dead-code elimination, statement order and operation counts.

Constant folding and common-subexpression elimination already happened while
tracing (`trace.Graph` folds numbers and hash-conses nodes). What is left is to
keep only what the outputs, guards and calls need, in creation order (which is
topological), and to count the arithmetic that remains.
"""

from __future__ import annotations

from dataclasses import dataclass

from .trace import Expr, Kernel

#: How each node operator is counted in the reports.
COUNT_AS = {"add": "add", "sub": "add", "neg": "add", "mul": "mul", "div": "div",
            "sin": "sin", "cos": "cos", "sqrt": "sqrt"}
COUNT_KEYS = ("mul", "add", "div", "sin", "cos", "sqrt", "calls")


@dataclass
class Schedule:
    """What to emit for a kernel, in order: nodes, guards after their value, calls before their results."""

    steps: list  # Expr (compute), Guard, or Call, in emission order
    counts: dict


def schedule(kernel: Kernel) -> Schedule:
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
                for x in [a for row in call.A for a in row] + [b for col in call.B for b in col]:
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
            counts[COUNT_AS[node.op]] += 1
        steps.extend(guards_at.get(node.id, ()))
    return Schedule(steps, counts)
