"""Mimic joints against Pinocchio on the same URDF with the mimic tags removed
(`rbdgen.testing.MimicReference`: Pinocchio's dynamics reduced by the mimic map)."""

from __future__ import annotations

import numpy as np
import pytest

import rbdgen
from rbdgen import ModelError
from rbdgen.testing import MimicReference, random_states
from robots import example_robot_data_dir

pytest.importorskip("pinocchio")


def _check(solver, ref, model, seed, states=3, fd_tol=1e-10):
    """Every operation of ``solver`` against ``ref`` at random states (loads on the last link)."""
    st = random_states(model, states, seed, load_links=model.link_names[-1:])
    for i in range(states):
        q, qd, qdd, tau = st.q[i], st.qd[i], st.qdd[i], st.tau[i]
        loads, ref_loads, ref_base, args = st.loads[i], st.load_lists[i], st.ref_base(i), st.head(i)
        M = ref.mass_matrix(ref_base, q)
        scale = max(1.0, np.abs(M).max())
        np.testing.assert_allclose(solver.mass_matrix(*args, q), M, rtol=0, atol=1e-12 * scale)
        tau_id = ref.inverse_dynamics(ref_base, q, qd, qdd, ref_loads)
        tol = 1e-12 * max(1.0, np.abs(tau_id).max())
        np.testing.assert_allclose(solver.inverse_dynamics(*args, q, qd, qdd, loads=loads), tau_id, rtol=0, atol=tol)
        np.testing.assert_allclose(solver.gravity(*args, q, loads=loads), ref.gravity(ref_base, q, ref_loads),
                                   rtol=0, atol=tol)
        np.testing.assert_allclose(solver.velocity_product_forces(*args, q, qd),
                                   ref.velocity_product_forces(ref_base, q, qd), rtol=0, atol=tol)
        acc = ref.forward_dynamics(ref_base, q, qd, tau, ref_loads)
        tol = fd_tol * max(1.0, np.abs(acc).max())
        for op in ("forward_dynamics", "forward_dynamics_crba"):
            np.testing.assert_allclose(getattr(solver, op)(*args, q, qd, tau, loads=loads), acc, rtol=0, atol=tol)


def Reduced(text, tmp_path, floating, model):
    """Pinocchio's dynamics of the URDF ``text`` without its mimic tags, reduced by their map,
    with ``model``'s joint order."""
    path = tmp_path / "robot.urdf"
    path.write_text(text)
    return MimicReference(path, floating, joint_names=list(model.joint_names))


# -- small mimic models ------------------------------------------------------------
def _link(name, mass=1.0, com="0.1 0.02 -0.05", inertia=("0.02", "0.001", "0", "0.03", "0.002", "0.04")):
    ixx, ixy, ixz, iyy, iyz, izz = inertia
    return (f'<link name="{name}"><inertial><origin xyz="{com}" rpy="0.1 0.2 0.3"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx}" ixy="{ixy}" ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/></inertial></link>')


def _joint(name, parent, child, kind="revolute", axis="0 0 1", xyz="0.2 0 0", mimic=""):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="0.3 -0.2 0.1"/><axis xyz="{axis}"/>'
            f'<limit lower="-3" upper="3" effort="10" velocity="2"/>{mimic}</joint>')


def _mimic(master, multiplier=None, offset=None):
    attributes = f' joint="{master}"'
    attributes += "" if multiplier is None else f' multiplier="{multiplier}"'
    attributes += "" if offset is None else f' offset="{offset}"'
    return f"<mimic{attributes}/>"


SMALL = {
    # two fingers on a palm, the second mirrors the first (a gripper): mimic in another branch
    "gripper": (
        _link("base") + _link("palm") + _link("left") + _link("right")
        + _joint("wrist", "base", "palm", axis="0 1 0")
        + _joint("left_finger", "palm", "left", kind="prismatic", axis="0 1 0")
        + _joint("right_finger", "palm", "right", kind="prismatic", axis="0 1 0",
                 mimic=_mimic("left_finger", -1))
    ),
    # a chain of mimics listed before their master, with offsets and negative multipliers:
    # c follows b follows a; a comes last in the file and is deepest in the tree
    "chain": (
        _link("base") + _link("l1") + _link("l2") + _link("l3") + _link("l4") + _link("l5")
        + _joint("c", "base", "l1", axis="1 0 0", mimic=_mimic("b", "-0.5", "0.2"))
        + _joint("b", "l1", "l2", axis="0 1 0", mimic=_mimic("a", "2", "-0.3"))
        + _joint("free1", "l2", "l3", axis="0 0 1")
        + _joint("free2", "l3", "l4", kind="prismatic", axis="1 1 0")
        + _joint("a", "l4", "l5", axis="0 1 1")
    ),
    # a prismatic joint following a revolute one, the master after its mimic in every order,
    # a mimic carrying an independent joint, and a fixed joint in between
    "mixed": (
        _link("base") + _link("s") + _link("t") + _link("u") + _link("tool") + _link("v")
        + _joint("slide", "base", "s", kind="prismatic", axis="0 0 1", mimic=_mimic("turn", "0.1"))
        + _joint("after_mimic", "s", "t", axis="1 0 0")
        + _joint("weld", "t", "tool", kind="fixed")
        + _joint("turn", "base", "u", axis="0 1 0")
        + _joint("last", "u", "v", axis="1 0 0", mimic=_mimic("after_mimic", offset="0.4"))
    ),
    # a hand: a finger and three joints following it with multipliers and offsets (a prismatic one, a
    # mimic of a mimic) hang from the palm: ABA's macro joint; below one of them a second macro joint, a
    # joint and its mimic on that body
    "hand": (
        _link("base") + _link("palm") + _link("fa") + _link("fb") + _link("tb") + _link("sl") + _link("nail")
        + _link("nail_b")
        + _joint("wrist", "base", "palm", axis="0 1 0")
        + _joint("finger_a", "palm", "fa", axis="0 0 1")
        + _joint("finger_b", "palm", "fb", axis="0 0 1", mimic=_mimic("finger_a", "-0.7", "0.1"))
        + _joint("tip_b", "fb", "tb", axis="1 0 0", mimic=_mimic("finger_b", "1.5", "-0.2"))
        + _joint("slide", "palm", "sl", kind="prismatic", axis="0 1 0", mimic=_mimic("finger_a", "0.05", "0.01"))
        + _joint("nail", "tb", "nail", axis="0 1 0")
        + _joint("nail_b", "tb", "nail_b", axis="1 0 0", mimic=_mimic("nail", "0.8", "0.05"))
    ),
    # a joint and its mimic both on the base, the mimic carrying an independent joint: a macro joint whose
    # root is the base (the world for a fixed base)
    "twins": (
        _link("base") + _link("l1") + _link("l2") + _link("l3")
        + _joint("lead", "base", "l1", axis="0 1 0")
        + _joint("follow", "base", "l2", axis="1 0 0", mimic=_mimic("lead", "2", "0.3"))
        + _joint("free", "l2", "l3", kind="prismatic", axis="0 0 1")
    ),
    # a mimic joint in another branch than its master, above an independent joint of that branch:
    # P^T M P then has no tree pattern (forward dynamics takes the dense checked Cholesky)
    "cross": (
        _link("base") + _link("l1") + _link("l2") + _link("l3") + _link("l4")
        + _joint("j1", "base", "l1", axis="1 0 0")
        + _joint("j2", "base", "l2", axis="0 1 0")
        + _joint("j3", "l1", "l3", axis="0 0 1", mimic=_mimic("j2", "0.5"))
        + _joint("j4", "l2", "l4", axis="1 0 0")
    ),
}


def _small(case):
    return f'<?xml version="1.0"?><robot name="mimic_{case}">{SMALL[case]}</robot>'


def test_mimic_model_structure():
    model = rbdgen.load_urdf_string(_small("chain"))
    assert [j.name for j in model.joints] == ["c", "b", "free1", "free2", "a"]
    assert model.joint_names == ("free1", "free2", "a") and model.joint_count == 3
    mimics = {j.name: j.mimic for j in model.joints if j.mimic}
    assert mimics["b"] == rbdgen.model.Mimic("a", 2.0, -0.3)
    assert mimics["c"] == rbdgen.model.Mimic("a", -1.0, 0.35)  # -0.5 (2 qa - 0.3) + 0.2
    assert model.coordinates[:2] == ((2, -1.0, 0.35), (2, 2.0, -0.3))
    again = rbdgen.RobotModel.from_dict(model.as_dict())
    assert again == model and again.digest == model.digest
    data = model.as_dict()
    data["joints"][0]["mimic"]["joint"] = "b"  # a mimic of a mimic: chains must be resolved
    with pytest.raises(ModelError, match="joint 'c' mimics 'b', which is not an independent joint"):
        rbdgen.RobotModel.from_dict(data)
    assert "mimic" not in rbdgen.load_urdf_string(_small("gripper").replace("<mimic", "<x")).as_dict()["joints"][0]


def test_mimic_joint_order():
    text = _small("mixed")
    default = rbdgen.load_urdf_string(text)
    assert [j.name for j in default.joints] == ["slide", "turn", "after_mimic", "last"]  # breadth-first
    assert default.joint_names == ("turn", "after_mimic")
    model = rbdgen.load_urdf_string(text, joint_order=["after_mimic", "turn"])
    assert model.joint_names == ("after_mimic", "turn")
    # mimic bodies are placed as soon as their parent is: slide (on the root) first, last after turn
    assert [j.name for j in model.joints] == ["slide", "after_mimic", "turn", "last"]
    assert all(j.parent < i for i, j in enumerate(model.joints))
    assert rbdgen.load_urdf_string(text, joint_order="depth_first").joints == model.joints
    with pytest.raises(ModelError, match=r"lists mimic joints \['slide'\]"):
        rbdgen.load_urdf_string(text, joint_order=["turn", "after_mimic", "slide"])
    chain = _small("chain")
    with pytest.raises(ModelError, match="puts joint 'free2' before its parent joint 'free1'"):
        rbdgen.load_urdf_string(chain, joint_order=["free2", "free1", "a"])
    with pytest.raises(ModelError, match="joint_order must be one of"):
        rbdgen.load_urdf_string(chain, joint_order="random")


def test_armature_on_mimic_joints():
    text = _small("gripper")
    model = rbdgen.load_urdf_string(text, armature={"right_finger": 0.3, "left_finger": 0.1})
    plain = rbdgen.load_urdf_string(text)
    q = np.array([0.3, 0.01])
    delta = rbdgen.NumpySolver(model).mass_matrix(q) - rbdgen.NumpySolver(plain).mass_matrix(q)
    np.testing.assert_allclose(delta, np.diag([0.0, 0.1 + (-1) ** 2 * 0.3]), atol=1e-15)
    with pytest.raises(ModelError, match="2 values, expected 2|expected 2"):
        rbdgen.load_urdf_string(text, armature=[0.1, 0.2, 0.3])


@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("case", sorted(SMALL))
def test_small_mimic_models_numpy(case, floating, tmp_path):
    text = _small(case)
    model = rbdgen.load_urdf_string(text, floating=floating)
    _check(rbdgen.NumpySolver(model), Reduced(text, tmp_path, floating, model), model, 1)


@pytest.mark.parametrize("case,floating", [("chain", False), ("mixed", True)])
def test_small_mimic_models_compiled(case, floating, tmp_path, build_model):
    text = _small(case)
    model = rbdgen.load_urdf_string(text, floating=floating)
    solver = build_model(model)
    _check(solver, Reduced(text, tmp_path, floating, model), model, 2)


@pytest.mark.parametrize("case,floating", [("chain", False), ("mixed", True), ("hand", True)])
def test_mimic_casadi(case, floating, tmp_path):
    """Every dynamics operation as a casadi.Function (M, ID, g, C qd, FD by ABA and by CRBA; "hand": ABA's
    macro joints), with a load on the last link, against Pinocchio reduced by the mimic map: 1e-12 (FD: 1e-10)
    normwise relative."""
    pytest.importorskip("casadi")
    from helpers import call_reference, rel_error, tolerance
    from test_casadi import casadi_map

    text = _small(case)
    model = rbdgen.load_urdf_string(text, floating=floating)
    ref = Reduced(text, tmp_path, floating, model)
    generated = rbdgen.generate(model, ops=["mass_matrix"])
    st = random_states(model, 3, 3, load_links=model.link_names[-1:])
    for op in rbdgen.DYNAMICS:
        (got,) = casadi_map(generated.casadi(op), st.flat()).values()
        for i in range(st.n):
            expected = call_reference(ref, op, st, i, loads=True)
            value = got[i] if op == "mass_matrix" else got[i][:, 0]
            assert rel_error(value, expected) <= tolerance(op), (op, i, rel_error(value, expected))


@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("case", ["hand", "twins"])
def test_macro_joints_by_aba(case, floating, tmp_path, build_cache):
    """Mimic groups that hang from one body (`aba.MacroJoint`): forward dynamics by ABA, in NumPy and in the C
    generated with ``fd_algorithm="aba"``, against Pinocchio reduced by the mimic map to 1e-12 normwise
    (the CRBA path beside it, and armature on a mimic joint: ``a^2 armature`` in its D)."""
    from conftest import TEST_FLAGS
    from rbdgen.algorithms.aba import aba_obstacle, macro_joints
    from rbdgen.algorithms.kinematics import Tree

    text, armature = _small(case), {"finger_b": 0.02, "finger_a": 0.01, "lead": 0.03}
    armature = {k: v for k, v in armature.items() if f'"{k}"' in text}
    model = rbdgen.load_urdf_string(text, floating=floating, armature=armature)
    tree = Tree.from_model(model)
    assert aba_obstacle(tree) is None and len(macro_joints(tree)) == {"hand": 2, "twins": 1}[case]
    generated = rbdgen.generate(model, ops=["forward_dynamics", "forward_dynamics_crba"], fd_algorithm="aba")
    assert generated.manifest["operations"]["forward_dynamics"]["algorithm"] == "aba"
    compiled = generated.compile(flags=TEST_FLAGS, cache=build_cache, validate=False)
    path = tmp_path / "robot.urdf"
    path.write_text(text)
    ref = MimicReference(path, floating, joint_names=list(model.joint_names), armature=armature)
    st = random_states(model, 6, 11, load_links=model.link_names[-2:])
    for solver in (rbdgen.NumpySolver(model), compiled):
        for i in range(st.n):
            args = (*st.head(i), st.q[i], st.qd[i], st.tau[i])
            acc = ref.forward_dynamics(st.ref_base(i), *args[-3:], st.load_lists[i])
            tol = 1e-12 * max(1.0, np.abs(acc).max())
            np.testing.assert_allclose(solver.forward_dynamics(*args, loads=st.loads[i]), acc, rtol=0, atol=tol)
            np.testing.assert_allclose(solver.forward_dynamics_crba(*args, loads=st.loads[i]), acc, rtol=0, atol=tol)


# -- real robots ---------------------------------------------------------------------
def _erd(relative: str) -> str:
    path = example_robot_data_dir() / relative
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path.read_text()


def test_panda_with_fingers(tmp_path, build_model):
    """The unmodified example-robot-data Panda: finger_joint2 mimics finger_joint1."""
    text = _erd("panda_description/urdf/panda.urdf")
    model = rbdgen.load_urdf_string(text)
    assert model.joint_count == 8 and len(model.joints) == 9
    assert model.joints[-1].mimic == rbdgen.model.Mimic("panda_finger_joint1", 1.0, 0.0)
    ref = Reduced(text, tmp_path, False, model)
    _check(rbdgen.NumpySolver(model), ref, model, 4)
    _check(build_model(model), ref, model, 5)
    generated = rbdgen.generate(model, ops=["mass_matrix"])
    assert "panda_finger_joint2, prismatic, parent panda_joint7: 1.0 * panda_finger_joint1 + 0.0" \
        in generated.files["panda.h"]
    assert generated.manifest["model"]["joints"][-1]["mimic"] == {
        "joint": "panda_finger_joint1", "multiplier": 1.0, "offset": 0.0}
    assert generated.manifest["sizes"]["q"] == 8
    by_aba = rbdgen.generate(model, ops=["forward_dynamics"], fd_algorithm="aba")  # the fingers: one macro joint
    assert by_aba.manifest["operations"]["forward_dynamics"]["algorithm"] == "aba"
    assert "with mimic joints" not in by_aba.files["panda.h"] and "articulated-body" in by_aba.files["panda.h"]


@pytest.mark.parametrize("relative", ["tiago_pro_description/robots/tiago_pro.urdf",
                                      "baxter_description/urdf/baxter.urdf"])
def test_more_mimic_robots_numpy(relative, tmp_path):
    """A sample of the other example-robot-data robots with mimic joints (benchmarks/robot_survey.py tries all)."""
    text = _erd(relative)
    model = rbdgen.load_urdf_string(text)
    assert len(model.joints) > model.joint_count
    _check(rbdgen.NumpySolver(model), Reduced(text, tmp_path, False, model), model, 7,
           states=1)


def test_reduced_talos_with_welded_mimic_joints():
    model = rbdgen.load_urdf_string(_erd("talos_data/robots/talos_reduced.urdf"), floating=True)
    assert all(j.mimic is None for j in model.joints)


@pytest.mark.parametrize("floating", [False, True])
def test_dense_forward_dynamics_derivatives(floating, build_model):
    """Where P^T M P has no tree pattern ("cross"), forward-dynamics derivatives take one dense checked solve
    a column: NumPy and C against central differences of forward dynamics (itself against Pinocchio in
    `test_small_mimic_models_numpy`), and d(acc)/d(tau) against the inverse of the mass matrix."""
    model = rbdgen.load_urdf_string(_small("cross"), floating=floating)
    numpy_solver = rbdgen.NumpySolver(model)
    st = random_states(model, 2, 5)
    h = 1e-6
    for engine in (numpy_solver, build_model(model, ops=["forward_dynamics_derivatives"])):
        for i in range(st.n):
            head, x = st.head(i), {"q": st.q[i], "qd": st.qd[i], "tau": st.tau[i]}
            got = engine.forward_dynamics_derivatives(*head, x["q"], x["qd"], x["tau"])
            for wrt, value in x.items():
                def acc(dx, wrt=wrt):
                    return numpy_solver.forward_dynamics(*head, **{**x, wrt: value + dx})
                central = np.column_stack([(acc(h * e) - acc(-h * e)) / (2 * h) for e in np.eye(len(value))])
                # the difference's rounding: a few ulps of acc (here up to ~500) over h
                noise = 8 * np.finfo(float).eps * np.abs(acc(0)).max() / h
                tol = 1e-7 * max(1, np.abs(central).max()) + noise
                np.testing.assert_allclose(got[f"dacc_d{wrt}"], central, rtol=0, atol=tol)
            Minv = np.linalg.inv(numpy_solver.mass_matrix(*head, x["q"]))
            np.testing.assert_allclose(got["dacc_dtau"], Minv, rtol=0, atol=1e-12 * np.abs(Minv).max())


def test_mimic_derivatives_casadi():
    """Jacobians through the mimic map: CasADi's d(acc)/dq and d(tau)/dqd against central differences."""
    pytest.importorskip("casadi")
    model = rbdgen.load_urdf_string(_small("mixed"))
    generated = rbdgen.generate(model, ops=["inverse_dynamics_derivatives", "forward_dynamics_derivatives"])
    solver = rbdgen.NumpySolver(model)
    rng = np.random.default_rng(8)
    q, qd, qdd, tau = (rng.uniform(-1, 1, 2) for _ in range(4))
    loads = np.zeros(6 * len(model.links))
    h, eye = 1e-6, np.eye(2)
    dacc_dq = np.array(generated.casadi("forward_dynamics_derivatives")(q, qd, tau, loads)[0])
    central = np.column_stack([(solver.forward_dynamics(q + h * e, qd, tau) - solver.forward_dynamics(q - h * e, qd, tau))
                               / (2 * h) for e in eye])
    np.testing.assert_allclose(dacc_dq, central, rtol=0, atol=1e-7)
    dtau_dqd = np.array(generated.casadi("inverse_dynamics_derivatives")(q, qd, qdd, loads)[1])
    central = np.column_stack([(solver.inverse_dynamics(q, qd + h * e, qdd) - solver.inverse_dynamics(q, qd - h * e, qdd))
                               / (2 * h) for e in eye])
    np.testing.assert_allclose(dtau_dqd, central, rtol=0, atol=1e-7)


def test_jax_forward_dynamics_is_the_manifests_algorithm():
    """The JAX module of a robot whose mimic joints ABA takes as macro joints traces the forward dynamics the
    manifest names: generated with ``fd_algorithm="crba"``, its function is `forward_dynamics_crba`'s (the
    same text but the name), not ABA's."""
    model = rbdgen.load_urdf_string(_small("hand"))
    by = {choice: rbdgen.generate(model, ops=["forward_dynamics"], fd_algorithm=choice, prefix="hand")
          for choice in ("aba", "crba")}
    assert [by[c].manifest["operations"]["forward_dynamics"]["algorithm"] for c in by] == ["aba", "crba"]
    crba = rbdgen.generate(model, ops=["forward_dynamics_crba"], prefix="hand").jax_module()
    assert by["crba"].jax_module() == crba.replace("forward_dynamics_crba", "forward_dynamics")
    assert by["aba"].jax_module() != by["crba"].jax_module()
