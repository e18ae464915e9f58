"""Range analysis of a traced graph: the outputs that are finite for every input the checks accept.

The generated C refuses non-finite inputs on entry. From finite inputs a value becomes infinite or NaN
only by an overflow, by a division by a value that may be (or underflow to) zero, or by a function
outside its domain. `bounded_outputs` bounds every node of a `Graph` by interval arithmetic from what is
known of the inputs, and names the outputs whose every entry is finite and bounded well under the
precision's largest value: their finiteness check after storing can never fail.

What is known of the inputs:

- any input is a finite number, nothing more (velocities, loads, the base translation: two of them
  added may overflow); joint positions of revolute joints reach the graph only through ``sin`` and
  ``cos``, in [-1, 1];
- the base quaternion need not be unit. Its components are given a *degree*: each node holds a pair
  (d, [low, high]) meaning that its value is ``lam^d x`` with x in [low, high], where ``lam^2`` is the
  computed sum of the components' squares (the node ``x*x + y*y + z*z + w*w`` of the graph, whose range is
  exactly (2, [1, 1])): a component is (1, [-1, 1]) up to rounding, the rotation's entries
  ``q_i q_j (2 / |q|^2)`` are of degree 0 and bounded whatever the scale. A sum of two degrees has no range.
- the checks bound ``lam``: a check ``c / w > 0`` (c a positive constant) fails where ``w`` is infinite,
  so where it passes ``w`` is finite, and ``|w| = lam^d |x| <= max`` bounds ``lam`` from above (d > 0) or
  below (d < 0); a check ``w - c > 0`` (w of degree d > 0, c at least the smallest positive normal value:
  a constant or the ``tiny`` leaf, which is that value; a subnormal c may round, or flush, to zero) passes
  only where ``lam^d x = w > c``, which bounds ``lam`` from below. `kinematics.quaternion_rotation` checks
  ``2 / |q|^2 > 0`` and ``|q|^2 - tiny > 0``: ``lam^2`` lies in [`Precision.normal`, max], and a node of
  degree -2 to 2 is finite where ``lam^|d|`` times its bound is. Without both bounds a node of degree other
  than 0 has none.

Every operation's interval is widened by its rounding: ``4 u`` relatively (the operation's and the bound's
own), and the absolute error of a subnormal result, ``tiny * max`` in units of ``lam^d`` where
``lam^2 >= 1 / max``; a constant added to a finite value near the largest (a joint angle's offset) or a
factor of magnitude at most 1 (a mimic multiplier) keeps it finite. A node is finite when its operands
are, its interval is defined (no division by an interval containing zero, nor by a node of degree d
unless a check keeps ``lam^d`` from zero, no square root of a possibly negative value) and its bound,
scaled by the largest ``lam^d``, is at most the largest value; or when a check makes it finite (``w``
above, and the operands of a finite sum, product or square root). An output is bounded where every entry
is finite, of degree 0 and within `MARGIN` times the largest value; ``absent`` inputs (an optional input
not given) are zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from ..algorithms.operations import BASE
from .trace import PRECISION_LEAVES, Expr, Graph, Kernel

#: An output is bounded where every entry's bound is at most this fraction of the precision's largest value.
MARGIN = 2.0 ** -16

#: The quaternion's components, entries of the input ``base``; their squares' sum defines the scale.
QUATERNION = ("base", tuple(range(BASE["quat"].start, BASE["quat"].stop)))


@dataclass(frozen=True)
class Precision:
    """What the analysis needs of a floating-point format."""

    max: float  # the largest finite value
    u: float  # the unit roundoff
    tiny: float  # the smallest positive (subnormal) value
    eps: float  # the machine epsilon (the ``eps`` leaf)
    normal: float  # the smallest positive normal value (the ``tiny`` leaf)


PRECISIONS = {"double": Precision(1.7976931348623157e308, 2.0 ** -53, 2.0 ** -1074, 2.0 ** -52, 2.0 ** -1022),
              "float": Precision(3.4028234663852886e38, 2.0 ** -24, 2.0 ** -149, 2.0 ** -23, 2.0 ** -126)}


@dataclass(frozen=True)
class Range:
    """A node's value is ``lam^degree x`` with x in [low, high] (`lam`: see the module)."""

    degree: int
    low: float
    high: float

    @property
    def bound(self) -> float:
        return max(abs(self.low), abs(self.high))


class Analysis:
    """The ranges of a graph's nodes (None: no bound), the scale the checks admit, and which nodes are finite."""

    def __init__(self, graph: Graph, precision: str = "double", absent=()):
        self.p = PRECISIONS[precision]
        self.graph = graph
        self.absent = frozenset(absent)  # optional inputs taken as not given: zero
        self.ranges: list[Optional[Range]] = []
        self._squares: dict = {}  # node id -> the quaternion components whose squares it sums
        for node in graph.nodes:
            self.ranges.append(self._range(node))
        self.scale, assured = self._scale()  # (lam^2 low, lam^2 high); the nodes the checks make finite
        self.finite = [False] * len(graph.nodes)
        for node in graph.nodes:
            self.finite[node.id] = node.id in assured or self._finite(node)

    # -- intervals ---------------------------------------------------------------------------------
    def of(self, x) -> Optional[Range]:
        """The range of a node or a number (a constant, rounded to the precision)."""
        if isinstance(x, Expr):
            return self.ranges[x.id]
        return self._widen(Range(0, float(x), float(x)), absolute=False)

    def _widen(self, r: Range, absolute: bool = True) -> Optional[Range]:
        if not (math.isfinite(r.low) and math.isfinite(r.high)):
            return None
        slack = self.p.tiny * self.p.max if absolute else 0.0
        return Range(r.degree, r.low - abs(r.low) * 4 * self.p.u - slack, r.high + abs(r.high) * 4 * self.p.u + slack)

    def _range(self, node: Expr) -> Optional[Range]:
        op, args = node.op, node.args
        if op == "in":
            name, k = args
            if name in self.absent:
                return Range(0, 0.0, 0.0)
            if name == QUATERNION[0] and k in QUATERNION[1]:
                return Range(1, -1.0 - 2.0 ** -40, 1.0 + 2.0 ** -40)  # |q_k| <= lam, up to the sum's rounding
            return Range(0, -self.p.max, self.p.max)
        if op == "eps":
            return Range(0, self.p.eps, self.p.eps)
        if op == "tiny":
            return Range(0, self.p.normal, self.p.normal)
        if op == "ret":
            return None
        if self._sums_squares(node) == frozenset(QUATERNION[1]):
            return Range(2, 1.0, 1.0)  # lam^2 itself
        ranges = [self.of(a) for a in args]
        if any(r is None for r in ranges):
            return None
        if op in ("add", "sub"):
            a, b = ranges
            if a.degree != b.degree:
                return None
            if op == "sub":
                b = Range(b.degree, -b.high, -b.low)
            return self._clamp(args, ranges, self._widen(Range(a.degree, a.low + b.low, a.high + b.high)), op)
        if op == "neg":
            (a,) = ranges
            return Range(a.degree, -a.high, -a.low)
        if op == "mul":
            a, b = ranges
            if args[0] is args[1] and a.low < 0 < a.high:  # a square
                return self._widen(Range(2 * a.degree, 0.0, a.bound * a.bound))
            products = (a.low * b.low, a.low * b.high, a.high * b.low, a.high * b.high)
            return self._clamp(args, ranges, self._widen(Range(a.degree + b.degree, min(products), max(products))), op)
        if op == "div":
            a, b = ranges
            if b.low <= 0 <= b.high:
                return None
            quotients = (a.low / b.low, a.low / b.high, a.high / b.low, a.high / b.high)
            return self._widen(Range(a.degree - b.degree, min(quotients), max(quotients)))
        if op in ("sin", "cos"):
            return Range(0, -1.0, 1.0)
        if op == "sqrt":
            (a,) = ranges
            if a.low < 0 or a.degree % 2:
                return None
            return self._widen(Range(a.degree // 2, math.sqrt(a.low), math.sqrt(a.high)))
        if op == "atan2":
            return self._widen(Range(0, -math.pi, math.pi))
        if op == "copysign":
            a = ranges[0]
            return Range(a.degree, -a.bound, a.bound)
        return None

    def _clamp(self, args: tuple, ranges: list, r: Optional[Range], op: str) -> Optional[Range]:
        """``r`` where a constant is added to a finite value of degree 0 whose bound is near the largest (a joint
        angle and its offset) or one is scaled by a constant of magnitude at most 1 (a mimic multiplier): their
        widening overestimates. ``x + c`` with ``|x| <= max`` and ``|c|`` below half an ulp of ``max`` rounds to
        at most ``max``; ``|c x| <= |x|``."""
        constants = [a for a in args if not isinstance(a, Expr)]
        if not constants or (r is not None and r.bound <= self.p.max):
            return r
        c, x = abs(float(constants[0])), next(r for a, r in zip(args, ranges) if isinstance(a, Expr))
        if x.degree != 0 or x.bound > self.p.max:
            return r
        if op == "mul" and c <= 1:
            return Range(0, -x.bound, x.bound)
        if op in ("add", "sub") and c <= self.p.max * self.p.u * self.p.u:
            return Range(0, -self.p.max, self.p.max)
        return r

    def _sums_squares(self, node: Expr) -> Optional[frozenset]:
        """The quaternion components whose squares ``node`` adds up (None: it is no such sum)."""
        name, components = QUATERNION
        found = None
        if node.op == "mul" and node.args[0] is node.args[1]:
            a = node.args[0]
            if a.op == "in" and a.args[0] == name and a.args[1] in components:
                found = frozenset((a.args[1],))
        elif node.op == "add" and all(isinstance(a, Expr) for a in node.args):
            left, right = (self._squares.get(a.id) for a in node.args)
            if left and right and not left & right:
                found = left | right
        if found:
            self._squares[node.id] = found
        return found

    # -- the scale and finiteness ------------------------------------------------------------------------
    def _scale(self) -> tuple:
        """``((low, high) of lam^2, ids of the nodes finite)`` where every check passes: each check ``c / w > 0``
        (c > 0) makes ``w`` finite, which bounds ``lam`` through w's range, and the operands of a finite sum,
        difference, product or square root are finite (an infinite or NaN operand would make it infinite or NaN);
        each check ``w - c > 0`` (`_above`) bounds ``lam`` from below."""
        low, high = 0.0, math.inf
        assured, stack = set(), []
        for guard in self.graph.guards:
            v = guard.value
            if guard.strict and isinstance(v, Expr) and v.op == "sub":
                low = max(low, self._above(*v.args))
            if not (guard.strict and isinstance(v, Expr) and v.op == "div"):
                continue
            c, w = v.args
            if isinstance(c, Expr) or not c > 0 or not isinstance(w, Expr):
                continue
            stack.append(w)
            r = self.ranges[w.id]
            if r is None or r.degree == 0 or r.low <= 0 <= r.high:
                continue
            least = min(abs(r.low), abs(r.high))  # |w| >= lam^d least, and |w| <= max
            if r.degree > 0:
                high = min(high, _power(self.p.max / least, 2 / r.degree))
            else:
                low = max(low, _power(least / self.p.max, 2 / -r.degree))
        while stack:
            w = stack.pop()
            if w.id not in assured:
                assured.add(w.id)
                if w.op in ("add", "sub", "mul", "neg", "sqrt"):
                    stack.extend(a for a in w.args if isinstance(a, Expr))
        return (low, high), assured

    def _above(self, w, c) -> float:
        """The bound ``w - c > 0`` puts on ``lam^2`` from below (0: none). It passes only where ``w > c`` (the
        rounded difference of ``w <= c`` is at most zero, flushed to zero or not): with w of degree d > 0 and
        x-range up to ``high > 0``, and ``c >= least`` (a constant or a leaf of degree 0, least at least the
        smallest normal value: no flush-to-zero reads it as zero), ``lam^d high >= w > least``."""
        r, b = self.of(w), self.of(c)
        if r is None or b is None or r.degree <= 0 or r.high <= 0 or b.degree or b.low < self.p.normal:
            return 0.0
        return _power(b.low / r.high, 2 / r.degree)

    def _finite(self, node: Expr) -> bool:
        if node.op == "in" or node.op in PRECISION_LEAVES:
            return True  # the inputs are checked on entry
        r = self.ranges[node.id]
        if r is None or not all(self.finite[a.id] for a in node.args if isinstance(a, Expr)):
            return False
        if node.op == "div" and not self._nonzero(node.args[1]):
            return False
        return self.largest(r) <= self.p.max

    def _nonzero(self, x) -> bool:
        """Whether ``x``, whose x-range excludes zero, is non-zero: ``lam^d x`` is zero where ``lam`` is (d > 0) or
        infinite (d < 0), unless a check bounds ``lam`` away from it (a check ``c / |q|^2 > 0`` alone passes for
        ``|q|^2 = 0``)."""
        d = self.of(x).degree
        low, high = self.scale
        return d == 0 or (low > 0 if d > 0 else high < math.inf)

    def largest(self, r: Range) -> float:
        """The largest magnitude of a value of range ``r`` over the admitted scales (inf: none)."""
        if r.degree == 0:
            return r.bound
        low, high = self.scale
        if abs(r.degree) > 2 or low < 1 / self.p.max or high > self.p.max * (1 + 16 * self.p.u):
            return math.inf  # the widening covers subnormals only for lam^2 >= 1 / max, degrees up to 2
        return r.bound * (high if r.degree > 0 else 1 / low) ** (abs(r.degree) / 2)


def _power(x: float, e: float) -> float:
    """``x ** e``, inf where it overflows."""
    try:
        return x ** e
    except OverflowError:
        return math.inf


def bounded_outputs(kernel: Kernel, precision: str = "double", absent=()) -> dict:
    """``{output: bound}`` of the outputs whose every computed entry is finite for every input the checks
    accept, of degree 0 and at most ``bound`` in magnitude, ``bound`` at most `MARGIN` times the largest value
    (an entry that is an input is finite). ``absent``: optional inputs taken as not given (zero)."""
    analysis = Analysis(kernel.graph, precision, absent)
    found = {}
    for name, values in kernel.outputs.items():
        nodes = [x for x in values if isinstance(x, Expr) and x.op != "in"]
        if all(analysis.finite[x.id] and analysis.ranges[x.id].degree == 0
               and analysis.ranges[x.id].bound <= MARGIN * analysis.p.max for x in nodes):
            found[name] = max((analysis.ranges[x.id].bound for x in nodes), default=0.0)
    return found
