"""xacro files: expanded by the xacro package, then loaded like the URDF they expand to."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rbdgen
from rbdgen import ModelError

pytest.importorskip("xacro")

ARM = """<?xml version="1.0"?>
<robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="mass" default="1.0"/>
  <xacro:property name="m" value="$(arg mass)"/>
  <xacro:macro name="segment" params="name parent length">
    <link name="${name}"><inertial><origin xyz="0 0 ${length / 2}"/><mass value="${m}"/>
      <inertia ixx="${m * length**2 / 12}" ixy="0" ixz="0" iyy="${m * length**2 / 12}" iyz="0" izz="1e-4"/>
    </inertial></link>
    <joint name="${name}_joint" type="revolute"><parent link="${parent}"/><child link="${name}"/>
      <origin xyz="0 0 ${length}"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="5" velocity="3"/>
    </joint>
  </xacro:macro>
  <link name="base"/>
  <xacro:segment name="upper" parent="base" length="0.4"/>
  <xacro:segment name="lower" parent="upper" length="0.3"/>
  {include}
</robot>
"""

PLAIN = """<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 0.2"/><mass value="{m}"/>
    <inertia ixx="{iu}" ixy="0" ixz="0" iyy="{iu}" iyz="0" izz="1e-4"/></inertial></link>
  <joint name="upper_joint" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.4"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="5" velocity="3"/></joint>
  <link name="lower"><inertial><origin xyz="0 0 0.15"/><mass value="{m}"/>
    <inertia ixx="{il}" ixy="0" ixz="0" iyy="{il}" iyz="0" izz="1e-4"/></inertial></link>
  <joint name="lower_joint" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="5" velocity="3"/></joint>
  {extra}
</robot>
"""

TOOL = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <link name="tool"><inertial><mass value="0.5"/>
    <inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/></inertial></link>
  <joint name="tool_weld" type="fixed"><parent link="lower"/><child link="tool"/>
    <origin xyz="0 0 0.3"/></joint>
</robot>
"""


def _arm(include=""):
    return ARM.replace("{include}", include)


def _plain(m, extra=""):
    return PLAIN.format(m=m, iu=m * 0.4**2 / 12, il=m * 0.3**2 / 12, extra=extra)


def test_xacro_expands_like_the_plain_urdf(tmp_path):
    path = tmp_path / "arm.urdf.xacro"
    path.write_text(_arm())
    assert rbdgen.load_urdf(path, trust_xacro=True) == rbdgen.load_urdf_string(_plain(1.0))
    assert rbdgen.load_urdf(path, xacro_args={"mass": 2.5}, trust_xacro=True) == rbdgen.load_urdf_string(_plain(2.5))


def test_find_resolved_through_package_paths(tmp_path):
    package = tmp_path / "tools_description"
    (package / "urdf").mkdir(parents=True)
    (package / "urdf" / "tool.xacro").write_text(TOOL)
    path = tmp_path / "arm.urdf.xacro"
    path.write_text(_arm('<xacro:include filename="$(find tools_description)/urdf/tool.xacro"/>'))
    with pytest.raises(ModelError, match="\\$\\(find tools_description\\).*package_paths=\\{'tools_description'"):
        rbdgen.load_urdf(path, trust_xacro=True)
    model = rbdgen.load_urdf(path, package_paths={"tools_description": package}, trust_xacro=True)
    tool = TOOL.split("<robot xmlns:xacro=\"http://www.ros.org/wiki/xacro\">")[1].split("</robot>")[0]
    assert model == rbdgen.load_urdf_string(_plain(1.0, tool))
    assert model.total_mass == pytest.approx(2.5)


def test_xacro_errors_are_model_errors(tmp_path):
    path = tmp_path / "bad.urdf.xacro"
    path.write_text(_arm("<xacro:segment name='x'/>"))
    with pytest.raises(ModelError, match="bad.urdf.xacro: xacro could not expand it"):
        rbdgen.load_urdf(path, trust_xacro=True)


def test_without_the_xacro_package(tmp_path, monkeypatch):
    path = tmp_path / "arm.urdf.xacro"
    path.write_text(_arm())
    monkeypatch.setitem(sys.modules, "xacro", None)  # import xacro -> ImportError
    with pytest.raises(ImportError, match="pip install 'rbdgen\\[xacro\\]'"):
        rbdgen.load_urdf(path, trust_xacro=True)


def test_cli_and_generate_read_xacro(tmp_path):
    path = tmp_path / "arm.urdf.xacro"
    path.write_text(_arm())
    result = subprocess.run([sys.executable, "-m", "rbdgen.codegen.cli", "info", str(path), "--trust-xacro"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "J = 2 moving joints" in result.stdout
    result = subprocess.run([sys.executable, "-m", "rbdgen.codegen.cli", "info", str(path), "--trust-xacro", "--xacro-arg", "mass:=3",
                             "--package-path", f"unused={tmp_path}"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "total mass 6 kg" in result.stdout
    generated = rbdgen.generate(str(path), ops=["mass_matrix"], trust_xacro=True)
    assert generated.model == rbdgen.load_urdf_string(_plain(1.0))


#: xacro's expression sandbox checks only the names of the top-level code object: the dunder names
#: inside the lambda pass, and the expression reaches os.mkdir through a subclass of object.
EVIL = """<?xml version="1.0"?>
<robot name="evil" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:property name="x" value="${(lambda: [c for c in ().__class__.__base__.__subclasses__()
    if c.__name__ == '_wrap_close'][0].__init__.__globals__['mkdir']('MARK'))()}"/>
  <link name="base${x}"/>
</robot>
"""


def _evil(tmp_path, name="evil.urdf.xacro"):
    path = tmp_path / name
    path.write_text(EVIL.replace("MARK", str(tmp_path / "ran")))
    return path


def test_xacro_runs_nothing_without_trust(tmp_path):
    path = _evil(tmp_path)
    with pytest.raises(ModelError, match="evil.urdf.xacro is a xacro file: expanding xacro runs the Python "
                                         "expressions .* pass trust_xacro=True \\(command line: --trust-xacro\\)"):
        rbdgen.load_urdf(path)
    with pytest.raises(ModelError, match="trust_xacro=True"):
        rbdgen.generate(path, ops=["mass_matrix"])
    result = subprocess.run([sys.executable, "-m", "rbdgen.codegen.cli", "info", str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "--trust-xacro" in result.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "ran").exists()
    # the opt-in does run the file's code: what the error warns about is real
    rbdgen.load_urdf(path, trust_xacro=True)
    assert (tmp_path / "ran").is_dir()


def test_a_urdf_is_never_expanded_as_xacro_unless_trusted(tmp_path):
    path = _evil(tmp_path, "evil.urdf")
    with pytest.raises(ModelError, match="evil.urdf was given xacro_args or package_paths .* trust_xacro=True"):
        rbdgen.load_urdf(path, xacro_args={"a": "1"})
    with pytest.raises(ModelError, match="xacro_args or package_paths"):
        rbdgen.load_urdf(path, package_paths={"p": tmp_path})
    for option in (["--xacro-arg", "a:=1"], ["--package-path", f"p={tmp_path}"]):
        result = subprocess.run([sys.executable, "-m", "rbdgen.codegen.cli", "info", str(path), *option],
                                capture_output=True, text=True)
        assert result.returncode == 2, result.stderr
        assert "--trust-xacro" in result.stderr
    # read as the URDF it claims to be: the ${...} stays text in a link name
    model = rbdgen.load_urdf(path)
    assert model.link_names == ("base${x}",)
    assert not (tmp_path / "ran").exists()
