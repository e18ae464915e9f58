"""The single-state CPython entry points of a compiled solver (`rbdgen.fastpath`, ``pyentry.h``).

They must give bit-identical results to the general path (which the accuracy tests
check against Pinocchio and dynibo), hand every other call to it unchanged (so the
errors are the general path's), leak no references, and let the solver be collected.
"""

from __future__ import annotations

import dataclasses
import gc
import inspect
import sys
import types
import weakref

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import LOAD_OPERATIONS
from rbdgen.testing import ARGUMENTS, random_states

FIXED, FLOATING = "panda", "solo12"


def _state(c, seed=7):
    """One random state of ``c`` as plain float64 arrays (the fast path's input)."""
    st = random_states(c, 1, seed, load_links=c.link_names[-2:])
    base = st.state_base(0) if c.floating else None
    return base, {n: getattr(st, n)[0] for n in ("q", "qd", "qdd", "tau")}, st.loads[0]


def _args(c, op, base, arrays, convert=lambda x: x):
    head = (base,) if c.floating else ()
    return head + tuple(convert(arrays[n]) for n in ARGUMENTS[op])


def _general(c, op):
    """The class's method: the general path, never the entry point."""
    return getattr(type(c), op).__get__(c)


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_entry_points_replace_the_single_output_methods(compiled, name):
    c = compiled(name)
    for op in rbdgen.DYNAMICS:
        entry = getattr(c, op)
        assert isinstance(entry, types.BuiltinFunctionType), op
        method = getattr(type(c), op)
        assert entry.__doc__ == inspect.getdoc(method)
        ours, theirs = inspect.signature(entry).parameters, inspect.signature(method.__get__(c)).parameters
        assert [(p.name, p.kind, p.default) for p in ours.values()] == \
               [(p.name, p.kind, p.default) for p in theirs.values()]
    assert isinstance(c.passive_terms, types.MethodType)  # several outputs: the Python method


def test_single_precision_builds_keep_the_python_methods(compiled):
    c = compiled("double_pendulum", "float")
    assert all(isinstance(getattr(c, op), types.MethodType) for op in rbdgen.DYNAMICS)


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_fast_and_general_paths_are_bit_identical(compiled, name):
    c = compiled(name)
    base, arrays, loads = _state(c)
    for op in rbdgen.DYNAMICS:
        for kwargs in ({}, {"loads": loads}, {"loads": ()}) if op in LOAD_OPERATIONS else ({},):
            fast = getattr(c, op)(*_args(c, op, base, arrays), **kwargs)
            general = _general(c, op)(*_args(c, op, base, arrays), **kwargs)
            assert fast.shape == general.shape and fast.dtype == np.float64
            assert np.array_equal(fast, general), (op, list(kwargs))
            assert np.abs(fast).max() > 0


def test_default_base_velocity_and_acceleration(compiled):
    c = compiled(FLOATING)
    base, arrays, _ = _state(c)
    zero = dataclasses.replace(base, velocity=np.zeros(6), acceleration=np.zeros(6))
    for default in (dataclasses.replace(base, velocity=0.0, acceleration=0),
                    rbdgen.BaseState(base.translation, base.rotation_xyzw)):
        for op in rbdgen.DYNAMICS:
            assert np.array_equal(getattr(c, op)(*_args(c, op, default, arrays)),
                                  getattr(c, op)(*_args(c, op, zero, arrays))), op


def _unusual(x):
    """Arrays the entry point declines: each must give the general path's exact result."""
    strided = np.repeat(x, 2)[::2]
    swapped = x.astype(x.dtype.newbyteorder())
    sub = x.view(type("Sub", (np.ndarray,), {}))
    return [x.tolist(), tuple(x), strided, swapped, sub]


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_unusual_arguments_take_the_general_path(compiled, name):
    c = compiled(name)
    base, arrays, loads = _state(c)
    for op in ("inverse_dynamics", "mass_matrix"):
        expected = getattr(c, op)(*_args(c, op, base, arrays))
        for k in range(5):
            got = getattr(c, op)(*_args(c, op, base, arrays, lambda x: _unusual(x)[k]))
            assert np.array_equal(got, expected), (op, k)
        if c.floating:
            for field in ("translation", "rotation_xyzw", "velocity", "acceleration"):
                for k in range(5):
                    odd = dataclasses.replace(base, **{field: _unusual(getattr(base, field))[k]})
                    assert np.array_equal(getattr(c, op)(odd, *_args(c, op, base, arrays)[1:]), expected)
    # loads as Load objects, as a batch of one, and `out=`
    tau = c.inverse_dynamics(*_args(c, "inverse_dynamics", base, arrays), loads=loads)
    objects = [rbdgen.Load(k, loads[k, :3], loads[k, 3:]) for k in range(c.link_count) if loads[k].any()]
    assert objects
    assert np.allclose(c.inverse_dynamics(*_args(c, "inverse_dynamics", base, arrays), loads=objects), tau,
                       rtol=1e-12, atol=1e-12)
    out = np.empty_like(tau)
    assert c.inverse_dynamics(*_args(c, "inverse_dynamics", base, arrays), loads=loads, out=out) is out
    assert np.array_equal(out, tau)


def test_scaled_quaternions(compiled):
    """A non-unit quaternion is the same rotation; outside the entry point's range the general path scales it."""
    c = compiled(FLOATING)
    base, arrays, _ = _state(c)
    expected = c.inverse_dynamics(base, arrays["q"], arrays["qd"], arrays["qdd"])
    for scale in (1e-3, 7.0, 1e-60, 1e60):
        scaled = dataclasses.replace(base, rotation_xyzw=base.rotation_xyzw * scale)
        got = c.inverse_dynamics(scaled, arrays["q"], arrays["qd"], arrays["qdd"])
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-10 * np.abs(expected).max()), scale


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_errors_are_the_general_paths(compiled, name):
    c = compiled(name)
    base, arrays, loads = _state(c)
    head = (base,) if c.floating else ()
    q, qd, qdd = arrays["q"], arrays["qd"], arrays["qdd"]
    bad = q.copy()
    bad[1] = np.nan
    with pytest.raises(ValueError, match="q: contains a non-finite value"):
        c.inverse_dynamics(*head, bad, qd, qdd)
    with pytest.raises(ValueError, match="qd: expected shape"):
        c.inverse_dynamics(*head, q, qd[:-1], qdd)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'qdd'"):
        c.inverse_dynamics(*head, q, qd)
    with pytest.raises(TypeError, match="got multiple values for argument 'q'"):
        c.inverse_dynamics(*head, q, qd, qdd, q=q)
    with pytest.raises(TypeError, match="unexpected keyword argument 'speed'"):
        c.mass_matrix(*head, q, speed=1)
    with pytest.raises(ValueError, match="loads: expected shape"):
        c.gravity(*head, q, loads=loads[:-1])
    nan_loads = loads.copy()
    nan_loads[0, 0] = np.inf
    with pytest.raises(ValueError, match="loads: contains a non-finite value"):
        c.gravity(*head, q, loads=nan_loads)
    if c.floating:
        with pytest.raises(TypeError, match="pass a rbdgen.BaseState first"):
            c.mass_matrix(tuple(dataclasses.astuple(base)), q)
        with pytest.raises(ValueError, match="zero quaternion"):
            c.mass_matrix(dataclasses.replace(base, rotation_xyzw=np.zeros(4)), q)
        with pytest.raises(ValueError, match="base velocity: contains a non-finite value"):
            c.mass_matrix(dataclasses.replace(base, velocity=np.full(6, np.nan)), q)


def test_singular_forward_dynamics_raises_through_the_entry_point(build_model):
    """A non-zero status of the C (here a massless chain's singular inertia) goes to the general path's error."""
    model = rbdgen.load_urdf_string(MASSLESS)
    c = build_model(model, prefix="massless")
    assert isinstance(c.forward_dynamics, types.BuiltinFunctionType)
    with pytest.raises(rbdgen.SingularError):
        c.forward_dynamics(np.zeros(1), np.zeros(1), np.ones(1))


MASSLESS = """<robot name="massless">
  <link name="base"/>
  <link name="tip"/>
  <joint name="j" type="revolute"><parent link="base"/><child link="tip"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_no_reference_leaks(compiled, name):
    c = compiled(name)
    base, arrays, loads = _state(c)
    watched = [*arrays.values(), loads, c] + ([base, *dataclasses.astuple(base)] if c.floating else [])
    bad = arrays["q"].copy()
    bad[0] = np.inf

    def calls():
        for op in rbdgen.DYNAMICS:
            getattr(c, op)(*_args(c, op, base, arrays))
            if op in LOAD_OPERATIONS:
                getattr(c, op)(*_args(c, op, base, arrays), loads=loads)
        c.mass_matrix(*_args(c, "mass_matrix", base, {"q": arrays["q"].tolist()}))
        with pytest.raises(ValueError):
            c.mass_matrix(*((base,) if c.floating else ()), bad)

    calls()
    before = [sys.getrefcount(x) for x in watched]
    for _ in range(200):
        calls()
    assert [sys.getrefcount(x) for x in watched] == before
    result = c.mass_matrix(*_args(c, "mass_matrix", base, arrays))
    assert sys.getrefcount(result) == 2  # the local name and getrefcount's argument


def test_solver_is_collected(generated, build_cache):
    c = generated("double_pendulum").compile(flags=TEST_FLAGS, cache=build_cache, validate=False)
    assert isinstance(c.mass_matrix, types.BuiltinFunctionType)
    ref = weakref.ref(c)
    del c
    gc.collect()
    assert ref() is None


# -- every usual call takes the entry point ------------------------------------------------------
def _usual_calls(c, base, arrays, loads):
    """``{label: (function of the solver, expected result from the general path)}`` of call kinds the entry point takes."""
    head = (base,) if c.floating else ()
    q, qd, qdd = arrays["q"], arrays["qd"], arrays["qdd"]
    N = 5
    rng = np.random.default_rng(11)
    Q, QD, QDD = (x + 0.1 * rng.normal(size=(N, x.size)) for x in (q, qd, qdd))
    batch_head = head
    if c.floating:
        batch_head = (dataclasses.replace(base, translation=np.tile(base.translation, (N, 1)) + rng.normal(size=(N, 3))),)
    objects = [rbdgen.Load(c.link_names[-1], loads[-1, :3], loads[-1, 3:]), rbdgen.Load(1, [1, 2, 3], (4, 5, 6.5))]
    dense = np.zeros_like(loads)
    dense[-1] += loads[-1]
    dense[1] += [1, 2, 3, 4, 5, 6.5]
    mask = np.array([True, False, True, True, False])
    f32 = [x.astype(np.float32) for x in (q, qd, qdd)]
    keywords = dict(zip(("q", "qd", "qdd"), (q, qd, qdd)))
    if c.floating:
        keywords["base"] = base
    general = _general(c, "inverse_dynamics")
    return {
        "keywords": (lambda s: s.inverse_dynamics(**keywords), general(*head, q, qd, qdd)),
        "keyword loads=None": (lambda s: s.inverse_dynamics(*head, q, qd, qdd, loads=None), general(*head, q, qd, qdd)),
        "float32": (lambda s: s.inverse_dynamics(*head, *f32), general(*head, *f32)),
        "lists": (lambda s: s.inverse_dynamics(*head, q.tolist(), qd.tolist(), qdd.tolist()), general(*head, q, qd, qdd)),
        "integers": (lambda s: s.mass_matrix(*head, np.arange(q.size) % 3 - 1),
                     _general(c, "mass_matrix")(*head, (np.arange(q.size) % 3 - 1).astype(float))),
        "Load objects": (lambda s: s.inverse_dynamics(*head, q, qd, qdd, loads=objects),
                         general(*head, q, qd, qdd, loads=dense)),
        "batch of one": (lambda s: s.inverse_dynamics(*batch_head, Q[:1], QD[:1], QDD[:1]) if not c.floating else
                         s.inverse_dynamics(base, Q[:1], QD[:1], QDD[:1]), general(*head, Q[:1], QD[:1], QDD[:1])),
        "batch": (lambda s: s.inverse_dynamics(*batch_head, Q, QD, QDD), general(*batch_head, Q, QD, QDD)),
        "batch, shared qd": (lambda s: s.inverse_dynamics(*batch_head, Q, qd, QDD), general(*batch_head, Q, qd, QDD)),
        "batch, loads": (lambda s: s.gravity(*batch_head, Q, loads=loads), _general(c, "gravity")(*batch_head, Q, loads=loads)),
        "batch, mask": (lambda s: s.inverse_dynamics(*batch_head, Q, QD, QDD, mask=mask),
                        general(*batch_head, Q, QD, QDD, mask=mask)),
        "batch, mass matrix": (lambda s: s.mass_matrix(*batch_head, Q), _general(c, "mass_matrix")(*batch_head, Q)),
    }


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_usual_calls_take_the_entry_point(compiled, name, monkeypatch):
    """With the general path broken, every usual call still works: the entry point took it, bit-identically."""
    c = compiled(name)
    base, arrays, loads = _state(c)
    calls = _usual_calls(c, base, arrays, loads)

    def broken(*args, **kwargs):
        raise AssertionError("the general path was taken")

    monkeypatch.setattr(type(c), "_run", broken)
    for label, (call, expected) in calls.items():
        got = call(c)
        assert got.shape == expected.shape and got.dtype == np.float64, label
        assert np.array_equal(got, expected), label
    # out=: contiguous (written in place) and strided (copied in), single and batched
    head = (base,) if c.floating else ()
    for args, expected in (((arrays["q"], arrays["qd"], arrays["qdd"]), calls["keywords"][1]),
                           ((np.tile(arrays["q"], (3, 1)), arrays["qd"], arrays["qdd"]),
                            np.tile(calls["keywords"][1], (3, 1)))):
        for out in (np.empty_like(expected), np.zeros(expected.shape + (2,))[..., 1]):
            assert c.inverse_dynamics(*head, *args, out=out) is out
            assert np.array_equal(out, expected)


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_out_overlapping_an_input_through_the_entry_point(compiled, name, monkeypatch):
    c = compiled(name)
    base, arrays, _ = _state(c)
    head = (base,) if c.floating else ()
    G = c.generalized_count
    expected = c.forward_dynamics(*head, arrays["q"], arrays["qd"], arrays["tau"])
    monkeypatch.setattr(type(c), "_run", lambda *a, **k: pytest.fail("the general path was taken"))
    tau = arrays["tau"].copy()
    assert c.forward_dynamics(*head, arrays["q"], arrays["qd"], tau, out=tau) is tau
    assert np.array_equal(tau, expected) and tau.shape == (G,)
