"""Where a long operation is split into parts (`part_starts`), by its length and by a model of the register
pressure of each part (`_Held`), and which part computes, hands over and stores each value (`Layout`)."""

from __future__ import annotations

import bisect
import heapq

import numpy as np

from ...ir.trace import Expr, Kernel, computed_at, operands
from .printer import TRIG

#: An operation of more than this many steps (`optimize.schedule`) is split into parts of at most about this
#: many, each a function in a source of its own. GCC's register allocation takes more than linear time in a
#: function's length, and the parts compile in parallel; shorter parts also run faster at -O2, where GCC's
#: basic-block SLP vectoriser pairs the operands of neighbouring stores back through a whole function and
#: spills the pairs (docs/generated-c.md; the measurements: docs/benchmarks.md, "Decisions of the C backend").
PART_STEPS = 4000

#: A part of a split operation also ends before it would hold more than this many values at once itself
#: (`_Held.peak`): values it computes and reads again, and values it reads from ``w`` more than once (GCC keeps
#: the first read for the later ones). Its frame grows with that count and adds to ``w`` in the caller's, and
#: parts that hold fewer values run faster (GCC spills less); the stack and time measured for other limits:
#: docs/benchmarks.md, "Decisions of the C backend".
PART_VALUES = 40


class Layout:
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
        self.defined = computed_at(steps)  # value id -> the index of the step that computes it
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
        # a pair of twins is one value in one register, its second step never a part's first
        one = plan.lefts
        self.starts = part_starts(self.steps, {i: k for i, k in self.defined.items() if i not in one},
                                  [(one.get(i, i), k) for i, k in reads],
                                  {one.get(i, i) for i in (stored - self.stores.keys()) & self.defined.keys()},
                                  {self.defined[i] for i in one})
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
        # twins both handed over take two neighbouring slots, which a later part reads as one pair
        twins = {a: t.node.id for a, t in plan.twins.items() if a in last and t.node.id in last}
        free = {1: [], 2: []}  # free slots, and the first of free neighbouring two
        busy, self.slots = [], 0
        for i in sorted(last.keys() - twins.values(), key=lambda i: (self.defined[i], i)):  # as they are computed
            while busy and busy[0][0] < self.defined[i]:
                _, size, start = heapq.heappop(busy)
                heapq.heappush(free[size], start)
            size = 2 if i in twins else 1
            start = heapq.heappop(free[size]) if free[size] else self.slots
            self.slots = max(self.slots, start + size)
            self.slot[i] = start
            if size == 2:
                self.slot[twins[i]] = start + 1
            heapq.heappush(busy, (max(last[i], last[twins[i]]) if size == 2 else last[i], size, start))

    def of(self, index: int) -> int:
        return bisect.bisect_right(self.starts, index) - 1

    def indices(self, k: int) -> range:
        """The step indices of part ``k`` (the last one also has ``len(steps)``: the outputs)."""
        return range(self.starts[k], self.starts[k + 1] if k < self.count - 1 else self.steps + 1)


def part_starts(length: int, defined: dict, reads: list, stored: set, joined=frozenset()) -> list:
    """The first step of each part of an operation of ``length`` steps: one part up to `PART_STEPS` steps;
    beyond, each part takes an even share of the steps left (at most `PART_STEPS`), or fewer where it would
    hold more than `PART_VALUES` values at once (`_Held.peak`), but at least a tenth of `PART_STEPS`.

    ``defined``: value id -> the step computing it; ``reads``: (value id, step index) of every read;
    ``stored``: the ids of the values in an output (held by the part computing them until it ends); ``joined``:
    the indices of steps that no part starts with (the second of a pair of twins)."""
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
        if lo in joined:  # a pair's second step: the part ends before the pair (or after it, if that is all)
            lo += -1 if lo - 1 > start else 1
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
