"""Generated folders are untrusted input, written all or nothing, and own only their files; symbols of two
robots never collide.

* `rbdgen.load` refuses a manifest that does not describe the sources beside it (another robot's with the
  same prefix: before, its sizes reached the C: ``malloc(): invalid size``, SIGSEGV, a wrong 2x2 mass
  matrix), a source from another run, symbolic links and FIFOs;
* `Generated.write` interrupted (Ctrl-C) or failing (a full disk) leaves the folder as it was, or without a
  manifest, and no temporary file; overwriting removes the previous run's files and nothing else;
* two robots ``arm`` and ``arm_2`` with split operations link into one program (static libraries, as the
  CMake default) and each gives its own numbers; links ``hand`` and ``Hand`` are refused at generation.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import rbdgen
from conftest import TEST_FLAGS
from helpers import solver
from rbdgen.codegen.c import layout
from rbdgen.codegen import folder as folder_files
from rbdgen.names import kernel_name
from robots import ROBOTS

needs_gcc = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("ar")), reason="needs gcc and ar")
OPS = ["mass_matrix", "gravity"]


@pytest.fixture(scope="module")
def two_robots():
    """``arm`` as the UR5 (J = 6) and as the double pendulum (J = 2): one prefix, two robots."""
    return (rbdgen.generate(ROBOTS["ur5"].path, ops=OPS, prefix="arm"),
            rbdgen.generate(ROBOTS["double_pendulum"].path, ops=OPS, prefix="arm"))


def _message(exc) -> str:
    message = str(exc.value)
    assert "\n" not in message, message
    return message


# -- loading ---------------------------------------------------------------------------------------------
def test_a_manifest_of_another_robot_is_refused(tmp_path, two_robots, build_cache):
    """The UR5's sources with the pendulum's manifest (J = 2 against 6): refused before any call."""
    ur5, pendulum = two_robots
    folder = ur5.write(tmp_path / "arm")
    (folder / "arm.json").write_text(pendulum.files["arm.json"])
    with pytest.raises(rbdgen.ManifestError) as info:
        rbdgen.load(folder, TEST_FLAGS, build_cache)
    message = _message(info)
    assert message.startswith(f"{folder}: arm.json: the manifest does not describe the sources beside it")
    assert "rbdgen generate" in message
    # the right manifest loads, and gives the UR5's numbers
    (folder / "arm.json").write_text(ur5.files["arm.json"])
    q = np.array([[0.1, -0.4, 0.3, 0.2, -0.5, 0.6]])
    assert np.allclose(rbdgen.load(folder, TEST_FLAGS, build_cache).mass_matrix(q), solver("ur5").mass_matrix(q))


def test_a_manifest_whose_sizes_or_model_were_edited_is_refused(tmp_path, two_robots, build_cache):
    ur5, _ = two_robots
    folder = ur5.write(tmp_path / "arm")
    manifest = json.loads(ur5.files["arm.json"])
    for edit, expected in [({"sizes": {**manifest["sizes"], "q": 2}}, "sizes are not its model's"),
                           ({"digest": "0" * 64}, "model is not the one its digest names")]:
        (folder / "arm.json").write_text(json.dumps({**manifest, **edit}))
        with pytest.raises(rbdgen.ManifestError, match=expected):
            rbdgen.load(folder, TEST_FLAGS, build_cache)


def test_a_source_from_another_run_does_not_compile(tmp_path, two_robots, build_cache, capfd):
    ur5, pendulum = two_robots
    folder = ur5.write(tmp_path / "arm")
    (folder / "arm_gravity.c").write_text(pendulum.files["arm_gravity.c"])
    with pytest.raises(rbdgen.BuildError, match="compiling arm failed"):
        rbdgen.load(folder, TEST_FLAGS, tmp_path / "cache")
    assert "arm_gravity.c and arm.h come from different runs of rbdgen: regenerate the folder" in capfd.readouterr().err


def test_a_folder_without_an_interface_key_is_refused(tmp_path, two_robots, build_cache):
    """A folder written before the key existed (the header defines none, the sources check none): refused
    with the way out, not loaded on the manifest's word."""
    ur5, _ = two_robots
    folder = ur5.write(tmp_path / "arm")
    for path in folder.glob("arm*.[ch]"):
        text = re.sub(r"#define RBDGEN_arm_INTERFACE .*\n", "", path.read_text())
        path.write_text(re.sub(r"#if !defined\(RBDGEN_arm_INTERFACE\).*?#endif\n", "", text, flags=re.S))
    with pytest.raises(rbdgen.ManifestError, match=r"none \(written by an older rbdgen\) in arm\.h.*--force"):
        rbdgen.load(folder, TEST_FLAGS, build_cache)


@pytest.mark.parametrize("kind", ["symbolic link", "FIFO"])
@pytest.mark.parametrize("name", ["arm_gravity.c", "arm.json"])
def test_links_and_fifos_are_refused(tmp_path, two_robots, build_cache, kind, name):
    """A source or manifest that is a symbolic link (before: the compiler compiled, and echoed, the file it
    points to) or a FIFO (never waited on) is refused, naming it."""
    ur5, _ = two_robots
    folder = ur5.write(tmp_path / "arm")
    (folder / name).unlink()
    if kind == "FIFO":
        os.mkfifo(folder / name)
    else:
        secret = tmp_path / "secret.txt"
        secret.write_text(ur5.files[name])
        (folder / name).symlink_to(secret)
    with pytest.raises(rbdgen.ManifestError) as info:
        rbdgen.load(folder, TEST_FLAGS, build_cache)
    assert _message(info).startswith(f"{folder / name}: not a regular file")


def test_rbdgen_check_of_a_mixed_folder_is_one_line_with_exit_2(tmp_path, two_robots, capsys):
    from rbdgen.codegen.cli import main

    ur5, pendulum = two_robots
    folder = ur5.write(tmp_path / "arm")
    (folder / "arm.json").write_text(pendulum.files["arm.json"])
    assert main(["check", str(folder), "-q"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"rbdgen: error: {folder}: arm.json: the manifest does not describe the sources")


# -- writing ---------------------------------------------------------------------------------------------
def _snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _interrupt_after(monkeypatch, calls: int, what):
    """``os.replace`` in `folder_files` raises ``what`` at its ``calls``-th call."""
    count = [0]
    real = os.replace

    def replace(src, dst):
        count[0] += 1
        if count[0] == calls:
            raise what
        return real(src, dst)

    monkeypatch.setattr(folder_files.os, "replace", replace)


def test_an_interrupted_write_of_a_new_folder_leaves_nothing(tmp_path, two_robots, monkeypatch):
    ur5, _ = two_robots
    _interrupt_after(monkeypatch, 1, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        ur5.write(tmp_path / "arm")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("at", [1, 3, 100])
def test_an_interrupted_overwrite_leaves_no_manifest_or_the_new_one(tmp_path, two_robots, monkeypatch, at):
    """Ctrl-C while a changed robot is written over a folder: the folder has no manifest (`load` refuses
    it) or, once the manifest is in, all the new files; no temporary file stays; the user's file stays."""
    ur5, pendulum = two_robots
    folder = pendulum.write(tmp_path / "arm")
    (folder / "robot.urdf").write_text("<robot/>")
    _interrupt_after(monkeypatch, at, KeyboardInterrupt())
    try:
        ur5.write(folder, overwrite=True)
    except KeyboardInterrupt:
        assert not (folder / "arm.json").exists()
        with pytest.raises(FileNotFoundError, match="expected one rbdgen manifest"):
            rbdgen.load(folder)
    else:
        assert at == 100 and all((folder / n).read_text() == t for n, t in ur5.files.items())
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []
    assert (folder / "robot.urdf").read_text() == "<robot/>"


def test_a_full_disk_during_a_write_changes_nothing(tmp_path, two_robots, monkeypatch):
    ur5, pendulum = two_robots
    folder = pendulum.write(tmp_path / "arm")
    before = _snapshot(folder)
    real = Path.write_text

    def full(self, text, *args, **kwargs):
        if "rbdgen-write" in str(self.parent) and self.name.endswith(".c"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError, match="No space left"):
        ur5.write(folder, overwrite=True)
    assert _snapshot(folder) == before


def test_what_the_system_refuses_names_the_output_folder(tmp_path, two_robots, monkeypatch, capsys):
    """A read-only folder (simulated: the tests may run as root), or a parent that is a file: one line naming
    the output folder and what to do, never the hidden staging folder's name; nothing changes."""
    from rbdgen.codegen.cli import main

    ur5, pendulum = two_robots
    folder = pendulum.write(tmp_path / "arm")
    before = _snapshot(folder)
    real = Path.mkdir

    def read_only(self, *args, **kwargs):
        if ".rbdgen-" in self.name:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", read_only)
    for write in (lambda: ur5.write(folder, overwrite=True), lambda: ur5.write_casadi(folder, ["gravity"])):
        with pytest.raises(PermissionError) as info:
            write()
        assert _message(info) == (f"{folder}: cannot write the output folder (Permission denied); choose another "
                                  "output folder, or make this one writable")
    assert _snapshot(folder) == before
    monkeypatch.undo()
    (tmp_path / "notes.txt").write_text("a file\n")
    urdf = str(ROBOTS["double_pendulum"].path)
    assert main(["generate", urdf, "-o", str(tmp_path / "notes.txt" / "arm"), "--no-compile", "-q"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (f"rbdgen: error: {tmp_path / 'notes.txt' / 'arm'}: cannot write the output folder (File exists); "
                    "choose another output folder, or make this one writable")


@needs_gcc
def test_overwrite_removes_the_previous_runs_files_and_nothing_else(tmp_path, generated):
    """All operations in double, then gravity alone in float over them: the folder's C is exactly the new run's
    (before, the old sources stayed and ``cc *.c`` failed on an undefined ``..._sincos2``); the user's files,
    one named like a generated source, stay."""
    name = "double_pendulum"
    folder = generated(name).write(tmp_path / name)
    mine = {"robot.urdf": "<robot/>", f"{name}_notes.c": "int my_notes(void) { return 1; }\n"}
    for file, text in mine.items():
        (folder / file).write_text(text)
    smaller = rbdgen.generate(ROBOTS[name].path, ops=["gravity"], precision="float", prefix=name)
    with pytest.raises(FileExistsError, match=rf"would remove .*{name}_mass_matrix\.c.*--force"):
        smaller.write(folder)
    smaller.write(folder, overwrite=True)
    assert sorted(p.name for p in folder.iterdir()) == sorted([*smaller.files, *mine])
    sources = sorted(str(p) for p in folder.glob("*.c"))
    subprocess.run(["gcc", "-std=c99", "-shared", "-fPIC", "-Wl,--no-undefined", "-o", str(tmp_path / "lib.so"),
                    *sources, "-lm"], check=True, capture_output=True)



def test_force_never_replaces_a_file_rbdgen_did_not_write(tmp_path, generated):
    """The user's own README.md in the output folder: refused without --force, and with it too (it has no
    "generated by rbdgen" line); rbdgen's own README is replaced as usual."""
    name = "double_pendulum"
    folder = tmp_path / name
    folder.mkdir()
    (folder / "README.md").write_text("MY NOTES\n")
    with pytest.raises(FileExistsError, match="README.md would be replaced but rbdgen did not write it"):
        generated(name).write(folder, overwrite=True)
    assert (folder / "README.md").read_text() == "MY NOTES\n"
    assert sorted(p.name for p in folder.iterdir()) == ["README.md"]
    (folder / "README.md").unlink()
    generated(name).write(folder)
    smaller = rbdgen.generate(ROBOTS[name].path, ops=["gravity"], prefix=name)
    smaller.write(folder, overwrite=True)  # rbdgen's README (another list of operations) is replaced
    assert (folder / "README.md").read_text() == smaller.files["README.md"]


@pytest.mark.parametrize("dangling", [False, True])
def test_casadi_files_never_write_through_a_link(tmp_path, generated, dangling):
    """A symbolic link named like a ``.casadi`` file in an untrusted output folder, to a file outside it or to
    nowhere: refused, with --force too, and nothing is written there or outside (the files were saved through
    the link before). A regular file is replaced with ``overwrite`` only, the whole set or none."""
    name = "double_pendulum"
    gen = generated(name)
    folder, outside = tmp_path / "out", tmp_path / "victim.txt"
    folder.mkdir()
    if not dangling:
        outside.write_text("precious\n")
    (folder / f"{name}_gravity.casadi").symlink_to(outside)
    for overwrite in (False, True):
        with pytest.raises(FileExistsError, match=f"{name}_gravity.casadi exist but are not regular files"):
            gen.write_casadi(folder, ["mass_matrix", "gravity"], overwrite=overwrite)
    assert sorted(p.name for p in folder.iterdir()) == [f"{name}_gravity.casadi"]
    assert (outside.read_text() == "precious\n") if not dangling else not outside.exists()
    (folder / f"{name}_gravity.casadi").unlink()
    (folder / f"{name}_gravity.casadi").write_text("mine\n")
    with pytest.raises(FileExistsError, match=f"{name}_gravity.casadi exist .use overwrite=True"):
        gen.write_casadi(folder, ["mass_matrix", "gravity"])
    assert sorted(p.name for p in folder.iterdir()) == [f"{name}_gravity.casadi"]
    written = gen.write_casadi(folder, ["mass_matrix", "gravity"], overwrite=True)
    assert [p.name for p in written] == [f"{name}_mass_matrix.casadi", f"{name}_gravity.casadi"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in written)  # no staging folder left
    import casadi

    q = np.array([0.3, -0.7])
    expected = solver(name).gravity(q)
    loaded = casadi.Function.load(str(written[1]))
    assert np.allclose(np.asarray(loaded(q, np.zeros(loaded.size1_in(1)))).ravel(), expected, rtol=1e-14)


# -- symbols ---------------------------------------------------------------------------------------------
MAIN = """\
#include <stdio.h>
#include "arm.h"
#include "arm_2.h"
int main(void)
{
    double q1[RBDGEN_arm_J] = {0.1, -0.4, 0.3, 0.2, -0.5, 0.6}, g1[RBDGEN_arm_G];
    double q2[RBDGEN_arm_2_J] = {0.3, -0.7}, g2[RBDGEN_arm_2_G];
    int i;
    if (arm_gravity(q1, NULL, g1) || arm_2_gravity(q2, NULL, g2)) return 1;
    for (i = 0; i < RBDGEN_arm_G; ++i) printf("%.17g ", g1[i]);
    printf("\\n");
    for (i = 0; i < RBDGEN_arm_2_G; ++i) printf("%.17g ", g2[i]);
    printf("\\n");
    return 0;
}
"""


@needs_gcc
def test_robots_arm_and_arm_2_link_into_one_program(tmp_path, monkeypatch):
    """The split gravity (parts made small) of ``arm`` (the UR5) and the gravity of ``arm_2`` (the pendulum),
    each a static library, linked into one program: before, part 2 of ``arm``'s gravity was ``arm_2_gravity``,
    the program linked silently and crashed (SIGSEGV: one robot called the other's function). Each gives its
    own gravity (the NumPy engine's)."""
    monkeypatch.setattr(layout, "PART_STEPS", 40)
    monkeypatch.setattr(layout, "PART_VALUES", 8)
    libraries = []
    for prefix, robot in (("arm", "ur5"), ("arm_2", "double_pendulum")):
        g = rbdgen.generate(ROBOTS[robot].path, ops=["gravity"], prefix=prefix)
        assert prefix == "arm_2" or len(g.c_sources) > 2, "arm's gravity is split"
        folder = g.write(tmp_path / prefix)
        objects = []
        for source in g.c_sources:
            objects.append(str(tmp_path / f"{Path(source).stem}.o"))
            subprocess.run(["gcc", "-std=c99", "-O1", "-c", str(folder / source), "-o", objects[-1]], check=True)
        libraries.append(str(tmp_path / f"lib{prefix}.a"))
        subprocess.run(["ar", "rcs", libraries[-1], *objects], check=True)
    (tmp_path / "main.c").write_text(MAIN)
    subprocess.run(["gcc", "-std=c99", "-o", str(tmp_path / "main"), str(tmp_path / "main.c"), f"-I{tmp_path / 'arm'}",
                    f"-I{tmp_path / 'arm_2'}", *libraries, "-lm"], check=True)
    out = subprocess.run([str(tmp_path / "main")], check=True, capture_output=True, text=True).stdout.splitlines()
    g1, g2 = (np.array([float(x) for x in line.split()]) for line in out)
    assert np.allclose(g1, solver("ur5").gravity(np.array([0.1, -0.4, 0.3, 0.2, -0.5, 0.6])), rtol=1e-12,
                       atol=1e-12)
    assert np.allclose(g2, solver("double_pendulum").gravity(np.array([0.3, -0.7])), rtol=1e-12, atol=1e-12)


def test_link_names_equal_but_for_case_are_refused():
    b = rbdgen.RobotBuilder("twins").add_link("base", 1.0, rotational=((1, 0, 0), (0, 1, 0), (0, 0, 1)))
    for child in ("hand", "Hand"):
        b.add_link(child, 1.0, rotational=((1, 0, 0), (0, 1, 0), (0, 0, 1)))
        b.add_joint(f"to_{child}", "revolute", "base", child, axis=(0, 0, 1))
    model = b.build()
    with pytest.raises(rbdgen.ModelError) as info:
        rbdgen.generate(model, ops=["jacobian"])
    message = _message(info)
    assert ("jacobian on link 'hand' and jacobian on link 'Hand' would give the generated names jacobian_hand and "
            "jacobian_Hand, equal but for case") in message
    assert "rename one of the links, or choose frames= (--frames) without one of them" in message
    assert rbdgen.generate(model, ops=["jacobian"], frames=["hand"]).c_sources  # the way out
    # a link named like another's id form, but for case, takes the id form itself
    b.add_link("LINK1", 1.0, rotational=((1, 0, 0), (0, 1, 0), (0, 0, 1)))
    b.add_joint("to_LINK1", "revolute", "base", "LINK1", axis=(0, 0, 1))
    model = b.build()
    assert kernel_name(model, "jacobian", model.link_id("LINK1")) == f"jacobian_link{model.link_id('LINK1')}"
