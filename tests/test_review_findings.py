"""Regressions from the review of 2026-12-02 (ranges on main, mimic ABA on branch `mimic`). A test marked
``xfail(strict=True)`` reproduces a bug not fixed yet: its reason says the fix; remove the mark with the fix."""

from __future__ import annotations

import pytest

import rbdgen
from rbdgen.errors import ModelError


def _chain(mass: float, inertia: float = 1e-3, joints: int = 2) -> str:
    """``joints`` revolute joints about y, every link of ``mass`` and principal moments ``inertia``."""
    inertial = (f'<inertial><mass value="{mass!r}"/><origin xyz="0.1 0 0"/>'
                f'<inertia ixx="{inertia!r}" iyy="{inertia!r}" izz="{inertia!r}" ixy="0" ixz="0" iyz="0"/></inertial>')
    links = "".join(f'<link name="l{i}">{inertial}</link>' for i in range(joints + 1))
    joints = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
                     f'<origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
                     f'</joint>' for i in range(1, joints + 1))
    return f'<robot name="r">{links}{joints}</robot>'


def test_a_subnormal_total_mass_is_refused_not_printed_as_inf():
    """Masses of 1e-320 (the loader accepts them): the centre of mass' 1 / m overflows while tracing."""
    model = rbdgen.load_urdf_string(_chain(1e-320))
    with pytest.raises(ModelError, match="mass"):
        generated = rbdgen.generate(model, ops=["center_of_mass_jacobian"], prefix="tiny")
        assert "inf.0" not in "".join(generated.files.values())


def test_a_constant_beyond_the_float_range_is_refused():
    """One joint of axial inertia 1e39 (+ 0.01): M is a constant, ``M[0] = 1e+39f;`` in a float build,
    inf in the output of a call that returns status OK (compiled by hand in the review)."""
    model = rbdgen.load_urdf_string(_chain(1.0, inertia=1e39, joints=1))
    with pytest.raises(ModelError, match="float"):
        generated = rbdgen.generate(model, ops=["mass_matrix"], precision="float", prefix="huge")
        assert "e+39f" not in generated.files["huge_mass_matrix.c"]


def test_fast_math_keeps_unchecked_outputs_finite(build_cache):
    """robot.h promises any optimisation level with or without -ffast-math; solo12's M and g at a quaternion of
    norm 1e-155 built with -O2 -ffast-math: refused (status 1: |q|^2 - DBL_MIN > 0 fails, whether |q|^2 is the
    subnormal 1e-310 or flushed to zero)."""
    import numpy as np

    from robots import ROBOTS
    from test_c_bounded_outputs import INVALID, raw

    robot = ROBOTS["solo12"]
    solver = rbdgen.generate(robot.path, ops=["mass_matrix", "gravity"], prefix="solo_fast", floating=True).compile(
        flags=("-O2", "-g0", "-std=c99", "-ffast-math"), cache=build_cache, validate=False)
    inputs = {"q": np.full(12, 0.3), "base": np.r_[np.zeros(3), 1e-155, 0.0, 0.0, 0.0, np.zeros(12)]}
    for op, name in (("mass_matrix", "M"), ("gravity", "g")):
        status, out = raw(solver, op, inputs)
        assert status == INVALID and not out[name].any(), (op, status, out[name])
