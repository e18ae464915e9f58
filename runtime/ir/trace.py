"""Tracing: run an algorithm on symbols and record a `Kernel`.

The scalars are `Expr` nodes of one hash-consed graph (like CasADi SX with CSE
always on): an operation whose operator and operands already exist returns the
existing node, so common subexpressions are shared as they are built; numbers
are folded on the spot (``x*1``, ``x+0``, ``x*0``, ``-(-x)``, number with number; a
negated factor becomes a negated product, ``a + -b`` a subtraction),
and commutative operands are put in a canonical order. Node ids grow in creation
order, which is a topological order: emission needs no sort, and output order
is deterministic.

`SymbolicOps` is the scalar backend the algorithms see: ``require_positive``
and ``require_not_negative`` record guards, ``solve_spd`` records a call of the checked Cholesky solve
and ``solve_ltdl`` one of the tree-sparse LTDL solve of many columns (`TreeSolve`).
Its ``scope`` and ``label`` (`ScalarOps`) change no arithmetic: the graph records on each node
the scope it was first created in (`Graph.scopes`) and the first name a label gave it
(`Graph.labels`), for the C emitter's comments and variable names.

`trace` is the one place an operation is traced (graph -> inputs -> evaluate), on a `Graph`
for the C and the NumPy engine's single states, on CasADi SX for the CasADi functions.
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol

from ..algorithms.kinematics import Tree
from ..algorithms.operations import evaluate
from ..algorithms.scalars import ScalarOps, component_names

#: What a label must look like: a C identifier of ASCII letters, digits and underscores (labels are the
#: algorithms' quantity names, never a robot file's strings).
LABEL = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

from ..algorithms.dual import Dual

#: The leaves whose value depends on the precision the kernel is emitted in (`Graph.epsilon`, `Graph.tiny`).
PRECISION_LEAVES = ("eps", "tiny")

#: The operators of the leaves, which read no operand: an input entry, a call's result, the precision's.
LEAVES = ("in", "ret") + PRECISION_LEAVES


class Expr:
    """A node: ``op`` with ``args`` (Expr or float). Leaves: ``in`` (array, index), ``ret`` (call, index)
    ``eps`` (the emitted precision's machine epsilon) and ``tiny`` (its smallest positive normal value). With a `Dual` (forward-mode derivatives of a
    trace) an operator defers to the Dual's."""

    __slots__ = ("graph", "op", "args", "id")

    def __init__(self, graph: "Graph", op: str, args: tuple, id_: int):
        self.graph, self.op, self.args, self.id = graph, op, args, id_

    def __repr__(self):
        return f"Expr#{self.id}({self.op})"

    def __add__(self, other):
        return NotImplemented if isinstance(other, Dual) else self.graph.add(self, other)

    def __radd__(self, other):
        return NotImplemented if isinstance(other, Dual) else self.graph.add(other, self)

    def __sub__(self, other):
        return NotImplemented if isinstance(other, Dual) else self.graph.sub(self, other)

    def __rsub__(self, other):
        return NotImplemented if isinstance(other, Dual) else self.graph.sub(other, self)

    def __mul__(self, other):
        return NotImplemented if isinstance(other, Dual) else self.graph.mul(self, other)

    def __rmul__(self, other):
        return NotImplemented if isinstance(other, Dual) else self.graph.mul(other, self)

    def __truediv__(self, other):
        return NotImplemented if isinstance(other, Dual) else self.graph.div(self, other)

    def __rtruediv__(self, other):
        return NotImplemented if isinstance(other, Dual) else self.graph.div(other, self)

    def __neg__(self):
        return self.graph.neg(self)


def _is_number(x) -> bool:
    return isinstance(x, (int, float))


def _key(x):
    if isinstance(x, Expr):
        return x.id
    return ("c", float(x)) if _is_number(x) else x


@dataclass
class Guard:
    """``if (!(value > 0)) return status;`` placed right after ``value`` is computed
    (``strict=False``: ``if (value < 0) return status;``, NaN passes)."""

    value: Expr
    status: int
    message: str
    strict: bool = True


class StructuralFailure(Exception):
    """A check that fails for every state (a massless tip's articulated inertia is 0):
    the operation is emitted as that failure alone."""

    def __init__(self, guard: Guard):
        super().__init__(guard.message)
        self.guard = guard


def decided(value, status: int, message: str, strict: bool = True) -> bool:
    """Whether the check of ``value`` (``> 0``, or ``strict=False``: ``>= 0``) is decided now: true for a
    number that passes; a number that fails raises `StructuralFailure`; false for an expression."""
    if not _is_number(value):
        return False
    if (not value > 0) if strict else value < 0:
        raise StructuralFailure(Guard(value, status, message, strict))
    return True


@dataclass
class Call:
    """``status = cholesky_solve(n, m, A, B, X)``: A (n x n, lower triangle read), m columns B -> X."""

    index: int
    A: list
    B: list  # m right-hand sides, each a list of n scalars
    results: list = field(default_factory=list)  # m solutions, each a list of n ``ret`` nodes
    what: str = ""

    def values(self) -> list:
        """The scalars the call reads."""
        return [a for row in self.A for a in row] + [b for col in self.B for b in col]


@dataclass
class TreeSolve:
    """``X = (L^T D L)^-1 B`` for the m columns of B: `ltdl.ltdl_apply_inverse` of each column with the
    factors of `ltdl.ltdl` (``L[k]`` maps each ancestor ``j`` of ``k`` in ``lam`` to ``L_kj``), in one loop."""

    index: int
    L: list
    Dinv: list
    lam: tuple
    B: list  # m right-hand sides, each a list of n scalars
    results: list = field(default_factory=list)  # m solutions, each a list of n ``ret`` nodes

    def values(self) -> list:
        """The scalars the solve reads: L row by row (ancestors nearest first), Dinv, then B."""
        return [v for row in self.L for v in row.values()] + list(self.Dinv) + [b for col in self.B for b in col]


class Graph:
    """A hash-consed expression graph plus the guards and calls recorded while tracing."""

    def __init__(self) -> None:
        self.nodes: list[Expr] = []
        self._table: dict = {}
        self.guards: list[Guard] = []
        self.calls: list = []  # Call and TreeSolve, by index
        self.scopes: list = []  # per node id: the scope it was created in (a string, or None outside any)
        self.labels: dict = {}  # node id -> the name of the quantity it was first labelled as
        self.scope: Optional[str] = None  # the scope new nodes are created in

    # -- leaves --------------------------------------------------------------
    def _node(self, op, args):
        key = (op,) + tuple(_key(a) for a in args)
        node = self._table.get(key)
        if node is None:
            node = Expr(self, op, args, len(self.nodes))
            self.nodes.append(node)
            self.scopes.append(self.scope)
            self._table[key] = node
        return node

    def input(self, name: str, size: int) -> list:
        """A named input array of ``size`` scalars."""
        return [self._node("in", (name, k)) for k in range(size)]

    def epsilon(self):
        """The machine epsilon of the precision the kernel is emitted in (a leaf)."""
        return self._node("eps", ())

    def tiny(self):
        """The smallest positive normal value of the precision the kernel is emitted in (a leaf)."""
        return self._node("tiny", ())

    @property
    def ops(self) -> "SymbolicOps":
        """The scalar backend that records into this graph."""
        return SymbolicOps(self)

    # -- arithmetic with folding ------------------------------------------------
    def add(self, a, b):
        if _is_number(a) and _is_number(b):
            return a + b
        if _is_number(a) and a == 0:
            return b
        if _is_number(b) and b == 0:
            return a
        if not _is_number(b) and b.op == "neg":
            return self.sub(a, b.args[0])
        if not _is_number(a) and a.op == "neg":
            return self.sub(b, a.args[0])
        return self._node("add", tuple(sorted((a, b), key=_sort_key)))

    def sub(self, a, b):
        if _is_number(a) and _is_number(b):
            return a - b
        if _is_number(b) and b == 0:
            return a
        if _is_number(a) and a == 0:
            return self.neg(b)
        if a is b:
            return 0
        if not _is_number(b) and b.op == "neg":
            return self.add(a, b.args[0])
        return self._node("sub", (a, b))

    def mul(self, a, b):
        if _is_number(a) and _is_number(b):
            return a * b
        for x, y in ((a, b), (b, a)):
            if _is_number(x):
                if x == 0:
                    return 0
                if x == 1:
                    return y
                if x == -1:
                    return self.neg(y)
        for x, y in ((a, b), (b, a)):
            if not _is_number(x) and x.op == "neg":  # (-x) y = -(x y) exactly: the sign moves to the sums
                return self.neg(self.mul(x.args[0], y))
        return self._node("mul", tuple(sorted((a, b), key=_sort_key)))

    def div(self, a, b):
        if _is_number(a) and _is_number(b):
            return a / b
        if _is_number(a) and a == 0:
            return 0
        if _is_number(b) and b == 1:
            return a
        return self._node("div", (a, b))

    def neg(self, a):
        if _is_number(a):
            return -a
        if a.op == "neg":
            return a.args[0]
        return self._node("neg", (a,))

    def apply(self, op: str, args: tuple, fn: Callable):
        """The function ``op`` of ``args`` (``sin``, ``atan2``...: in argument order), ``fn(*args)`` on numbers."""
        return fn(*args) if all(_is_number(a) for a in args) else self._node(op, tuple(args))

    # -- statements ---------------------------------------------------------------
    def guard(self, value, status: int, message: str, strict: bool = True):
        """Record a check; a number that passes needs none, one that fails ends the trace (`StructuralFailure`)."""
        if not decided(value, status, message, strict):
            self.guards.append(Guard(value, status, message, strict))

    def call(self, A, B, what: str) -> list:
        """Solve A X = B (the checked Cholesky) for the columns of B; returns the columns of X."""
        return self._record(Call(len(self.calls), A, B, what=what))

    def tree_solve(self, L, Dinv, lam, B) -> list:
        """Solve (L^T D L) X = B for the columns of B (`TreeSolve`); returns the columns of X."""
        return self._record(TreeSolve(len(self.calls), L, Dinv, lam, B))

    def _record(self, call):
        """Add ``call``; its results are ``ret`` leaves, entry ``r`` of column ``c`` at index ``c * n + r``."""
        n = len(call.B[0]) if call.B else 0
        call.results = [[self._node("ret", (call.index, c * n + r)) for r in range(n)] for c in range(len(call.B))]
        self.calls.append(call)
        return call.results


def _sort_key(x):
    return (0, float(x)) if _is_number(x) else (1, x.id)


class SymbolicOps(ScalarOps):
    """The scalar backend for tracing: symbols in, a `Graph` of statements out."""

    def __init__(self, graph: Graph):
        self.graph = graph

    def function(self, name, *args):
        return self.graph.apply(name, args, getattr(math, name))

    @property
    def eps(self):
        return self.graph.epsilon()

    @property
    def tiny(self):
        return self.graph.tiny()

    def require_positive(self, x, error, message):
        self.graph.guard(x, error.status, message)

    def require_not_negative(self, x, error, message):
        self.graph.guard(x, error.status, message, strict=False)

    def solve_spd(self, A, b, what):
        return self.graph.call([list(row) for row in A], [list(b)], what)[0]

    def solve_ltdl(self, L, Dinv, lam, columns):
        return self.graph.tree_solve([dict(row) for row in L], list(Dinv), tuple(lam), [list(b) for b in columns])

    @contextlib.contextmanager
    def scope(self, text):
        outer, self.graph.scope = self.graph.scope, str(text)
        try:
            yield
        finally:
            self.graph.scope = outer

    def label(self, value, name):
        """Name each node of ``value`` that has no name yet and was created in this scope (a value an earlier
        scope made, shared by hash-consing, keeps its place and its name there)."""
        graph = self.graph
        for component, x in component_names(value, name):
            if not LABEL.fullmatch(component):
                raise ValueError(f"label {component!r} is not a C identifier of letters, digits and underscores")
            if isinstance(x, Expr) and x.id not in graph.labels and graph.scopes[x.id] == graph.scope:
                graph.labels[x.id] = component


@dataclass
class Kernel:
    """One traced operation: named inputs and outputs over a graph, with guards and calls."""

    name: str  # the C function's name after the prefix
    graph: Graph
    inputs: dict  # name -> size, in signature order
    outputs: dict  # name -> list of scalars (Expr or number), in signature order
    doc: str = ""
    operation: str = ""  # its operation (`operations.OPERATIONS`): the name, or the name and a link
    algorithm: str = ""  # where an operation has several: the one traced (`generator.FD_ALGORITHMS`)


class Symbols(Protocol):
    """Where the input scalars of a `trace` come from: a `Graph`, or CasADi SX (`rbdgen.codegen.casadi.sx`)."""

    #: The scalar backend the algorithms run on over these symbols.
    ops: ScalarOps

    def input(self, name: str, size: int) -> list:
        """A named input array of ``size`` scalars."""
        ...


def trace(graph: Symbols, tree: Tree, op: str, inputs: dict, link: Optional[int] = None,
          algorithm: Optional[Callable] = None) -> dict:
    """``op`` (on ``link``, a link id, where it takes one) run on ``graph``'s symbols: one input array of each
    size in ``inputs`` (``{name: size}``, in signature order), then the algorithm (``algorithm``: one of the
    operation's `Operation.algorithms` functions instead of its own). Returns the outputs,
    ``{name: list of scalars}``; the C, the CasADi functions and the NumPy engine's straight-line Python
    are all traced here.

    Raises `StructuralFailure` where a check fails for every state.
    """
    symbols = {name: graph.input(name, size) for name, size in inputs.items()}
    ops = graph.ops
    with ops.scope(op):
        return evaluate(tree, ops, op, symbols, link, algorithm)


def computed_at(steps: list) -> dict:
    """Node id -> the index of the step (a computation, or a call for its results) that computes it."""
    at = {}
    for index, step in enumerate(steps):
        if isinstance(step, Expr):
            at[step.id] = index
        elif isinstance(step, (Call, TreeSolve)):
            at.update((r.id, index) for column in step.results for r in column)
    return at


def operands(step) -> list:
    """The nodes a step (computation, guard or call) reads."""
    if isinstance(step, Expr):
        values = list(step.args)
    elif isinstance(step, Guard):
        values = [step.value]
    else:
        values = step.values()
    return [x for x in values if isinstance(x, Expr)]
