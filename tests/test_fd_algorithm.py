"""``forward_dynamics``' algorithm in the generated C: ABA or CRBA with the tree-sparse solve, chosen per robot.

Both choices are checked against Pinocchio's ``aba`` (an independent reference), the choice is recorded in
the manifest and the header, and the cost that ranks them (`optimize.critical_path`) against a hand count.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import rbdgen
from rbdgen import spatial as sp
from rbdgen.algorithms.aba import along_axes
from rbdgen.algorithms.kinematics import Tree
from rbdgen.codegen.generator import ABA_MARGIN
from rbdgen.ir.optimize import LATENCY, critical_path, estimated_cycles, schedule
from rbdgen.ir.trace import Graph, Kernel

from conftest import TEST_FLAGS
from helpers import LOOSE, assert_close, pinocchio, random_states
from robots import ROBOTS


def test_critical_path_is_the_longest_chain_of_latencies():
    g = Graph()
    x, y, z = g.input("x", 3)
    slow = g.div(g.mul(x, y), z)                          # mul, then div
    fast = g.add(x, z)                                    # add alone
    kernel = Kernel("k", g, {"x": 3}, {"out": [g.add(slow, fast), fast]})
    assert critical_path(kernel) == LATENCY["mul"] + LATENCY["div"] + LATENCY["add"]
    plan = schedule(kernel)
    assert estimated_cycles(kernel, plan) == 4 / 2 + critical_path(kernel)  # 4 operations, 2 a cycle


@pytest.mark.parametrize("algorithm", ["aba", "crba"])
def test_each_algorithm_matches_pinocchio(algorithm, build_cache):
    robot = ROBOTS["ur5"]
    generated = rbdgen.generate(robot.path, floating=robot.floating, ops=["forward_dynamics"],
                                prefix=f"ur5_{algorithm}", fd_algorithm=algorithm)
    assert generated.manifest["operations"]["forward_dynamics"]["algorithm"] == algorithm
    assert generated.manifest["options"]["fd_algorithm"] == algorithm
    header = generated.files[f"ur5_{algorithm}.h"]
    assert ("articulated-body" in header) == (algorithm == "aba")
    assert ("tree-sparse LTDL" in header) == (algorithm == "crba")
    solver = generated.compile(flags=TEST_FLAGS, cache=build_cache, validate=False)
    st = random_states(generated.model, 16, seed=3)
    ref = pinocchio("ur5")
    for i in range(16):
        assert_close(solver.forward_dynamics(st.q[i], st.qd[i], st.tau[i]),
                     ref.forward_dynamics(None, st.q[i], st.qd[i], st.tau[i]), LOOSE, f"{algorithm} state {i}")


def test_auto_takes_aba_on_a_long_chain():
    """CRBA's factor grows with n d (a chain: n^2 / 2), ABA's sweeps with n: a 40-joint chain takes ABA."""
    from test_deep_chain import _chain

    generated = rbdgen.generate(_chain(40), ops=["forward_dynamics"])
    assert generated.manifest["operations"]["forward_dynamics"]["algorithm"] == "aba"


@pytest.mark.parametrize("name, chosen", [("solo12", "aba"), ("ur5", "crba"), ("panda", "crba")])
def test_auto_takes_the_cheaper_and_says_which(name, chosen, caplog):
    """ABA unless its estimate exceeds CRBA's by more than `ABA_MARGIN` (the log says both): Solo12's ABA
    (estimated 0.93x CRBA), UR5's CRBA (ABA estimated 1.19x since CRBA's solve lost its residual check, measured
    1.04x at -O3 and 1.12x at -O2), Panda's CRBA (ABA estimated 1.24x)."""
    robot = ROBOTS[name]
    model = rbdgen.load_urdf(robot.path, floating=robot.floating)
    with caplog.at_level("INFO", logger="rbdgen.codegen.generator"):
        auto = rbdgen.generate(model, ops=["forward_dynamics"], prefix=name)
    assert auto.manifest["operations"]["forward_dynamics"]["algorithm"] == chosen
    assert "fd_algorithm" not in auto.manifest["options"]
    logged = re.search(r"forward_dynamics by (\w+) \(estimated cycles: ABA (\d+), CRBA (\d+)\)", caplog.text)
    aba, crba = int(logged[2]), int(logged[3])
    assert logged[1].lower() == chosen and (chosen == "aba") == (aba <= ABA_MARGIN * crba)
    fixed = rbdgen.generate(model, ops=["forward_dynamics"], prefix=name, fd_algorithm=chosen)
    assert auto.files[f"{name}_forward_dynamics.c"] == fixed.files[f"{name}_forward_dynamics.c"]


def test_talos_grippers_take_aba(generated, compiled):
    """Talos' grippers (each: a joint and six mimic joints hanging from the wrist, `aba.MacroJoint`): the cost
    model takes ABA (the manifest and the header say so), forward_dynamics_crba stays callable, and both match
    Pinocchio's forward dynamics of the model without mimic tags reduced by the mimic map to 1e-12 normwise."""
    talos = generated("talos")
    model = talos.model
    assert model.joint_count < len(model.joints)  # Talos' grippers have mimic joints
    assert talos.manifest["operations"]["forward_dynamics"]["algorithm"] == "aba"
    assert "talos_forward_dynamics: qdd = M^-1 (tau - C qd - g - J^T loads) by the articulated-body algorithm." \
        in talos.files["talos.h"]
    solver = compiled("talos")
    ref = pinocchio("talos")
    st = random_states(model, 8, seed=29, load_links=["left_sole_link", "gripper_left_fingertip_1_link"])
    for i in range(st.n):
        expected = ref.forward_dynamics(st.ref_base(i), st.q[i], st.qd[i], st.tau[i], st.load_lists[i])
        for op in ("forward_dynamics", "forward_dynamics_crba"):
            got = getattr(solver, op)(*st.head(i), st.q[i], st.qd[i], st.tau[i], loads=st.loads[i])
            assert_close(got, expected, 1e-12, f"{op} state {i}")


def test_mimic_joints_across_branches_take_crba_whatever_is_asked(caplog):
    """A mimic joint below another branch's joint than its master's ("cross" of test_mimic): no macro joint,
    CRBA whatever ``fd_algorithm`` asks, and a warning that says why."""
    from test_mimic import _small

    model = rbdgen.load_urdf_string(_small("cross"))
    with caplog.at_level("INFO", logger="rbdgen.codegen.generator"):
        generated = rbdgen.generate(model, ops=["forward_dynamics"], fd_algorithm="aba")
    assert generated.manifest["operations"]["forward_dynamics"]["algorithm"] == "crba"
    assert "with mimic joints across branches by CRBA" in generated.files["mimic_cross.h"]
    (record,) = [r for r in caplog.records if "forward_dynamics by CRBA" in r.getMessage()]
    assert record.levelname == "WARNING" and "'j2', 'j3' share one coordinate" in record.getMessage()


def test_a_bad_choice_is_refused(tmp_path):
    with pytest.raises(ValueError, match="fd_algorithm must be 'auto' or one of"):
        rbdgen.generate(ROBOTS["ur5"].path, ops=["forward_dynamics"], fd_algorithm="featherstone")
    proc = subprocess.run([sys.executable, "-m", "rbdgen", "generate", ROBOTS["ur5"].path, "-o", str(tmp_path / "x"),
                           "--fd-algorithm", "featherstone", "--no-compile"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--fd-algorithm" in proc.stderr


def test_cli_records_the_choice(tmp_path):
    out = tmp_path / "ur5"
    subprocess.run([sys.executable, "-m", "rbdgen", "-q", "generate", ROBOTS["ur5"].path, "-o", str(out),
                    "--ops", "forward_dynamics", "--fd-algorithm", "aba", "--no-compile"], check=True)
    manifest = json.loads(next(out.glob("*.json")).read_text())
    assert manifest["operations"]["forward_dynamics"]["algorithm"] == "aba"
    assert manifest["options"]["fd_algorithm"] == "aba"


@pytest.mark.parametrize("name", ["ur5", "g1"])
def test_aba_frames_slid_along_the_axes(name):
    """`aba.along_axes` moves body frames along their joint axes (XJ commutes with the slide): each body's
    inertia and each link's frame, taken to the base through the tree's transforms, are the same as before
    to rounding, and fewer offsets are nonzero (each transform to the parent costs less)."""
    robot = ROBOTS[name]
    tree = Tree.from_model(rbdgen.load_urdf(robot.path, floating=robot.floating))
    slid = along_axes(tree)

    def to_base(t):  # X from the base to each body (the joints at their turn: XJ left out on both sides)
        X = []
        for i, p in enumerate(t.parent):
            X.append(np.array(sp.xform_matrix(t.Xtree[i])) @ (np.eye(6) if p == -1 else X[p]))
        return X

    before, after = to_base(tree), to_base(slid)
    for i in range(tree.nb):
        I0 = before[i].T @ np.array(sp.rigid_matrix(tree.I[i]), dtype=float) @ before[i]
        I1 = after[i].T @ np.array(sp.rigid_matrix(slid.I[i]), dtype=float) @ after[i]
        np.testing.assert_allclose(I1, I0, atol=1e-12, err_msg=f"body {i}")
    for link, body in enumerate(tree.link_body):
        if body != -1:
            np.testing.assert_allclose(np.array(sp.xform_matrix(slid.Xlink[link])) @ after[body],
                                       np.array(sp.xform_matrix(tree.Xlink[link])) @ before[body], atol=1e-12)
    nonzero = [sum(not sp.is_zero(x) for X in t.Xtree for x in X[1]) for t in (tree, slid)]
    assert nonzero[1] < nonzero[0]
