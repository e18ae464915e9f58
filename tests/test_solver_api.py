"""The solver API: argument checking, solver errors, batching, ``out=``, shapes, names.

Bad input is a ValueError naming the argument (TypeError for a wrong call
signature); numerical failures are `rbdgen.SolverError` subclasses, compared
with dynibo 0.5.2's behaviour where dynibo offers the same case.
"""

from __future__ import annotations

import dataclasses
import inspect
import pydoc
import re
import warnings

import numpy as np
import pytest

import rbdgen
from helpers import (
    LOAD_LINKS,
    LOAD_OPERATIONS,
    assert_close,
    call,
    random_states,
    rel_error,
    solver,
)
from models import TIPS, body, chain
from robots import ROBOTS

FIXED, FLOATING = "panda", "solo12"


def panda():
    return solver(FIXED)


def solo():
    return solver(FLOATING)


def unit_base(**kw):
    return rbdgen.BaseState((0.1, 0.2, 0.3), (0.0, 0.0, 0.0, 1.0), **kw)


NAN, INF = float("nan"), float("inf")


def _with(values, index, value):
    values = np.array(values, dtype=float)
    values.flat[index] = value
    return values


# -- input validation ---------------------------------------------------------------------
Z7, Z12, Z18 = np.zeros(7), np.zeros(12), np.zeros(18)

VALUE_ERRORS = {
    # fixed base (Panda, J = G = 7)
    "q too short": (lambda: panda().mass_matrix(np.zeros(6)), r"^q: expected shape \(7,\) or \(N, 7\), got \(6,\)$"),
    "q too long, batched": (lambda: panda().gravity(np.zeros((3, 8))), r"^q: expected shape \(7,\) or \(N, 7\), got \(3, 8\)$"),
    "q 3-d": (lambda: panda().mass_matrix(np.zeros((2, 3, 7))), r"^q: .*got \(2, 3, 7\)$"),
    "q 0-d": (lambda: panda().mass_matrix(0.0), r"^q: .*got \(\)$"),
    "q ragged": (lambda: panda().mass_matrix([[0.0] * 7, [0.0]]), r"^q: expected an array of numbers"),
    "qd wrong length": (lambda: panda().velocity_product_forces(Z7, np.zeros(5)), r"^qd: .*got \(5,\)$"),
    "qdd wrong length": (lambda: panda().inverse_dynamics(Z7, Z7, np.zeros(9)), r"^qdd: .*got \(9,\)$"),
    "tau joint-sized on floating": (lambda: solo().forward_dynamics(unit_base(), Z12, Z12, Z12),
                                    r"^tau: expected shape \(18,\) or \(N, 18\), got \(12,\)$"),
    "q nan": (lambda: panda().mass_matrix(_with(Z7, 3, NAN)), r"^q: contains a non-finite value$"),
    "q inf batched": (lambda: panda().mass_matrix(_with(np.zeros((4, 7)), 20, INF)), r"^q: contains a non-finite value$"),
    "qd inf": (lambda: panda().velocity_product_forces(Z7, _with(Z7, 0, -INF)), r"^qd: contains a non-finite value$"),
    "qdd nan": (lambda: panda().inverse_dynamics(Z7, Z7, _with(Z7, 6, NAN)), r"^qdd: contains a non-finite value$"),
    "tau nan": (lambda: panda().forward_dynamics(Z7, Z7, _with(Z7, 2, NAN)), r"^tau: contains a non-finite value$"),
    "tau inf crba": (lambda: panda().forward_dynamics_crba(Z7, Z7, _with(Z7, 2, INF)), r"^tau: contains a non-finite value$"),
    # floating base (Solo12, J = 12, G = 18)
    "base translation nan": (lambda: solo().mass_matrix(rbdgen.BaseState((0, NAN, 0), (0, 0, 0, 1)), Z12),
                             r"^base translation: contains a non-finite value$"),
    "base translation length": (lambda: solo().mass_matrix(rbdgen.BaseState((0, 0), (0, 0, 0, 1)), Z12),
                                r"^base translation: expected shape \(3,\)"),
    "base rotation inf": (lambda: solo().mass_matrix(rbdgen.BaseState((0, 0, 0), (0, INF, 0, 1)), Z12),
                          r"^base rotation_xyzw: contains a non-finite value$"),
    "base rotation nan": (lambda: solo().gravity(rbdgen.BaseState((0, 0, 0), (NAN, 0, 0, 1)), Z12),
                          r"^base rotation_xyzw: contains a non-finite value$"),
    "base rotation length": (lambda: solo().mass_matrix(rbdgen.BaseState((0, 0, 0), (0, 0, 1)), Z12),
                             r"^base rotation_xyzw: expected shape \(4,\)"),
    "zero quaternion": (lambda: solo().mass_matrix(rbdgen.BaseState((0, 0, 0), (0, 0, 0, 0)), Z12),
                        r"^base rotation_xyzw: zero quaternion$"),
    "zero quaternion in a batch": (lambda: solo().mass_matrix(
        rbdgen.BaseState((0, 0, 0), [(0, 0, 0, 1), (0, 0, 0, 0)]), Z12), r"^base rotation_xyzw: zero quaternion$"),
    "base velocity nan": (lambda: solo().velocity_product_forces(unit_base(velocity=_with(np.zeros(6), 4, NAN)), Z12, Z12),
                          r"^base velocity: contains a non-finite value$"),
    "base velocity length": (lambda: solo().velocity_product_forces(unit_base(velocity=np.zeros(3)), Z12, Z12),
                             r"^base velocity: expected shape \(6,\) or \(N, 6\), got \(3,\)$"),
    "base acceleration inf": (lambda: solo().inverse_dynamics(unit_base(acceleration=_with(np.zeros(6), 0, INF)), Z12, Z12, Z12),
                              r"^base acceleration: contains a non-finite value$"),
    "floating q nan": (lambda: solo().inverse_dynamics(unit_base(), _with(Z12, 11, NAN), Z12, Z12),
                       r"^q: contains a non-finite value$"),
    "floating tau inf": (lambda: solo().forward_dynamics(unit_base(), Z12, Z12, _with(Z18, 0, INF)),
                         r"^tau: contains a non-finite value$"),
    # loads
    "load torque nan": (lambda: panda().gravity(Z7, loads=[rbdgen.Load("panda_hand", (NAN, 0, 0), (0, 0, 0))]),
                        r"^load torque on link 'panda_hand': contains a non-finite value$"),
    "load force inf": (lambda: panda().inverse_dynamics(Z7, Z7, Z7, loads=[rbdgen.Load(3, (0, 0, 0), (0, INF, 0))]),
                       r"^load force on link 3: contains a non-finite value$"),
    "load force length": (lambda: panda().gravity(Z7, loads=[rbdgen.Load("panda_hand", (0, 0, 0), (1, 2))]),
                          r"^load force on link 'panda_hand': expected shape \(3,\)"),
    "dense loads nan": (lambda: solo().gravity(unit_base(), Z12, loads=_with(np.zeros((17, 6)), 40, NAN)),
                        r"^loads: contains a non-finite value$"),
    "dense loads shape": (lambda: solo().gravity(unit_base(), Z12, loads=np.zeros((16, 6))),
                          r"^loads: expected shape \(17, 6\) or \(N, 17, 6\), got \(16, 6\)$"),
    "unknown link name": (lambda: panda().gravity(Z7, loads=[rbdgen.Load("no_such_link", (1, 0, 0))]),
                          r"^unknown link 'no_such_link'; links are \['panda_link0'"),
    "link id out of range": (lambda: panda().gravity(Z7, loads=[rbdgen.Load(13, (1, 0, 0))]),
                             r"^loads: unknown link id 13 \(the robot has 13 links\)$"),
    "negative link id": (lambda: panda().gravity(Z7, loads=[rbdgen.Load(-1, (1, 0, 0))]),
                         r"^loads: unknown link id -1 \(the robot has 13 links\)$"),
    # batches
    "mismatched batch sizes": (lambda: panda().inverse_dynamics(np.zeros((3, 7)), np.zeros((4, 7)), Z7),
                               r"^arguments have different batch sizes: \[3, 4\]$"),
    "mismatched base batch": (lambda: solo().mass_matrix(
        rbdgen.BaseState(np.zeros((2, 3)), (0, 0, 0, 1)), np.zeros((5, 12))), r"^arguments have different batch sizes: \[2, 5\]$"),
    "mismatched loads batch": (lambda: panda().gravity(np.zeros((3, 7)), loads=np.zeros((2, 13, 6))),
                               r"^arguments have different batch sizes: \[2, 3\]$"),
    # out=
    "out wrong shape": (lambda: panda().mass_matrix(Z7, out=np.zeros(49)), r"^out: expected a writeable, aligned float64 array of shape \(7, 7\), got <f8 of shape \(49,\)"),
    "out wrong dtype": (lambda: panda().gravity(Z7, out=np.zeros(7, dtype=np.float32)),
                        r"^out: expected a writeable, aligned float64 array of shape \(7,\), got <f4 of shape \(7,\)"),
    "out unbatched for a batch": (lambda: panda().gravity(np.zeros((2, 7)), out=np.zeros(7)),
                                  r"^out: expected a writeable, aligned float64 array of shape \(2, 7\), got <f8 of shape \(7,\)"),
    "out a list": (lambda: panda().gravity(Z7, out=[0.0] * 7), r"^out: expected a writeable, aligned float64 array of shape \(7,\), got a list$"),
}


@pytest.mark.parametrize("case", list(VALUE_ERRORS))
def test_value_errors_name_the_argument(case):
    function, message = VALUE_ERRORS[case]
    with pytest.raises(ValueError, match=message) as info:
        function()
    assert type(info.value) is ValueError  # not a SolverError: nothing was computed


TYPE_ERRORS = {
    "fixed base given a BaseState": (lambda: panda().mass_matrix(unit_base(), Z7),
                                     r"mass_matrix\(\) takes 2 positional arguments but 3 were given$"),
    "fixed base given a BaseState, ID": (lambda: panda().inverse_dynamics(unit_base(), Z7, Z7, Z7),
                                         r"inverse_dynamics\(\) takes 4 positional arguments but 5 were given$"),
    "floating base without BaseState": (lambda: solo().mass_matrix(Z12),
                                        r"^mass_matrix: floating-base solver: pass a rbdgen.BaseState first: "
                                        r"solver.mass_matrix\(base, q\) \(got ndarray for base\)$"),
    "floating base without BaseState, FD": (lambda: solo().forward_dynamics(Z12, Z12, Z18),
                                            r"^forward_dynamics: floating-base solver: pass a rbdgen.BaseState "
                                            r"first: solver.forward_dynamics\(base, q, qd, tau\) \(got ndarray"),
    "floating base without arguments": (lambda: solo().gravity(),
                                        r"^gravity: .* solver.gravity\(base, q\) \(got no arguments\)$"),
    "floating base given a tuple": (lambda: solo().gravity(((0, 0, 0), (0, 0, 0, 1)), Z12),
                                    r"^gravity: floating-base solver: pass a rbdgen.BaseState first: "
                                    r"solver.gravity\(base, q\) \(got tuple for base\)$"),
    "loads of the wrong type": (lambda: panda().gravity(Z7, loads=[("panda_hand", (0, 0, 0), (0, 0, 1))]),
                                r"^loads: expected Load objects or an array, got tuple$"),
}


@pytest.mark.parametrize("case", list(TYPE_ERRORS))
def test_type_errors(case):
    function, message = TYPE_ERRORS[case]
    with pytest.raises(TypeError, match=message):
        function()


#: Every public operation of a floating-base solver, and its positional arguments after the base.
FLOATING_CALLS = {op: tuple(p.name for p in inspect.signature(getattr(rbdgen.FloatingBaseSolver, op)).parameters.values()
                            if p.kind is p.POSITIONAL_OR_KEYWORD)[2:]
                  for op in rbdgen.algorithms.operations.OPERATIONS}


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@pytest.mark.parametrize("op", list(FLOATING_CALLS))
def test_floating_base_call_without_base_names_the_base(compiled, engine, op):
    """Every operation, on both engines (the compiled one generated without most of them: the base is
    checked first), called with the joint arguments only: a TypeError naming the missing BaseState,
    not Python's "missing 1 required positional argument" about the last argument."""
    s = solo() if engine == "numpy" else compiled(FLOATING)
    values = {"q": Z12, "qd": Z12, "qdd": Z12, "tau": Z18, "qd_ref": Z18, "qdd_ref": Z18, "link": "FL_FOOT",
              "v": Z18, "dt": 0.1, "base1": rbdgen.BaseState(np.ones(3), [0, 0, 1, 0]), "q1": Z12,
              "active": np.ones(4), "reference": None}
    args = [values[name] for name in FLOATING_CALLS[op]]
    usage = re.escape(f"solver.{op}(base, {', '.join(FLOATING_CALLS[op])})")
    with pytest.raises(TypeError, match=f"^{op}: floating-base solver: pass a rbdgen.BaseState first: {usage} "
                                        r"\(got ndarray for base\)$"):
        getattr(s, op)(*args)
    base = rbdgen.BaseState(np.zeros(3), [0, 0, 0, 1])
    group = rbdgen.algorithms.operations.OPERATIONS[op].group
    if op in s.operations and (s.contacts or group != "contacts") and group != "loops":
        # by keyword: the check does not get in the way (the constrained operations: where contacts are declared;
        # Solo has no closed loops)
        getattr(s, op)(base=base, **dict(zip(FLOATING_CALLS[op], args)))


def test_help_shows_the_operation_of_a_compiled_solver(compiled):
    """``help(solver.mass_matrix)``: the signature, the solver's class and the doc of the operation's record
    (the entry points of a compiled solver are builtins: their first line was "method of builtins.tuple
    instance")."""
    for s, cls in ((compiled(FLOATING), "FloatingCompiledSolver"), (compiled(FIXED), "FixedCompiledSolver")):
        head = "base, q" if s.floating else "q"
        text = pydoc.render_doc(s.mass_matrix, renderer=pydoc.plaintext)
        assert f"mass_matrix({head}, *, out=None, mask=None, threads=None) method of rbdgen.{cls} instance" in text
        assert "builtins.tuple" not in text
        assert rbdgen.algorithms.operations.operation("mass_matrix").summary in text
        assert "Parameters\n    ----------" in text
        assert list(inspect.signature(s.inverse_dynamics).parameters)[:4] == (["base", "q", "qd", "qdd"] if s.floating
                                                                               else ["q", "qd", "qdd", "loads"])


def test_an_operation_not_generated_says_how_to_generate_it(compiled):
    with pytest.raises(ValueError, match=re.escape(
            "operation 'forward_kinematics' was not generated; this build has ['mass_matrix', "
            "'velocity_product_forces', 'gravity', 'inverse_dynamics', 'forward_dynamics', 'forward_dynamics_crba', "
            "'passive_terms']. Generate it: rbdgen.generate(..., ops=[..., 'forward_kinematics']) in Python, or "
            "rbdgen generate ... --ops ... forward_kinematics on the command line")):
        compiled(FIXED).forward_kinematics(Z7, "panda_hand")


def test_dynibo_rejects_the_same_inputs():
    """The cases dynibo also has: all ValueErrors there too."""
    dynibo = pytest.importorskip("dynibo")
    robot = dynibo.Robot.from_urdf(ROBOTS[FIXED].path)
    cases = [
        lambda: robot.mass_matrix(np.zeros(6)),
        lambda: robot.inverse_dynamics(Z7, _with(Z7, 1, NAN), Z7, []),
        lambda: robot.forward_dynamics(Z7, Z7, np.zeros(6), []),
        lambda: robot.gravity(Z7, [dynibo.Load(13, [0, 0, 0], [0, 0, 0])]),
        lambda: robot.gravity(Z7, [dynibo.Load(3, [INF, 0, 0], [0, 0, 0])]),
        lambda: robot.link_id("no_such_link"),
    ]
    for case in cases:
        with pytest.raises(ValueError):
            case()
    floating = dynibo.FloatingRobot.from_urdf(ROBOTS[FLOATING].path)
    zero = dynibo.Twist([0.0] * 3, [0.0] * 3)
    with pytest.raises(ValueError):
        floating.gravity(dynibo.BaseState(dynibo.Pose([0.0] * 3, [0.0] * 4), zero, zero), Z12, [])


def test_non_unit_quaternion_is_normalised():
    s = solo()
    st = random_states(s, 4, seed=40, load_links=LOAD_LINKS[FLOATING])
    scaled = dataclasses.replace(st, quat=st.quat * np.array([[3.0], [0.25], [1e-3], [1e3]]))
    for op in rbdgen.DYNAMICS:
        loads = op in LOAD_OPERATIONS
        a, b = call(s, op, st, loads=loads), call(s, op, scaled, loads=loads)
        for k in range(st.n):
            assert rel_error(b[k], a[k]) <= 1e-12, op
    # the sign of a quaternion does not matter either
    flipped = dataclasses.replace(st, quat=-st.quat)
    assert_close(call(s, "mass_matrix", flipped), call(s, "mass_matrix", st), 1e-15)


@pytest.mark.parametrize("scale", [1e200, 1e300, 1e-200, 1e-300])
def test_huge_or_tiny_quaternion_is_normalised(scale):
    """A quaternion whose squared norm overflows or underflows is still a rotation: no warning."""
    s = solo()
    st = random_states(s, 3, seed=49, load_links=LOAD_LINKS[FLOATING])
    unit = dataclasses.replace(st, quat=np.array([[0.0, 0, 0, 1], [0.5, 0.5, 0.5, 0.5], [0.5, -0.5, 0.5, -0.5]]))
    scaled = dataclasses.replace(unit, quat=unit.quat * scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for op in rbdgen.DYNAMICS:
            loads = op in LOAD_OPERATIONS
            # these quaternions scale back exactly to the unit ones: identical results
            assert np.array_equal(call(s, op, scaled, loads=loads), call(s, op, unit, loads=loads)), op
        s.mass_matrix(rbdgen.BaseState((0, 0, 0), (0, 0, 0, scale)), Z12)


@pytest.mark.parametrize("field", ["velocity", "acceleration"])
def test_non_numeric_base_motion_names_the_argument(field):
    with pytest.raises(TypeError, match=rf"^base {field}: expected real numbers \(float or integer\), got an array of <U4$"):
        solo().inverse_dynamics(unit_base(**{field: "fast"}), Z12, Z12, Z12)
    with pytest.raises(ValueError, match=rf"^base {field}: expected shape \(6,\) or \(N, 6\), got \(\)$"):
        solo().inverse_dynamics(unit_base(**{field: 1.0}), Z12, Z12, Z12)


@pytest.mark.parametrize("field", ["torque", "force"])
def test_batched_load_vector_names_the_argument(field):
    with pytest.raises(ValueError, match=rf"^load {field} on link 'panda_hand': expected shape \(3,\), got \(4, 3\)$"):
        panda().gravity(np.zeros((4, 7)), loads=[rbdgen.Load("panda_hand", **{field: np.zeros((4, 3))})])


# -- solver errors ----------------------------------------------------------------------------
def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("tip", list(TIPS))
def test_massless_tip_is_singular(tmp_path, tip):
    path = _write(tmp_path, "chain.urdf", chain(tip=tip))
    s = rbdgen.NumpySolver(rbdgen.load_urdf(path))
    q, qd, tau = np.array([0.3, -0.4]), np.array([0.5, 0.1]), np.array([1.0, 0.0])
    M = s.mass_matrix(q)
    assert M[1, 1] == 0.0 and M[0, 0] > 0  # M is well defined, only singular
    s.inverse_dynamics(q, qd, q)  # inverse dynamics is fine
    with pytest.raises(rbdgen.SingularError, match=r"articulated inertia of joint 'elbow' is not positive"):
        s.forward_dynamics(q, qd, tau)
    with pytest.raises(rbdgen.SingularError, match=r"mass matrix is not positive definite \(pivot 1\)"):
        s.forward_dynamics_crba(q, qd, tau)
    # in a batch the message says which state failed
    with pytest.raises(rbdgen.SingularError, match=r"\(state 0\)$"):
        s.forward_dynamics(np.tile(q, (3, 1)), qd, tau)
    dynibo = pytest.importorskip("dynibo")
    with pytest.raises(dynibo.SolverError, match="singular articulated inertia"):
        dynibo.Robot.from_urdf(str(path)).forward_dynamics(q, qd, tau, [])


def _body(tmp_path, mass, inertia, com="0 0 0"):
    path = _write(tmp_path, "body.urdf", body(mass, inertia, com))
    return path, rbdgen.NumpySolver(rbdgen.load_urdf(path, floating=True))


def _dynibo_base(base):
    dynibo = pytest.importorskip("dynibo")
    zero = dynibo.Twist([0.0] * 3, [0.0] * 3)
    v = np.asarray(base.velocity, dtype=float)
    return dynibo.BaseState(dynibo.Pose(list(base.translation), list(base.rotation_xyzw)),
                            dynibo.Twist(v[:3], v[3:]), zero)


def test_tiny_rotational_inertia_is_equilibrated(tmp_path):
    """A floating body of mass 1 and rotational inertia ~1e-20: badly scaled but not singular
    (dynibo: "small rotational inertia relative to mass alone does not imply singularity").
    The result is Euler's and Newton's equations."""
    inertia = np.array([1.0, 2.0, 3.0]) * 1e-20
    path, s = _body(tmp_path, 1.0, inertia)
    quat = np.array([0.2, -0.3, 0.5, 0.8])
    quat /= np.linalg.norm(quat)
    x, y, z, w = quat
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    omega, pdot = np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -0.5])
    base = rbdgen.BaseState((1.0, -2.0, 0.5), quat, np.concatenate([omega, pdot]))
    torque, force = np.array([2e-20, -1e-20, 3e-20]), np.array([0.5, -1.0, 2.0])
    tau = np.concatenate([torque, force])
    Iw = R @ np.diag(inertia) @ R.T
    expected = np.concatenate([np.linalg.solve(Iw, torque - np.cross(omega, Iw @ omega)),
                               force + np.array([0.0, 0.0, -9.80665])])
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        qdd = getattr(s, op)(base, np.zeros(0), np.zeros(0), tau)
        assert_close(qdd, expected, 1e-12, op)
    dynibo = pytest.importorskip("dynibo")
    theirs = dynibo.FloatingRobot.from_urdf(str(path)).forward_dynamics(_dynibo_base(base), [], [], tau, [])
    assert_close(s.forward_dynamics(base, np.zeros(0), np.zeros(0), tau), np.asarray(theirs), 1e-12)


FLOATING_FAILURES = {
    # a point mass at the base origin has no rotational inertia at all
    "point mass at the origin": ((0.0, 0.0, 0.0), "0 0 0", rbdgen.SingularError,
                                 r"^floating-base articulated inertia is not positive definite \(pivot [0-5]\) \(state 0\)$",
                                 r"^mass matrix is not positive definite \(pivot 2\) \(state 0\)$",
                                 "singular floating-base articulated inertia"),
    # off the origin, rounding leaves a slightly negative pivot
    "nearly point mass off the origin": ((1e-20, 1e-20, 1e-20), "0.1 0.2 0", rbdgen.SingularError,
                                         r"^floating-base articulated inertia is not positive definite \(pivot [0-5]\) \(state 0\)$",
                                         r"^mass matrix is not positive definite \(pivot [0-2]\) \(state 0\)$",
                                         "singular floating-base articulated inertia"),
    # positive definite, but the scaled condition number is ~4e10 > 1/sqrt(eps)
    "ill-conditioned": ((1e-12, 1e-12, 1e-12), "0.1 0 0", rbdgen.IllConditionedError,
                        r"^floating-base articulated inertia is ill-conditioned \(equilibrated pivot [0-5] <= sqrt\(eps\)\)",
                        r"^mass matrix is ill-conditioned \(equilibrated pivot [0-2] <= sqrt\(eps\)\)",
                        "ill-conditioned scaled floating-base articulated inertia"),
}


@pytest.mark.parametrize("case", list(FLOATING_FAILURES))
def test_floating_base_solver_errors(tmp_path, case):
    inertia, com, error, aba_message, crba_message, dynibo_message = FLOATING_FAILURES[case]
    path, s = _body(tmp_path, 1.0, inertia, com)
    base = rbdgen.BaseState((1.0, 2.0, 3.0), (0.0, 0.0, 0.0, 1.0), (0.1, 0.2, 0.3, 1.0, 2.0, 3.0))
    tau = np.array([1e-20, 2e-20, 0.0, 1.0, 0.0, 0.0])
    s.mass_matrix(base, np.zeros(0))
    s.inverse_dynamics(base, np.zeros(0), np.zeros(0), np.zeros(0))
    with pytest.raises(error, match=aba_message):
        s.forward_dynamics(base, np.zeros(0), np.zeros(0), tau)
    with pytest.raises(error, match=crba_message):
        s.forward_dynamics_crba(base, np.zeros(0), np.zeros(0), tau)
    dynibo = pytest.importorskip("dynibo")
    with pytest.raises(dynibo.SolverError, match=re.escape(dynibo_message)):
        dynibo.FloatingRobot.from_urdf(str(path)).forward_dynamics(_dynibo_base(base), [], [], tau, [])


def test_solver_error_classes():
    assert issubclass(rbdgen.SingularError, rbdgen.SolverError)
    assert issubclass(rbdgen.IllConditionedError, rbdgen.SolverError)
    assert issubclass(rbdgen.NonFiniteError, rbdgen.SolverError)
    assert issubclass(rbdgen.SolverError, RuntimeError)
    assert not issubclass(rbdgen.SolverError, ValueError)


OVERFLOW = {
    # (robot, operation, message)
    "panda forward_dynamics": (FIXED, "forward_dynamics", r"^forward_dynamics: numerical failure, non-finite result \(state 1\)$"),
    "panda forward_dynamics_crba": (FIXED, "forward_dynamics_crba", r"^forward_dynamics_crba: numerical failure.*\(state 1\)$"),
    "panda inverse_dynamics": (FIXED, "inverse_dynamics", r"^inverse_dynamics: numerical failure.*\(state 1\)$"),
    "panda velocity_product_forces": (FIXED, "velocity_product_forces", r"^velocity_product_forces: numerical failure.*\(state 1\)$"),
    "solo12 forward_dynamics": (FLOATING, "forward_dynamics", r"^forward_dynamics: numerical failure.*\(state 1\)$"),
    "solo12 forward_dynamics_crba": (FLOATING, "forward_dynamics_crba", r"^forward_dynamics_crba: numerical failure.*\(state 1\)$"),
    "solo12 inverse_dynamics": (FLOATING, "inverse_dynamics", r"^inverse_dynamics: numerical failure.*\(state 1\)$"),
}


@pytest.mark.parametrize("case", list(OVERFLOW))
def test_velocity_overflow_is_non_finite_error(case):
    name, op, message = OVERFLOW[case]
    s = solver(name)
    st = random_states(s, 3, seed=41)
    st.qd[1] = 1e200  # state 1 of 3 overflows
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # only the NonFiniteError, no NumPy RuntimeWarning
        with pytest.raises(rbdgen.NonFiniteError, match=message):
            call(s, op, st)
    # the other states alone are fine
    call(s, op, random_states(s, 3, seed=41))


def test_dynibo_forward_dynamics_overflow_is_a_solver_error():
    dynibo = pytest.importorskip("dynibo")
    robot = dynibo.Robot.from_urdf(ROBOTS[FIXED].path)
    with pytest.raises(dynibo.SolverError, match="numerical failure"):
        robot.forward_dynamics(Z7, np.full(7, 1e200), Z7, [])


# -- batches, out=, shapes -------------------------------------------------------------------
BATCH_CASES = [pytest.param(op, False, id=op) for op in rbdgen.DYNAMICS] + [
    pytest.param(op, True, id=f"{op}-loads") for op in LOAD_OPERATIONS]


@pytest.mark.parametrize("op, loads", BATCH_CASES)
@pytest.mark.parametrize("name", [FIXED, FLOATING, "talos"])
def test_batch_equals_single_states_exactly(name, op, loads):
    s = solver(name)
    st = random_states(s, 9, seed=42, load_links=LOAD_LINKS[name])
    batch = call(s, op, st, loads=loads)
    G = s.generalized_count
    assert batch.shape == ((st.n, G, G) if op == "mass_matrix" else (st.n, G))
    for i in range(st.n):
        single = call(s, op, st, i, loads=loads)
        assert single.shape == batch.shape[1:]
        assert np.array_equal(single, batch[i]), f"state {i}: {np.abs(single - batch[i]).max():.3e}"


def test_batch_larger_than_a_chunk():
    """Batches are cut into chunks of `NumpySolver.chunk` states: the cut changes nothing."""
    s = solver("double_pendulum")
    n = s.chunk + 5
    st = random_states(s, n, seed=43, load_links=LOAD_LINKS["double_pendulum"])
    for op in ("inverse_dynamics", "forward_dynamics_crba"):
        batch = call(s, op, st, loads=True)
        assert batch.shape == (n, 2)
        for i in (0, s.chunk - 1, s.chunk, n - 1):
            assert np.array_equal(call(s, op, st, i, loads=True), batch[i])


def test_broadcasting_unbatched_arguments():
    """Unbatched arguments (and base fields) are shared by every state of a batch."""
    s = solo()
    st = random_states(s, 5, seed=44)
    mixed = rbdgen.BaseState(st.translation[0], st.quat, st.velocity[0], st.acceleration[0])
    batch = s.inverse_dynamics(mixed, st.q, st.qd[0], st.qdd[0])
    for i in range(st.n):
        single = s.inverse_dynamics(rbdgen.BaseState(st.translation[0], st.quat[i], st.velocity[0],
                                                     st.acceleration[0]), st.q[i], st.qd[0], st.qdd[0])
        assert np.array_equal(batch[i], single)
    # a dense (L, 6) load array applies to every state; a batched one per state
    loads = np.zeros((s.link_count, 6))
    loads[s.link_id("FL_FOOT")] = [0.1, 0.2, 0.3, 1.0, -2.0, 3.0]
    shared = s.gravity(mixed, st.q, loads=loads)
    assert np.array_equal(shared, s.gravity(mixed, st.q, loads=np.broadcast_to(loads, (5,) + loads.shape)))


EMPTY_CASES = [pytest.param(op, loads, id=f"{op}-loads" if loads else op)
               for op, loads in [(op, False) for op in rbdgen.DYNAMICS] + [(op, True) for op in LOAD_OPERATIONS]]


@pytest.mark.parametrize("op, loads", EMPTY_CASES)
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_empty_batch(name, op, loads):
    """N = 0 states give an empty result of shape (0, G) or (0, G, G), as any NumPy batch."""
    s = solver(name)
    st = random_states(s, 3, seed=48, load_links=LOAD_LINKS[name])
    empty = dataclasses.replace(st, **{f.name: getattr(st, f.name)[:0] for f in dataclasses.fields(st)
                                       if getattr(st, f.name) is not None})
    result = call(s, op, empty, loads=loads)
    assert result.shape == call(s, op, st)[:0].shape


@pytest.mark.parametrize("op", rbdgen.DYNAMICS)
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_out_writes_into_and_returns_the_buffer(name, op):
    s = solver(name)
    st = random_states(s, 3, seed=45)
    expected = call(s, op, st)
    out = np.full(expected.shape, np.nan)
    result = call(s, op, st, out=out)
    assert result is out
    assert np.array_equal(out, expected)
    single = np.full(expected.shape[1:], np.nan)
    assert call(s, op, st, 0, out=single) is single
    assert np.array_equal(single, expected[0])


def test_out_may_be_a_strided_view():
    s = panda()
    st = random_states(s, 4, seed=46)
    buffer = np.zeros((4, 14))
    view = buffer[:, ::2]
    assert s.gravity(st.q, out=view) is view
    assert np.array_equal(buffer[:, ::2], s.gravity(st.q))
    assert np.all(buffer[:, 1::2] == 0)


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_result_shapes_and_dtypes(name):
    s = solver(name)
    G = s.generalized_count
    st = random_states(s, 1, seed=47)
    for op in rbdgen.DYNAMICS:
        single = call(s, op, st, 0)
        assert single.dtype == np.float64 and single.flags.c_contiguous
        assert single.shape == ((G, G) if op == "mass_matrix" else (G,))
        batch = call(s, op, st)
        assert batch.shape == (1,) + single.shape


def test_integer_and_list_inputs_are_accepted():
    s = panda()
    q = [0, 1, 0, -1, 0, 1, 0]
    assert np.array_equal(s.mass_matrix(q), s.mass_matrix(np.array(q, dtype=float)))


@pytest.mark.parametrize("name", ["panda", "solo12", "g1"])
def test_names_sizes_and_link_ids(name):
    s = solver(name)
    robot = ROBOTS[name]
    assert s.floating == robot.floating
    assert s.joint_count == len(s.joint_names) == s.model.joint_count
    assert s.generalized_count == s.joint_count + (6 if s.floating else 0)
    assert s.link_count == len(s.link_names)
    assert len(set(s.link_names)) == s.link_count
    for i, link in enumerate(s.link_names):
        assert s.link_id(link) == i
    dynibo = pytest.importorskip("dynibo")
    native = (dynibo.FloatingRobot if robot.floating else dynibo.Robot).from_urdf(robot.path)
    assert native.link_count == s.link_count
    for link in s.link_names:
        assert native.link_id(link) == s.link_id(link)
    with pytest.raises(ValueError, match=r"^unknown link 'nope'"):
        s.link_id("nope")


def test_the_old_name_of_the_dynamics_tuple_warns():
    """``rbdgen.OPERATIONS`` (it read as the records' `rbdgen.algorithms.operations.OPERATIONS`) is `DYNAMICS`."""
    with pytest.warns(DeprecationWarning, match="rbdgen.DYNAMICS"):
        assert rbdgen.OPERATIONS == rbdgen.DYNAMICS
    assert "OPERATIONS" not in rbdgen.__all__ and rbdgen.DYNAMICS[0] == "mass_matrix"
    with pytest.raises(AttributeError, match="no attribute 'OPERATIONZ'"):
        rbdgen.OPERATIONZ
