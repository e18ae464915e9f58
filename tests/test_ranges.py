"""The range analysis (`rbdgen.ir.ranges`): intervals computed by hand, the scale the quaternion's checks
admit, and which outputs of real kernels it proves finite (the C then has no finiteness check for them:
tests/test_c_checks.py runs them on extreme inputs)."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from rbdgen.algorithms.kinematics import quaternion_rotation
from rbdgen.codegen.generator import load_robot, trace_operation
from rbdgen.errors import InvalidInputError
from rbdgen.ir.ranges import MARGIN, Analysis, Range, bounded_outputs
from rbdgen.ir.trace import Graph
from robots import ROBOTS

BIG = sys.float_info.max
U = 2.0 ** -53
TINY = sys.float_info.min  # the smallest positive normal double


def _close(r: Range, degree: int, low: float, high: float):
    """``r`` contains [low, high] and is at most a few roundings wider."""
    assert r.degree == degree
    assert r.low <= low and r.high >= high, (r, low, high)
    assert r.low >= low - 64 * U * abs(low) - 1e-14 and r.high <= high + 64 * U * abs(high) + 1e-14, (r, low, high)


def test_intervals_by_hand():
    g = Graph()
    (q,) = g.input("q", 1)
    s, c = g.ops.sin(q), g.ops.cos(q)
    y = 2 * s + 3  # [1, 5]
    z = (s - c) * (0.5 * c)  # s - c in [-2, 2]; 0.5 c in [-0.5, 0.5]: [-1, 1]
    w = 1 / y  # [0.2, 1]
    sq = c * c  # a square: [0, 1], not [-1, 1]
    a = Analysis(g)
    _close(a.ranges[y.id], 0, 1.0, 5.0)
    _close(a.ranges[z.id], 0, -1.0, 1.0)
    _close(a.ranges[w.id], 0, 0.2, 1.0)
    _close(a.ranges[sq.id], 0, 0.0, 1.0)
    assert all(a.finite[x.id] for x in (y, z, w, sq))


def test_what_has_no_bound():
    g = Graph()
    (q,) = g.input("q", 1)
    qd, qd2 = g.input("qd", 2)
    s, c = g.ops.sin(q), g.ops.cos(q)
    tangent = s / c  # a division by an interval containing zero
    overflow = qd + qd2  # two finite inputs near the largest value
    square = qd * qd
    shifted = q + 0.27925  # a joint's offset: x + c rounds to at most the largest value
    scaled = 0.5 * q  # a mimic multiplier at most 1
    root = g.ops.sqrt(s)  # a square root of a possibly negative value
    wrapped = g.ops.sin(shifted)
    a = Analysis(g)
    assert a.ranges[tangent.id] is None and not a.finite[tangent.id]
    assert not a.finite[overflow.id] and not a.finite[square.id] and not a.finite[root.id]
    assert a.finite[shifted.id] and a.finite[scaled.id] and a.finite[wrapped.id]
    assert a.ranges[scaled.id] == Range(0, -BIG, BIG)
    assert a.finite[qd.id]  # an input: checked on entry


def _rotation(checks: int):
    """The rotation of the base quaternion of a graph, with the first ``checks`` of its three checks."""
    g = Graph()
    base = g.input("base", 19)
    R = quaternion_rotation(base[3:7], g.ops)
    del g.guards[checks:]
    return g, R


def test_the_quaternion_checks_bound_the_scale():
    g, R = _rotation(3)
    a = Analysis(g)
    low, high = a.scale
    assert low == TINY and high == BIG  # |q|^2 in [tiny, max]: the checks 2 / |q|^2 > 0, |q|^2 - tiny > 0
    n2 = g.guards[0].value
    assert a.ranges[n2.id] == Range(2, 1.0, 1.0)
    # each entry is 1 - 2 (q_i^2 + q_j^2) / |q|^2 or 2 (q_i q_j +- q_k q_w) / |q|^2: intervals of the normalised
    # components in [-1, 1] give at most 1 + 2 (1 + 1) = 5 and 2 (1 + 1) = 4 in magnitude
    for row in R:
        for x in row:
            r = a.ranges[x.id]
            assert a.finite[x.id] and r.degree == 0 and r.bound <= 5 + 1e-9
    # s = 2 / |q|^2 scales as lam^-2, q_x s as lam^-1: finite, of at most 2 / sqrt(tiny)
    s = g.guards[1].value
    assert a.ranges[s.id].degree == -2 and a.finite[s.id]  # the third check: s is finite
    assert a.largest(a.ranges[s.id]) == pytest.approx(2 / TINY, rel=1e-9) and 2 / TINY < BIG
    scaled = [x for x in g.nodes if x.op == "mul" and s in x.args]
    assert len(scaled) == 3
    for x in scaled:
        assert a.ranges[x.id].degree == -1 and a.finite[x.id]
        assert a.largest(a.ranges[x.id]) == pytest.approx(2 / math.sqrt(TINY), rel=1e-9)


@pytest.mark.parametrize("checks", [1, 2])
def test_without_the_checks_the_rotation_has_no_bound(checks):
    """Without ``|q|^2 - tiny > 0`` a subnormal |q|^2 below 2 / max makes s infinite; without ``s > 0`` one
    above max makes |q|^2 infinite: the analysis then bounds no entry."""
    g, R = _rotation(checks)
    a = Analysis(g)
    assert not any(a.finite[x.id] for row in R for x in row)



def test_a_division_by_the_scale_needs_a_check_that_bounds_it():
    """Review regression: ``2 / |q|^2 > 0`` alone passes for q = 0 (2 / 0 = inf), where ``q_x^2 / |q|^2`` is 0 / 0.
    Its operands are finite (the check), its x-range [0, 1]: it is finite only where a check keeps |q|^2 > 0."""

    g = Graph()
    base = g.input("base", 19)
    x, y, z, w = base[3:7]
    n2 = x * x + y * y + z * z + w * w
    g.guard(2 / n2, InvalidInputError.status, "base quaternion is too large: normalise it")
    ratio = (x * x) / n2
    a = Analysis(g)
    assert a.scale[0] == 0 and a.ranges[ratio.id].degree == 0 and not a.finite[ratio.id]
    with np.errstate(all="ignore"):
        zero = np.float64(0.0)
        assert 2 / (zero * zero) > 0 and np.isnan((zero * zero) / (zero * zero))  # what the C computes at q = 0
    g.guard(n2, InvalidInputError.status, "base quaternion is zero")  # the check quaternion_rotation makes first
    assert not Analysis(g).finite[ratio.id]  # n2 > 0 passes for a subnormal |q|^2, where 2 / |q|^2 is infinite
    g.guard(n2 - g.tiny(), InvalidInputError.status, "base quaternion is too small: normalise it")
    assert Analysis(g).finite[ratio.id]


def _scaled(*checks):
    """The analysis of |q|^2 (``n2``) under ``2 / n2 > 0`` and the strict ``checks`` (functions of ``n2`` and the
    graph); ``2 / n2`` (``s``): finite where a check keeps |q|^2 from zero."""
    g = Graph()
    x, y, z, w = g.input("base", 19)[3:7]
    n2 = x * x + y * y + z * z + w * w
    g.guard(2 / n2, InvalidInputError.status, "too large")
    for check in checks:
        g.guard(check(n2, g), InvalidInputError.status, "too small")
    a = Analysis(g)
    s = g.guards[0].value
    return a, a.finite[s.id]


def test_a_difference_check_bounds_the_scale_from_below():
    """``w - c > 0`` (w of degree d > 0, c > 0) passes only where ``lam^d >= w > c``: lam^2 > c^(2/d)."""
    a, finite = _scaled(lambda n2, g: n2 - 1e-200)
    assert a.scale[0] <= 1e-200 and a.scale[0] == pytest.approx(1e-200, rel=1e-14) and finite
    a, finite = _scaled(lambda n2, g: g.ops.sqrt(n2) - 1e-100)  # degree 1: lam > 1e-100
    assert a.scale[0] <= 1e-200 and a.scale[0] == pytest.approx(1e-200, rel=1e-12) and finite
    a, finite = _scaled(lambda n2, g: n2 - g.tiny())
    assert a.scale[0] == TINY and finite
    assert Analysis(a.graph, "float").scale[0] == 2.0 ** -126  # the leaf is the emitted precision's
    assert np.isfinite(np.float32(2) / np.float32(2.0 ** -126))
    a, finite = _scaled(lambda n2, g: n2 - 1e-40)  # in float a subnormal: it rounds, or flushes, to zero
    assert a.scale[0] == pytest.approx(1e-40, rel=1e-14) and Analysis(a.graph, "float").scale[0] == 0


@pytest.mark.parametrize("check", [
    lambda n2, g: n2 - 1e-320,  # a lower bound under 1 / max: 2 / |q|^2 may still overflow
    lambda n2, g: n2 + 1.0,  # not a difference
    lambda n2, g: n2 - (-1.0),  # c not positive
    lambda n2, g: 1.0 - n2,  # w of degree 0
    lambda n2, g: 2 / n2 - 1.0,  # w of degree -2: bounds lam from above, not below
    lambda n2, g: n2 - g.input("qd", 1)[0],  # c an input: any finite number, perhaps negative
])
def test_what_a_difference_check_does_not_bound(check):
    a, finite = _scaled(check)
    assert not finite


def test_a_non_strict_difference_check_bounds_nothing():
    """``!(n2 - tiny < 0)`` passes at ``n2 = tiny`` and for NaN: not a strict bound (the rule needs ``> 0``)."""
    g = Graph()
    x, y, z, w = g.input("base", 19)[3:7]
    n2 = x * x + y * y + z * z + w * w
    g.guard(2 / n2, InvalidInputError.status, "too large")
    g.guard(n2 - g.tiny(), InvalidInputError.status, "too small", strict=False)
    assert Analysis(g).scale[0] == 0

def test_the_quaternion_check_refuses_a_tiny_quaternion():
    """|q|^2 below the smallest normal double (for 1e-155, ``2 / |q|^2`` overflows): the third check refuses it
    (the NumPy backend); just above it, the rotation is computed."""

    from rbdgen.backends import NumpyOps

    with np.errstate(all="ignore"), pytest.raises(InvalidInputError, match="too small"):
        quaternion_rotation(np.array([1e-155, 0.0, 0.0, 0.0]), NumpyOps())
    with pytest.raises(InvalidInputError, match="too small"):
        quaternion_rotation(np.array([1.4e-154, 0.0, 0.0, 0.0]), NumpyOps())  # 1.96e-308 < tiny: 2 / it is finite
    for x in (1e-150, 1.5e-154):  # 1.5e-154^2 = 2.25e-308 > tiny
        R = quaternion_rotation(np.array([x, 0.0, 0.0, 0.0]), NumpyOps())
        assert np.allclose(np.asarray(R, dtype=float), np.diag([1.0, -1.0, -1.0]))


def test_absent_inputs_are_zero():
    g = Graph()
    (q,) = g.input("q", 1)
    (f,) = g.input("loads", 1)
    y = g.ops.sin(q) + 2 * f
    assert not Analysis(g).finite[y.id]
    a = Analysis(g, absent=["loads"])
    assert a.finite[y.id]
    _close(a.ranges[y.id], 0, -1.0, 1.0)


@pytest.mark.parametrize("robot", ["panda", "solo12"])
def test_kernels(robot):
    """M and g (without loads) are bounded, by at least what random states give (the NumPy engine); ID squares
    the velocities and FD divides by the pivots: no bound."""

    import rbdgen
    from rbdgen.testing import random_states

    R = ROBOTS[robot]
    model = load_robot(R.path, floating=R.floating)
    kernels = {op: trace_operation(model, op) for op in ("mass_matrix", "gravity", "inverse_dynamics",
                                                         "forward_dynamics")}
    M = bounded_outputs(kernels["mass_matrix"])["M"]
    assert bounded_outputs(kernels["gravity"]) == {}  # loads: any finite wrench
    g = bounded_outputs(kernels["gravity"], absent=["loads"])["g"]
    assert M < MARGIN * BIG and g < MARGIN * BIG
    assert bounded_outputs(kernels["inverse_dynamics"], absent=["loads"]) == {}
    assert bounded_outputs(kernels["forward_dynamics"], absent=["loads"]) == {}
    solver, states = rbdgen.NumpySolver(model), random_states(model, 64, seed=5)
    head = (states.base,) if model.floating else ()
    assert np.abs(solver.mass_matrix(*head, states.q)).max() <= M
    assert np.abs(solver.gravity(*head, states.q)).max() <= g
