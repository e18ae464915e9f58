"""Outputs without a finiteness check (`rbdgen.ir.ranges` proves them bounded): the C's mass matrix and gravity
(without loads) on extreme but finite inputs are finite, status 0, and Pinocchio's at the same state (its
quaternion normalised); the operations that keep their check still report a non-finite result, and a quaternion
too small for ``2 / |q|^2`` is refused. Raw calls through cffi: the Python methods normalise the quaternion."""

from __future__ import annotations

import numpy as np
import pytest

import rbdgen
from helpers import pinocchio
from robots import ROBOTS

OK, INVALID, NONFINITE = 0, 1, 4


def raw(solver, op: str, inputs: dict) -> tuple:
    """``(status, {output: flat array})`` of the single-state C function ``op`` (absent inputs: NULL), in the
    solver's precision."""
    ffi, function = solver.c_function(op)
    record = solver.manifest["operations"][op]
    real = f"{solver.precision}[]"
    keep, args = [], []
    for name in record["inputs"]:
        if name in inputs:
            keep.append(np.ascontiguousarray(inputs[name], solver.dtype))
            args.append(ffi.from_buffer(real, keep[-1]))
        else:
            args.append(ffi.NULL)
    outputs = {name: np.full(solver.manifest["sizes"][name], 7.0, solver.dtype) for name in record["outputs"]}
    args += [ffi.from_buffer(real, a) for a in outputs.values()]
    return function(*args), outputs


def _extreme_states(floating: bool, J: int, rng) -> list:
    """(case, C inputs, the quaternion's scale): q ~ 1e300 (sin and cos of a reduced angle), the base 1e300
    away, its quaternion scaled by 1e150 and 1e-150."""
    cases = []
    for scale in (1e150, 1.0, 1e-150):
        q = rng.uniform(-1, 1, J) * 1e300
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        base = np.r_[np.full(3, 1e300), quat * scale, rng.normal(size=12)]
        cases.append((f"q 1e300, quaternion x {scale:g}", {"q": q, **({"base": base} if floating else {})}))
        if not floating:
            break
    return cases


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_unchecked_outputs_on_extreme_inputs(compiled, generated, name):
    solver = compiled(name)
    model = solver.model
    ref = pinocchio(name)
    source = "".join(generated(name).files[f"{name}_{op}.c"] for op in ("mass_matrix", "gravity"))
    assert source.count("(range analysis, rbdgen.ir.ranges): no check") == 1  # M
    assert "checked only where loads is given" in source  # g
    for case, inputs in _extreme_states(model.floating, model.joint_count, np.random.default_rng(7)):
        base = inputs.get("base")
        head = (base[:3], base[3:7]) if model.floating else None
        status, out = raw(solver, "mass_matrix", inputs)
        assert status == OK and np.all(np.isfinite(out["M"])), case
        M = ref.mass_matrix(head, inputs["q"])
        np.testing.assert_allclose(out["M"].reshape(M.shape), M, rtol=1e-9, atol=1e-12 * np.abs(M).max(), err_msg=case)
        status, out = raw(solver, "gravity", inputs)
        assert status == OK and np.all(np.isfinite(out["g"])), case
        g = ref.gravity(head, inputs["q"])
        np.testing.assert_allclose(out["g"], g, rtol=1e-9, atol=1e-12 * np.abs(g).max(), err_msg=case)


@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_checked_outputs_still_fail(compiled, name):
    """Inverse dynamics squares the velocities: qd = 1e200 overflows, status 4; gravity with loads of 1e308
    checks its result (J^T loads overflows)."""
    solver = compiled(name)
    model, rng = solver.model, np.random.default_rng(3)
    J, G, L = model.joint_count, model.generalized_count, len(model.links)
    inputs = {"q": rng.uniform(-3, 3, J), "qd": np.full(J, 1e200), "qdd": rng.normal(size=J)}
    if model.floating:
        inputs["base"] = np.r_[np.zeros(3), 0, 0, 0, 1, np.zeros(12)]
    status, out = raw(solver, "inverse_dynamics", inputs)
    assert status == NONFINITE and not out["tau"].any()
    status, out = raw(solver, "gravity", {**inputs, "loads": np.full(6 * L, 1e308)})
    assert status == NONFINITE and not out["g"].any() and out["g"].size == G


def test_a_tiny_quaternion_is_refused(compiled):
    """|q|^2 below DBL_MIN (for 1e-155 and 1e-160, 2 / |q|^2 would overflow): the quaternion's third check refuses
    it (status 1); just above, the rotation is that of the unit quaternion (the same gravity)."""
    solver = compiled("solo12")
    for scale in (1.4e-154, 1e-155, 1e-160):
        inputs = {"q": np.zeros(12), "base": np.r_[np.zeros(3), 0, 0, 0, scale, np.zeros(12)]}
        status, out = raw(solver, "mass_matrix", inputs)
        assert status == INVALID and not out["M"].any()
    q = np.random.default_rng(5).uniform(-1, 1, 12)
    quat = np.array([0.3, -0.5, 0.1, 0.8]) / np.linalg.norm([0.3, -0.5, 0.1, 0.8])
    status, unit = raw(solver, "gravity", {"q": q, "base": np.r_[np.zeros(3), quat, np.zeros(12)]})
    assert status == OK
    status, small = raw(solver, "gravity", {"q": q, "base": np.r_[np.zeros(3), 1.5e-154 * quat, np.zeros(12)]})
    assert status == OK  # |q|^2 = 2.25e-308 > DBL_MIN
    np.testing.assert_allclose(small["g"], unit["g"], rtol=1e-12, atol=1e-12)


def test_a_tiny_quaternion_is_refused_in_float(compiled):
    """In float the bound is FLT_MIN (1.18e-38): |q|^2 = 1e-40 (a subnormal float) is refused (status 1);
    1.44e-38 (2 / it is finite) gives the unit quaternion's gravity."""
    solver = compiled("solo12", "float")
    q = np.random.default_rng(5).uniform(-1, 1, 12)
    status, out = raw(solver, "gravity", {"q": q, "base": np.r_[np.zeros(3), 0, 0, 0, 1e-20, np.zeros(12)]})
    assert status == INVALID and not out["g"].any()
    status, unit = raw(solver, "gravity", {"q": q, "base": np.r_[np.zeros(3), 0, 0, 0, 1, np.zeros(12)]})
    assert status == OK
    status, small = raw(solver, "gravity", {"q": q, "base": np.r_[np.zeros(3), 0, 0, 0, 1.2e-19, np.zeros(12)]})
    assert status == OK and np.float32(1.2e-19) ** 2 > np.finfo(np.float32).tiny
    np.testing.assert_allclose(small["g"], unit["g"], rtol=1e-5, atol=1e-5)


def test_fixed_base_kinematics_on_huge_angles(build_model):
    """A fixed base's pose and Jacobian of a link are bounded (sines, cosines, lever arms): no check, and at
    q ~ 1e300 Pinocchio's (the quaternion up to its sign)."""
    model = rbdgen.load_urdf(ROBOTS["panda"].path)
    link = "panda_hand"
    solver = build_model(model, prefix="panda_huge", ops=["forward_kinematics", "jacobian"], frames=[link])
    ref = pinocchio("panda")
    q = np.random.default_rng(11).uniform(-1, 1, model.joint_count) * 1e300
    status, out = raw(solver, f"forward_kinematics_{link}", {"q": q})
    pose = ref.forward_kinematics(None, q, link)
    assert status == OK
    np.testing.assert_allclose(out["pose"][:3], pose[:3], rtol=1e-9, atol=1e-12)
    sign = np.sign(out["pose"][3:] @ pose[3:])
    np.testing.assert_allclose(sign * out["pose"][3:], pose[3:], rtol=1e-9, atol=1e-12)
    status, out = raw(solver, f"jacobian_{link}", {"q": q})
    assert status == OK
    np.testing.assert_allclose(out["jacobian"].reshape(-1, 6).T, ref.jacobian(None, q, link), rtol=1e-9, atol=1e-12)
