"""MJCF models (`rbdgen.load_mjcf`) against MuJoCo's own dynamics of the same file.

MuJoCo is run with constraints, springs, dampers and actuators disabled, so
``mj_forward`` gives the tree's forward dynamics under ``qfrc_applied``;
``mj_fullM`` the mass matrix and ``mj_rne`` the bias forces and inverse
dynamics (without armature: MuJoCo adds it in the mass matrix only). A free
joint's velocity is ``[pdot_W, omega_body]`` in MuJoCo and ``[omega_W, pdot_W]``
in rbdgen: ``nu_mujoco = T nu_rbdgen`` (accelerations too: the body-frame
angular velocity's derivative is ``R^T omegadot_W``), so ``M = T^T M_mj T`` and
``tau = T^T tau_mj``.
"""

from __future__ import annotations

import numpy as np
import pytest

import rbdgen
from rbdgen import ModelError
from rbdgen.testing import random_states
from robots import path as robot_path

mujoco = pytest.importorskip("mujoco")

ARM = """<mujoco model="arm">
  <compiler angle="radian"/>
  <option gravity="0.3 -0.2 -9.5"/>
  <worldbody>
    {open}
    <body name="upper" pos="0.1 0 0.5" quat="0.9 0.1 0.2 0.3">
      <joint name="shoulder" type="hinge" axis="0 1 0" pos="0 0 0.1" ref="0.4" armature="0.05" damping="3"/>
      <geom type="capsule" size="0.04" fromto="0 0 0 0.3 0 0" density="800"/>
      <body name="lower" pos="0.3 0 0" euler="0.2 0.1 0">
        <joint name="elbow" type="hinge" axis="1 1 0" pos="0.05 0 0" range="-1 1" stiffness="10"/>
        <joint name="twist" type="hinge" axis="0 0 1" pos="0 0.02 0" ref="-0.3"/>
        <geom type="box" size="0.1 0.03 0.02" pos="0.1 0 0" density="500"/>
        <body name="slider" pos="0.2 0 0">
          <joint name="slide" type="slide" axis="0 0.6 0.8" ref="0.05" armature="0.2"/>
          <inertial pos="0.01 0.02 0.03" quat="0.7 0.7 0.1 0" mass="0.4" diaginertia="0.003 0.002 0.004"/>
        </body>
      </body>
      <body name="side" pos="0 0.1 0"><geom type="sphere" size="0.05" pos="0 0.05 0"/></body>
    </body>
    {close}
  </worldbody>
</mujoco>
"""

FLOATING = ('<body name="torso" pos="0 0 1"><freejoint name="root"/>'
            '<inertial pos="0.02 0 0" mass="3" diaginertia="0.1 0.2 0.25"/>', "</body>")


def _write(tmp_path, text, name="arm.xml"):
    path = tmp_path / name
    path.write_text(text)
    return path


class MuJoCo:
    """MuJoCo's tree dynamics of one file in rbdgen's conventions."""

    def __init__(self, path, floating: bool):
        self.m = mujoco.MjModel.from_xml_path(str(path))
        self.d = mujoco.MjData(self.m)
        for flag in ("mjDSBL_CONSTRAINT", "mjDSBL_SPRING", "mjDSBL_DAMPER", "mjDSBL_ACTUATION"):
            self.m.opt.disableflags |= int(getattr(mujoco.mjtDisableBit, flag))
        self.floating = floating

    def _set(self, base, q, qd):
        nv = self.m.nv
        T = np.eye(nv)
        if self.floating:
            x, y, z, w = base.rotation_xyzw
            R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                          [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                          [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
            T[:6, :6] = 0
            T[0:3, 3:6] = np.eye(3)
            T[3:6, 0:3] = R.T
            self.d.qpos[:] = np.concatenate([base.translation, [w, x, y, z], q])
            self.d.qvel[:] = T @ np.concatenate([base.velocity, qd])
        else:
            self.d.qpos[:], self.d.qvel[:] = q, qd
        return T

    def run(self, base, q, qd, qdd, tau, armature):
        """(M, ID, bias, FD) in rbdgen's coordinates."""
        T = self._set(base, q, qd)
        self.d.qfrc_applied[:] = np.linalg.solve(T.T, tau)
        mujoco.mj_forward(self.m, self.d)
        M = np.zeros((self.m.nv, self.m.nv))
        mujoco.mj_fullM(self.m, self.d, M)
        fd = np.linalg.solve(T, self.d.qacc)
        bias = T.T @ self.d.qfrc_bias
        nudot = np.concatenate([base.acceleration, qdd]) if self.floating else qdd
        self.d.qacc[:] = T @ nudot
        rne = np.zeros(self.m.nv)
        mujoco.mj_rne(self.m, self.d, 1, rne)
        return T.T @ M @ T, T.T @ rne + armature * nudot, bias, fd


def _compare(model, reference, seed, states=3, solver=None):
    solver = solver or rbdgen.NumpySolver(model)
    J, G = model.joint_count, model.generalized_count
    armature = np.concatenate([np.zeros(G - J), [j.armature for j in model.joints]])
    st = random_states(model, states, seed)
    if model.floating:
        st.acceleration[:] = 0.0
    for i in range(states):
        q, qd, qdd, tau = st.q[i], st.qd[i], st.qdd[i], st.tau[i]
        args = st.head(i)
        base = args[0] if args else None
        M, tau_id, bias, acc = reference.run(base, q, qd, qdd, tau, armature)
        np.testing.assert_allclose(solver.mass_matrix(*args, q), M, rtol=0, atol=1e-12 * max(1, abs(M).max()))
        tol = 1e-12 * max(1, abs(tau_id).max(), abs(bias).max())
        np.testing.assert_allclose(solver.inverse_dynamics(*args, q, qd, qdd), tau_id, rtol=0, atol=tol)
        np.testing.assert_allclose(solver.velocity_product_forces(*args, q, qd) + solver.gravity(*args, q), bias,
                                   rtol=0, atol=tol)
        np.testing.assert_allclose(solver.forward_dynamics(*args, q, qd, tau), acc, rtol=0,
                                   atol=1e-10 * max(1, abs(acc).max()))


def test_fixed_base_arm(tmp_path):
    path = _write(tmp_path, ARM.format(open="", close=""), "file-name.xml")
    model = rbdgen.load_mjcf(path)
    assert model.name == "arm"  # <mujoco model="arm">
    assert rbdgen.load_mjcf(_write(tmp_path, "<mujoco><worldbody/></mujoco>", "no-name.xml")).name == "no_name"
    assert not model.floating and model.gravity == (0.3, -0.2, -9.5)
    assert model.joint_names == ("shoulder", "elbow", "twist", "slide")  # MuJoCo's dof order
    assert [j.armature for j in model.joints] == [0.05, 0.0, 0.0, 0.2]
    assert (model.joints[1].limits.lower, model.joints[1].limits.upper) == (-1.0, 1.0)
    assert model.link_names[0] == "world" and "lower.twist" in model.link_names
    _compare(model, MuJoCo(path, False), 0)


def test_floating_base_arm(tmp_path):
    path = _write(tmp_path, ARM.format(open=FLOATING[0], close=FLOATING[1]))
    model = rbdgen.load_mjcf(path)
    assert model.floating and model.link_names[0] == "torso" and model.joint_count == 4
    _compare(model, MuJoCo(path, True), 1)
    fixed = rbdgen.load_mjcf(path, floating=False, gravity=(0, 0, -1))
    assert not fixed.floating and fixed.gravity == (0.0, 0.0, -1.0)
    assert fixed.total_mass == pytest.approx(model.total_mass - 3.0)  # the torso is welded to the world


def test_degrees_and_inertia_from_geoms(tmp_path):
    """angle="degree" (MuJoCo's default) and inertias computed by MuJoCo from geoms."""
    text = ARM.format(open="", close="").replace('<compiler angle="radian"/>', "").replace('ref="0.4"', 'ref="20"')
    path = _write(tmp_path, text)
    model = rbdgen.load_mjcf(path)
    m = mujoco.MjModel.from_xml_path(str(path))
    assert model.total_mass == pytest.approx(float(m.body_mass.sum()), abs=1e-12)
    _compare(model, MuJoCo(path, False), 2, states=1)


def test_urdf_imported_by_mujoco():
    """The Allegro hand's URDF through MuJoCo's URDF import and through rbdgen's loader (depth-first)."""
    path = robot_path("hand")
    reference = MuJoCo(path, False)
    gravity = tuple(reference.m.opt.gravity)  # MuJoCo's default, -9.81
    model = rbdgen.load_urdf(path, joint_order="depth_first", gravity=gravity)
    names = [mujoco.mj_id2name(reference.m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(reference.m.njnt)]
    assert list(model.joint_names) == names
    _compare(model, reference, 3)
    assert np.allclose(rbdgen.load_mjcf(path).joints[0].inertia.rotational, model.joints[0].inertia.rotational)


@pytest.mark.parametrize("body,message", [
    ('<body name="b"><joint name="j" type="ball"/><geom size="0.1"/></body>',
     "joint 'j' \\(body 'b'\\): ball joints are not supported; replace it by three hinge joints"),
    ('<body name="a"><freejoint name="f1"/><geom size="0.1"/></body><body name="b"><freejoint name="f2"/>'
     '<geom size="0.1"/></body>', "joint 'f1'.*free joint is supported only as the one floating base"),
])
def test_rejected(tmp_path, body, message):
    path = _write(tmp_path, f"<mujoco><worldbody>{body}</worldbody></mujoco>")
    with pytest.raises(ModelError, match=message):
        rbdgen.load_mjcf(path)


def test_rejected_floating_options(tmp_path):
    two = _write(tmp_path, '<mujoco><worldbody><body name="a"><geom size="0.1"/></body>'
                           '<body name="b"><geom size="0.1"/></body></worldbody></mujoco>')
    with pytest.raises(ModelError, match="exactly one body on the world.*'a', 'b'"):
        rbdgen.load_mjcf(two, floating=True)
    hinged = _write(tmp_path, '<mujoco><worldbody><body name="a"><joint name="h"/><geom size="0.1"/></body>'
                              '</worldbody></mujoco>', "hinged.xml")
    with pytest.raises(ModelError, match="body 'a' is joined to the world by joint 'h'"):
        rbdgen.load_mjcf(hinged, floating=True)
    broken = _write(tmp_path, "<mujoco><worldbody><body><joint type='hinge' axis='0 0 0'/></body></worldbody></mujoco>",
                    "broken.xml")
    with pytest.raises(ModelError, match="broken.xml: MuJoCo cannot compile it"):
        rbdgen.load_mjcf(broken)
    with pytest.raises(FileNotFoundError):
        rbdgen.load_mjcf(tmp_path / "missing.xml")


def test_compiled_mjcf_model(tmp_path, build_model):
    path = _write(tmp_path, ARM.format(open=FLOATING[0], close=FLOATING[1]))
    model = rbdgen.load_mjcf(path)
    _compare(model, MuJoCo(path, True), 4, states=2, solver=build_model(model))


BODY = '<mujoco><worldbody><body name="a"><joint name="h"/><geom size="0.1"/></body></worldbody></mujoco>'


@pytest.mark.parametrize("reference", ["{outside}", "../secret/part.xml", "sub/../../secret/part.xml",
                                       "link_out/part.xml"])
def test_mjcf_include_confined_to_the_model_folder(tmp_path, reference):
    """An <include> of an absolute path, of ``..`` or through a link leaving the model's folder is
    refused before MuJoCo reads anything; one inside the folder loads."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "part.xml").write_text('<mujoco><worldbody><body name="b"><joint name="g"/><geom size="0.1"/>'
                                     '</body></worldbody></mujoco>')
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "link_out").symlink_to(secret)
    reference = reference.format(outside=secret / "part.xml")
    path = _write(folder, BODY.replace("</worldbody>", f'</worldbody><include file="{reference}"/>'), "robot.xml")
    with pytest.raises(ModelError, match=f"robot.xml: <include file='{reference}'>: names a file outside the "
                                         f"model's folder"):
        rbdgen.load_mjcf(path)
    (folder / "part.xml").write_text((secret / "part.xml").read_text())
    inside = _write(folder, BODY.replace("</worldbody>", '</worldbody><include file="part.xml"/>'), "inside.xml")
    assert rbdgen.load_mjcf(inside).joint_names == ("h", "g")


def test_mjcf_nested_include_and_assets_confined(tmp_path):
    nested = _write(tmp_path, '<mujoco><include file="/etc/hostname"/></mujoco>', "nested.xml")
    path = _write(tmp_path, BODY.replace("</worldbody>", '</worldbody><include file="nested.xml"/>'), "robot.xml")
    with pytest.raises(ModelError, match="nested.xml: <include file='/etc/hostname'>: names a file outside"):
        rbdgen.load_mjcf(path)
    for asset in ('<compiler meshdir="/usr"/><asset><mesh file="x.stl"/></asset>',
                  '<compiler meshdir="meshes"/><asset><mesh file="../../x.stl"/></asset>',
                  '<asset><texture type="2d" file="/etc/x.png"/></asset>'):
        path = _write(tmp_path, BODY.replace("<worldbody>", asset + "<worldbody>"), "asset.xml")
        with pytest.raises(ModelError, match="asset.xml: <(compiler|mesh|texture) .*names a file outside"):
            rbdgen.load_mjcf(path)
    assert nested.exists()


def test_mjcf_a_dtd_or_a_cube_texture_does_not_unconfine(tmp_path):
    """MuJoCo's parser reads a file with a DOCTYPE that rbdgen's (DTDs forbidden) cannot check: such an include
    is refused, not skipped (it would have unconfined every file after it); and a cube texture's six faces
    (``fileright`` ... ``fileback``) are files too."""
    outside = tmp_path / "secret.xml"
    outside.write_text('<mujocoinclude><body name="s"><joint name="s"/><geom size="0.1"/></body></mujocoinclude>')
    folder = tmp_path / "model"
    folder.mkdir()
    _write(folder, f'<!DOCTYPE x><mujocoinclude><include file="{outside}"/></mujocoinclude>', "sub.xml")
    path = _write(folder, BODY.replace("</worldbody>", '</worldbody><include file="sub.xml"/>'), "robot.xml")
    with pytest.raises(ModelError, match="sub.xml: not XML that rbdgen can check without a DTD"):
        rbdgen.load_mjcf(path)
    cube = '<asset><texture name="t" type="cube" fileright="/etc/x.png"/></asset>'
    path = _write(folder, BODY.replace("<worldbody>", cube + "<worldbody>"), "cube.xml")
    with pytest.raises(ModelError, match="cube.xml: <texture fileright='/etc/x.png'>: names a file outside"):
        rbdgen.load_mjcf(path)
