"""Scopes and names of the generated C: one commented block per body and pass, values named after their quantity.

The algorithms mark ``ops.scope(...)`` and ``ops.label(...)``; the tracer records them and the C emitter
writes comments and names (docs/generated-c.md, "Names and blocks"). The names are checked against
Pinocchio's per-body quantities, the comments against the robot file, and the arithmetic against the
emission without names.
"""

from __future__ import annotations

import json
import re
import subprocess
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import rbdgen
from rbdgen.algorithms.scalars import ScalarOps
from rbdgen.backends import NumpyOps
from rbdgen.codegen.generator import load_robot, trace_operation
from rbdgen.ir import emit_python, optimize
from rbdgen.ir.trace import Kernel, SymbolicOps
from robots import ROBOTS

GENERATED = Path(__file__).resolve().parents[1] / "generated"
COMMENT = re.compile(r"^\s*/\* (.*) \*/$", re.M)
BODY = re.compile(r"body (\d+) (\S+): (.+)")


def body_links(urdf: Path) -> dict:
    """Moving joint name -> its child link, read from the URDF itself."""
    root = ET.parse(urdf).getroot()
    return {j.get("name"): j.find("child").get("link") for j in root.iter("joint") if j.get("type") != "fixed"}


def scope_comments(text: str) -> list:
    """The ``body i link: what`` comments of a C source, in order, as (i, link, what); a pair of twin bodies'
    (``body i link: what | body j link: what``) gives both."""
    return [tuple(m.groups()) for line in COMMENT.findall(text) for scope in line.split(" | ")
            if (m := BODY.fullmatch(scope))]


def operation_sources(folder: Path, prefix: str) -> dict:
    """Operation -> the text of its C (its source and its parts), for the operations that compute (not those
    whose function calls another's: the manifest's ``calls``)."""
    manifest = json.loads((folder / f"{prefix}.json").read_text())
    sources = {}
    for op, entry in manifest["operations"].items():
        if entry.get("calls"):
            continue
        parts = sorted(folder.glob(f"{prefix}__*_{op}.c"))
        sources[op] = "\n".join(p.read_text() for p in [folder / f"{prefix}_{op}.c", *parts])
    return sources


@pytest.mark.parametrize("folder, prefix, urdf", [("panda", "panda", "panda.urdf"), ("solo", "solo", "solo12.urdf")])
def test_one_commented_block_per_body(folder, prefix, urdf):
    """Every operation of the bundled folders: a ``body i link`` comment names the right link (the URDF's child
    of the moving joint i), each body of Solo12 has a block in every operation, and each of Panda's bodies but
    the first (its joint is vertical: what depends on it alone folds to constants, the rest is summed in its
    children's blocks) in every operation, all seven in inverse dynamics."""
    path = GENERATED / folder
    model = load_robot(path / urdf, floating=folder == "solo")
    links = body_links(path / urdf)
    expected = [links[j.name] for j in model.joints]
    sources = operation_sources(path, prefix)
    assert len(sources) >= 6
    for op, text in sources.items():
        comments = scope_comments(text)
        for i, link, _ in comments:
            assert expected[int(i)] == link, (op, i, link)
        shown = {int(i) for i, _, _ in comments}
        everyone = set(range(len(expected)))
        if folder == "solo" or op == "inverse_dynamics":
            assert shown == everyone, (op, everyone - shown)
        else:
            assert shown == everyone - {0}, (op, everyone - shown)


def test_inverse_dynamics_blocks_in_pass_order():
    """Panda's inverse dynamics: the forward pass from the root, then the backward pass from the leaf, each body's
    block once per pass."""
    text = (GENERATED / "panda" / "panda_inverse_dynamics.c").read_text()
    passes = [(int(i), what) for i, _, what in scope_comments(text) if what != "XJ"]
    forward = [i for i, what in passes if what == "v, a, f"]
    backward = [i for i, what in passes if what == "tau, f to the parent"]
    assert forward == list(range(7))
    assert backward == list(range(6, 0, -1))  # body 0's torque is its force's z moment, summed by body 1
    assert passes == [(i, "v, a, f") for i in forward] + [(i, "tau, f to the parent") for i in backward]


def test_names_are_the_quantities():
    """The values named ``v3_wx``... ``a3_z`` and the leaf's ``f6_*`` in Panda's inverse dynamics are the body
    velocities, accelerations (gravity included) and force of Pinocchio's RNEA, in the body frames."""
    pin = pytest.importorskip("pinocchio")
    robot = ROBOTS["panda"]
    model = load_robot(robot.path)
    kernel = trace_operation(model, "inverse_dynamics")
    labels = kernel.graph.labels
    named = {name: kernel.graph.nodes[node] for node, name in labels.items()}
    wanted = [n for n in named if re.fullmatch(r"[va]\d_(w?[xyz])|f6_n?[xyz]", n)]
    assert len(wanted) >= 60
    probe = Kernel("probe", kernel.graph, kernel.inputs, {n: [named[n]] for n in wanted})
    run = emit_python.function(probe, NumpyOps())
    rng = np.random.default_rng(5)
    q, qd, qdd = (rng.uniform(-1, 1, 7) for _ in range(3))
    values = run(q, qd, qdd, np.zeros(kernel.inputs["loads"]))
    pmodel = pin.buildModelFromUrdf(str(robot.path))
    pmodel.gravity.linear = np.array(model.gravity)
    data = pmodel.createData()
    pin.rnea(pmodel, data, q, qd, qdd)
    parts = {"wx": 3, "wy": 4, "wz": 5, "x": 0, "y": 1, "z": 2, "nx": 3, "ny": 4, "nz": 5}  # Pinocchio: linear first
    leaf_force = pmodel.inertias[7] * data.a_gf[7] + data.v[7].cross(pmodel.inertias[7] * data.v[7])
    for name in wanted:
        quantity, part = name.split("_")
        body = int(quantity[1:]) + 1
        reference = {"v": data.v[body], "a": data.a_gf[body], "f": leaf_force}[quantity[0]].vector[parts[part]]
        assert values[name][0] == pytest.approx(reference, rel=1e-12, abs=1e-12), name


def test_label_names_follow_the_convention():
    """A motion's scalars are ``_wx _wy _wz _x _y _z``, a force's ``_nx _ny _nz _x _y _z``, a scalar its name;
    a name that is not a C identifier is refused."""
    from rbdgen import spatial as sp
    from rbdgen.algorithms.scalars import component_names
    from rbdgen.ir.trace import Graph

    m = sp.Motion(tuple(range(6)))
    assert [n for n, _ in component_names(m, "v2")] == ["v2_wx", "v2_wy", "v2_wz", "v2_x", "v2_y", "v2_z"]
    assert [n for n, _ in component_names(sp.Force(m), "f2")] == ["f2_nx", "f2_ny", "f2_nz", "f2_x", "f2_y", "f2_z"]
    assert component_names(7.0, "d1") == [("d1", 7.0)]
    graph = Graph()
    ops = graph.ops
    with ops.scope("body 0 a: v"):
        x = graph.input("q", 1)[0] * 2.0
        with pytest.raises(ValueError, match="not a C identifier"):
            ops.label(x, "x */ y")
        ops.label(x, "d0")
        ops.label(x, "e0")  # the first name stays
    y = x * 3.0
    with ops.scope("body 1 b: v"):
        ops.label(y, "d1")  # made in another scope: keeps no name
        z = y + 1.0
    assert graph.labels == {x.id: "d0"}
    assert [graph.scopes[n.id] for n in (x, y, z)] == ["body 0 a: v", None, "body 1 b: v"]


def _normalised(files: dict) -> dict:
    """The C sources with the scope comments dropped and every local name (``tK``, ``tcK`` and the quantities'
    names) replaced by its order of first appearance."""
    out = {}
    for name, text in files.items():
        if not name.endswith(".c"):
            continue
        text = "\n".join(line for line in text.splitlines() if not BODY_COMMENT.fullmatch(line))
        declared = re.findall(r"(?:const double|double) ([A-Za-z_]\w*)(?= = |[,;])", text)
        declared += re.findall(r"double \w+(?:, (\w+))+;", text)
        order = {}
        for match in re.finditer(r"\b(" + "|".join(map(re.escape, sorted(set(declared), key=len, reverse=True)))
                                 + r")\b", text) if declared else ():
            order.setdefault(match.group(1), f"v{len(order)}")
        out[name] = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: order.get(m.group(0), m.group(0)), text)
    return out


BODY_COMMENT = re.compile(r"\s*/\* .* \*/")


KINEMATICS_AND_CONTROL = ("jacobian_derivative", "forward_acceleration_kinematics", "coriolis_matrix", "momentum",
                          "kinetic_energy", "passivity_forces", "inverse_dynamics_derivatives", "center_of_mass_jacobian")


@pytest.mark.parametrize("robot, ops", [("panda", ("inverse_dynamics", "forward_dynamics", "mass_matrix")),
                                        ("solo12", ("forward_dynamics",)),
                                        ("solo12", KINEMATICS_AND_CONTROL)])
def test_names_change_no_statement(robot, ops, monkeypatch):
    """The emission with names and scopes and the one without (the tracer's markers made no-ops) are the same
    statements once names are normalised: the same arithmetic in the same order (Solo12's forward dynamics in
    parts, its values handed through ``w``). The kinematics and controller operations show a block for each
    body they compute for (a foot's Jacobian: the three of its leg). Both without twin pairs, which the scopes
    find (`rbdgen.ir.twins`)."""
    r = ROBOTS[robot]
    monkeypatch.setattr(optimize, "twin_nodes", lambda *args, **kwargs: {})
    named = rbdgen.generate(r.path, ops=ops, prefix=robot, floating=r.floating, frames=["FL_FOOT"]).files
    assert any("/* body " in text for text in named.values())
    links = body_links(Path(r.path))
    model = load_robot(r.path, floating=r.floating)
    for op in ops:
        text = "\n".join(t for name, t in named.items() if name.endswith(f"_{op}.c") or f"_{op}_" in name)
        shown = {int(i) for i, link, _ in scope_comments(text) if links[model.joints[int(i)].name] == link}
        if robot == "solo12" and op in ("jacobian_derivative", "forward_acceleration_kinematics"):
            assert {model.joints[i].name for i in shown} == {"FL_HAA", "FL_HFE", "FL_KFE"}, op
        elif robot == "solo12":
            assert shown == set(range(12)), (op, shown)
    monkeypatch.setattr(SymbolicOps, "scope", ScalarOps.scope)
    monkeypatch.setattr(SymbolicOps, "label", ScalarOps.label)
    plain = rbdgen.generate(r.path, ops=ops, prefix=robot, floating=r.floating, frames=["FL_FOOT"]).files
    assert not any("/* body " in text for text in plain.values())
    assert sum(len(re.findall(r"\b[a-z]+\d+_w?[xyz]\b", t)) for t in named.values()) > 100
    a, b = _normalised(named), _normalised(plain)
    assert a.keys() == b.keys() and len(a) >= len(ops)
    for name in a:
        assert a[name] == b[name], name


def test_hostile_link_name_stays_in_its_comment(tmp_path):
    """A link name that would close the comment (``*/``) and open code reaches the C only escaped; the source
    compiles."""
    evil = "arm */ int evil = 1; /* x"
    model = (rbdgen.RobotBuilder("hostile").add_link("base")
             .add_link(evil, 1.0, (0.1, 0, 0), ((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.01)))
             .add_joint("j1", "revolute", "base", evil, axis=(0, 1, 0)).build())
    files = rbdgen.generate(model, ops=("inverse_dynamics",), prefix="hostile").files
    text = files["hostile_inverse_dynamics.c"]
    assert "int evil" not in "".join(COMMENT.sub("", text))
    lines = [x for x in text.splitlines() if "body 0 " in x]
    assert lines
    for line in lines:
        assert line.strip().startswith("/* body 0 arm *\\057 int evil = 1; /\\052 x: ") and line.count("*/") == 1
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    subprocess.run([cc, "-std=c99", "-fsyntax-only", "-Werror", str(tmp_path / "hostile_inverse_dynamics.c")],
                   check=True, cwd=tmp_path)
