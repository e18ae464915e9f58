"""The tree-sparse LTDL solve (`rbdgen.algorithms.ltdl`) against NumPy's dense solve and the
dense checked Cholesky's failure modes; the C path runs through `forward_dynamics_crba`
in tests/test_codegen.py (singular, ill-conditioned, overflow) and tests/test_identities.py."""

from __future__ import annotations

import numpy as np
import pytest

from rbdgen.algorithms import cholesky as ch
from rbdgen.algorithms.ltdl import dof_parents, ltdl, solve_tree
from rbdgen.backends import NumpyOps
from rbdgen.errors import IllConditionedError, NonFiniteError, SingularError


def _random_tree(rng, n):
    return tuple([-1] + [int(rng.integers(-1, k)) for k in range(1, n)])


def _pattern(lam):
    n = len(lam)
    P = np.eye(n, dtype=bool)
    for k in range(n):
        j = lam[k]
        while j != -1:
            P[k, j] = P[j, k] = True
            j = lam[j]
    return P


def _factors(rng, lam):
    """A unit lower-triangular L with the pattern of ``lam`` and a positive D."""
    n = len(lam)
    L = np.eye(n) + np.tril(rng.uniform(-1, 1, (n, n)), -1) * _pattern(lam)
    return L, rng.uniform(0.5, 2.0, n)


def _rows(A):
    """A (N, n, n) batch as rows of (N,) arrays, the scalars the algorithms see."""
    return [[A[:, r, c] for c in range(A.shape[-1])] for r in range(A.shape[-1])]


def _solve(A, b, lam):
    """`solve_tree` on one matrix, with the operations' finiteness check of the result."""
    with np.errstate(all="ignore"):  # as NumpySolver: an overflow is reported once, as NonFiniteError
        x = np.array(solve_tree(_rows(A[None]), [np.array([v]) for v in b], lam, NumpyOps(), "thing"))[:, 0]
    if not np.all(np.isfinite(x)):
        raise NonFiniteError("non-finite result")
    return x


def test_dof_parents():
    assert dof_parents((-1, 0, 0, 2), False) == (-1, 0, 0, 2)
    assert dof_parents((-1, 0, -1), True) == (-1, 0, 1, 2, 3, 4, 5, 6, 5)


@pytest.mark.parametrize("n", [1, 2, 7, 20])
def test_factors_and_solution(n):
    """H = L^T D L built from known factors: `ltdl` recovers them, the solve matches numpy.linalg.solve."""
    rng = np.random.default_rng(n)
    for _ in range(5):
        lam = _random_tree(rng, n)
        Ls, Ds = zip(*(_factors(rng, lam) for _ in range(3)))
        H = np.stack([L.T @ np.diag(D) @ L for L, D in zip(Ls, Ds)])
        b = rng.standard_normal((3, n))
        L, Dinv = ltdl(_rows(H), lam, NumpyOps(), "H")
        for k in range(n):
            np.testing.assert_allclose(1 / Dinv[k], [D[k] for D in Ds], rtol=1e-12)
            assert set(L[k]) == {j for j in range(n) if _pattern(lam)[k, j] and j < k}
            for j, value in L[k].items():
                np.testing.assert_allclose(value, [Lt[k, j] for Lt in Ls], rtol=1e-10, atol=1e-12)
        x = np.array(solve_tree(_rows(H), list(b.T), lam, NumpyOps(), "H")).T
        np.testing.assert_allclose(x, np.linalg.solve(H, b[..., None])[..., 0], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 7, 20])
def test_inverse_from_the_solve_of_many_columns(n):
    """`NumpyOps.solve_ltdl` on the identity's columns is numpy.linalg.inv."""
    rng = np.random.default_rng(10 + n)
    lam = _random_tree(rng, n)
    L, D = _factors(rng, lam)
    H = L.T @ np.diag(D) @ L
    factors, Dinv = ltdl(_rows(H[None]), lam, NumpyOps(), "H")
    identity = [[int(r == c) for r in range(n)] for c in range(n)]
    Hinv = np.array([[np.broadcast_to(x, (1,))[0] for x in column]
                     for column in NumpyOps.solve_ltdl(factors, Dinv, lam, identity)]).T
    np.testing.assert_allclose(Hinv, np.linalg.inv(H), rtol=1e-10, atol=1e-12)


def test_mass_matrix_pattern_is_exploited():
    """Entries off the pattern are never read: garbage there changes nothing."""
    rng = np.random.default_rng(3)
    lam = (-1, 0, 0, 1, 2, 2)
    L, D = _factors(rng, lam)
    H = L.T @ np.diag(D) @ L
    b = rng.standard_normal(6)
    garbage = np.where(_pattern(lam), H, np.nan)
    assert np.array_equal(_solve(garbage, b, lam), _solve(H, b, lam))


def _hilbert(n):
    i = np.arange(n)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


def _singular_exact():
    v = np.array([1.0, 2.0, 4.0])
    return np.outer(v, v) + np.diag([0.0, 0.0, 1.0])


#: The dense solver's failure cases (tests/test_cholesky.py), on the chain pattern (a dense matrix).
CASES = {
    "inf_rhs": (np.eye(3), np.array([1.0, np.inf, 0.0])),
    "zero_diag": (np.diag([1.0, 0.0, 2.0]), np.ones(3)),
    "negative_diag": (np.diag([1.0, 2.0, -3.0]), np.ones(3)),
    "indefinite": (np.array([[1.0, 2.0], [2.0, 1.0]]), np.ones(2)),
    "singular_psd": (_singular_exact(), np.ones(3)),
    "hilbert12": (_hilbert(12), np.ones(12)),
    "overflowing_solution": (np.array([[1e-300]]), np.array([1e300])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_failure_modes_match_dense(case):
    A, b = CASES[case]
    with pytest.raises((SingularError, IllConditionedError, NonFiniteError)) as dense:
        ch.cholesky_solve(A, b)
    chain = tuple(range(-1, len(b) - 1))
    with pytest.raises(type(dense.value)):
        _solve(A, b, chain)


def test_mass_matrix_in_the_base_body_frame():
    """`crba` without the base quaternion (what `forward_dynamics_crba` factorises) keeps the floating
    base's rows in its body frame B: ``H_A0 = T^T H_B T`` with ``T = diag(R^T, R^T, 1)`` for the base
    rotation R (here from Pinocchio's quaternion), against the solver's mass matrix in A0."""
    pin = pytest.importorskip("pinocchio")
    import rbdgen
    from rbdgen.algorithms.crba import crba
    from rbdgen.algorithms.kinematics import Tree
    from robots import ROBOTS

    model = rbdgen.load_urdf(ROBOTS["solo12"].path, floating=True)
    rng = np.random.default_rng(5)
    q = rng.uniform(-1, 1, model.joint_count)
    quat = rng.standard_normal(4)
    quat /= np.linalg.norm(quat)
    H_A0 = rbdgen.NumpySolver(model).mass_matrix(rbdgen.BaseState([0.1, 0.2, 0.3], quat), q)
    H_B = np.array([[np.broadcast_to(x, (1,))[0] for x in row]
                    for row in crba(Tree.from_model(model), NumpyOps(), [np.array([v]) for v in q])])
    R = pin.Quaternion(quat[3], *quat[:3]).toRotationMatrix()
    T = np.eye(len(H_B))
    T[:3, :3] = T[3:6, 3:6] = R.T
    assert np.allclose(T.T @ H_B @ T, H_A0, rtol=1e-13, atol=1e-13 * np.abs(H_A0).max())
    assert not np.allclose(H_B[:6], H_A0[:6])  # the rotation is not the identity: the check can fail


def test_coordinate_parents_with_mimic_joints():
    """The reduced mass matrix keeps a tree pattern (LTDL) where mimic joints stay in one branch: Talos'
    grippers (six mimic joints each) hang under the wrist; a mimic joint beside its master's subtree
    breaks the pattern (None: the dense solve). Checked against the nonzeros of P^T M P itself."""
    import rbdgen
    from rbdgen.algorithms.kinematics import Tree
    from rbdgen.algorithms.ltdl import coordinate_parents
    from robots import ROBOTS
    from test_mimic import _small

    def reduced_pattern(model):
        q = np.random.default_rng(2).uniform(-1, 1, model.joint_count)
        args = (rbdgen.BaseState([0, 0, 0], [0, 0, 0, 1]), q) if model.floating else (q,)
        return rbdgen.NumpySolver(model).mass_matrix(*args) != 0

    cases = [(_small("gripper"), False, True), (_small("chain"), False, True), (_small("cross"), False, False),
             (_small("cross"), True, False), (ROBOTS["talos"].path, True, True)]
    for source, floating, tree_pattern in cases:
        model = (rbdgen.load_urdf(source, floating=floating) if source.endswith(".urdf")
                 else rbdgen.load_urdf_string(source, floating=floating))
        lam = coordinate_parents(Tree.from_model(model))
        assert (lam is not None) == tree_pattern, model.name
        if lam is not None:  # nothing outside the pattern (LTDL never reads there)
            assert not np.any(reduced_pattern(model) & ~_pattern(lam))
    talos = rbdgen.load_urdf(ROBOTS["talos"].path, floating=True)
    lam = coordinate_parents(Tree.from_model(talos))
    names = talos.joint_names
    for side in ("left", "right"):
        assert lam[6 + names.index(f"gripper_{side}_joint")] == 6 + names.index(f"arm_{side}_7_joint")
