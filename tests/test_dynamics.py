"""NumpySolver against Pinocchio and dynibo 0.5.2 on every test robot.

Random states (seeded), random base poses (metres, random unit quaternions,
random base velocity and acceleration), every operation, with and without link
loads (including links welded through fixed joints), joint armature and a
custom joint order.  Errors are normwise relative (see ``helpers.rel_error``):
mass matrix, velocity products, gravity and inverse dynamics within 1e-12,
forward dynamics within 1e-10.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

pytest.importorskip("pinocchio")
pytest.importorskip("dynibo")

import rbdgen  # noqa: E402
from helpers import (  # noqa: E402
    FLOATING_NAMES,
    LOAD_LINKS,
    LOAD_OPERATIONS,
    LOOSE,
    NAMES,
    TIGHT,
    WELDED_LINKS,
    assert_close,
    call,
    call_reference,
    fixed_joint_children,
    pinocchio,
    random_states,
    reference,
    rel_error,
    solver,
    tolerance,
)
from rbdgen.algorithms.rnea import body_steps  # noqa: E402
from rbdgen.testing import PinocchioReference  # noqa: E402
from robots import ROBOTS  # noqa: E402

SAMPLES = {"talos": 12, "g1": 16}
REFERENCES = ("pinocchio", "dynibo")


@functools.lru_cache(maxsize=None)
def computed(name: str):
    """Random states of ``name`` and every operation's batched result, with and without loads."""
    s = solver(name)
    st = random_states(s, SAMPLES.get(name, 24), seed=100 + NAMES.index(name), load_links=LOAD_LINKS[name])
    plain = {op: call(s, op, st) for op in rbdgen.DYNAMICS}
    loaded = {op: call(s, op, st, loads=True) for op in LOAD_OPERATIONS}
    return st, plain, loaded


def test_robot_registry_matches_the_solvers():
    for name in NAMES:
        s, p = solver(name), pinocchio(name)
        assert list(s.joint_names) == p.joint_names  # both in dynibo's breadth-first order
        assert s.generalized_count == p.G
        assert s.floating == ROBOTS[name].floating


@pytest.mark.parametrize("op", rbdgen.DYNAMICS)
@pytest.mark.parametrize("ref", REFERENCES)
@pytest.mark.parametrize("name", NAMES)
def test_against_reference(name, ref, op):
    st, plain, _ = computed(name)
    r = reference(name, ref)
    for i in range(st.n):
        assert_close(plain[op][i], call_reference(r, op, st, i), tolerance(op), f"{name} {op} state {i}")


@pytest.mark.parametrize("op", LOAD_OPERATIONS)
@pytest.mark.parametrize("ref", REFERENCES)
@pytest.mark.parametrize("name", NAMES)
def test_loads_against_reference(name, ref, op):
    st, plain, loaded = computed(name)
    r = reference(name, ref)
    for i in range(st.n):
        expected = call_reference(r, op, st, i, loads=True)
        assert_close(loaded[op][i], expected, tolerance(op), f"{name} {op} with loads, state {i}")
        # the loads' effect is far above the tolerance, so the comparison above does test them
        assert rel_error(plain[op][i], expected) > 1e3 * tolerance(op)


@pytest.mark.parametrize("name", list(WELDED_LINKS))
def test_load_on_link_welded_through_fixed_joint(name):
    """A load on a link that a fixed joint welds to a moving body (hand, foot, tool frame)."""
    link = WELDED_LINKS[name]
    assert link in fixed_joint_children(ROBOTS[name].path)
    s = solver(name)
    st = random_states(s, 4, seed=7, load_links=[link])
    for op in ("gravity", "inverse_dynamics", "forward_dynamics"):
        ours = call(s, op, st, loads=True)
        for ref in REFERENCES:
            r = reference(name, ref)
            for i in range(st.n):
                expected = call_reference(r, op, st, i, loads=True)
                assert_close(ours[i], expected, tolerance(op), f"{name} {op} vs {ref}, state {i}")
                assert rel_error(call_reference(r, op, st, i), expected) > 1e3 * tolerance(op)


@pytest.mark.parametrize("name", ["panda", "ur5", "hand"])
def test_load_on_world_welded_link_has_no_effect(name):
    """On a fixed base the root link is the world: a load there changes nothing (as dynibo)."""
    s = solver(name)
    root = s.link_names[0]
    st = random_states(s, 3, seed=8, load_links=[root])
    assert np.any(st.loads != 0)
    for op in LOAD_OPERATIONS:
        ours = call(s, op, st, loads=True)
        np.testing.assert_array_equal(ours, call(s, op, st))
        for i in range(st.n):
            assert_close(ours[i], call_reference(reference(name, "dynibo"), op, st, i, loads=True),
                         tolerance(op), f"{name} {op}")


@pytest.mark.parametrize("name", FLOATING_NAMES)
def test_load_objects_equal_dense_loads(name):
    """`Load` objects (by name and by id) are the same as the dense (L, 6) array."""
    s = solver(name)
    st = random_states(s, 1, seed=9, load_links=LOAD_LINKS[name])
    by_name = [rbdgen.Load(link, t, f) for link, t, f in st.load_lists[0]]
    by_id = [rbdgen.Load(s.link_id(link), t, f) for link, t, f in st.load_lists[0]]
    head = st.head(0)
    for op in ("gravity", "forward_dynamics"):
        args = (st.q[0],) if op == "gravity" else (st.q[0], st.qd[0], st.tau[0])
        dense = getattr(s, op)(*head, *args, loads=st.loads[0])
        np.testing.assert_array_equal(getattr(s, op)(*head, *args, loads=by_name), dense)
        np.testing.assert_array_equal(getattr(s, op)(*head, *args, loads=by_id), dense)


# -- armature ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["panda", "solo12"])
def test_armature_against_pinocchio(name):
    robot = ROBOTS[name]
    base_solver = solver(name)
    rng = np.random.default_rng(10)
    armature = {j: float(rng.uniform(0.01, 0.5)) for j in base_solver.joint_names[::2]}
    s = rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=robot.floating, armature=armature))
    p = PinocchioReference(robot.path, robot.floating, armature=armature)
    st = random_states(s, 6, seed=11, load_links=LOAD_LINKS[name])
    off = 6 if robot.floating else 0
    extra = np.zeros(s.generalized_count)
    extra[off:] = [armature.get(j, 0.0) for j in s.joint_names]
    M = call(s, "mass_matrix", st)
    M0 = call(base_solver, "mass_matrix", st)
    for i in range(st.n):
        np.testing.assert_allclose(M[i] - M0[i], np.diag(extra), rtol=0, atol=1e-14)
    for op in ("mass_matrix", "inverse_dynamics", "forward_dynamics", "forward_dynamics_crba"):
        for loads in (False, True):
            if op == "mass_matrix" and loads:
                continue
            ours = call(s, op, st, loads=loads)
            for i in range(st.n):
                assert_close(ours[i], call_reference(p, op, st, i, loads=loads), tolerance(op),
                             f"{name} {op} (loads={loads}) state {i}")


# -- joint order ----------------------------------------------------------------------------
def test_custom_joint_order_g1():
    """Pinocchio's depth-first order on G1: the same dynamics, permuted."""
    name = "g1"
    robot = ROBOTS[name]
    default = solver(name)
    order = list(pinocchio(name).model.names[2:])
    assert order != list(default.joint_names)
    s = rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=True, joint_order=order))
    assert list(s.joint_names) == order
    assert s.link_names == default.link_names
    perm = np.array([default.joint_names.index(j) for j in order])  # ours[k] = default[perm[k]]
    gperm = np.concatenate([np.arange(6), 6 + perm])
    st = random_states(default, 6, seed=12, load_links=LOAD_LINKS[name])
    permuted = dataclasses.replace(st, q=st.q[:, perm], qd=st.qd[:, perm], qdd=st.qdd[:, perm],
                                   tau=st.tau[:, gperm])
    p = PinocchioReference(robot.path, True, joint_names=order)
    for op in rbdgen.DYNAMICS:
        for loads in (False, True) if op in LOAD_OPERATIONS else (False,):
            ours = call(s, op, permuted, loads=loads)
            reference_order = call(default, op, st, loads=loads)
            expected = reference_order[:, gperm][:, :, gperm] if op == "mass_matrix" else reference_order[:, gperm]
            for i in range(st.n):
                assert_close(ours[i], expected[i], tolerance(op), f"{op} (loads={loads}) state {i}")
                assert_close(ours[i], call_reference(p, op, permuted, i, loads=loads), tolerance(op),
                             f"{op} (loads={loads}) vs Pinocchio, state {i}")


@pytest.mark.parametrize("depth_first", [True, False])
def test_rnea_body_steps(depth_first):
    """RNEA's order on Talos' tree (branches at the base, the torso, the grippers' mimic bodies): each body's
    forward step once, after its parent's; its step to the parent once, after every step of its subtree (the
    sums the steps to the parent make are those of the reversed sweep: siblings in decreasing index order)."""
    parent = solver("talos").tree.parent
    steps = body_steps(parent, depth_first)
    at = {step: k for k, step in enumerate(steps)}
    assert len(steps) == len(at) == 2 * len(parent)
    subtree = [{i} for i in range(len(parent))]
    for i in reversed(range(len(parent))):
        if parent[i] != -1:
            subtree[parent[i]] |= subtree[i]
    for i, p in enumerate(parent):
        assert p == -1 or at[p, True] < at[i, True]
        assert all(at[j, True] < at[i, False] and at[j, False] <= at[i, False] for j in subtree[i])
    to_parent = [i for i, entering in steps if not entering]
    for p in set(parent):
        siblings = [i for i in to_parent if parent[i] == p]
        assert siblings == sorted(siblings, reverse=True)
    if depth_first:  # a subtree's steps are one run
        for i in range(len(parent)):
            assert at[i, False] - at[i, True] == 2 * len(subtree[i]) - 1


def test_tolerances_are_meaningful():
    """The thresholds sit far above rounding but below real mistakes: evaluating at
    q + 1e-6 instead of q is caught by both."""
    name = "panda"
    s, p = solver(name), pinocchio(name)
    st = random_states(s, 1, seed=13)
    M = s.mass_matrix(st.q[0] + 1e-6)
    assert rel_error(M, p.mass_matrix(None, st.q[0])) > TIGHT
    qdd = s.forward_dynamics(st.q[0] + 1e-6, st.qd[0], st.tau[0])
    assert rel_error(qdd, p.forward_dynamics(None, st.q[0], st.qd[0], st.tau[0])) > LOOSE


@pytest.mark.parametrize("name", NAMES)
def test_passive_terms_equal_the_separate_operations(name):
    """passive_terms (one pass, any subset) gives exactly mass_matrix, gravity and velocity_product_forces."""
    s = solver(name)
    st, plain, _ = computed(name)
    head = st.head()  # gravity ignores the base velocity, the velocity products use it
    both = s.passive_terms(*head, st.q, st.qd)
    assert set(both) == {"mass_matrix", "gravity", "velocity_product_forces"}
    for key, value in both.items():
        np.testing.assert_array_equal(value, plain[key])
    only_g = s.passive_terms(*head, st.q, st.qd, mass_matrix=False, coriolis=False)
    assert list(only_g) == ["gravity"]
    np.testing.assert_array_equal(only_g["gravity"], plain["gravity"])
    with pytest.raises(ValueError, match="at least one"):
        s.passive_terms(*head, st.q, st.qd, mass_matrix=False, gravity=False, coriolis=False)
