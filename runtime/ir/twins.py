"""Twin statements: the arithmetic of two bodies computed side by side, lane by lane.

A humanoid's legs, its arms, a quadruped's legs: sibling subtrees of one shape whose passes compute the
same operations on other constants. `twin_bodies` finds them (`Tree.parent`: siblings, then their children
in order); `twin_nodes` walks the statements of one body's pass beside its twin's and pairs two of the same
operator where neither reads the other's pass, at the least cost of packing their operands (`_corresponding`);
`twin_order` orders the steps so that the two of each pair are neighbours (a topological order of the steps
with each pair one unit, every pair at its first step's place as far as the dependences allow, the checks in
their order, a statement after the checks of what it reads). A backend with two-lane vectors computes each
pair in one statement (the C backend's ``<prefix>_pair``, docs/generated-c.md, "Twin bodies"); the results
are those of the statements one by one, since each lane does the same operations.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass

from ..algorithms.kinematics import body_scope_head
from .trace import Expr, Guard, computed_at, operands

#: The operators a pair computes: IEEE arithmetic, the same in a vector's lanes as in a scalar.
PAIRED = ("add", "sub", "mul", "div", "neg")

#: The operators whose operands the graph orders (`trace.Graph.add`, ``mul``): a twin's may come swapped.
COMMUTATIVE = ("add", "mul")

#: How many statements in a row `_corresponding` skips in one pass to find the next pair.
SKIP = 8

_BODY = re.compile(r"body (\d+) ")  # the index in `kinematics.body_scope_head`


@dataclass(frozen=True)
class Twin:
    """The right-hand lane of a pair: ``node``, and whether its operands come in the other order (``swapped``)."""

    node: Expr
    swapped: bool = False


_NONE = Twin(None)


def twin_bodies(parent: tuple, kind: tuple) -> list:
    """``(i, j)`` for each body ``j`` whose subtree has the shape of body ``i``'s (the joints' kinds and the
    children, in order), ``i < j``: siblings of one shape two by two in index order, then the children of twins
    in order."""
    n = len(parent)
    children = [[] for _ in range(n)]
    roots = []
    for i, p in enumerate(parent):
        (roots if p < 0 else children[p]).append(i)
    shape = [None] * n
    for i in reversed(range(n)):  # a child's index is above its parent's
        shape[i] = (kind[i], tuple(shape[c] for c in children[i]))
    twins, twin_of, right = [], {}, set()

    def siblings(group):
        same = {}
        for c in group:
            same.setdefault(shape[c], []).append(c)
        for bodies in same.values():
            for a, b in zip(bodies[0::2], bodies[1::2]):
                twins.append((a, b))
                twin_of[a] = b
                right.add(b)

    siblings(roots)
    for i in range(n):
        if i in twin_of:
            for a, b in zip(children[i], children[twin_of[i]]):
                twins.append((a, b))
                twin_of[a] = b
                right.add(b)
        elif i not in right:
            siblings(children[i])
    return twins


def twin_nodes(graph, tree, steps: list, exclude=frozenset()) -> dict:
    """Left node id -> its `Twin`, for each pair of statements (`PAIRED` operators, not in ``exclude``) of the
    passes of twin bodies of ``tree`` (`twin_bodies`; the passes are the scopes ``body i link: what``, matched by
    ``what``), parents' passes first (`_corresponding`)."""
    heads = [body_scope_head(tree, i) for i in range(tree.nb)]
    passes = {}  # body -> {what its pass computes: its statements in order}
    for step in steps:
        if isinstance(step, Expr):
            scope = graph.scopes[step.id]
            match = _BODY.match(scope or "")
            i = int(match.group(1)) if match else -1
            if 0 <= i < len(heads) and scope.startswith(heads[i]):
                passes.setdefault(i, {}).setdefault(scope[len(heads[i]):], []).append(step)
    pairs = {}
    for i, j in twin_bodies(tree.parent, tree.kind):
        for what, left in passes.get(i, {}).items():
            right = passes.get(j, {}).get(what)
            if right is not None:
                pairs.update(_corresponding(left, right, exclude, pairs))
    return pairs


def _corresponding(left: list, right: list, exclude, paired: dict) -> dict:
    """The pairs of two passes' statements (`twin_nodes`), in order. Two statements pair where they have one
    operator and neither lane reads the other's pass; their operands cost nothing where they are a pair (of
    these passes or an earlier one) or two numbers, else one pack, or two where a lane of another pair is
    taken out first. A statement of one pass that the other lacks (the graph found it among the values computed
    before, `trace.Graph`) is skipped: the next pair is the one of the statements up to `SKIP` ahead in either
    pass whose cost plus distance is least."""
    mate = {}  # node id -> its pair's other node, either way
    lefts, rights = {a.id for a in left}, {b.id for b in right}

    def cost(x, y):  # of x and y as one operand: None where one lane would read the other's pass
        if isinstance(x, Expr) and x.id in rights or isinstance(y, Expr) and y.id in lefts:
            return None
        if not (isinstance(x, Expr) and isinstance(y, Expr)):
            return int(isinstance(x, Expr) or isinstance(y, Expr))  # two numbers: one constant
        if mate.get(x.id) is y or paired.get(x.id, _NONE).node is y:
            return 0  # a pair of these passes or of an earlier one
        return 1 + (x.id in mate or y.id in mate)  # packed; a lane of another pair taken out first

    def twin(a, b):  # (cost, swapped) of the cheaper order of b's operands, or None
        if a.op != b.op or len(a.args) != len(b.args):
            return None
        best = None
        for swapped in (False, True)[:1 + (a.op in COMMUTATIVE)]:
            costs = [cost(x, y) for x, y in zip(a.args, reversed(b.args) if swapped else b.args)]
            if None not in costs and (best is None or sum(costs) < best[0]):
                best = (sum(costs), swapped)
        return best

    def nearest(i, j):  # the least (cost + distance, distance, left index, right index, swapped) up to SKIP ahead
        best = None
        for d in range(SKIP + 1):
            if best is not None and d > best[0]:
                break  # farther ones cost at least their distance
            for k, m in ((i + d, j), (i, j + d))[:1 + (d > 0)]:
                found = twin(left[k], right[m]) if k < len(left) and m < len(right) else None
                if found is not None and (best is None or (found[0] + d, d, k, m, found[1]) < best):
                    best = (found[0] + d, d, k, m, found[1])
        return best

    pairs = {}
    i = j = 0
    while i < len(left) and j < len(right):
        best = nearest(i, j)
        if best is None:
            i, j = i + 1, j + 1
            continue
        _, _, i, j, swapped = best
        a, b = left[i], right[j]
        mate[a.id], mate[b.id] = b, a
        if a.op in PAIRED and a.id not in exclude and b.id not in exclude:
            pairs[a.id] = Twin(b, swapped)
        i, j = i + 1, j + 1
    return pairs


def twin_order(steps: list, pairs: dict) -> tuple:
    """``(steps, pairs)``: ``steps`` in a topological order where the two statements of each pair are
    neighbours, and the pairs that could be kept. Each pair is one unit placed at its first statement's index
    as far as its operands allow (units ready in index order); where the units wait on each other (a lane that
    reads, through values outside the two bodies, the other lane's), the waiting pair with the lowest index
    is split until one is ready. Checks and calls keep their order, but for checks of one status in a row (the
    first that fails gives the same status), and a statement reading a checked value comes after its checks
    (`Printer.after_check`: it reads 1 there once a check failed)."""
    made = computed_at(steps)
    checks = {}  # value id -> the steps checking it: a statement reads it after them (as 1 once a check failed)
    for k, step in enumerate(steps):
        if isinstance(step, Guard) and isinstance(step.value, Expr):
            checks.setdefault(step.value.id, []).append(k)
    reads = []  # per step: the steps it needs before it
    # the checks and calls in runs, each after the run before: a run of checks of one status in any order (the
    # first that fails, the same status), a call alone
    run, before, current = None, [], []  # the status of the current run, the run before, the current run
    for k, step in enumerate(steps):
        read = operands(step)
        needs = {made[x.id] for x in read if x.id in made}
        if isinstance(step, Expr):
            needs.update(c for x in read for c in checks.get(x.id, ()))
        else:
            status = step.status if isinstance(step, Guard) else None
            if status is None or status != run:
                run, before, current = status, current or before, []
            needs.update(before)
            current.append(k)
        reads.append(needs)
    partner = {made[a]: made[t.node.id] for a, t in pairs.items()  # no lane reading the other
               if a in made and t.node.id in made and made[a] not in reads[made[t.node.id]]}
    unit = list(range(len(steps)))  # step -> its unit (a pair's unit: its first step's index)
    members = {k: [k] for k in range(len(steps))}
    for a, b in partner.items():
        unit[b] = a
        members[a].append(b)
        del members[b]
    users = {}  # step -> the steps reading it
    for k, needs in enumerate(reads):
        for n in needs:
            users.setdefault(n, set()).add(k)
    placed = [False] * len(steps)  # by step
    waiting = {u: _waiting(u, members, reads, unit, placed) for u in members}
    ready = [u for u, w in waiting.items() if not w]
    heapq.heapify(ready)
    order = []
    while len(order) < len(steps):
        if not ready:
            u = min(u for u in waiting if len(members[u]) == 2)
            _split(u, members, reads, unit, placed, waiting, ready)
            continue
        u = heapq.heappop(ready)
        for k in members[u]:
            placed[k] = True
            order.append(k)
        del waiting[u]
        for k in members[u]:
            for reader in users.get(k, ()):
                r = unit[reader]
                if r in waiting and waiting[r]:
                    waiting[r].discard(u)
                    if not waiting[r]:
                        heapq.heappush(ready, r)
    kept = {steps[a].id: pairs[steps[a].id] for a, b in partner.items() if unit[b] == a}
    return [steps[k] for k in order], kept


def _waiting(u: int, members: dict, reads: list, unit: list, placed: list) -> set:
    """The units not yet placed that unit ``u`` reads."""
    return {unit[n] for k in members[u] for n in reads[k] if not placed[n] and unit[n] != u}


def _split(u: int, members: dict, reads: list, unit: list, placed: list, waiting: dict, ready: list) -> None:
    """Make the pair of unit ``u`` two units, and update what every unit waits for."""
    a, b = members[u]
    members[u] = [a]
    members[b] = [b]
    unit[b] = b
    for v in [u, b] + [v for v in waiting if u in waiting[v]]:
        waiting[v] = _waiting(v, members, reads, unit, placed)
        if not waiting[v]:
            heapq.heappush(ready, v)

