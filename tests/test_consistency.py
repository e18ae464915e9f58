"""Physical consistency of inertial parameters (`rbdgen.consistency`): closed-form cases."""

from __future__ import annotations

import numpy as np
import pytest

import rbdgen
from rbdgen import consistency, parameters
from robots import path


def _body(m, c, Ic):
    return parameters.from_inertia(rbdgen.Inertia(m, tuple(c), tuple(map(tuple, Ic))))


def test_consistent_parameters_pass_unchanged():
    Q, _ = np.linalg.qr(np.random.default_rng(3).normal(size=(3, 3)))
    box = 2.0 / 12 * np.diag([0.2**2 + 0.1**2, 0.3**2 + 0.1**2, 0.3**2 + 0.2**2])   # a 0.3 x 0.2 x 0.1 m box, turned
    pi = np.concatenate([_body(2.0, [0.1, -0.2, 0.05], Q @ box @ Q.T), _body(0.5, [0, 0, 0.3], np.diag([1e-3] * 3))])
    assert consistency.violations(pi) == []
    np.testing.assert_array_equal(consistency.project(pi), pi)


def test_triangle_inequality_projected_in_closed_form():
    """m = 1 at the origin with principal moments (1, 1, 3): Sigma = diag(1.5, 1.5, -0.5); raising -0.5
    to 0 gives Sigma = diag(1.5, 1.5, 0), the inertia tr(Sigma) 1 - Sigma = diag(1.5, 1.5, 3)."""
    pi = _body(1.0, [0, 0, 0], np.diag([1.0, 1.0, 3.0]))
    (line,) = consistency.violations(pi, names=["tool"])
    assert line.startswith("tool: pseudo-inertia eigenvalue -0.5 < 0")
    assert "triangle inequality broken at the centre of mass: 1 + 1 < 3" in line
    projected = consistency.project(pi)
    np.testing.assert_allclose(parameters.rotational_about_origin(projected), np.diag([1.5, 1.5, 3.0]), atol=1e-15)
    assert projected[0] == pytest.approx(1.0, abs=1e-15)
    assert consistency.violations(projected) == []


def test_negative_mass_reported_and_projected():
    pi = _body(1.0, [0.1, 0, 0], np.diag([0.01, 0.02, 0.02]))
    pi[0] = -0.2
    (line,) = consistency.violations(pi)
    assert "mass -0.2 < 0" in line
    projected = consistency.project(pi, floor=1e-6)
    assert projected[0] > 0 and np.linalg.eigvalsh(consistency.pseudo_inertia(projected))[0] >= 1e-6 * (1 - 1e-9)
    assert consistency.violations(projected) == []


def test_pseudo_inertia_round_trip_and_bad_input():
    pi = _body(1.3, [0.2, -0.1, 0.4], np.diag([0.02, 0.03, 0.04]))
    np.testing.assert_allclose(consistency.from_pseudo_inertia(consistency.pseudo_inertia(pi)), pi, atol=1e-15)
    with pytest.raises(ValueError, match="10 values per body"):
        consistency.violations(pi[:7])
    with pytest.raises(ValueError, match="finite"):
        consistency.project(np.full(10, np.nan))
    with pytest.raises(ValueError, match="floor"):
        consistency.project(pi, floor=-1.0)


def test_names_must_match_the_bodies():
    model = rbdgen.load_urdf(path("panda"))
    pi = parameters.parameter_vector(model)
    names = parameters.body_names(model)
    with pytest.raises(ValueError, match=f"expected {len(names)} body names"):
        consistency.violations(pi, names[:-1])
    pi[0] = -1.0
    with pytest.raises(rbdgen.ModelError, match=r"rbdgen.consistency.project"):
        parameters.with_parameters(model, pi)
