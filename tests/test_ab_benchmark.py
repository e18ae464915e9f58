"""`python -m benchmarks.ab`: the A/B program times every operation both folders hold, and its
instruction counts read the compiled objects. A harness check, never a speed measurement.
"""

from __future__ import annotations

import platform
import re
import shutil

import pytest

import rbdgen
from benchmarks import ab
from robots import ROBOTS

#: The --asm counts read x86-64 objdump output (stack references through %rsp, or %rbp where it is the frame
#: pointer), the extra flags name xmm registers.
X86_64 = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64") or not shutil.which("objdump"),
                            reason="needs x86-64 and objdump")
OPS = ("gravity", "velocity_product_forces")
#: B's extra flags: GCC may not allocate xmm8-xmm15 (no argument passes in them), so more values spill.
FEWER_REGISTERS = " ".join(f"-ffixed-xmm{k}" for k in range(8, 16))


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("ab")
    robot = ROBOTS["panda"]
    out = {}
    for prefix, ops in (("pa", OPS), ("pb", OPS + ("mass_matrix",))):
        folder = root / prefix
        rbdgen.generate(robot.path, floating=robot.floating, ops=ops, prefix=prefix).write(folder)
        out[prefix] = folder
    return out, root / "cache"


def _rows(text):
    return {m.group(1): [c.strip() for c in m.group(2).split("|")]
            for m in re.finditer(r"^\| (\w+) \| (.*)\|$", text, re.M) if m.group(1) != "operation"}


@X86_64
def test_common_operations_timed_and_counted(folders, capsys):
    (paths, cache) = folders
    ab.main([str(paths["pa"]), str(paths["pb"]), "--robot", "panda", "--rounds", "3", "--target-ms", "0.05",
             "--flags", "-O1 -g0 -std=c99", f"--flags-b={FEWER_REGISTERS}", "--asm", "--cache", str(cache)])
    rows = _rows(capsys.readouterr().out)
    assert sorted(rows) == sorted(OPS)  # mass_matrix is in B alone
    for name, cells in rows.items():
        assert all(float(c) > 0 for c in cells[:5])
        (ia, sa), (ib, sb) = ((int(x) for x in cell.split(" / ")) for cell in cells[5:])
        assert ia > 0 and sa > 0
        assert sb > sa, name  # fewer registers: more values spilled to the stack


@X86_64
def test_same_flags_same_counts(folders):
    (paths, _) = folders
    a, b = ab.Folder(paths["pa"]), ab.Folder(paths["pb"])
    flags = ["-O1", "-g0", "-std=c99"]
    for name in OPS:
        assert ab.asm_counts(a, name, flags, []) == ab.asm_counts(b, name, flags, [])


def test_same_prefix_refused(folders):
    (paths, cache) = folders
    with pytest.raises(SystemExit, match="both folders use the prefix 'pa'"):
        ab.main([str(paths["pa"]), str(paths["pa"]), "--robot", "panda", "--cache", str(cache)])


def test_inputs_beyond_the_state():
    """The configuration-space and passivity operations' inputs: a floating base's velocity ``v`` is the other
    state's base velocity then joint rates; unknown inputs are refused by name, not compiled undeclared."""
    robot = ROBOTS["solo12"]
    model = rbdgen.load_urdf(robot.path, floating=True)
    solver = rbdgen.NumpySolver(model)
    sizes = {"v": solver.generalized_count, "dt": 1, "q": solver.joint_count, "q1": solver.joint_count,
             "base1": 19, "qdd_ref": solver.generalized_count, "active": 4}
    data = ab.inputs(model, set(sizes) | {"loads"}, sizes)
    assert sorted(data) == sorted(sizes)
    other = rbdgen.testing.random_states(model, ab.STATES, seed=1).flat()
    assert (data["v"][:, :6] == other["base"][:, 7:13]).all() and (data["v"][:, 6:] == other["qd"]).all()
    assert (data["qdd_ref"][:, :6] == other["base"][:, 13:19]).all()
    assert (data["dt"] > 0).all() and (data["active"] == 1).all()
    assert all(values.shape == (ab.STATES, sizes[name]) for name, values in data.items())
    with pytest.raises(SystemExit, match="'reference'"):
        ab.inputs(model, {"reference"}, {"reference": 7})
