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
    for op in rbdgen.OPERATIONS:
        entry = getattr(c, op)
        assert isinstance(entry, types.BuiltinFunctionType), op
        method = getattr(type(c), op)
        assert entry.__doc__ == inspect.getdoc(method)
        assert str(inspect.signature(entry)) == str(inspect.signature(method.__get__(c)))
    assert isinstance(c.passive_terms, types.MethodType)  # several outputs: the Python method


def test_single_precision_builds_keep_the_python_methods(compiled):
    c = compiled("double_pendulum", "float")
    assert all(isinstance(getattr(c, op), types.MethodType) for op in rbdgen.OPERATIONS)


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_fast_and_general_paths_are_bit_identical(compiled, name):
    c = compiled(name)
    base, arrays, loads = _state(c)
    for op in rbdgen.OPERATIONS:
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
        for op in rbdgen.OPERATIONS:
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
    with pytest.raises(TypeError, match="positional arguments"):
        c.inverse_dynamics(*head, q, qd)
    with pytest.raises(TypeError, match="unexpected keyword argument 'speed'"):
        c.mass_matrix(*head, q, speed=1)
    with pytest.raises(ValueError, match="loads: expected shape"):
        c.gravity(*head, q, loads=loads[:-1])
    nan_loads = loads.copy()
    nan_loads[0, 0] = np.inf
    with pytest.raises(ValueError, match="loads: contains a non-finite value"):
        c.gravity(*head, q, loads=nan_loads)
    if c.floating:
        with pytest.raises(TypeError, match="takes a BaseState first"):
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
        for op in rbdgen.OPERATIONS:
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
