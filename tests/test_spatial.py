"""The spatial value types of `rbdgen.spatial` (`Motion`, `Force`, `Xform`, `RigidInertia`) against
6x6 matrices built in NumPy from RBDA's definitions (eqs. 2.24, 2.31, 2.32, 2.63, 2.66; table 5.1)."""

from __future__ import annotations

import numpy as np
import pytest

from rbdgen import spatial as sp


def _skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def _axis_rotation(k, angle):
    """E, a rotation by ``angle`` about e_k (E_ii = E_jj = cos, E_ij = sin), and X6 = rot(E)."""
    c, s = np.cos(angle), np.sin(angle)
    i, j = (k + 1) % 3, (k + 2) % 3
    E = np.eye(3)
    E[i, i] = E[j, j] = c
    E[i, j], E[j, i] = s, -s
    return E, np.block([[E, np.zeros((3, 3))], [np.zeros((3, 3)), E]])


@pytest.fixture
def values():
    rng = np.random.default_rng(4)
    A = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    E, r = A * np.sign(np.linalg.det(A)), rng.normal(size=3)
    m, c = 2.5, rng.normal(size=3)
    L = rng.normal(size=(3, 3))
    Ic = L @ L.T + np.eye(3)
    X6 = np.block([[E, np.zeros((3, 3))], [-E @ _skew(r), E]])  # X = rot(E) xlt(r)
    hx = _skew(m * c)
    I6 = np.block([[Ic - m * _skew(c) @ _skew(c), hx], [hx.T, m * np.eye(3)]])
    X = sp.Xform((tuple(map(tuple, E)), tuple(r)))
    I = sp.RigidInertia((m, tuple(m * c), tuple(map(tuple, I6[:3, :3]))))
    v, u, f = (rng.normal(size=6) for _ in range(3))
    return X, X6, I, I6, v, u, f


def test_operators_are_the_spatial_algebra(values):
    X, X6, I, I6, v, u, f = values
    mv, mu, ff = sp.Motion(v), sp.Motion(u), sp.Force(f)
    crm = np.block([[_skew(v[:3]), np.zeros((3, 3))], [_skew(v[3:]), _skew(v[:3])]])
    np.testing.assert_allclose(X @ mu, X6 @ u, atol=1e-14)
    np.testing.assert_allclose(X.T @ ff, X6.T @ f, atol=1e-14)
    np.testing.assert_allclose(I @ mv, I6 @ v, atol=1e-13)
    np.testing.assert_allclose(np.array(sp.rigid_matrix(X.T @ I @ X)), X6.T @ I6 @ X6, atol=1e-12)
    np.testing.assert_allclose(mv.cross(mu), crm @ u, atol=1e-14)
    np.testing.assert_allclose(mv.cross(ff), -crm.T @ f, atol=1e-14)
    assert mu @ ff == pytest.approx(u @ f, abs=1e-14)
    np.testing.assert_allclose(np.array(sp.rigid_matrix(I + I)), 2 * I6, atol=1e-13)
    assert isinstance(X @ mu, sp.Motion) and isinstance(X.T @ ff, sp.Force) and isinstance(I @ mv, sp.Force)
    assert isinstance(mv.cross(ff), sp.Force) and isinstance(X.T @ I @ X, sp.RigidInertia)


def test_rigid_force_is_inertia_times_acceleration_plus_the_velocity_product(values):
    """RNEA's body force f = I a + v x* I v (RBDA table 5.1) against the 6x6 matrices."""
    _, _, I, I6, v, u, _ = values
    crf = -np.block([[_skew(v[:3]), np.zeros((3, 3))], [_skew(v[3:]), _skew(v[:3])]]).T
    np.testing.assert_allclose(sp.rigid_force(I, u, v), I6 @ u + crf @ I6 @ v, rtol=1e-13, atol=1e-13)


def test_sums_are_vector_sums_whichever_side_is_a_plain_tuple(values):
    _, _, _, _, v, u, f = values
    plain = tuple(u)
    for kind in (sp.Motion, sp.Force):
        x = kind(v)
        for result, expected in ((x + plain, v + u), (plain + x, u + v), (x - plain, v - u), (plain - x, u - v),
                                 (x * 3.0, 3 * v)):
            assert type(result) is kind and len(result) == 6
            np.testing.assert_allclose(result, expected, atol=1e-15)
    np.testing.assert_allclose(-sp.Motion(v), -v)


def test_congruence_needs_the_same_transform(values):
    X, _, I, _, *_ = values
    other = sp.Xform(X)
    with pytest.raises(ValueError, match="the same transform X on both sides"):
        X.T @ I @ other


@pytest.mark.parametrize("k", range(3))
@pytest.mark.parametrize("angle", [0.7, -2.9])
def test_rotation_about_a_coordinate_axis_is_the_congruence(values, k, angle):
    """`rigid_rotate_back` (double angle) equals X6^T I6 X6 for X = rot(E), E a rotation about e_k."""
    _, _, I, I6, _, _, _ = values
    E, X6 = _axis_rotation(k, angle)
    turned = sp.rigid_rotate_back(tuple(map(tuple, E)), k, I)
    np.testing.assert_allclose(np.array(sp.rigid_matrix(turned)), X6.T @ I6 @ X6, atol=1e-13)


@pytest.mark.parametrize("k", range(3))
@pytest.mark.parametrize("angle", [0.7, -2.9])
def test_articulated_inertia_turned_about_a_coordinate_axis(values, k, angle):
    """`mat_rotate_back` (double angle per 3x3 block) equals X6^T M X6 for an articulated inertia M (a rigid
    one less a rank-1 term: no rigid-inertia pattern) and X = rot(E), E a rotation about e_k."""
    _, _, _, I6, v, _, _ = values
    M = I6 - 0.3 * np.outer(v, v)
    E, X6 = _axis_rotation(k, angle)
    turned = np.array(sp.mat_rotate_back(tuple(map(tuple, E)), k, tuple(map(tuple, M))))
    np.testing.assert_allclose(turned, X6.T @ M @ X6, atol=1e-13)


def test_articulated_inertia_congruence(values):
    """`mat_congruence` (rotation per block, then the translation) equals X6^T M X6 for a general X."""
    X, X6, _, I6, v, _, _ = values
    M = I6 - 0.3 * np.outer(v, v)
    np.testing.assert_allclose(np.array(sp.mat_congruence(X, tuple(map(tuple, M)))), X6.T @ M @ X6, atol=1e-12)


@pytest.mark.parametrize("m", range(6))
def test_articulated_inertia_less_a_coordinate_axis_joint(values, m):
    """`mat_project_out` equals IA - U U^T / d (RBDA table 7.1) for a joint of motion subspace S = e_m:
    U = IA S, d = S^T U; without armature its row and column m are exactly 0 (IA^a S = 0), with armature
    (d = S^T U + 0.01) the full update."""
    _, _, _, I6, v, _, _ = values
    IA = I6 + np.outer(v, v)
    U = IA[:, m]
    for armature, null in ((0.0, m), (0.01, None)):
        d = U[m] + armature
        Ia = np.array(sp.mat_project_out(tuple(map(tuple, IA)), tuple(U), tuple(U / d), null))
        np.testing.assert_allclose(Ia, IA - np.outer(U, U) / d, atol=1e-13)
        if null is not None:
            assert not Ia[m].any() and not Ia[:, m].any()
            assert np.linalg.eigvalsh(np.delete(np.delete(Ia, m, 0), m, 1)).min() > 0  # positive on the rest
