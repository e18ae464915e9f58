"""Inverse kinematics (`rbdgen.ik`) on the NumPy engine and on the generated C.

References: the round trip FK(IK(FK(q))) = FK(q) on an arm (Panda) and a branching
hand (Allegro, one fingertip at a time); dynibo 0.5.2's own ``inverse_kinematics`` on
the same problems (the same solution, the same iterations to converge, the same
residuals when it stops short, the same joint-limit verdict); the error cases.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import dynibo, solver
from robots import ROBOTS

#: robot -> links solved for (the Panda's tool frame, two of the hand's fingertips)
LINKS = {"panda": ["panda_hand_tcp", "panda_link4"], "hand": ["link_3.0_tip", "link_11.0_tip"]}
#: Tight tolerances: the round trip is then exact to rounding.
TIGHT = rbdgen.IkOptions(translation_tolerance=1e-12, rotation_tolerance=1e-12)


@pytest.fixture(scope="module")
def compiled_ik(build_cache):
    """``compiled_ik(name)`` -> a CompiledSolver with forward_kinematics and jacobian of `LINKS`."""
    memo = {}

    def get(name):
        if name not in memo:
            g = rbdgen.generate(ROBOTS[name].path, ops=["forward_kinematics", "jacobian"], prefix=f"{name}_ik",
                                frames=LINKS[name])
            memo[name] = g.compile(flags=TEST_FLAGS, cache=build_cache, samples=2)
        return memo[name]

    return get


def _limits(model):
    joints = [j for j in model.joints if j.mimic is None]
    return np.array([j.limits.lower for j in joints]), np.array([j.limits.upper for j in joints])


def _problems(name, count, seed, spread=0.3):
    """(target configuration, start) pairs, both well within the joint limits."""
    lower, upper = _limits(solver(name).model)
    margin = 0.1 * (upper - lower)
    rng = np.random.default_rng(seed)
    q = rng.uniform(lower + margin, upper - margin, (count, len(lower)))
    q0 = np.clip(q + rng.uniform(-spread, spread, q.shape), lower + 1e-3, upper - 1e-3)
    return list(zip(q, q0))


def _same_pose(a, b, tol):
    """Positions and rotations equal to ``tol`` (q and -q are one rotation)."""
    sign = 1.0 if a[3:] @ b[3:] >= 0 else -1.0
    return np.max(np.abs(a[:3] - b[:3])) <= tol and np.max(np.abs(a[3:] - sign * b[3:])) <= tol


def _iterations(s, q0, link, target):
    """The fewest max_iterations with which ``s`` converges."""
    for k in range(1, 60):
        try:
            s.inverse_kinematics(q0, link, target, rbdgen.IkOptions(max_iterations=k))
            return k
        except rbdgen.IkNotConvergedError:
            pass
    raise AssertionError("no convergence within 60 iterations")


# -- round trip ------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("name", list(LINKS))
def test_round_trip(compiled_ik, name, backend):
    """FK(IK(FK(q))) = FK(q) to 1e-12, the solution within the limits; the C iterates like NumPy."""
    reference = solver(name)
    s = reference if backend == "numpy" else compiled_ik(name)
    lower, upper = _limits(s.model)
    for link in LINKS[name]:
        for i, (q, q0) in enumerate(_problems(name, 3, seed=len(link))):
            target = reference.forward_kinematics(q, link)
            x = s.inverse_kinematics(q0, link, target, TIGHT)
            assert _same_pose(reference.forward_kinematics(x, link), target, 1e-12), (link, i)
            assert np.all((lower <= x) & (x <= upper)), (link, i)
            # default tolerances: within 1e-6 m and 1e-6 rad (the quaternion's vector part: half the angle)
            y = s.inverse_kinematics(q0, link, target)
            assert _same_pose(reference.forward_kinematics(y, link), target, 1e-6), (link, i)
            if backend == "compiled":
                np.testing.assert_allclose(x, reference.inverse_kinematics(q0, link, target, TIGHT), rtol=0,
                                           atol=1e-10)


def test_compiled_iterates_on_the_generated_links(compiled_ik, build_cache):
    """The compiled solver's IK calls its own C: a link without generated functions is refused."""
    c = compiled_ik("panda")
    q = np.full(7, 0.1) + [0, 0, 0, -2, 0, 1.5, 0]
    with pytest.raises(ValueError, match=r"^forward_kinematics: link 'panda_hand' was not generated"):
        c.inverse_kinematics(q, "panda_hand", solver("panda").forward_kinematics(q, "panda_hand"))
    lean = rbdgen.generate(ROBOTS["panda"].path, ops=["forward_kinematics"], prefix="panda_fk",
                           frames=["panda_hand"]).compile(flags=TEST_FLAGS, cache=build_cache, validate=False)
    with pytest.raises(ValueError, match=r"^inverse_kinematics iterates on forward_kinematics and jacobian; "
                                         r"this build lacks jacobian"):
        lean.inverse_kinematics(q, "panda_hand", solver("panda").forward_kinematics(q, "panda_hand"))


# -- against dynibo ---------------------------------------------------------------------------------
def _dynibo_call(ref, q0, link, target, **options):
    dy = ref._dy
    (q0_dynibo,) = ref.arguments("inverse_kinematics", None, q0)
    pose = dy.Pose(target[:3], target[3:])
    raw = ref.robot.inverse_kinematics(q0_dynibo, ref.robot.link_id(link), pose, dy.IkOptions(**options))
    return ref.result("inverse_kinematics", raw)


@pytest.mark.parametrize("name", list(LINKS))
def test_against_dynibo(name):
    """The same solution, the same number of iterations, the same residuals one iteration short."""
    s, ref = solver(name), dynibo(name)
    for link in LINKS[name]:
        for i, (q, q0) in enumerate(_problems(name, 2, seed=7, spread=0.5)):
            target = s.forward_kinematics(q, link)
            x = s.inverse_kinematics(q0, link, target)
            np.testing.assert_allclose(x, _dynibo_call(ref, q0, link, target), rtol=0, atol=1e-9)
            k = _iterations(s, q0, link, target)
            np.testing.assert_allclose(_dynibo_call(ref, q0, link, target, max_iterations=k), x, rtol=0, atol=1e-9)
            with pytest.raises(ref._dy.SolverError) as theirs:
                _dynibo_call(ref, q0, link, target, max_iterations=k - 1)
            with pytest.raises(rbdgen.IkNotConvergedError) as ours:
                s.inverse_kinematics(q0, link, target, rbdgen.IkOptions(max_iterations=k - 1))
            numbers = re.search(r"after (\d+) iterations \(translation error (\S+), rotation error (\S+)\)",
                                str(theirs.value))
            assert numbers, str(theirs.value)
            assert int(numbers[1]) == ours.value.iterations == k - 1
            np.testing.assert_allclose([ours.value.translation_error, ours.value.rotation_error],
                                       [float(numbers[2]), float(numbers[3])], rtol=1e-6)


def test_joint_limits_like_dynibo():
    """A converged solution outside the limits is refused by both, naming the same joint and value."""
    s, ref = solver("panda"), dynibo("panda")
    q = np.array([0.1, -0.3, 0.2, 0.3, 0.1, 1.5, 0.7])  # panda_joint4 = 0.3 > its upper limit -0.0698
    target = s.forward_kinematics(q, "panda_hand")
    q0 = q - [0, 0, 0, 0.5, 0, 0, 0]
    with pytest.raises(ref._dy.SolverError, match=r"solution 3\.0004\d+e-1 for joint 3 \(panda_joint4\)"):
        _dynibo_call(ref, q0, "panda_hand", target)
    with pytest.raises(rbdgen.IkJointLimitError, match=r"^inverse-kinematics solution 3\.0004\d+e-01 for joint 3 "
                                                       r"\(panda_joint4\) is outside its limits \[-3\.071800e\+00, "
                                                       r"-6\.980000e-02\]") as err:
        s.inverse_kinematics(q0, "panda_hand", target)
    assert err.value.joint == 3 and err.value.upper == -0.0698 and isinstance(err.value, rbdgen.SolverError)
    # from another start both find a solution within the limits
    x = s.inverse_kinematics(q0 - [0, 0, 0, 0.5, 0, 0, 0], "panda_hand", target)
    np.testing.assert_allclose(x, _dynibo_call(ref, q0 - [0, 0, 0, 0.5, 0, 0, 0], "panda_hand", target), atol=1e-9)
    assert x[3] < -0.0698


# -- inputs and errors ------------------------------------------------------------------------------
def test_targets_options_and_out():
    s = solver("panda")
    q, q0 = _problems("panda", 1, seed=3)[0]
    target = s.forward_kinematics(q, "panda_hand")
    x = s.inverse_kinematics(q0, "panda_hand", target)
    link_id = s.link_id("panda_hand")
    # a Pose, a list, a non-unit quaternion (normalised), the link's id, dynibo's options object
    for other in (s.inverse_kinematics(q0, link_id, rbdgen.Pose(target[:3], target[3:])),
                  s.inverse_kinematics(list(q0), "panda_hand", list(target)),
                  s.inverse_kinematics(q0, "panda_hand", np.r_[target[:3], 1e3 * target[3:]]),
                  s.inverse_kinematics(q0, "panda_hand", target, dynibo("panda")._dy.IkOptions())):
        np.testing.assert_allclose(other, x, rtol=0, atol=1e-12)
    out = np.full(7, np.nan)
    assert s.inverse_kinematics(q0, "panda_hand", target, out=out) is out and np.array_equal(out, x)
    assert rbdgen.IkOptions() == rbdgen.IkOptions(100, 1e-6, 1e-6, 1e-3, 0.5)


def test_non_convergence_is_reported():
    s = solver("panda")
    q0 = np.array([0.1, -0.3, 0.2, -2.0, 0.1, 1.5, 0.7])
    far = rbdgen.Pose([2.0, 0.0, 0.5])  # beyond the arm's reach
    with pytest.raises(rbdgen.IkNotConvergedError, match=r"^inverse kinematics did not converge after 100 "
                                                         r"iterations \(translation error 1\.\d+e\+00 m") as err:
        s.inverse_kinematics(q0, "panda_hand", far)
    assert err.value.iterations == 100 and 1.0 < err.value.translation_error < 2.0
    assert np.isfinite(err.value.rotation_error) and isinstance(err.value, rbdgen.SolverError)
    with pytest.raises(rbdgen.IkNotConvergedError, match=r"after 3 iterations"):
        s.inverse_kinematics(q0, "panda_hand", rbdgen.Pose([1e6, 0, 0]), rbdgen.IkOptions(max_iterations=3))


def test_bad_inputs():
    s = solver("panda")
    q0 = np.array([0.1, -0.3, 0.2, -2.0, 0.1, 1.5, 0.7])
    target = s.forward_kinematics(q0, "panda_hand")
    cases = [
        ((q0, "panda_hand", target[:6]), ValueError, r"^target_pose: expected shape \(7,\), got \(6,\)"),
        ((q0, "panda_hand", np.r_[target[:3], 0, 0, 0, 0]), ValueError, r"^target_pose rotation_xyzw: zero quaternion"),
        ((q0, "panda_hand", rbdgen.Pose([0, np.nan, 0])), ValueError, r"^target_pose translation: contains a "
                                                                      r"non-finite value"),
        ((q0, "panda_hand", "pose"), TypeError, r"^target_pose: expected real numbers"),
        ((np.r_[q0[:3], 0.5, q0[4:]], "panda_hand", target), ValueError,
         r"^q0: panda_joint4 = 0\.5 is outside its limits \[-3\.0718, -0\.0698\]; start from a configuration within"),
        ((np.tile(q0, (2, 1)), "panda_hand", target), ValueError, r"^q0: expected shape \(7,\), got \(2, 7\)"),
        ((q0, "nope", target), ValueError, r"^unknown link 'nope'"),
        ((q0, 2.0, target), TypeError, r"^link: the link is a link name or an integer id"),
        ((q0, "panda_hand", target, "fast"), TypeError, r"^options: expected an IkOptions"),
    ]
    for args, error, message in cases:
        with pytest.raises(error, match=message):
            s.inverse_kinematics(*args)
    with pytest.raises(ValueError, match=r"^out: expected a writeable, aligned float64 array of shape \(7,\)"):
        s.inverse_kinematics(q0, "panda_hand", target, out=np.zeros(6))


@pytest.mark.parametrize("options, error, message", [
    ({"max_iterations": 0}, ValueError, "max_iterations: must be greater than zero"),
    ({"max_iterations": 2.5}, TypeError, "max_iterations: must be an integer"),
    ({"damping": 0.0}, ValueError, "damping: must be finite and greater than zero"),
    ({"translation_tolerance": float("nan")}, ValueError, "translation_tolerance: must be finite"),
    ({"max_step_norm": float("inf")}, ValueError, "max_step_norm: must be finite"),
    ({"rotation_tolerance": "1e-6"}, TypeError, "rotation_tolerance: must be a number"),
])
def test_bad_options(options, error, message):
    with pytest.raises(error, match=f"^invalid inverse-kinematics option {message}"):
        rbdgen.IkOptions(**options)


def test_floating_base_is_not_supported():
    s = solver("solo12")
    base = rbdgen.BaseState([0, 0, 0.3], [0, 0, 0, 1])
    with pytest.raises(NotImplementedError, match=r"^inverse_kinematics: a floating base is not supported .* "
                                                  r"load the robot with floating=False"):
        s.inverse_kinematics(base, np.zeros(12), "FL_FOOT", rbdgen.Pose([0.2, 0.1, 0.0]))
    # called as a fixed base's (no base): the same answer, not Python's "missing ... 'target_pose'"
    with pytest.raises(NotImplementedError, match=r"^inverse_kinematics: a floating base is not supported"):
        s.inverse_kinematics(np.zeros(12), "FL_FOOT", rbdgen.Pose([0.2, 0.1, 0.0]))
