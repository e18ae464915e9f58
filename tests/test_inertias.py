"""The inertia policy (`rbdgen.inertias`): link inertias no rigid body has.

``"warn"`` loads them as given (compared with Pinocchio, which does too, and with the
analytic mass matrix), ``"balance"`` is MuJoCo's correction and reports what it
changes (compared with the mass matrices of both models), ``"strict"`` refuses them;
a robot with a non-PSD link builds, validates and reports singular states with their
status.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import subprocess
import sys

import numpy as np
import pytest

import rbdgen
from rbdgen import ModelError
from rbdgen.testing import PinocchioReference
from robots import example_robot_data_dir

#: A two-joint arm; the tip's inertia about its centre of mass is ``TIP`` (ixx iyy izz).
ARM = """<robot name="arm">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 0.2"/><mass value="1"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.001"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="3"/></joint>
  <link name="tip"><inertial><origin xyz="{com} 0 0" rpy="0.3 -0.2 0.5"/><mass value="{mass}"/>
    <inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/></inertial></link>
  <joint name="wrist" type="revolute"><parent link="upper"/><child link="tip"/><origin xyz="0 0 0.4" rpy="0.1 0 0"/>
    <axis xyz="0 0.6 0.8"/><limit lower="-2" upper="2" effort="50" velocity="3"/></joint>
</robot>"""


def _arm(tmp_path, ixx, iyy, izz, mass=0.5, com=0.1):
    path = tmp_path / "arm.urdf"
    path.write_text(ARM.format(ixx=ixx, iyy=iyy, izz=izz, mass=mass, com=com))
    return path


def test_warn_loads_the_values_as_given_like_pinocchio(tmp_path, caplog):
    path = _arm(tmp_path, 0.001, 0.001, 0.0026)  # excess 0.0006 over 0.002
    model = rbdgen.load_urdf(path)
    assert ("link 'tip': inertia tensor violates the triangle inequality: its largest principal moment exceeds "
            "the sum of the other two by 0.0006 kg m^2 (23.1% of its largest principal moment); no rigid body has "
            "it; loaded as given") in caplog.text
    (note,) = model.inertia_report.links
    assert (note.link, note.policy, note.violation, note.in_use) == ("tip", "warn", "triangle inequality", True)
    assert note.size == pytest.approx(0.0006) and note.relative == pytest.approx(0.0006 / 0.0026)
    reference = PinocchioReference(str(path), False)
    solver = rbdgen.NumpySolver(model)
    q, qd, qdd = np.array([0.4, -0.7]), np.array([0.3, 1.1]), np.array([-0.5, 0.2])
    np.testing.assert_allclose(solver.mass_matrix(q), reference.mass_matrix(None, q), rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(solver.inverse_dynamics(q, qd, qdd), reference.inverse_dynamics(None, q, qd, qdd),
                               rtol=1e-13, atol=1e-16)


def test_balance_reports_the_inertia_and_mass_matrix_change(tmp_path, caplog):
    path = _arm(tmp_path, 0.001, 0.001, 0.0026)
    given, balanced = rbdgen.load_urdf(path), rbdgen.load_urdf(path, inertia="balance")
    (note,) = balanced.inertia_report.links
    mean = 0.0046 / 3
    np.testing.assert_allclose(np.linalg.eigvalsh(note.given), [0.001, 0.001, 0.0026], rtol=1e-12)  # link axes
    assert note.inertia_change == pytest.approx(0.0026 - mean)  # the largest moment's change
    # the mass matrices at q = 0 of both models, computed independently of the report
    M_given = rbdgen.NumpySolver(given).mass_matrix(np.zeros(2))
    M_balanced = rbdgen.NumpySolver(balanced).mass_matrix(np.zeros(2))
    change = np.linalg.norm(M_balanced - M_given, 2) / np.linalg.norm(M_balanced, 2)
    assert change > 1e-3 and note.mass_matrix_change == pytest.approx(change, rel=1e-10)
    assert f"the mass matrix at q = 0 by {100 * change:.3g}% of its norm" in caplog.text
    assert given.digest != balanced.digest  # the values differ: so do the digest and the build


def test_balance_on_a_floating_base(tmp_path):
    path = _arm(tmp_path, 0.001, 0.001, 0.0026)
    given, balanced = rbdgen.load_urdf(path, floating=True), rbdgen.load_urdf(path, floating=True, inertia="balance")
    base = rbdgen.BaseState([0, 0, 0], [0, 0, 0, 1])
    M_given = rbdgen.NumpySolver(given).mass_matrix(base, np.zeros(2))
    M_balanced = rbdgen.NumpySolver(balanced).mass_matrix(base, np.zeros(2))
    change = np.linalg.norm(M_balanced - M_given, 2) / np.linalg.norm(M_balanced, 2)
    assert balanced.inertia_report.links[0].mass_matrix_change == pytest.approx(change, rel=1e-10)


def test_strict_refuses_and_errors_stay_errors(tmp_path):
    with pytest.raises(ModelError, match="^link 'tip': inertia tensor violates the triangle inequality.*"
                                         "--inertia warn"):
        rbdgen.load_urdf(_arm(tmp_path, 0.001, 0.001, 0.0026), inertia="strict")
    for policy in rbdgen.inertias.INERTIA_POLICIES:  # negative mass: an error whatever the policy
        with pytest.raises(ModelError, match="link 'tip': negative mass"):
            rbdgen.load_urdf(_arm(tmp_path, 0.001, 0.001, 0.001, mass=-1), inertia=policy)
    text = ARM.format(ixx=0.001, iyy=0.001, izz=0.001, mass=1, com=0).replace('ixy="0"', 'ixy="0.5"', 2)
    assert rbdgen.load_urdf_string(text)  # the URDF's six numbers are symmetric by construction
    with pytest.raises(ModelError, match="inertia tensor is not symmetric"):
        rbdgen.Inertia(1.0, (0, 0, 0), ((1, 0.5, 0), (0, 1, 0), (0, 0, 1)))


def test_a_link_welded_to_a_fixed_base_plays_no_part(caplog):
    """Go1's ``base`` (1e-6 kg, every entry 1e-6) was refused even with a fixed base."""
    path = example_robot_data_dir() / "go1_description/urdf/go1.urdf"
    with caplog.at_level(logging.INFO, logger="rbdgen.inertias"):
        fixed = rbdgen.load_urdf(path)
    (note,) = fixed.inertia_report.links
    assert note.link == "base" and not note.in_use
    assert [r.levelname for r in caplog.records if r.name == "rbdgen.inertias"] == ["INFO"]
    assert "it plays no part (welded to the fixed base)" in caplog.text
    assert rbdgen.load_urdf(path, inertia="balance").digest == fixed.digest  # no value in the model changes
    floating = rbdgen.load_urdf(path, floating=True)
    assert floating.inertia_report.links[0].in_use
    assert rbdgen.load_urdf(path, floating=True, inertia="balance").digest != floating.digest


def test_builder_and_mjcf_take_the_policy(tmp_path):
    builder = rbdgen.RobotBuilder("arm").add_link("base").add_link("a", 1.0, rotational=((1, 0, 0), (0, 1, 0), (0, 0, 3)))
    builder.add_joint("j", "revolute", "base", "a", axis=(0, 0, 1))
    assert builder.build().joints[0].inertia.rotational[2][2] == 3.0
    assert builder.build(inertia="balance").joints[0].inertia.rotational[2][2] == pytest.approx(5 / 3)
    with pytest.raises(ModelError, match="link 'a': inertia tensor violates"):
        builder.build(inertia="strict")
    pytest.importorskip("mujoco")
    path = tmp_path / "arm.xml"
    path.write_text('<mujoco><worldbody><body name="a"><joint name="h"/>'
                    '<inertial pos="0 0 0" mass="1" diaginertia="1 1 3"/></body></worldbody></mujoco>')
    for policy in ("warn", "strict"):
        with pytest.raises(ModelError, match="A \\+ B >= C.*inertia=\"balance\" \\(--inertia balance\\)"):
            rbdgen.load_mjcf(path, inertia=policy)
    model = rbdgen.load_mjcf(path, inertia="balance")
    np.testing.assert_allclose(model.joints[0].inertia.rotational, np.eye(3) * 5 / 3, rtol=1e-12)


def test_manifest_and_command_line(tmp_path):
    path = _arm(tmp_path, 0.001, 0.001, 0.0026)
    manifest = rbdgen.generate(str(path), ops=["mass_matrix"], inertia="balance").manifest
    assert manifest["options"]["inertia"] == "balance"
    assert manifest["inertia"]["policy"] == "balance"
    assert [n["link"] for n in manifest["inertia"]["links"]] == ["tip"]
    json.dumps(manifest["inertia"], allow_nan=False)  # plain JSON
    assert rbdgen.generate(rbdgen.load_urdf(path), ops=["mass_matrix"]).manifest["inertia"]["policy"] == "warn"
    built = rbdgen.RobotModel.from_dict(manifest["model"])
    assert rbdgen.generate(built, ops=["mass_matrix"]).manifest["inertia"] is None  # built directly: no policy
    cli = [sys.executable, "-m", "rbdgen.codegen.cli"]
    result = subprocess.run(cli + ["info", str(path), "--inertia", "strict"], capture_output=True, text=True)
    assert result.returncode == 2 and "link 'tip': inertia tensor violates" in result.stderr
    result = subprocess.run(cli + ["info", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "inertia policy warn: 1 link inertias no rigid body has (tip" in result.stdout
    assert "rbdgen.inertias: link 'tip'" in result.stderr
    out = tmp_path / "out"
    result = subprocess.run(cli + ["-q", "generate", str(path), "-o", str(out), "--no-compile", "--inertia", "balance",
                                   "--ops", "mass_matrix"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert json.loads((out / "arm.json").read_text())["inertia"]["links"][0]["policy"] == "balance"


def test_a_slightly_non_psd_link_builds_and_validates(tmp_path, build_model):
    """A moving link with a principal moment of -1e-9 (TIAGo's antenna has -5e-8): its mass
    matrix stays positive definite, and the C matches the NumPy engine and Pinocchio."""
    path = _arm(tmp_path, 0.001, 0.001, -1e-9, mass=0.01)
    model = rbdgen.load_urdf(path)
    assert model.inertia_report.links[0].violation == "not positive semi-definite"
    solver = build_model(model, ops=["mass_matrix", "forward_dynamics", "forward_dynamics_crba"])
    assert set(solver.validate(samples=8)) == {"mass_matrix", "forward_dynamics", "forward_dynamics_crba"}
    reference = PinocchioReference(str(path), False)
    q, qd, tau = np.array([0.4, -0.7]), np.array([0.3, 1.1]), np.array([0.5, 0.01])
    expected = reference.forward_dynamics(None, q, qd, tau)
    np.testing.assert_allclose(solver.forward_dynamics(q, qd, tau), expected, rtol=1e-9)


def test_an_indefinite_mass_matrix_is_reported_with_its_status(tmp_path, build_model, caplog):
    """A massless tip whose moments are all negative: M is indefinite at every
    state. The generated C and the NumPy engine both raise SingularError (status 2)."""
    model = rbdgen.load_urdf(_arm(tmp_path, -0.001, -0.001, -0.001, mass=0, com=0))
    solver = build_model(model, ops=["mass_matrix", "forward_dynamics", "forward_dynamics_crba"])
    q = np.array([0.3, 0.2])
    assert np.linalg.eigvalsh(solver.mass_matrix(q)).min() < 0
    for engine in (solver, rbdgen.NumpySolver(model)):
        for op in ("forward_dynamics", "forward_dynamics_crba"):
            with pytest.raises(rbdgen.SingularError) as error:
                getattr(engine, op)(q, q, q)
            assert error.value.status == 2


@pytest.mark.parametrize("odd", ["a", "b"])
def test_mjcf_balance_reports_the_body_mujoco_balanced(tmp_path, odd):
    """MuJoCo's balanceinertia replaces a body's inertia (a: diaginertia in a rotated frame, b:
    fullinertia); the report names it, and its mass-matrix change is that between the model and
    the same model with the body's inertia as the file gives it."""
    pytest.importorskip("mujoco")
    a = "0.1 0.1 0.3" if odd == "a" else "0.1 0.1 0.15"
    b = "0.1 0.1 0.3 0.01 0 0" if odd == "b" else "0.1 0.1 0.15 0.01 0 0"
    path = tmp_path / "arm.xml"
    path.write_text(f"""<mujoco><worldbody>
      <body name="a"><joint name="h" axis="0 1 0"/><inertial pos="0 0 0.1" quat="0.9 0.1 0.2 0" mass="1"
        diaginertia="{a}"/>
        <body name="b" pos="0 0 0.5"><joint name="g" axis="1 0 0"/>
          <inertial pos="0 0.1 0" mass="2" fullinertia="{b}"/>
          <body name="c" pos="0 0 0.5"><joint name="k" axis="0 0 1"/><geom size="0.1"/></body>
        </body></body></worldbody></mujoco>""")
    model = rbdgen.load_mjcf(path, inertia="balance")
    (note,) = model.inertia_report.links
    assert (note.link, note.violation, note.policy) == (odd, "triangle inequality", "balance")
    np.testing.assert_allclose(np.linalg.eigvalsh(note.given), [0.1 - (odd == "b") * 0.01, 0.1 + (odd == "b") * 0.01,
                                                                0.3], rtol=1e-12)
    body = {"a": 0, "b": 1}[odd]  # each joint frame is its body's frame (anchor at the origin, no ref)
    joint = model.joints[body]
    np.testing.assert_allclose(joint.inertia.rotational, np.eye(3) * np.trace(note.given) / 3, rtol=1e-12, atol=1e-14)
    restored = dataclasses.replace(joint, inertia=rbdgen.Inertia(joint.inertia.mass, joint.inertia.com, note.given))
    as_given = dataclasses.replace(model, joints=model.joints[:body] + (restored,) + model.joints[body + 1:])
    M = rbdgen.NumpySolver(model).mass_matrix(np.zeros(3))
    M_given = rbdgen.NumpySolver(as_given).mass_matrix(np.zeros(3))
    change = np.linalg.norm(M - M_given, 2) / np.linalg.norm(M, 2)
    assert change > 1e-3 and note.mass_matrix_change == pytest.approx(change, rel=1e-10)
