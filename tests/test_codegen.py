"""Generated, compiled C (`CompiledSolver`) on every test robot.

* results against the NumPy engine and Pinocchio (normwise relative error: M, ID,
  g, C within 1e-12, both forward dynamics within 1e-10), batched, at random
  states and base poses, with loads on several links;
* ``passive_terms`` called through the C directly, NULL outputs included;
* error statuses from the C (direct calls) and the exceptions from Python:
  invalid input (1), singular (2), ill-conditioned (3), non-finite (4); on an
  error every output is zero;
* batches, ``out=`` and ``mask=``; the single-precision variant; `validate()`
  on a tampered build; operation counts; byte-stable committed output.

Each robot is generated and compiled once per session (``compiled`` in conftest.py).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import (
    LOAD_LINKS,
    LOAD_OPERATIONS,
    NAMES,
    TIGHT,
    assert_close,
    call,
    call_reference,
    pinocchio,
    random_states,
    rel_error,
    solver,
    tolerance,
)
from models import body, chain, point_mass_wrist
from robots import ROBOTS
from rbdgen.algorithms.kinematics import Tree
from rbdgen.algorithms.ltdl import coordinate_parents
from rbdgen.algorithms.operations import OPERATIONS as RECORDS
from rbdgen.codegen.c import layout, parts, solves
from rbdgen.codegen.generator import ALL_OPERATIONS
from rbdgen.ir.optimize import COUNT_KEYS

GENERATED = Path(__file__).resolve().parents[1] / "generated"

#: States per robot in the accuracy tests (Talos is large: few).
SAMPLES = {"talos": 3, "g1": 6}
FIXED, FLOATING = "panda", "solo12"

@functools.lru_cache(maxsize=None)
def states(name: str, n: int = None):
    s = solver(name)
    return random_states(s, n or SAMPLES.get(name, 10), seed=300 + NAMES.index(name), load_links=LOAD_LINKS[name])


# -- direct C calls ---------------------------------------------------------------------------
def c_call(s, op, inputs: dict, batch: bool = True, mask=None, null=(), fill=7.0):
    """Call ``<prefix>_<op>_batch`` (or the single-state function: N must be 1) through cffi.

    Outputs start filled with ``fill`` (so zeroing is visible); names in ``null`` are passed
    as NULL. Returns ``(return value, status array or None, {output: (N, size) array})``.
    """
    ffi, function = s.c_function(f"{op}_batch" if batch else op)
    real = "double" if s.dtype == np.float64 else "float"
    N = inputs["q"].shape[0]
    args, keep = [], []
    for name in RECORDS[op].input_names(s.floating):
        value = inputs.get(name)
        if value is None:
            args.append(ffi.NULL)
        else:
            keep.append(np.ascontiguousarray(value, s.dtype))
            args.append(ffi.from_buffer(f"{real}[]", keep[-1]))
    outputs = {}
    for name in tuple(p.name for p in RECORDS[op].outputs):
        if name in null:
            args.append(ffi.NULL)
        else:
            outputs[name] = np.full((N, s.manifest["sizes"][name]), fill, s.dtype)
            args.append(ffi.from_buffer(f"{real}[]", outputs[name]))
    if not batch:
        assert N == 1
        return function(*args), None, outputs
    status = np.full(N, -1, np.intc)
    m = ffi.NULL
    if mask is not None:
        keep.append(np.ascontiguousarray(mask, np.uint8))
        m = ffi.from_buffer("unsigned char[]", keep[-1])
    rc = function(N, *args, m, ffi.from_buffer("int[]", status))
    return rc, status, outputs


def pick(inputs: dict, i: int) -> dict:
    return {k: None if v is None else v[i:i + 1] for k, v in inputs.items()}


def raised(function):
    """The exception class ``function()`` raises, or None."""
    try:
        function()
    except Exception as exc:  # noqa: BLE001 - the class is what is compared
        return type(exc)
    return None


# -- accuracy ----------------------------------------------------------------------------------
@pytest.mark.parametrize("op", rbdgen.DYNAMICS)
@pytest.mark.parametrize("name", NAMES)
def test_compiled_equals_numpy_engine(compiled, name, op):
    c, s, st = compiled(name), solver(name), states(name)
    for loads in (False, True) if op in LOAD_OPERATIONS else (False,):
        got, expected = call(c, op, st, loads=loads), call(s, op, st, loads=loads)
        assert got.shape == expected.shape and got.dtype == np.float64
        for i in range(st.n):
            err = rel_error(got[i], expected[i])
            assert err <= tolerance(op), f"{name} {op} (loads={loads}) state {i}: {err:.3e}"


@pytest.mark.parametrize("op", rbdgen.DYNAMICS)
@pytest.mark.parametrize("name", NAMES)
def test_compiled_against_pinocchio(compiled, name, op):
    pytest.importorskip("pinocchio")
    c, p, st = compiled(name), pinocchio(name), states(name)
    for loads in (False, True) if op in LOAD_OPERATIONS else (False,):
        got = call(c, op, st, loads=loads)
        for i in range(st.n):
            expected = call_reference(p, op, st, i, loads=loads)
            err = rel_error(got[i], expected)
            assert err <= tolerance(op), f"{name} {op} (loads={loads}) state {i}: {err:.3e}"
            if loads:  # the loads matter far beyond the tolerance: the comparison does test them
                assert rel_error(call_reference(p, op, st, i), expected) > 1e3 * tolerance(op)


# -- passive_terms through the C ----------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_passive_terms_through_the_c(compiled, name):
    c, st = compiled(name), states(name)
    G, N = c.generalized_count, st.n
    inputs = st.flat()
    head = st.head()
    pytest.importorskip("pinocchio")
    p = pinocchio(name)  # the reference: Pinocchio's M, g and C qd
    expected = {key: np.array([call_reference(p, op, st, i) for i in range(N)])
                for key, op in (("M", "mass_matrix"), ("g", "gravity"), ("c", "velocity_product_forces"))}
    rc, status, out = c_call(c, "passive_terms", inputs)
    assert rc == 0 and np.all(status == 0)
    M = out["M"].reshape(N, G, G).transpose(0, 2, 1)  # column-major: M[col * G + row]
    for i in range(N):
        assert_close(M[i], expected["M"][i], TIGHT, f"M state {i}")
        assert_close(out["g"][i], expected["g"][i], TIGHT, f"g state {i}")
        assert_close(out["c"][i], expected["c"][i], TIGHT, f"c state {i}")
    # any output may be NULL; the others are unchanged, in the batch and single-state functions
    for k in range(4):
        for null in itertools.combinations(("M", "g", "c"), k):
            rc, status, part = c_call(c, "passive_terms", inputs, null=null)
            assert rc == 0 and np.all(status == 0), null
            assert set(part) == {"M", "g", "c"} - set(null)
            for key, value in part.items():
                assert np.array_equal(value, out[key]), (null, key)
            rc, _, single = c_call(c, "passive_terms", pick(inputs, 1), batch=False, null=null)
            assert rc == 0
            for key, value in single.items():
                assert np.array_equal(value[0], out[key][1]), (null, key)
    # the Python method calls the same C function (its quaternion normalisation may differ in the last bit)
    python = c.passive_terms(*head, st.q, st.qd)
    for i in range(N):
        assert_close(python["mass_matrix"][i], M[i], TIGHT, f"passive_terms() M state {i}")
        assert_close(python["gravity"][i], out["g"][i], TIGHT, f"passive_terms() g state {i}")
        assert_close(python["velocity_product_forces"][i], out["c"][i], TIGHT, f"passive_terms() c state {i}")
    assert set(c.passive_terms(*head, st.q, st.qd, gravity=False)) == {"mass_matrix", "velocity_product_forces"}


# -- error statuses ----------------------------------------------------------------------------
def _bad_inputs(c, st, op, name, value):
    """Flat inputs of ``st`` with ``value`` in input ``name`` of state 1."""
    inputs = {k: None if v is None else v.copy() for k, v in st.flat().items()}
    inputs[name][1, -1] = value
    return {k: inputs[k] for k in RECORDS[op].input_names(c.floating)}


@pytest.mark.parametrize("op", ALL_OPERATIONS)
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_c_rejects_non_finite_input(compiled, name, op):
    """Status 1 for a NaN or infinity in any input; the failed state's outputs are zero,
    the other states of the batch are evaluated."""
    c = compiled(name)
    st = states(name)
    good = {k: v for k, v in st.flat().items() if k in RECORDS[op].input_names(c.floating)}
    _, _, reference = c_call(c, op, good)
    for arg in RECORDS[op].input_names(c.floating):
        for value in (np.nan, np.inf, -np.inf):
            inputs = _bad_inputs(c, st, op, arg, value)
            rc, status, out = c_call(c, op, inputs)
            assert rc == 1, (arg, value)
            assert status[1] == 1 and np.all(np.delete(status, 1) == 0), (arg, status)
            for key, values in out.items():
                assert np.all(values[1] == 0), (arg, key)
                assert np.array_equal(np.delete(values, 1, axis=0), np.delete(reference[key], 1, axis=0))
            rc, _, out = c_call(c, op, pick(inputs, 1), batch=False)
            assert rc == 1 and all(np.all(v == 0) for v in out.values()), (arg, value)


def _python_args(st, op, floating):
    names = {"mass_matrix": ("q",), "velocity_product_forces": ("q", "qd"), "gravity": ("q",),
             "inverse_dynamics": ("q", "qd", "qdd"), "forward_dynamics": ("q", "qd", "tau"),
             "forward_dynamics_crba": ("q", "qd", "tau")}[op]
    return st.head() + tuple(getattr(st, n) for n in names), names


@pytest.mark.parametrize("op", rbdgen.DYNAMICS)
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_python_non_finite_input(compiled, name, op):
    """From Python a non-finite value is a ValueError (as NumpySolver's) raised before the C;
    the C's own check reaches Python as InvalidInputError."""
    c, s = compiled(name), solver(name)
    st = states(name)
    q = st.q.copy()
    q[1, 0] = np.nan
    args, _ = _python_args(st, op, c.floating)
    head = len(st.head())
    bad = args[:head] + (q,) + args[head + 1:]
    with pytest.raises(ValueError) as compiled_error:
        getattr(c, op)(*bad)
    with pytest.raises(ValueError) as numpy_error:
        getattr(s, op)(*bad)
    assert type(compiled_error.value) is ValueError
    assert str(compiled_error.value) == str(numpy_error.value) == "q: contains a non-finite value"
    loads = st.loads.copy()
    loads[2, -1, 0] = np.inf
    if op in LOAD_OPERATIONS:
        with pytest.raises(ValueError, match="^loads: contains a non-finite value$") as info:
            getattr(c, op)(*args, loads=loads)
        assert type(info.value) is ValueError
    # bypassing the Python checks, the C's status 1 maps to InvalidInputError
    inputs, _ = c._inputs(op, args, st.loads if op in LOAD_OPERATIONS else None)
    inputs = {k: v.copy() for k, v in inputs.items()}  # (views of the cached states)
    inputs["q"][1, 0] = np.nan
    with pytest.raises(rbdgen.InvalidInputError, match=rf"^{op}: invalid input \(state 1\)$"):
        c._evaluate(op, inputs, None, tuple(p.name for p in RECORDS[op].outputs))
    assert issubclass(rbdgen.InvalidInputError, ValueError)


@pytest.mark.parametrize("op", ALL_OPERATIONS)
def test_c_zero_quaternion(compiled, op):
    c = compiled(FLOATING)
    st = states(FLOATING)
    inputs = {k: v for k, v in st.flat().items() if k in RECORDS[op].input_names(True)}
    inputs["base"] = inputs["base"].copy()
    inputs["base"][1, 3:7] = 0.0
    rc, status, out = c_call(c, op, inputs)
    assert rc == 1 and list(status[:3]) == [0, 1, 0]
    assert all(np.all(v[1] == 0) and np.all(v[0] != 7.0) for v in out.values())
    rc, _, out = c_call(c, op, pick(inputs, 1), batch=False)
    assert rc == 1 and all(np.all(v == 0) for v in out.values())
    # a non-unit quaternion is normalised by the C too
    scaled = dict(inputs, base=st.flat()["base"].copy())
    scaled["base"][:, 3:7] *= 3.7
    _, _, plain = c_call(c, op, dict(inputs, base=st.flat()["base"]))
    rc, _, out = c_call(c, op, scaled)
    assert rc == 0
    for key in out:
        for i in range(st.n):
            assert_close(out[key][i], plain[key][i], tolerance(op), key)


def test_python_zero_quaternion(compiled):
    c = compiled(FLOATING)
    st = states(FLOATING)
    zero = rbdgen.BaseState(st.translation, np.zeros((st.n, 4)), st.velocity, st.acceleration)
    for op in rbdgen.DYNAMICS:
        args, _ = _python_args(st, op, True)
        with pytest.raises(ValueError, match=r"^base rotation_xyzw: zero quaternion$") as info:
            getattr(c, op)(zero, *args[1:])
        assert type(info.value) is ValueError
        inputs, _ = c._inputs(op, args, None)
        inputs = {k: v.copy() for k, v in inputs.items()}
        inputs["quat"][2] = 0.0
        with pytest.raises(rbdgen.InvalidInputError, match=r"\(state 2\)$"):
            c._evaluate(op, inputs, None, tuple(p.name for p in RECORDS[op].outputs))


def _check_singular(c, s, q, qd, tau, singular_states):
    """Both forward dynamics: status 2 and zero outputs exactly in ``singular_states``, the
    other states as NumpySolver; SingularError from Python, as NumpySolver raises."""
    N = q.shape[0]
    ok = [i for i in range(N) if i not in singular_states]
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        rc, status, out = c_call(c, op, {"q": q, "qd": qd, "tau": tau, "loads": None})
        assert rc == 2 and [int(x) for x in status] == [2 if i in singular_states else 0 for i in range(N)], op
        assert np.all(out["acc"][list(singular_states)] == 0)
        if ok:
            assert_close(out["acc"][ok], getattr(s, op)(q[ok], qd[ok], tau[ok]), tolerance(op), op)
        for i in range(N):
            rc, _, single = c_call(c, op, {"q": q[i:i + 1], "qd": qd[i:i + 1], "tau": tau[i:i + 1], "loads": None},
                                   batch=False)
            assert rc == (2 if i in singular_states else 0)
            assert np.all(single["acc"] == 0) == (i in singular_states)
        first = min(singular_states)
        with pytest.raises(rbdgen.SingularError, match=rf"^{op}: .*not positive definite \(state {first}\)$"):
            getattr(c, op)(q, qd, tau)
        assert raised(lambda: getattr(s, op)(q, qd, tau)) is rbdgen.SingularError


def test_singular_configuration(build_model):
    """A point mass 0.2 m out along the elbow's axis (y), which a wrist joint (axis x, at the
    elbow's origin) swings off that axis: M[0, 0] = 0.5 (0.2 sin q_wrist)^2 vanishes at
    q_wrist = 0, where both forward dynamics return 2; the other states are fine."""
    model = rbdgen.load_urdf_string(point_mass_wrist())
    c, s = build_model(model), rbdgen.NumpySolver(model)
    q = np.array([[0.3, 0.7], [0.3, 0.0], [-1.0, 2.0]])
    qd, tau = np.array([[0.5, 0.1]] * 3), np.array([[1.0, 0.5]] * 3)
    M = c.mass_matrix(q)
    assert M[1, 0, 0] == 0.0 and np.all(M[[0, 2], 0, 0] > 0)
    assert_close(M, s.mass_matrix(q), TIGHT, "M")
    assert_close(c.inverse_dynamics(q, qd, q), s.inverse_dynamics(q, qd, q), TIGHT, "inverse dynamics")
    _check_singular(c, s, q, qd, tau, {1})


def test_massless_tip_is_singular(build_model):
    """A massless moving tip: M is singular whatever q: both forward dynamics return 2 / SingularError."""
    model = rbdgen.load_urdf_string(chain())
    s = rbdgen.NumpySolver(model)
    q = np.array([[0.3, -0.4], [0.0, 0.0]])
    qd, tau = np.array([[0.5, 0.1]] * 2), np.array([[1.0, 0.0]] * 2)
    c = build_model(model)
    M = c.mass_matrix(q)
    assert np.all(M[:, 1, 1] == 0.0) and np.all(M[:, 0, 0] > 0)
    assert_close(c.inverse_dynamics(q, qd, q), s.inverse_dynamics(q, qd, q), TIGHT, "inverse dynamics")
    _check_singular(c, s, q, qd, tau, {0, 1})
    # the manifest says so; validation compares the other operations and checks these two fail alike
    fails = {op: info["always_fails"]["status"] for op, info in c.manifest["operations"].items()
             if "always_fails" in info}
    assert fails == {"forward_dynamics": 2, "forward_dynamics_crba": 2}
    worst = c.validate(samples=2)
    assert set(worst) == set(c.operations) - set(fails) and max(worst.values()) <= TIGHT


def test_ill_conditioned_floating_base(build_model):
    """A floating body of mass 1, rotational inertia 1e-12, centre of mass 0.1 m off its origin:
    positive definite but ill-conditioned: 3 / IllConditionedError from both forward dynamics."""
    model = rbdgen.load_urdf_string(body(1, (1e-12, 1e-12, 1e-12), "0.1 0 0"), floating=True)
    c, s = build_model(model), rbdgen.NumpySolver(model)
    assert c.joint_count == 0 and c.generalized_count == 6
    base = rbdgen.BaseState((1.0, 2.0, 3.0), (0.0, 0.0, 0.0, 1.0), (0.1, 0.2, 0.3, 1.0, 2.0, 3.0))
    tau = np.array([1e-20, 2e-20, 0.0, 1.0, 0.0, 0.0])
    empty = np.zeros(0)
    assert np.array_equal(c.mass_matrix(base, empty), s.mass_matrix(base, empty))
    base_values = np.r_[base.translation, base.rotation_xyzw, base.velocity, np.zeros(6)]
    flat = {"base": np.tile(base_values, (2, 1)), "q": np.zeros((2, 0)), "qd": np.zeros((2, 0)),
            "tau": np.tile(tau, (2, 1)), "loads": None}
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        rc, status, out = c_call(c, op, flat)
        assert rc == 3 and list(status) == [3, 3] and np.all(out["acc"] == 0)
        rc, _, out = c_call(c, op, pick(flat, 0), batch=False)
        assert rc == 3 and np.all(out["acc"] == 0)
        with pytest.raises(rbdgen.IllConditionedError, match=rf"^{op}: ill-conditioned solve \(state 0\)$"):
            getattr(c, op)(base, empty, empty, tau)
        assert raised(lambda: getattr(s, op)(base, empty, empty, tau)) is rbdgen.IllConditionedError


OVERFLOW_OPS = ("velocity_product_forces", "inverse_dynamics", "forward_dynamics", "forward_dynamics_crba")


@pytest.mark.parametrize("op", OVERFLOW_OPS)
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_overflow_is_non_finite(compiled, name, op):
    """qd = 1e200 in state 1 of 3: status 4 and zero outputs there, the same exception class
    as NumpySolver's from Python; the other states are evaluated."""
    c, s = compiled(name), solver(name)
    st = random_states(s, 3, seed=41)
    st.qd[1] = 1e200
    expected = raised(lambda: call(s, op, st))
    assert expected is rbdgen.NonFiniteError
    with np.errstate(all="ignore"):
        got = raised(lambda: call(c, op, st))
    assert got is expected
    inputs = {k: v for k, v in st.flat().items() if k in RECORDS[op].input_names(c.floating)}
    rc, status, out = c_call(c, op, inputs)
    assert rc == 4 and list(status) == [0, 4, 0]
    assert np.all(out[RECORDS[op].outputs[0].name][1] == 0)
    for i in (0, 2):  # (the Python path normalises the quaternion again: not bit-identical)
        assert_close(out[RECORDS[op].outputs[0].name][i], call(c, op, st, i), tolerance(op), f"state {i}")
    rc, _, single = c_call(c, op, pick(inputs, 1), batch=False)
    assert rc == 4 and all(np.all(v == 0) for v in single.values())


# -- batches, out=, mask= ------------------------------------------------------------------------
BATCH_CASES = [pytest.param(op, False, id=op) for op in rbdgen.DYNAMICS] + [
    pytest.param(op, True, id=f"{op}-loads") for op in LOAD_OPERATIONS]


@pytest.mark.parametrize("op, loads", BATCH_CASES)
@pytest.mark.parametrize("name", [FIXED, "hand"])
def test_batch_equals_single_states_exactly(compiled, name, op, loads):
    c = compiled(name)
    st = states(name)
    batch = call(c, op, st, loads=loads)
    for i in range(st.n):
        single = call(c, op, st, i, loads=loads)
        assert single.shape == batch.shape[1:]
        assert np.array_equal(single, batch[i]), f"state {i}"
    out = np.full(batch.shape, np.nan)
    assert call(c, op, st, loads=loads, out=out) is out
    assert np.array_equal(out, batch)
    one = np.full(batch.shape[1:], np.nan)
    assert call(c, op, st, 0, loads=loads, out=one) is one
    assert np.array_equal(one, batch[0])


@pytest.mark.parametrize("name", [FLOATING, "talos"])
def test_floating_single_states_and_out(compiled, name):
    """Floating base: ``out=`` (single and batch) equals the batch exactly; plain single-state
    calls agree with it within the accuracy tolerances (exactly: the test below)."""
    c = compiled(name)
    st = states(name)
    for op in rbdgen.DYNAMICS:
        for loads in (False, True) if op in LOAD_OPERATIONS else (False,):
            batch = call(c, op, st, loads=loads)
            out = np.full(batch.shape, np.nan)
            assert call(c, op, st, loads=loads, out=out) is out
            assert np.array_equal(out, batch)
            for i in range(st.n):
                one = np.full(batch.shape[1:], np.nan)
                assert call(c, op, st, i, loads=loads, out=one) is one
                assert np.array_equal(one, batch[i]), f"{op} (loads={loads}) out=, state {i}"
                assert_close(call(c, op, st, i, loads=loads), batch[i], tolerance(op), f"{op} state {i}")


def test_floating_single_states_equal_the_batch_exactly(compiled):
    c = compiled(FLOATING)
    st = states(FLOATING)
    differ = []
    for op in rbdgen.DYNAMICS:
        for loads in (False, True) if op in LOAD_OPERATIONS else (False,):
            batch = call(c, op, st, loads=loads)
            differ += [(op, loads, i) for i in range(st.n) if not np.array_equal(call(c, op, st, i, loads=loads),
                                                                                 batch[i])]
    assert not differ, f"{len(differ)} single states differ from the batch, first {differ[:3]}"


def _masked(solver_, op, st, mask, loads):
    args, _ = _python_args(st, op, solver_.floating)
    kwargs = {"loads": st.loads} if loads else {}
    return getattr(solver_, op)(*args, mask=mask, **kwargs)


#: How state 1 is made to fail from Python (finite inputs: the C's checks, not the argument checks);
#: the mass matrix has none (bounded in q), its failing state is checked through the C batch alone.
FAILING = {"gravity": ("loads", 1e308), "mass_matrix": None}


@pytest.mark.parametrize("op", rbdgen.DYNAMICS)
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_mask(compiled, name, op):
    """The mask through the Python entry point, the library's C batch path (`_evaluate`: the cffi call
    of ``<op>_batch`` with its marks) and a raw call of ``<op>_batch``: selected states as unmasked,
    the others zero and not evaluated (a failing state masked out passes, selected it fails)."""
    c, s = compiled(name), solver(name)
    st = states(name)
    loads = op in LOAD_OPERATIONS
    full = call(c, op, st, loads=loads)
    mask = np.arange(st.n) % 3 != 1
    got = _masked(c, op, st, mask, loads)
    assert got.shape == full.shape
    assert np.array_equal(got[mask], full[mask])
    assert np.all(got[~mask] == 0)
    assert_close(got, _masked(s, op, st, mask, loads), tolerance(op), op)  # C's sin and cos: within 1 ulp
    assert np.all(_masked(c, op, st, np.zeros(st.n, bool), loads) == 0)
    # the library's C batch path and the raw batch function
    outputs = tuple(p.name for p in RECORDS[op].outputs)
    args, _ = _python_args(st, op, c.floating)
    inputs, _ = c._inputs(op, args, st.loads if loads else None)
    batch = c._evaluate(op, inputs, mask, outputs)[outputs[0]]
    assert np.array_equal(batch[mask], full[mask]) and np.all(batch[~mask] == 0)
    flat = {k: v for k, v in st.flat().items() if k != "loads" or loads}
    rc, status, raw = c_call(c, op, flat, mask=mask)
    assert rc == 0 and np.all(status == 0)
    assert np.all(raw[outputs[0]][~mask] == 0)
    assert np.array_equal(raw[outputs[0]][mask], c_call(c, op, flat)[2][outputs[0]][mask])
    # a state that fails (a NaN q, past the Python checks) is not evaluated when masked out
    bad = {k: v.copy() for k, v in flat.items()}
    bad["q"][1, 0] = np.nan
    rc, status, raw = c_call(c, op, bad, mask=mask)
    assert rc == 0 and np.all(status == 0) and np.all(raw[outputs[0]][1] == 0)
    rc, status, raw = c_call(c, op, bad, mask=~mask)
    assert rc == status[1] == rbdgen.InvalidInputError.status and np.all(status[[0, 2]] == 0)
    bad_inputs = {k: v.copy() for k, v in inputs.items()}
    bad_inputs["q"][1, 0] = np.nan
    assert np.all(c._evaluate(op, bad_inputs, mask, outputs)[outputs[0]][1] == 0)
    with pytest.raises(rbdgen.InvalidInputError, match=rf"^{op}: invalid input \(state 1\)$"):
        c._evaluate(op, bad_inputs, ~mask, outputs)
    # from Python: finite inputs that make the C fail (an overflow)
    if FAILING.get(op, ()) is not None:
        field, value = FAILING.get(op, ("qd", 1e200))
        failing = random_states(s, st.n, seed=300 + NAMES.index(name), load_links=LOAD_LINKS[name])
        getattr(failing, field)[1] = value
        with np.errstate(all="ignore"):
            result = _masked(c, op, failing, mask, loads)
            assert np.all(result[1] == 0) and np.all(np.isfinite(result))
            with pytest.raises(rbdgen.NonFiniteError, match=r"\(state 1\)$"):
                _masked(c, op, failing, ~mask, loads)


# -- single precision ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_float_variant(compiled, generated, name):
    f, d = compiled(name, "float"), compiled(name)
    assert f.precision == "float" and f.dtype == np.float32
    source = "".join(text for file, text in generated(name, "float").files.items() if file.endswith(".c"))
    assert "sinf(" in source and "cosf(" in source and "const float t0 = " in source
    assert "const double" not in source and " sin(" not in source
    worst = f.validate(samples=8, seed=3)
    assert all(err <= RECORDS[op].tolerance[1] for op, err in worst.items()), worst
    st = states(name)
    for op in rbdgen.DYNAMICS:
        for loads in (False, True) if op in LOAD_OPERATIONS else (False,):
            single, double = call(f, op, st, loads=loads), call(d, op, st, loads=loads)
            assert single.dtype == np.float64  # results are float64 arrays whatever the precision
            for i in range(st.n):
                err = rel_error(single[i], double[i])
                assert err <= 1e-4, f"{op} (loads={loads}) state {i}: {err:.3e}"


# -- validate() catches a wrong build ---------------------------------------------------------------
LITERAL = re.compile(r"(?<![\w.])(\d+\.\d+(?:e[-+]?\d+)?)(?![\w.])")


@pytest.mark.parametrize("op", ["mass_matrix", "gravity", "forward_dynamics"])
def test_validate_catches_a_wrong_constant(tmp_path, generated, build_cache, op):
    name = "double_pendulum"
    folder = generated(name).write(tmp_path / name)
    good = rbdgen.load(folder, TEST_FLAGS, build_cache)
    assert set(good.validate(samples=4)) == set(ALL_OPERATIONS)
    path = folder / f"{name}_{op}.c"
    text = path.read_text()
    start = text.index(f"int {name}_{op}(")
    end = text.index("\n}\n", start)
    # a constant of the model (not 0 or 1, and not a rounding-level coupling such as 6e-11 whose change is lost)
    literal = next(m for m in LITERAL.finditer(text, start, end) if 1e-6 < float(m.group(1)) != 1.0)
    wrong = repr(float(literal.group(1)) * 1.01)
    path.write_text(text[:literal.start()] + wrong + text[literal.end():])
    tampered = rbdgen.load(folder, TEST_FLAGS, build_cache)
    with pytest.raises(rbdgen.ValidationError) as info:
        tampered.validate(samples=4)
    message = str(info.value)
    match = re.fullmatch(rf"{op}: relative error (\S+) \(absolute (\S+), state \d\) exceeds (\S+) against the NumPy "
                         rf"engine \(tolerance ([^ ,)]+)(?: \+ G eps cond\(equilibrated M\), cond \S+)?\)", message)
    assert match, message
    rel, absolute, allowed, tol = (float(x) for x in match.groups())
    assert rel > allowed >= tol == RECORDS[op].tolerance[0] and absolute > 0


# -- operation counts ---------------------------------------------------------------------------------
def _revolute_joints_that_matter(model, op) -> int:
    """Joint angles an operation needs (one sin and one cos each).

    Floating base: all. Fixed base: M and C do not depend on the joints attached to the
    world; gravity (and everything that includes it) does, unless the joint turns about
    the gravity axis (loads are in link frames, so they do not bring the angle back).
    Mimic joints with the same angle as another joint (``a q + b`` alike, as Talos'
    gripper fingers) share its sin and cos.
    """
    g = np.array(model.gravity) / np.linalg.norm(model.gravity)

    def vertical(j):
        axis = np.array(j.origin.rotation) @ np.array(j.axis)
        return abs(abs(axis @ g) - 1.0) < 1e-12

    def matters(j):
        if model.floating or j.parent != -1:
            return True
        return op not in ("mass_matrix", "velocity_product_forces") and not vertical(j)

    return len({angle for angle, j in zip(model.coordinates, model.joints) if j.kind == "revolute" and matters(j)})


@pytest.mark.parametrize("name", NAMES)
def test_operation_counts(compiled, generated, name):
    g, c = generated(name), compiled(name)
    counts = g.operation_counts
    assert set(counts) == set(ALL_OPERATIONS)
    assert counts == c.operation_counts == {op: info["counts"] for op, info in g.manifest["operations"].items()}
    header = g.files[f"{name}.h"]
    saved = json.loads(g.files[f"{name}.json"])["operations"]
    for op, n in counts.items():
        assert set(n) == set(COUNT_KEYS) and all(isinstance(v, int) and v >= 0 for v in n.values())
        assert saved[op]["counts"] == n
        summary = ", ".join(f"{n[k]} {k}" for k in COUNT_KEYS if n[k])
        assert f" * Cost: {summary}.\n" in header.split(f"/* {name}_{op}: ", 1)[1].split("*/", 1)[0]
        assert f"/* {op}: {summary} */\nRBDGEN_HOST_DEVICE RBDGEN_ALIGNED int {name}_{op}(" in g.files[f"{name}_{op}.c"]
        assert n["mul"] > 0 and n["add"] > 0
        assert n["sin"] == n["cos"] == _revolute_joints_that_matter(g.model, op) <= len(g.model.joints), op
        # no solver call (ABA's 6x6 base block and the sparse LTDL are inline) but where mimic joints break the
        # tree's pattern: both forward dynamics go through the reduced mass matrix, one dense Cholesky call
        mimic = g.model.joint_count < len(g.model.joints)
        dense = mimic and op.startswith("forward_dynamics") and coordinate_parents(Tree.from_model(g.model)) is None
        assert n["calls"] == (1 if dense else 0), op
    # the text of the sources (the function, and its parts where it is split): a sine and a cosine per counted
    # one, of one argument in one call (<prefix>_sincos, or two or four arguments in <prefix>_sincos2 or 4), a lone one as
    # <prefix>_sin or <prefix>_cos
    fn = g.files[f"{name}_mass_matrix.c"].split(f"int {name}_mass_matrix(", 1)[1].split("\n}\n", 1)[0]
    fn += "".join(g.files[n] for n in g.c_sources if re.fullmatch(rf"{name}__\d+_mass_matrix\.c", n))
    pairs = fn.count(f" {name}_sincos(") + 2 * fn.count(f" {name}_sincos2(") + 4 * fn.count(f" {name}_sincos4(")
    assert pairs + fn.count(f" {name}_sin(") == counts["mass_matrix"]["sin"]
    assert pairs + fn.count(f" {name}_cos(") == counts["mass_matrix"]["cos"]
    assert " sin(" not in fn and " cos(" not in fn


# -- split operations ------------------------------------------------------------------------------------
def test_split_operations_equal_whole_ones(monkeypatch, compiled, build_cache):
    """Operations split into parts (`layout.PART_STEPS` and `PART_VALUES` made small: each a source of its own,
    ending early where it would hold many values, values handed over in an array; the loads' terms, the
    solves and the stores in the parts) give exactly the whole operations' results, which `validate` checks
    against the NumPy engine."""
    monkeypatch.setattr(layout, "PART_STEPS", 300)
    monkeypatch.setattr(layout, "PART_VALUES", 20)
    g = rbdgen.generate(ROBOTS[FLOATING].path, floating=True, prefix=f"{FLOATING}_parts")
    early = []
    for op in ALL_OPERATIONS:
        parts = [n for n in g.c_sources if re.fullmatch(rf"{FLOATING}_parts__\d+_{op}\.c", n)]
        if "calls" in g.manifest["operations"][op]:  # forward_dynamics_crba calls forward_dynamics (CRBA's)
            assert not parts and g.manifest["operations"][op]["calls"] == "forward_dynamics", op
            continue
        assert len(parts) >= sum(g.operation_counts[op].values()) // 300 > 1, op
        early.append(len(parts) > -(-sum(g.operation_counts[op].values()) // 300))
    assert any(early)  # some parts end before 300 steps: they would hold more than 20 values
    split, whole = g.compile(TEST_FLAGS, build_cache, validate=True, samples=4), compiled(FLOATING)
    st = states(FLOATING)
    for op, loads in [(op, False) for op in rbdgen.DYNAMICS] + [(op, True) for op in LOAD_OPERATIONS]:
        assert np.array_equal(call(split, op, st, loads=loads), call(whole, op, st, loads=loads)), (op, loads)


def test_split_operations_zero_runs_of_outputs(monkeypatch, build_cache):
    """With the legs' joints in depth-first order, the mass matrix is zero in runs (between legs): a part stores
    each run with one `<prefix>_zero` call; the results agree with the NumPy engine (`validate`), the zeros
    exactly."""
    monkeypatch.setattr(layout, "PART_STEPS", 300)
    g = rbdgen.generate(ROBOTS[FLOATING].path, floating=True, prefix=f"{FLOATING}_runs", joint_order="depth_first",
                        ops=["mass_matrix", "passive_terms"])
    runs = [m for n in g.c_sources for m in re.findall(rf"{FLOATING}_runs_zero\(M \+ \d+, (\d+)\);", g.files[n])]
    assert runs and all(int(n) >= parts.ZERO_RUN for n in runs)
    split = g.compile(TEST_FLAGS, build_cache, validate=True, samples=4)
    reference = rbdgen.NumpySolver(g.model)
    st = random_states(reference, 4, seed=7)
    M, expected = split.mass_matrix(st.base, st.q), reference.mass_matrix(st.base, st.q)
    assert np.array_equal(M == 0, expected == 0) and np.count_nonzero(M == 0) >= sum(map(int, runs))
    assert_close(M, expected, TIGHT, "M")


# -- committed output is byte-stable --------------------------------------------------------------------
#: The bundled robots, as generated/README.md's table lists them (``| `panda/` | ...``).
COMMITTED = [GENERATED / name for name in re.findall(r"^\| `(\w+)/` \|", (GENERATED / "README.md").read_text(), re.M)]


def test_readme_lists_every_committed_folder():
    assert sorted(COMMITTED) == sorted(p.parent for p in GENERATED.glob("*/*.json"))


def regenerate_command(folder: Path) -> str:
    """The command of generated/README.md that regenerates ``folder``, run with the worktree's rbdgen."""
    (command,) = re.findall(rf"^    rbdgen (generate generated/{folder.name}/.*)$",
                            (GENERATED / "README.md").read_text(), re.M)
    return f".venv/bin/rbdgen {command}"


def test_readme_names_one_command_per_committed_folder():
    assert all(regenerate_command(folder).endswith(f"-o generated/{folder.name} --no-compile --force")
               for folder in COMMITTED)


@pytest.mark.parametrize("folder", COMMITTED, ids=lambda p: p.name)
def test_committed_output_regenerates_byte_identical(folder):
    manifest = json.loads((folder / f"{folder.name}.json").read_text())
    options = dict(manifest["options"])
    ops = options.pop("ops")
    assert manifest["source"] and (folder / manifest["source"]).is_file()
    g = rbdgen.generate(folder / manifest["source"], ops=ops, **options)
    committed = {p.name for p in folder.iterdir()} - {manifest["source"]} - {p.name for p in folder.glob("LICENSE-*")}
    stale = sorted(committed - set(g.files))  # and nothing else
    stale += [file for file, text in g.files.items()
              if not (folder / file).is_file() or (folder / file).read_bytes() != text.encode()]
    assert not stale, (f"generated/{folder.name}: {', '.join(stale[:5])}{' ...' if len(stale) > 5 else ''} "
                       f"differ from what the generator writes now. If the generator's change is meant, "
                       f"regenerate in the same commit (generated/README.md): {regenerate_command(folder)}")
    assert json.loads(g.files[f"{manifest['prefix']}.json"]) == manifest


def test_sincos_pairs_never_read_a_result_before_its_call():
    """Two angles share one `<p>_sincos2` call only where neither needs the other's results: sin(q) and
    cos(q), then sin and cos of sin(q), take two calls, the second after the first."""
    from rbdgen.codegen.c.printer import Printer
    from rbdgen.ir.trace import Graph, SymbolicOps

    graph = Graph()
    ops = SymbolicOps(graph)
    (q,) = graph.input("q", 1)
    steps = [ops.sin(q), ops.cos(q)]
    steps += [ops.sin(steps[0]), ops.cos(steps[0])]
    printer = Printer("double", "p")
    printer.pair(steps)
    lines = [line for line in map(printer.define, steps) if line]
    assert lines == ["double t0, t1; p_sincos(q[0], &t0, &t1);", "double t2, t3; p_sincos(t0, &t2, &t3);"], lines


def test_sincos_four_pairs_share_one_call():
    """Four angles known at one place share one `<p>_sincos4` call, three share a `<p>_sincos2` call and leave one
    alone: the calls take two or four angles."""
    from rbdgen.codegen.c.printer import Printer
    from rbdgen.ir.trace import Graph, SymbolicOps

    for count, want in ((5, ["double t0, t1, t2, t3, t4, t5, t6, t7; p_sincos4(q[0], q[1], q[2], q[3], &t0, &t1, &t2, "
                             "&t3, &t4, &t5, &t6, &t7);", "double t8, t9; p_sincos(q[4], &t8, &t9);"]),
                        (3, ["double t0, t1, t2, t3; p_sincos2(q[0], q[1], &t0, &t1, &t2, &t3);",
                             "double t4, t5; p_sincos(q[2], &t4, &t5);"])):
        graph = Graph()
        ops = SymbolicOps(graph)
        q = graph.input("q", count)
        steps = [f(x) for x in q for f in (ops.sin, ops.cos)]
        printer = Printer("double", "p")
        printer.pair(steps)
        assert [line for line in map(printer.define, steps) if line] == want


def test_ltdl_plan_dense_columns_take_the_least_cost_cover():
    """`solves.ltdl_plan` of columns that fill every row: the columns in their order, and no mix of 32-, 16- and
    8-wide blocks that covers them costs less by the measured time per column (`LTDL_WIDTHS`)."""
    def cost(widths):
        return sum(w * solves.LTDL_WIDTHS[w] for w in widths)

    lam = (-1, 0, 1, 1)
    dense = [1, 2, 3, 4]
    assert [w for w, _ in solves.ltdl_plan(lam, [dense] * 103).blocks] == [32, 32, 32, 8]
    for n in range(1, 201):
        plan = solves.ltdl_plan(lam, [dense] * n)
        widths = [w for w, rows in plan.blocks]
        assert plan.order == tuple(range(n)) and all(rows == (0, 1, 2, 3) for _, rows in plan.blocks), n
        assert sum(widths) >= n, n
        best = min(cost((32,) * a + (16,) * b + (8,) * c) for a in range(n // 32 + 2) for b in range(4)
                   for c in range(8) if 32 * a + 16 * b + 8 * c >= n)
        assert cost(widths) == best, (n, widths)


def test_ltdl_plan_sweeps_the_rows_a_column_reaches():
    """`solves.ltdl_plan` on a two-branch tree (0 <- 1 <- 2, 0 <- 3 <- 4): every column once; each block's L^T rows
    hold its columns' non-zero entries and their ancestors; 16 columns in branch 1-2 and 16 in branch 3-4 are two
    16-wide blocks that skip the other branch, and the LTDL solve of the planned layout, run as the kernel does
    (only the block's rows in the L^T sweep), equals NumPy's dense solve."""
    lam = (-1, 0, 1, 0, 3)
    rng = np.random.default_rng(5)
    columns = [[0, 0, float(c + 1), 0, 0] for c in range(16)] + [[0, 0, 0, 0, float(c + 1)] for c in range(16)]
    plan = solves.ltdl_plan(lam, columns)
    assert sorted(plan.order) == list(range(32))
    assert sorted((w, rows) for w, rows in plan.blocks) == [(16, (0, 1, 2)), (16, (0, 3, 4))]
    columns = [[float(v) for v in rng.integers(-3, 4, 5)] if c % 3 else [0, 0, 0, 1.0, 0] for c in range(41)]
    plan = solves.ltdl_plan(lam, columns)
    assert sorted(plan.order) == list(range(41)) and plan.columns >= 41
    L = np.eye(5)
    for k, j in ((1, 0), (2, 1), (2, 0), (3, 0), (4, 3), (4, 0)):
        L[k, j] = rng.uniform(-1, 1)
    D = rng.uniform(1, 2, 5)
    H = L.T @ np.diag(D) @ L
    first = 0
    for width, rows in plan.blocks:
        for c in plan.order[first:first + width]:
            b = np.array(columns[c])
            assert set(np.flatnonzero(b)) <= set(rows), (c, rows)
            x = b.copy()
            for k in reversed(rows):  # L^T from the leaves over the block's rows only
                x[k] -= sum(L[i, k] * x[i] for i in rows if i > k)
            x /= D
            for k in range(5):
                x[k] -= L[k, :k] @ x[:k]
            np.testing.assert_allclose(x, np.linalg.solve(H, b), rtol=1e-12, atol=1e-12)
        first += width


def _legs_inverse_plan():
    """M^-1's `solves.ltdl_plan` on a floating base with two legs (0..2 a chain, legs 3-4 and 5-6): ``(lam, the
    identity's columns, the rows read of each, the plan)``, column c read at the coordinates up to c depth first
    (`minv.symmetric_inverse`)."""
    from rbdgen.algorithms.kinematics import preorder
    lam = (-1, 0, 1, 2, 3, 2, 5)
    rank = {k: i for i, k in enumerate(preorder(lam))}
    n = len(lam)
    columns = [[float(r == c) for r in range(n)] for c in range(n)]
    read = [[rank[r] <= rank[c] for r in range(n)] for c in range(n)]
    return lam, columns, read, solves.ltdl_plan(lam, columns, read)


def _tree_factor(lam, rng):
    """A random LTDL factor of the pattern ``lam``: ``(L, its entries row by row with the ancestors nearest first,
    as a kernel reads them, D)``."""
    n = len(lam)
    L, entries = np.eye(n), []
    for k in range(n):
        j = lam[k]
        while j != -1:
            L[k, j] = rng.uniform(-1, 1)
            entries.append(L[k, j])
            j = lam[j]
    return L, entries, rng.uniform(1, 2, n)


def test_ltdl_kernel_written_out_solves_as_the_tables_do():
    """`solves.ltdl_kernel` of M^-1's plan (`LtdlPlan.inverse`) on a floating base with two legs: written out
    (`LTDL_UNROLL_MAX`), its blocks' constant sweeps, run as the C runs them on the kernel's array (L row by row,
    ancestors nearest first), give NumPy's inverse at every row read; with the bound at 0 the same kernel keeps
    its tables."""
    lam, columns, read, plan = _legs_inverse_plan()
    n = len(lam)
    kernel = solves.ltdl_kernel("p", 0, plan)
    assert plan.inverse and kernel.tables == () and all(b.up is not None for b in kernel.blocks)
    L, entries, D = _tree_factor(lam, np.random.default_rng(11))
    x = np.zeros((n, kernel.m))
    for p, c in enumerate(plan.order):
        x[:, p] = columns[c]
    for block in kernel.blocks:
        for start in range(block.first, block.end, block.width):
            cols = slice(start, start + block.width)
            for k, terms in block.up:
                x[k, cols] -= sum(entries[e] * x[i, cols] for e, i in terms)
            for k, terms in block.sweep:
                x[k, cols] = x[k, cols] / D[k] - sum((entries[e] * x[j, cols] for e, j in terms), np.zeros(block.width))
    want = np.linalg.inv(L.T @ np.diag(D) @ L)
    for p, c in enumerate(plan.order):
        rows = [r for r in range(n) if read[c][r]]
        np.testing.assert_allclose(x[rows, p], want[rows, c], rtol=1e-12, atol=1e-12)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solves, "LTDL_UNROLL_MAX", 0)
        tables = solves.ltdl_kernel("p", 0, plan)
    assert tables.tables and all(b.up is None for b in tables.blocks)


def test_ltdl_plan_solves_only_the_rows_read():
    """`solves.ltdl_plan` with the rows of each solution that are read (M^-1's pattern, `minv.symmetric_inverse`:
    column c read at the coordinates up to c depth first) on a floating base with two legs (0..2 a chain, legs
    3-4 and 5-6): each block's D^-1 and L rows hold its columns' read rows and their ancestors, the column that
    reads every row comes first, a leg read only on its own path skips the other leg, and the kernel's sweeps
    over those rows alone, as the C runs them, give NumPy's inverse at every row read."""
    lam, columns, read, plan = _legs_inverse_plan()
    n = len(lam)
    assert sorted(plan.order) == list(range(n)) and len(plan.down) == len(plan.blocks)
    assert plan.order[0] == 6 and plan.down[0] == tuple(range(n))  # the last leg's tip reads every row
    assert solves.read_rows(lam, read[4]) == frozenset({0, 1, 2, 3, 4})  # the first leg skips the second
    L, _, D = _tree_factor(lam, np.random.default_rng(7))
    H = L.T @ np.diag(D) @ L
    want = np.linalg.inv(H)
    first = 0
    for (width, rows), down in zip(plan.blocks, plan.down):
        for c in plan.order[first:first + width]:
            assert {r for r in range(n) if read[c][r]} <= set(down), (c, down)
            x = np.array(columns[c])
            for k in reversed(rows):  # L^T from the leaves over the block's rows only
                x[k] -= sum(L[i, k] * x[i] for i in rows if i > k)
            x /= D
            solved = np.full(n, np.nan)  # rows the L sweep does not visit stay unsolved
            for k in down:  # ascending: each row's ancestors (in ``down``) come first
                solved[k] = x[k] - sum(L[k, j] * solved[j] for j in range(k) if L[k, j] != 0)
            got = [solved[r] for r in range(n) if read[c][r]]
            np.testing.assert_allclose(got, [want[r, c] for r in range(n) if read[c][r]], rtol=1e-12, atol=1e-12)
        first += width


def test_ltdl_kernel_leaves_out_structural_zeros():
    """`solves.ltdl_kernel` of a factor with structural zeros (`contact_derivatives`' KKT factor: contact rows 0-1
    above a chain 2 <- 3 and a branch 2 <- 4, row 3 coupled with contact row 1 only, row 4 with 0 only): its
    ``above`` table holds only the other entries, and the kernel's sweeps run over its tables, as the C runs
    them, give NumPy's dense solve of every column."""
    from rbdgen.algorithms.ltdl import ancestors
    lam = (-1, 0, 1, 2, 2)
    n = len(lam)
    rng = np.random.default_rng(9)
    zeros = {(3, 0), (4, 1)}
    L = [{j: (0 if (k, j) in zeros else float(rng.uniform(-1, 1))) for j in ancestors(lam, k)}
         for k in range(n)]
    columns = [[float(v) for v in rng.integers(-3, 4, n)] for _ in range(11)] + [[0, 0, 0, 1.0, 0]]
    plan = solves.ltdl_plan(lam, columns, None, L)
    assert plan.entries == ((), (0,), (1, 0), (2, 1), (2, 0)) and not plan.inverse
    kernel = solves.ltdl_kernel("p", 0, plan)
    tables = {t.name: t.values for t in kernel.tables}
    assert len(tables["above"]) == sum(len(row) for row in L) - len(zeros)
    values = [L[k][j] for k in range(n) for j in plan.entries[k]]  # the printer's L array
    dense = np.eye(n)
    for k, row in enumerate(L):
        for j, v in row.items():
            dense[k, j] = v
    D = rng.uniform(1, 2, n) * np.array([-1, -1, 1, 1, 1])  # indefinite, as the KKT factor
    H = dense.T @ np.diag(D) @ dense
    for block in kernel.blocks:
        for c in plan.order[block.first:block.end]:
            x = np.array(columns[c])
            for t in range(block.row_first, block.row_last):  # L^T over the block's rows, from the leaves
                k = tables["rows"][t]
                for p in range(tables["below_start"][t], tables["below_start"][t + 1]):
                    x[k] -= values[tables["below_entry"][p]] * x[tables["below"][p]]
            x /= D
            for k in range(n):  # every row is read: D^-1 and L from the root
                for p in range(tables["above_start"][k], tables["above_start"][k + 1]):
                    x[k] -= values[p] * x[tables["above"][p]]
            np.testing.assert_allclose(x, np.linalg.solve(H, columns[c]), rtol=1e-12, atol=1e-12)


def test_part_peak_against_counting_each_step():
    """`layout._Held.peak` (where parts end) against a plain count, step by step, of the values a run of steps
    holds: each value it computes from there to its last read in the run (to the end if it is stored), each
    value of an earlier step from its first read in the run to its last."""
    rng = np.random.default_rng(3)
    steps = 60
    defined = {100 + i: i for i in range(steps)}  # value id -> the step computing it
    reads = sorted({(100 + int(d), int(r)) for d, r in rng.integers(0, steps, (150, 2)) if r > d}, key=lambda x: x[1])
    stored = {100 + int(i) for i in rng.choice(steps, 8, replace=False)}
    held = layout._Held(defined, reads, stored)
    for start, end in [(0, steps), (0, 20), (10, 35), (25, 60), (40, 41)]:
        counts = [0] * (end - start + 1)
        for value, at in defined.items():
            inside = [r for v, r in reads if v == value and start <= r < end]
            if start <= at < end:
                begin, last = at, (end if value in stored else max(inside, default=at))
            elif at < start and inside:
                begin, last = min(inside), max(inside)
            else:
                continue
            for t in range(begin, last):
                counts[t - start] += 1
        assert held.peak(start, end) == max(counts), (start, end)


def test_validate_allows_no_more_than_its_ceiling_however_ill_conditioned(tmp_path, generated, build_cache,
                                                                          monkeypatch):
    """A wrong constant in forward dynamics still fails validation where M's equilibrated condition number is
    huge (here: said to be 1e30): the allowance G eps cond stops at `solver.CONDITIONED_CEILING`."""
    from rbdgen import solver as solver_module

    name, op = "double_pendulum", "forward_dynamics"
    folder = generated(name).write(tmp_path / name)
    path = folder / f"{name}_{op}.c"
    text = path.read_text()
    start = text.index(f"int {name}_{op}(")
    literal = next(m for m in LITERAL.finditer(text, start, text.index("\n}\n", start))
                   if 1e-6 < float(m.group(1)) != 1.0)
    path.write_text(text[:literal.start()] + repr(float(literal.group(1)) * 1.01) + text[literal.end():])
    monkeypatch.setattr(solver_module, "_equilibrated_condition", lambda M: np.full(len(M), 1e30))
    with pytest.raises(rbdgen.ValidationError, match=rf"{op}: relative error"):
        rbdgen.load(folder, TEST_FLAGS, build_cache).validate(samples=4)


def test_split_regressor_zeroed_by_its_first_part(monkeypatch, build_cache):
    """Solo12's regressor (18 x 130, more than half structural zeros) is split into parts: the first part
    zeroes the output whole and no part stores a zero; only the parts with checks have their status tested
    (behind many tested calls GCC took the output check for cold code and left it scalar); the results equal
    a one-part build's exactly, which `validate` checks against the NumPy engine (the values against
    Pinocchio: tests/test_regressor.py)."""
    op = "inverse_dynamics_regressor"
    g = rbdgen.generate(ROBOTS[FLOATING].path, floating=True, prefix="regsplit", ops=[op])
    sources = [n for n in g.c_sources if re.fullmatch(rf"regsplit__\d+_{op}\.c", n)]
    size = g.manifest["sizes"]["regressor"]
    assert len(sources) > 1
    first = g.files[f"regsplit__1_{op}.c"]
    assert f"regsplit_zero(regressor, {size});" in first[:first.index("const double t0")]
    assert not any(re.search(r"regressor\[\d+\] = 0\.0;|regsplit_zero\(regressor \+", g.files[n]) for n in sources)
    checked = [n for n in sources if "int status = " in g.files[n]]
    assert g.files[f"regsplit_{op}.c"].count("if (s != RBDGEN_regsplit_OK) return s;") == len(checked) < len(sources)
    monkeypatch.setattr(layout, "PART_STEPS", 10**6)
    whole = rbdgen.generate(ROBOTS[FLOATING].path, floating=True, prefix="regwhole", ops=[op])
    assert not [n for n in whole.c_sources if n.startswith("regwhole__")]
    split, one = g.compile(TEST_FLAGS, build_cache, validate=True, samples=4), whole.compile(TEST_FLAGS, build_cache)
    st = states(FLOATING)
    assert np.array_equal(call(split, op, st), call(one, op, st))


def test_mostly_zero_outputs_are_zeroed_whole_first():
    """A one-part function whose output is more than half zeros (the configuration Jacobians: identity blocks)
    zeroes it with one `<prefix>_zero` call before computing and stores only the other entries; a mass matrix
    (mostly non-zero) is stored entry by entry. The values: tests/test_configuration.py, against Pinocchio."""
    g = rbdgen.generate(ROBOTS[FLOATING].path, floating=True, prefix="fill",
                        ops=["integrate_derivatives", "mass_matrix"])
    G = g.model.generalized_count
    jacobian = g.files["fill_integrate_derivatives.c"]
    start = jacobian.index("return RBDGEN_fill_INVALID_INPUT;")  # after the input check's zeroing
    fill, body = jacobian[start:jacobian.index("const double t0")], jacobian[start:]
    for name in ("dx_next_dx", "dx_next_dv"):
        assert fill.count(f"fill_zero({name}, {G * G});") == 1
        assert not re.search(rf"{name}\[\d+\] = 0\.0;", body)
        assert len(re.findall(rf"{name}\[\d+\] = ", body)) < G * G / 2
    assert re.search(r"\bM\[\d+\] = 0\.0;", g.files["fill_mass_matrix.c"])  # between the legs, one by one


def test_a_build_prints_as_one_line():
    """`repr(Generated)` sums the build up; the sources are in `files` (a Panda build's are 100s of KiB)."""
    generated = rbdgen.generate(rbdgen.load_urdf(ROBOTS["panda"].path), ops=["gravity", "mass_matrix"])
    text = repr(generated)
    assert "\n" not in text and len(text) < 200 and "panda" in text and "functions" in text
