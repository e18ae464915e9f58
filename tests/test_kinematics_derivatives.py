"""Derivatives of a link's twist and classical acceleration and of the centre of mass's velocity.

``forward_velocity_kinematics_derivatives``, ``forward_acceleration_kinematics_derivatives``
(per link) and ``center_of_mass_derivatives`` on Panda (fixed base) and Solo12 (floating
base), in the NumPy engine, the generated C (one build per robot, two links) and CasADi (its
own AD of the differentiated operation), against:

1. Pinocchio 4.1 (``computeForwardKinematicsDerivatives`` + ``getFrameVelocityDerivatives``,
   ``getFrameAccelerationDerivatives`` with LOCAL_WORLD_ALIGNED, ``getCenterOfMassVelocityDerivatives``),
   converted as `PinocchioReference.forward_velocity_kinematics_derivatives` derives: every column, the
   floating base's included; normwise relative error <= 1e-12 (floor 1e-2: a link whose
   Jacobian by the base rotation is zero);
2. Richardson-extrapolated central differences of the NumPy operations (h = 1e-3: truncation
   O(h^4) ~ 1e-12, rounding O(eps |f| / h) ~ 1e-13 |f|); <= 1e-8 relative to the larger of the
   Jacobian's and the value's norm, also on a small model with mimic joints;
3. the generated C and CasADi equal the NumPy engine to 1e-12 and 1e-10.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import rbdgen
from helpers import model, pinocchio, random_states, rel_error, solver
from test_derivatives import finite_difference, perturbation

ca = pytest.importorskip("casadi")
from test_casadi import casadi_map  # noqa: E402

OPS = ("forward_velocity_kinematics_derivatives", "forward_acceleration_kinematics_derivatives",
       "center_of_mass_derivatives")
#: The differentiated operation and its joint inputs.
OF = {OPS[0]: ("forward_velocity_kinematics", ("q", "qd")),
      OPS[1]: ("forward_acceleration_kinematics", ("q", "qd", "qdd")),
      OPS[2]: ("center_of_mass_velocity", ("q", "qd"))}
#: Links given C functions: a leaf through fixed joints and a mid-chain link or the base.
FRAMES = {"panda": ["panda_hand_tcp", "panda_link4"], "solo12": ["FL_FOOT", "base_link"]}
NAMES = list(FRAMES)
N = 4
PINOCCHIO_TOLERANCE = 1e-12
FD_TOLERANCE = 1e-8
C_TOLERANCE = 1e-12
CASADI_TOLERANCE = 1e-10


@functools.lru_cache(maxsize=None)
def states(name):
    return random_states(solver(name), N, seed=900 + NAMES.index(name) if name in NAMES else 950)


@pytest.fixture(scope="module")
def built(build_model):
    """``built(name)`` -> (Generated for CasADi, CompiledSolver with the three operations on `FRAMES`)."""

    def get(name):
        ops = list(OPS) + ["center_of_mass_velocity"]
        c = build_model(model(name), f"{name}_kinderiv", ops, FRAMES[name])
        return _generated(name), c

    return get


@functools.lru_cache(maxsize=None)
def _generated(name):
    """The CasADi functions need no C: one cheap operation generated, any op asked for by name."""
    return rbdgen.generate(model(name), ops=["center_of_mass"], prefix=f"{name}_kinderiv")


def _links(op, name):
    return [(k,) for k in FRAMES[name]] if op != OPS[2] else [()]


def _call(engine, op, st, i, link):
    """``op`` of ``engine`` at state ``i`` (all states: None)."""
    _, names = OF[op]
    idx = slice(None) if i is None else i
    return getattr(engine, op)(*st.head(i), *(getattr(st, n)[idx] for n in names), *link)


def _reference(ref, op, st, i, link):
    b, q, qd, qdd = st.ref_base(i), st.q[i], st.qd[i], st.qdd[i]
    if op == OPS[0]:
        return ref.forward_velocity_kinematics_derivatives(b, q, qd, *link)
    if op == OPS[1]:
        return ref.forward_acceleration_kinematics_derivatives(b, q, qd, qdd, *link)
    return ref.center_of_mass_derivatives(b, q, qd)


def _casadi(g, op, st, link):
    return casadi_map(g.casadi(op, *link), st.flat())


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("name", NAMES)
def test_against_pinocchio(built, name, op):
    """NumPy, C and CasADi: every Jacobian against Pinocchio's, converted."""
    pytest.importorskip("pinocchio")
    g, c = built(name)
    s, st, ref = solver(name), states(name), pinocchio(name)
    for link in _links(op, name):
        results = {"numpy": _call(s, op, st, None, link), "c": _call(c, op, st, None, link),
                   "casadi": _casadi(g, op, st, link)}
        for i in range(N):
            expected = _reference(ref, op, st, i, link)
            for backend, got in results.items():
                assert set(got) == set(expected)
                for key, value in expected.items():
                    err = rel_error(got[key][i], value, floor=1e-2)
                    assert err <= PINOCCHIO_TOLERANCE, f"{name} {link} {backend} {key} state {i}: {err:.2e}"


def _numeric(s, st, op, i, wrt, link, h=1e-3):
    """(d of(state i) / d wrt by Richardson central differences, |of(state i)|) of the NumPy engine."""
    of, names = OF[op]
    evaluate, n = perturbation(st, i, names, wrt, lambda head, *x: getattr(s, of)(*head, *x, *link))
    return finite_difference(evaluate, n, h), np.linalg.norm(evaluate(np.zeros((1, n))))


def _check_by_differences(s, st, name, links):
    for op in OPS:
        for link in links if op != OPS[2] else [()]:
            got = _call(s, op, st, None, link)
            for key, value in got.items():
                wrt = key.split("_d", 1)[1]
                for i in range(st.n):
                    numeric, size = _numeric(s, st, op, i, wrt, link)
                    err = np.linalg.norm(value[i] - numeric) / max(np.linalg.norm(numeric), size, 1e-300)
                    assert err <= FD_TOLERANCE, f"{name} {link} {key} state {i}: {err:.2e}"


@pytest.mark.parametrize("name", NAMES)
def test_against_finite_differences(name):
    _check_by_differences(solver(name), states(name), name, [(k,) for k in FRAMES[name]])


@pytest.mark.parametrize("case", ["gripper", "chain", "mixed", "cross"])
def test_mimic_against_finite_differences(case):
    """Small models with mimic joints (`test_mimic.SMALL`): the bodies' columns combined by the mimic map."""
    from test_mimic import SMALL, _small

    assert case in SMALL
    model = rbdgen.load_urdf_string(_small(case))
    assert any(j.mimic for j in model.joints)
    s = rbdgen.NumpySolver(model)
    _check_by_differences(s, random_states(s, 2, seed=17), f"mimic {case}", [(k,) for k in range(len(s.link_names))])


@pytest.mark.parametrize("name", NAMES)
def test_c_and_casadi_equal_numpy(built, name):
    g, c = built(name)
    s, st = solver(name), states(name)
    for op in OPS:
        for link in _links(op, name):
            expected = _call(s, op, st, None, link)
            for backend, got, tol in (("c", _call(c, op, st, None, link), C_TOLERANCE),
                                      ("casadi", _casadi(g, op, st, link), CASADI_TOLERANCE)):
                assert set(got) == set(expected)
                for key in expected:
                    assert got[key].shape == expected[key].shape
                    for i in range(N):
                        err = rel_error(got[key][i], expected[key][i], floor=1e-2)
                        assert err <= tol, f"{name} {link} {backend} {key} state {i}: {err:.2e}"
            one = _call(c, op, st, 1, link)
            for key in expected:
                assert np.array_equal(one[key], _call(c, op, st, None, link)[key][1])


@pytest.mark.parametrize("name", NAMES)
def test_center_of_mass_identities(name):
    """dvcom/dqd is the CoM Jacobian's joint columns and d com/dq by differences; floating, the
    base velocity's angular columns are d com / dtheta and vcom = Jc nu."""
    s, st = solver(name), states(name)
    d = s.center_of_mass_derivatives(*st.head(), st.q, st.qd)
    Jc = s.center_of_mass_jacobian(*st.head(), st.q)
    G, J = s.generalized_count, s.joint_count
    nu = np.concatenate([st.velocity, st.qd], axis=1) if st.floating else st.qd
    for i in range(N):
        assert rel_error(d["dvcom_dqd"][i], Jc[i][:, G - J:]) <= 1e-12
        assert rel_error(s.center_of_mass_velocity(*st.head(i), st.q[i], st.qd[i]), Jc[i] @ nu[i]) <= 1e-12

        def com(dq):
            return s.center_of_mass(*st.head(i), st.q[i] + dq)

        numeric = finite_difference(com, J, 1e-3)
        assert rel_error(d["dvcom_dqd"][i], numeric) <= FD_TOLERANCE
        if st.floating:
            assert rel_error(d["dvcom_dbase_velocity"][i], Jc[i][:, :6]) <= 1e-12


def test_mask_and_non_finite_input(built):
    """A mask zeroes the unselected states of the C; a NaN input is refused by the C (ValueError before the
    call) and gives NaN in every stored entry of the CasADi function (it has no status)."""
    g, c = built("solo12")
    st = states("solo12")
    link = ("FL_FOOT",)
    full = _call(c, OPS[1], st, None, link)
    mask = np.arange(N) % 2 == 0
    masked = c.forward_acceleration_kinematics_derivatives(*st.head(), st.q, st.qd, st.qdd, *link, mask=mask)
    for key, value in full.items():
        assert np.array_equal(masked[key][mask], value[mask]) and np.all(masked[key][~mask] == 0)
    q = st.q.copy()
    q[0, 3] = np.nan
    with pytest.raises(ValueError, match="q"):
        c.forward_acceleration_kinematics_derivatives(*st.head(), q, st.qd, st.qdd, *link)
    for op in OPS:
        f = g.casadi(op, *_links(op, "solo12")[0])
        args = {n: np.array(v[0], float) for n, v in st.flat().items() if n in f.name_in()}  # copies
        args["q"][3] = np.nan
        out = f(**args)
        for key in f.name_out():
            values = np.array(out[key].nonzeros())
            assert values.size and np.isnan(values).all(), (op, key)


@pytest.mark.parametrize("name", NAMES)
def test_validate_checks_every_link(built, name):
    """`CompiledSolver.validate` compares the derivatives on each generated link with the NumPy engine's and
    with central differences; a link the C was not generated for is refused by name."""
    _, c = built(name)
    assert set(OPS) <= set(c.validate(samples=2))  # (its worst errors include central differences of exact
    # zeros, a base link's columns, within the rounding it allows)
    other = next(k for k in solver(name).link_names if k not in FRAMES[name])
    st = states(name)
    with pytest.raises(ValueError, match=other):
        _call(c, OPS[0], st, None, (other,))
