"""The ``rbdgen`` command (`rbdgen.codegen.cli`): info, generate, check; exit codes
0 (success), 1 (a failed check), 2 (bad input), 3 (cannot build here), 4 (a bug).

Run in-process through ``main([...])`` (one subprocess smoke test of the installed
command); builds go to a per-test cache folder through ``$RBDGEN_CACHE``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import rbdgen
from rbdgen import build
from rbdgen.codegen import cli
from rbdgen.codegen.generator import ALL_OPERATIONS
from robots import ROBOTS

PENDULUM = ROBOTS["double_pendulum"].path


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("RBDGEN_CACHE", str(folder))
    return folder


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _joint_lines(out: str) -> list:
    return re.findall(r"^\s+(\d+): (\S+), (\w+), (\S+)$", out, flags=re.M)


@pytest.mark.parametrize("name", ["double_pendulum", "panda", "solo12"])
def test_info(capsys, name):
    robot = ROBOTS[name]
    model = rbdgen.load_urdf(robot.path, floating=robot.floating)
    argv = ["info", robot.path] + (["--floating"] if robot.floating else [])
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert f"J = {model.joint_count} moving joints" in out
    assert f"G = {model.generalized_count}," in out
    assert f"L = {len(model.links)} links" in out
    assert f"total mass {model.total_mass:.6g} kg" in out
    assert ("floating base" if robot.floating else "fixed base") in out
    lines = _joint_lines(out)
    assert [int(i) for i, *_ in lines] == list(range(model.joint_count))
    assert [n for _, n, _, _ in lines] == list(model.joint_names)
    for (_, _, kind, parent), joint in zip(lines, model.joints):
        assert kind == joint.kind
        assert parent == (model.joints[joint.parent].name if joint.parent >= 0 else "root")


def test_quiet_and_verbose_before_or_after_the_command(capsys):
    path = ROBOTS["panda"].path
    _, plain, _ = run(capsys, "info", path)
    assert plain.startswith("panda: fixed base")
    for argv in (["-q", "info", path], ["info", path, "-q"], ["info", "--quiet", path]):
        assert run(capsys, *argv) == (0, "", ""), argv
    assert run(capsys, "info", path, "-v") == (0, plain, "")


def test_info_fixed_and_floating_differ(capsys):
    path = ROBOTS["solo12"].path
    _, fixed, _ = run(capsys, "info", path)
    _, floating, _ = run(capsys, "info", path, "--floating")
    assert "G = 12," in fixed and "G = 18," in floating
    # the first line says which base, and how to get the other one
    assert fixed.splitlines()[0] == "solo: fixed base (the root link is the world; --floating makes it a " \
                                    "free-floating base)"
    assert floating.splitlines()[0] == "solo: floating base"


def _chain_urdf(n: int) -> str:
    """A chain of n revolute joints: a massless root link, then n links of 1 kg."""
    inertial = ('<inertial><mass value="1"/>'
                '<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>')
    links = '<link name="l0"/>' + "".join(f'<link name="l{i}">{inertial}</link>' for i in range(1, n + 1))
    joints = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
                     f'<origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>'
                     f'<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>' for i in range(n))
    return f'<robot name="chain">{links}{joints}</robot>'


def test_info_on_a_deep_chain(capsys, tmp_path):
    """5,000 joints in a chain: no recursion, and the tree's indentation stops growing."""
    n = 5000
    path = tmp_path / "chain.urdf"
    path.write_text(_chain_urdf(n))
    code, out, err = run(capsys, "info", path)
    assert code == 0, err
    assert f"J = {n} moving joints, G = {n}, L = {n + 1} links, total mass {n:.6g} kg" in out
    tree = out[out.index("  tree:\n"):].splitlines()[2:]  # after the root link's line
    assert [line.split()[0] for line in tree] == [f"j{i}" for i in range(n)]
    widest = 4 + 2 * cli.MAX_INDENT
    assert [len(line) - len(line.lstrip()) for line in tree] == [4 + 2 * min(d, cli.MAX_INDENT)
                                                                 for d in range(1, n + 1)]
    assert tree[-1] == " " * widest + f"j{n - 1}  (depth {n})"
    assert tree[cli.MAX_INDENT - 1] == " " * widest + f"j{cli.MAX_INDENT - 1}"  # no depth up to MAX_INDENT


def test_generate_compiles_and_validates(capsys, tmp_path, cache):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "generate", PENDULUM, "-o", out_dir, "--samples", "4")
    assert code == 0, err
    g = rbdgen.generate(PENDULUM, floating=False)  # (the command passes its default on)
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(g.files)
    for name, text in g.files.items():
        assert (out_dir / name).read_text() == text
        assert f"wrote {out_dir / name}" in out
    model = g.model
    assert f"J = {model.joint_count}, G = {model.generalized_count}, fixed base" in out
    assert "operation counts:" in out
    for op, counts in g.operation_counts.items():
        line = next(line for line in out.splitlines() if line.split() and line.split()[0] == op)
        assert f"{counts['mul']} mul" in line and f"{counts['add']} add" in line, line
    assert "validation" in out
    for op in ALL_OPERATIONS:
        if op != "passive_terms":
            assert re.search(rf"^\s+{op}\s+\d\.\de[-+]\d+$", out, flags=re.M), op
    assert any((p / build.RECORD).is_file() for p in cache.iterdir())  # built into $RBDGEN_CACHE
    assert "validating" in err  # progress lines go to stderr
    # the folder it wrote is good for `check`
    code, out, err = run(capsys, "check", out_dir, "--samples", "4")
    assert code == 0, err
    assert "mass_matrix" in out
    code, out, err = run(capsys, "-q", "check", out_dir, "--samples", "4")  # quiet: nothing at all
    assert (code, out, err) == (0, "", "")


def test_generate_no_compile_options(capsys, tmp_path, cache):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "-q", "generate", ROBOTS["solo12"].path, "--floating", "-o", out_dir,
                         "--no-compile", "--ops", "mass_matrix", "gravity", "--prefix", "quad", "--float")
    assert code == 0, err
    assert sorted(p.name for p in out_dir.iterdir()) == ["CMakeLists.txt", "README.md", "quad.h", "quad.json",
                                                         "quad.pc.in", "quad_gravity.c", "quad_internal.h",
                                                         "quad_mass_matrix.c"]
    expected = rbdgen.generate(ROBOTS["solo12"].path, ops=["mass_matrix", "gravity"], prefix="quad",
                               precision="float", floating=True)
    for name, text in expected.files.items():
        assert (out_dir / name).read_text() == text
    assert expected.manifest["precision"] == "float" and list(expected.manifest["operations"]) == [
        "mass_matrix", "gravity"]
    assert "int quad_gravity(const float *base" in (out_dir / "quad.h").read_text()
    assert not cache.exists() or not any(cache.iterdir())  # nothing compiled
    assert out == err == ""  # -q: no progress lines, no summary


def test_generate_refuses_to_overwrite_a_differing_file(capsys, tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    prefix = rbdgen.load_urdf(PENDULUM).name
    mine = out_dir / f"{prefix}_gravity.c"
    mine.write_text("/* mine */\n")
    code, out, err = run(capsys, "generate", PENDULUM, "-o", out_dir, "--no-compile")
    assert code == 2
    assert f"{prefix}_gravity.c" in err and "rbdgen did not write it" in err
    assert mine.read_text() == "/* mine */\n"
    assert sorted(p.name for p in out_dir.iterdir()) == [f"{prefix}_gravity.c"]  # nothing else written
    # not rbdgen's (no "generated by rbdgen" line): not replaced even with --force
    code, out, err = run(capsys, "generate", PENDULUM, "-o", out_dir, "--no-compile", "--force")
    assert code == 2 and f"{prefix}_gravity.c" in err and "rbdgen did not write it" in err
    assert mine.read_text() == "/* mine */\n"
    mine.unlink()
    code, out, err = run(capsys, "generate", PENDULUM, "-o", out_dir, "--no-compile")
    assert code == 0, err
    assert mine.read_text() == rbdgen.generate(PENDULUM).files[f"{prefix}_gravity.c"]


@pytest.mark.parametrize("command", ["info", "generate"])
def test_missing_urdf(capsys, tmp_path, command):
    missing = tmp_path / "nowhere" / "robot.urdf"
    argv = [command, missing] + (["-o", tmp_path / "out"] if command == "generate" else [])
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert "rbdgen: error:" in err and "not found" in err and str(missing) in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


MALFORMED = {
    "not XML": ("<robot name='r'><link name='a'></robot>", r"malformed URDF XML"),
    "unknown parent link": (
        """<robot name="r"><link name="a"/><link name="b"/>
           <joint name="j" type="revolute"><parent link="nope"/><child link="b"/><axis xyz="0 0 1"/></joint>
           </robot>""", r"nope"),
    "negative mass": (
        """<robot name="r"><link name="a"><inertial><mass value="-1"/>
           <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link></robot>""", r"mass"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
@pytest.mark.parametrize("command", ["info", "generate"])
def test_malformed_urdf(capsys, tmp_path, command, case):
    text, problem = MALFORMED[case]
    path = tmp_path / "bad.urdf"
    path.write_text(text)
    argv = [command, path] + (["-o", tmp_path / "out", "--no-compile"] if command == "generate" else [])
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert "rbdgen: error:" in err and re.search(problem, err), err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def _tamper(folder, prefix, op="mass_matrix"):
    """Scale the first numeric constant (not 0 or 1) of ``op``'s C function by 1.01."""
    path = folder / f"{prefix}_{op}.c"
    text = path.read_text()
    start = text.index(f"int {prefix}_{op}(")
    end = text.index("\n}\n", start)
    literal = next(m for m in re.finditer(r"(?<![\w.])(\d+\.\d+(?:e[-+]?\d+)?)(?![\w.])", text[start:end])
                   if float(m.group(1)) not in (0.0, 1.0))
    at = start + literal.start()
    path.write_text(text[:at] + repr(float(literal.group(1)) * 1.01) + text[start + literal.end():])


def test_check(capsys, tmp_path):
    g = rbdgen.generate(PENDULUM)
    good = g.write(tmp_path / "good")
    code, out, err = run(capsys, "check", good, "--samples", "4")
    assert code == 0, err
    for op in ALL_OPERATIONS:
        if op != "passive_terms":
            assert op in out
    bad = g.write(tmp_path / "bad")
    _tamper(bad, g.prefix)
    code, out, err = run(capsys, "check", bad, "--samples", "4")
    assert code == 1
    assert re.search(r"FAILED: mass_matrix: relative error \S+ \(absolute \S+, state \d+\) exceeds 1e-12 against the NumPy "
                     r"engine \(tolerance 1e-12\)", err), err


@pytest.mark.parametrize("argv, problem", [
    (["--armature", "joint1"], "--armature expects NAME=VALUE, got 'joint1'"),
    (["--armature", "joint1=heavy"], "--armature joint1=heavy: the value is not a number"),
    (["--armature", "nowhere=0.1"], "armature names unknown joints ['nowhere'] (not moving joints of the robot)"),
    (["--xacro-arg", "a=1"], "--xacro-arg expects NAME:=VALUE, got 'a=1'"),
    (["--package-path", "=/x"], "--package-path expects NAME=VALUE, got '=/x'"),
])
def test_malformed_options_are_bad_input(capsys, argv, problem):
    code, out, err = run(capsys, "info", PENDULUM, *argv)
    assert code == 2
    assert _one_line(err) == f"rbdgen: error: {problem}"


@pytest.mark.parametrize("prefix", ["a b", "9abc", "x;y", "../../x", "int"])
def test_an_invalid_prefix_is_bad_input(capsys, tmp_path, prefix):
    code, out, err = run(capsys, "-q", "generate", PENDULUM, "-o", tmp_path / "out", "--prefix", prefix)
    assert code == 2
    line = _one_line(err)
    assert line.startswith(f"rbdgen: error: --prefix {prefix!r} ") and "e.g. 'my_robot'" in line, line
    assert not (tmp_path / "out").exists()


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_no_compiler_exits_3_with_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))  # (part of the cache key: no hit)
    code, out, err = run(capsys, "-q", "generate", PENDULUM, "-o", tmp_path / "out")
    assert code == 3
    line = _one_line(err)
    assert line.startswith("rbdgen: cannot build: no C compiler:") and "no-such-cc" in line
    assert "install gcc or clang" in line and "rbdgen.NumpySolver works without a compiler" in line
    assert any(p.suffix == ".c" for p in (tmp_path / "out").iterdir())  # the sources were written first


@pytest.mark.parametrize("where", ["a file", "inside a file"])
def test_unusable_cache_exits_3_with_one_line(capsys, tmp_path, monkeypatch, where):
    (tmp_path / "file").write_text("")
    cache = tmp_path / "file" if where == "a file" else tmp_path / "file" / "cache"
    monkeypatch.setenv("RBDGEN_CACHE", str(cache))
    # a prefix of this test's own: a key this process has not imported
    code, out, err = run(capsys, "-q", "generate", PENDULUM, "-o", tmp_path / "out", "--prefix", "unusable_cache")
    assert code == 3
    assert _one_line(err) == (f"rbdgen: cannot build: cannot use the build cache {cache}: it is a file, or inside "
                              f"a file, not a folder; set RBDGEN_CACHE (or pass cache=) to a writable folder")


@pytest.mark.parametrize("bug", [ValueError, TypeError, KeyError])
def test_an_internal_error_shows_its_traceback(capsys, monkeypatch, tmp_path, bug):
    """A bug is not bad input: exit 4 with the traceback (which names where it happened)."""
    def broken(*args, **kwargs):
        raise bug("a bug inside rbdgen")

    monkeypatch.setattr(cli, "generate", broken)
    code, out, err = run(capsys, "-q", "generate", PENDULUM, "-o", tmp_path / "out")
    assert code == 4
    assert "Traceback (most recent call last)" in err and "in broken" in err and "a bug inside rbdgen" in err
    assert err.strip().splitlines()[-1] == "rbdgen: internal error (the traceback above); please report it"


def test_check_without_a_manifest(capsys, tmp_path):
    code, out, err = run(capsys, "check", tmp_path)
    assert code == 2
    assert "rbdgen: error:" in err and "manifest" in err


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"prefix": "x"}', "\udcff"])
def test_check_with_a_broken_manifest(capsys, tmp_path, text):
    """A corrupted or foreign manifest is bad input (exit 2, one line naming the file), not an internal error."""
    (tmp_path / "robot.json").write_text(text, errors="surrogateescape")
    code, out, err = run(capsys, "check", tmp_path)
    assert code == 2
    assert "robot.json: not an rbdgen manifest" in err and "rbdgen generate" in err
    assert "Traceback" not in err


def test_console_script_smoke():
    """The installed ``rbdgen`` command (or ``python -m rbdgen.codegen.cli``) in a subprocess."""
    commands = [[sys.executable, "-m", "rbdgen.codegen.cli"]]
    if shutil.which("rbdgen"):
        commands.append([shutil.which("rbdgen")])
    model = rbdgen.load_urdf(PENDULUM)
    for command in commands:
        result = subprocess.run(command + ["info", PENDULUM], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert f"J = {model.joint_count} moving joints" in result.stdout
        result = subprocess.run(command + ["info", PENDULUM + ".missing"], capture_output=True, text=True,
                                timeout=120)
        assert result.returncode == 2 and "rbdgen: error:" in result.stderr
        result = subprocess.run(command + ["--help"], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and all(c in result.stdout for c in ("generate", "check", "info"))


# -- MJCF files -------------------------------------------------------------------------------------
#: A two-joint arm in MJCF on a free-floating torso (``{free}``: the free joint, or nothing).
ARM_MJCF = """<mujoco model="mjcf_arm">
  <option gravity="0.5 0 -9"/>
  <worldbody>
    <body name="torso" pos="0 0 1">{free}
      <inertial pos="0.02 0 0" mass="3" diaginertia="0.1 0.2 0.25"/>
      <body name="upper" pos="0.1 0 0.2">
        <joint name="shoulder" type="hinge" axis="0 1 0" ref="0.3"/>
        <inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
        <body name="lower" pos="0.3 0 0">
          <joint name="slide" type="slide" axis="1 0 0"/>
          <inertial pos="0.05 0.01 0" mass="0.5" diaginertia="0.003 0.004 0.004"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _mjcf(tmp_path, free=True):
    pytest.importorskip("mujoco")
    path = tmp_path / "arm.xml"
    path.write_text(ARM_MJCF.format(free='<freejoint name="root"/>' if free else ""))
    return path


@pytest.mark.parametrize("free, options, floating", [(True, [], True), (True, ["--fixed"], False),
                                                      (False, [], False), (False, ["--floating"], True)])
def test_info_mjcf(capsys, tmp_path, free, options, floating):
    """An MJCF file (a <mujoco> root) is loaded by load_mjcf: MuJoCo's joint order, the file's gravity, its
    free joint as the floating base unless --fixed; --floating makes a fixed file's one body floating."""
    path = _mjcf(tmp_path, free)
    code, out, err = run(capsys, "info", path, *options)
    assert code == 0, err
    model = rbdgen.load_mjcf(path, floating=floating)
    assert model.floating is floating
    assert out.splitlines()[0].startswith("mjcf_arm: " + ("floating base" if floating else "fixed base"))
    assert f"J = 2 moving joints, G = {8 if floating else 2}, L = {len(model.links)} links" in out
    assert [n for _, n, _, _ in _joint_lines(out)] == ["shoulder", "slide"] == list(model.joint_names)
    assert "gravity 0.5 0 -9 m/s^2" in out
    code, out, err = run(capsys, "info", path, "--gravity", "0", "0", "-1", *options)
    assert code == 0 and "gravity 0 0 -1 m/s^2" in out, err


def test_generate_mjcf(capsys, tmp_path):
    """`rbdgen generate robot.xml` writes what `rbdgen.generate(load_mjcf(...))` makes (the manifest names the
    file and the options), compiles it and validates it; `rbdgen check` takes the folder."""
    path = _mjcf(tmp_path)
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "generate", path, "-o", out_dir, "--gravity", "0", "0", "-3", "--samples", "4",
                         "--ops", "mass_matrix", "inverse_dynamics", "forward_dynamics")
    assert code == 0, err
    assert "mjcf_arm: J = 2, G = 8, floating base" in out and "validation" in out
    g = rbdgen.generate(rbdgen.load_mjcf(path, gravity=(0, 0, -3)),
                        ops=["mass_matrix", "inverse_dynamics", "forward_dynamics"])
    manifest = json.loads((out_dir / "mjcf_arm.json").read_text())
    assert manifest["source"] == "arm.xml" and manifest["options"]["gravity"] == [0.0, 0.0, -3.0]
    assert rbdgen.RobotModel.from_dict(manifest["model"]) == g.model
    for name, text in g.files.items():
        if name != "mjcf_arm.json":
            assert (out_dir / name).read_text() == text, name
    code, out, err = run(capsys, "check", out_dir, "--samples", "4")
    assert code == 0, err


@pytest.mark.parametrize("option", [["--joint-order", "depth_first"], ["--armature", "shoulder=0.1"],
                                    ["--xacro-arg", "a:=1"], ["--package-path", "p=/x"], ["--trust-xacro"]])
def test_urdf_options_on_mjcf_are_bad_input(capsys, tmp_path, option):
    path = _mjcf(tmp_path)
    code, out, err = run(capsys, "info", path, *option)
    assert code == 2
    assert _one_line(err).startswith(f"rbdgen: error: {option[0]} applies to URDF files; {path} is MJCF ("), err


def test_mjcf_without_mujoco_exits_3(capsys, tmp_path, monkeypatch):
    path = _mjcf(tmp_path)
    monkeypatch.setitem(sys.modules, "mujoco", None)  # as if not installed: import mujoco raises ImportError
    for argv in (["info", path], ["-q", "generate", path, "-o", tmp_path / "out"]):
        code, out, err = run(capsys, *argv)
        assert code == 3
        assert _one_line(err) == "rbdgen: loading MJCF needs MuJoCo: install it with pip install 'rbdgen[mjcf]'"
    assert not (tmp_path / "out").exists()


# -- what a newcomer reads: help, quiet errors, a robot whose forward dynamics always fail -------------
def test_check_help_documents_its_arguments(capsys):
    with pytest.raises(SystemExit):
        cli.main(["check", "--help"])
    out = capsys.readouterr().out
    assert re.search(r"folder\s+a folder written by `rbdgen generate`", out)
    assert re.search(r"--samples SAMPLES\s+random states for validation \(default: 64\)", out)


def test_ops_help_names_the_default(capsys):
    """The default of --ops, from the operation registry (its dynamics group), and what else may be asked for."""
    with pytest.raises(SystemExit):
        cli.main(["generate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    dynamics = [name for name, op in rbdgen.algorithms.operations.OPERATIONS.items() if op.group == "dynamics"]
    assert f"(default: the {len(dynamics)} dynamics operations {' '.join(dynamics)};" in text
    assert "default: all" not in text
    for group in ("derivatives", "kinematics"):
        names = [name for name, op in rbdgen.algorithms.operations.OPERATIONS.items() if op.group == group]
        assert f"the {group} {' '.join(names)}" in text


@pytest.mark.parametrize("quiet", [["-q"], []])
def test_an_error_starts_the_line(capsys, tmp_path, quiet):
    """With -q nothing precedes an error (no blank line); without, the error follows the progress line."""
    path = tmp_path / "bad.urdf"
    path.write_text(MALFORMED["negative mass"][0])
    for robot in (tmp_path / "robot.urdf", path):
        code, out, err = run(capsys, *quiet, "generate", robot, "-o", tmp_path / "out")
        assert code == 2 and out == ""
        lines = err.splitlines()
        assert lines[-1].startswith("rbdgen: error: ") and "" not in lines, repr(err)
        if quiet:
            assert len(lines) == 1, repr(err)
        else:  # the step's line, ended, then the error
            assert len(lines) == 2 and lines[0] == "  tracing and emitting 7 operations ...", repr(err)


def test_massless_tip_generates_with_warnings(tmp_path):
    """A massless moving tip: both forward dynamics fail for every state. `generate --casadi` writes every
    file (the CasADi forward dynamics evaluate to NaN: no ZeroDivisionError, exit 4), validation compares the
    other operations and says for these two that they always return status 2 as the NumPy engine raises;
    exit 0. The warnings have lines of their own on stderr."""
    from models import chain

    path = tmp_path / "tip.urdf"
    path.write_text(chain())
    result = subprocess.run([sys.executable, "-m", "rbdgen.codegen.cli", "generate", str(path), "-o",
                             str(tmp_path / "out"), "--casadi", "--samples", "4"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        assert re.search(rf"^    {op}\s+always status 2: .* \(as the NumPy engine\)$", result.stdout, re.M)
        assert (tmp_path / "out" / f"chain_{op}.casadi").is_file()
        assert f"rbdgen.solver: {op}: not compared: " in result.stderr
    for op in ("mass_matrix", "gravity", "inverse_dynamics"):
        assert re.search(rf"^    {op}\s+\d\.\de[-+]\d+$", result.stdout, re.M), op
    for line in result.stderr.splitlines():
        assert line.startswith(("rbdgen.", "  ")) and not ("..." in line and "rbdgen." in line), line
    code = subprocess.run([sys.executable, "-m", "rbdgen.codegen.cli", "check", str(tmp_path / "out"),
                           "--samples", "4"], capture_output=True, text=True, timeout=300)
    assert code.returncode == 0 and "always status 2" in code.stdout, code.stderr


def test_a_python_build_logs_its_progress(caplog, tmp_path):
    """`generate(...).compile()` in Python: INFO records on the ``rbdgen`` loggers for each step (shown by
    ``logging.basicConfig(level=logging.INFO)``; the command shows them with -v)."""
    with caplog.at_level("INFO", logger="rbdgen"):
        generated = rbdgen.generate(PENDULUM)
        generated.compile(flags=("-O1", "-g0", "-std=c99"), cache=tmp_path, samples=2)
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("rbdgen")]
    steps = [f"tracing {op} ({k} of {len(ALL_OPERATIONS)})" for k, op in enumerate(ALL_OPERATIONS, 1)]
    steps += [f"scheduling {len(ALL_OPERATIONS)} functions", "emitting C (double precision)"]
    assert [m for m in messages if m.startswith(("tracing", "scheduling", "emitting"))] == steps
    assert any(m.startswith(f"compiling {generated.prefix}: ") for m in messages), messages
    assert f"validating {generated.prefix}: {len(ALL_OPERATIONS)} operations against the NumPy engine at 2 " \
           "random states" in messages


# -- each option's effect on what is written and on the solver ----------------------------------------------
def test_gravity_armature_and_joint_order_reach_the_solver(capsys, tmp_path, cache):
    """``--gravity``, ``--armature`` and ``--joint-order`` (a list) are in the manifest's model and in the
    compiled solver's results, which match Pinocchio's with the same gravity, armature and joint order."""
    pytest.importorskip("pinocchio")
    from rbdgen.testing.references import PinocchioReference
    path = ROBOTS["solo12"].path
    order = ["HR_HAA", "HR_HFE", "HR_KFE", "FL_HAA", "FL_HFE", "FL_KFE", "FR_HAA", "HL_HAA", "FR_HFE", "FR_KFE",
             "HL_HFE", "HL_KFE"]
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "-q", "generate", path, "--floating", "-o", out_dir, "--samples", "2",
                         "--ops", "mass_matrix", "gravity", "--gravity", "1", "2", "-3",
                         "--armature", "FR_KFE=0.25", "HL_HAA=0.5", "--joint-order", *order)
    assert code == 0, err
    model = rbdgen.RobotModel.from_dict(json.loads((out_dir / "solo.json").read_text())["model"])
    assert model.gravity == (1.0, 2.0, -3.0)
    assert model.joint_names == tuple(order)
    assert {j.name: j.armature for j in model.joints if j.armature} == {"FR_KFE": 0.25, "HL_HAA": 0.5}
    solver = rbdgen.load(out_dir)
    reference = PinocchioReference(path, True, joint_names=order, armature={"FR_KFE": 0.25, "HL_HAA": 0.5},
                              gravity=(1.0, 2.0, -3.0))
    st = rbdgen.testing.random_states(solver, 2, seed=4)
    for i in range(st.n):
        base = st.ref_base(i)
        np.testing.assert_allclose(solver.gravity(*st.head(i), st.q[i]), reference.gravity(base, st.q[i]),
                                   rtol=0, atol=1e-10)
        np.testing.assert_allclose(solver.mass_matrix(*st.head(i), st.q[i]), reference.mass_matrix(base, st.q[i]),
                                   rtol=0, atol=1e-10)


def test_joint_order_traversal_and_casadi_files(capsys, tmp_path):
    """``--joint-order depth_first`` is the manifest's order (not the default's); ``--casadi`` writes a
    function per operation whose values are the NumPy engine's for that model."""
    ca = pytest.importorskip("casadi")
    path = ROBOTS["solo12"].path
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "-q", "generate", path, "--floating", "-o", out_dir, "--no-compile", "--casadi",
                         "--ops", "gravity", "--joint-order", "depth_first", "--gravity", "0", "0", "-1")
    assert code == 0, err
    model = rbdgen.RobotModel.from_dict(json.loads((out_dir / "solo.json").read_text())["model"])
    assert model.joint_names == rbdgen.load_urdf(path, joint_order="depth_first").joint_names
    assert model.joint_names != rbdgen.load_urdf(path).joint_names
    function = ca.Function.load(str(out_dir / "solo_gravity.casadi"))
    st = rbdgen.testing.random_states(model, 1, seed=2)
    flat = st.flat()
    got = np.array(function(flat["base"][0], flat["q"][0], np.zeros(6 * len(model.links)))).ravel()
    np.testing.assert_allclose(got, rbdgen.NumpySolver(model).gravity(*st.head(0), st.q[0]), rtol=0, atol=1e-12)
    assert abs(got[5] - model.total_mass) < 1e-9  # g = 1 m/s^2 along -z: the base force is m


def test_a_solver_error_in_validation_exits_1(capsys, tmp_path):
    """A robot whose forearm's inertia is indefinite (loaded as given under the default inertia policy, with
    a warning): its mass matrix is indefinite, `generate` compiles it, validation's forward dynamics raises
    SingularError, the command exits 1 naming it. (A mass matrix singular at every state, a massless tip,
    is found at generation instead: the operation then always returns its status, and validation says so.)"""
    robot = tmp_path / "indefinite.urdf"
    robot.write_text(
        '<robot name="indefinite"><link name="base"/>'
        '<link name="upper"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" '
        'iyz="0"/></inertial></link>'
        '<link name="fore"><inertial><mass value="1"/><inertia ixx="1" iyy="-5" izz="1" ixy="0" ixz="0" '
        'iyz="0"/></inertial></link>'
        '<joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 0 1"/>'
        '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>'
        '<joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/><origin xyz="0.5 0 0"/>'
        '<axis xyz="1 0 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint></robot>')
    # the elbow turns the forearm's negative moment into the shoulder's axis: D_shoulder < 0 for most elbow angles
    code, out, err = run(capsys, "generate", robot, "-o", tmp_path / "out", "--samples", "8",
                         "--ops", "mass_matrix", "forward_dynamics")
    assert code == 1, err
    assert re.search(r"rbdgen: check failed: forward_dynamics: .*not positive.* \(state \d+\)", err), err


@pytest.mark.parametrize("options, message", [
    (["--contact", "panda_hand:line"], r"--contact: unknown link 'panda_hand:line'.*a kind after ':' is point or frame"),
    (["--contact", "panda_hand", "--restitution", "1.5"], r"--restitution: expected a finite number in \[0.0, 1.0\]"),
    (["--contact", "panda_hand", "--damping", "-1"], r"--damping mu: expected a finite number"),
    (["--baumgarte", "1", "0"], r"--baumgarte, --damping and --restitution need --contact LINK"),
    (["--contact", "panda_link0"], r"--contact: contacts: \['panda_link0'\] welded to the fixed base"),
])
def test_contact_options_errors_name_their_option(capsys, tmp_path, options, message):
    code, _, err = run(capsys, "generate", ROBOTS["panda"].path, "-o", tmp_path / "out", "--no-compile",
                       "--ops", "contact_dynamics", *options)
    assert code == 2 and re.search(message, err), err
    assert not (tmp_path / "out").exists()
