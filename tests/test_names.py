"""Strings from robot files in the generated C (`rbdgen.names`), symbol prefixes, macro names.

* `c_text`: the rendering is inert (no comment end, splice, trigraph, control
  character) and, read as a C string literal, spells the name's UTF-8 bytes;
* the templates refuse a raw string that is not inert;
* a hostile-name property test: random names on a two-joint robot compile under
  strict flags, define only the expected symbols, and change nothing in the C but
  its comments (the preprocessed sources equal those of plainly named joints);
* the same names through a URDF, and a robot named like a reserved word;
* ``prefix=`` validation, the default prefix made from any robot name;
* the macros of robots with short names next to every standard C and POSIX header.
"""

from __future__ import annotations

import codecs
import dataclasses
import re
import shutil
import subprocess
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rbdgen
from rbdgen.algorithms.kinematics import Tree
from rbdgen.names import MAX_PREFIX, c_text, check_prefix, checked, default_prefix, is_inert
from robots import path

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
needs_gcc = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("nm")), reason="needs gcc and nm")

#: Pieces of hostile names: comment ends and starts, line splices, trigraphs, quotes, directives, controls.
HOSTILE = ["*/", "/*", "//", "??/", "??=", "\\", "\\\n", "\n", "\r", '"', "'", "#define X 1", "#include <x>",
           "\t", "\x01", "\x1b[31m", "\x7f", "é", "\u2028", "\U0001f916", "*", "/", "?", "%:", "<:"]


def _run(args, cwd=None) -> str:
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{' '.join(map(str, args))}:\n{result.stderr}"
    return result.stdout


# -- the rendering --------------------------------------------------------------------------------------
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30) |
       st.lists(st.sampled_from(HOSTILE) | st.text(max_size=3), max_size=8).map("".join))
def test_c_text_is_inert_and_lossless(raw):
    text = c_text(raw)
    assert all(32 <= ord(ch) < 127 for ch in text)
    assert not any(pair in text for pair in ("*/", "/*", "??"))
    assert "\\" not in re.sub(r"\\[0-7]{3}", "", text) and '"' not in text  # only whole octal escapes
    assert codecs.escape_decode(text.encode())[0] == raw.encode("utf-8", "surrogatepass")
    assert checked(text) == text


def test_c_text_keeps_plain_names():
    for name in ("panda_joint1", "FL_HFE", "link 3 (left)", "a-b.c:d", "x/y", "a*b"):
        assert c_text(name) == name and is_inert(name)
    assert c_text("a*/b") == "a*\\057b" and c_text("??/") == "?\\077/" and c_text("é") == "\\303\\251"


def test_templates_refuse_a_raw_name():
    for raw in ("x */ int evil; /*", "a\\", "??/", 'say "hi"', "caf\u00e9", "x\x00"):
        with pytest.raises(ValueError, match="c_text"):
            checked(raw)
        assert checked(c_text(raw)) == c_text(raw)
    assert checked("if (x) { y = 1; }\n") and checked(3) == 3


# -- hostile names in the generated C ------------------------------------------------------------------
def _renamed(model, joints, links):
    return dataclasses.replace(
        model, joints=tuple(dataclasses.replace(j, name=n) for j, n in zip(model.joints, joints)),
        links=tuple(dataclasses.replace(link, name=n) for link, n in zip(model.links, links)))


def _generate(model, folder: Path) -> rbdgen.codegen.generator.Generated:
    g = rbdgen.generate(model, ops=["gravity", "forward_dynamics"], prefix="hostile")
    g.write(folder, overwrite=True)
    return g


def _preprocessed(folder: Path, g) -> dict:
    """Each source after the preprocessor (comments gone, trigraphs replaced as -std=c99 does)."""
    return {n: _run(["gcc", *STRICT, "-E", "-P", f"-I{folder}", folder / n])
            for n in g.manifest["sources"] if n.endswith(".c")}


def _check_compiles(folder: Path, g):
    defined = set()
    for name in g.manifest["sources"]:
        if name.endswith(".c"):
            obj = folder / (name[:-2] + ".o")
            _run(["gcc", *STRICT, "-O0", "-c", folder / name, "-o", obj])
            symbols = [line.split() for line in _run(["nm", obj]).splitlines()]
            defined |= {s[-1] for s in symbols if s[-2] in "TDBRC"}
    assert defined == {f"hostile_{op}{batch}" for op in g.manifest["operations"] for batch in ("", "_batch")}


def _names(draw_text):
    return st.lists(draw_text, min_size=5, max_size=5, unique=True)


NAME = (st.lists(st.sampled_from(HOSTILE) | st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                                                          blacklist_characters="\x00"), max_size=4),
                 min_size=1, max_size=6).map("".join))


@needs_gcc
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=_names(NAME))
def test_hostile_names_change_only_comments(tmp_path_factory, names):
    model = rbdgen.load_urdf(path("double_pendulum"))
    assert (model.joint_count, len(model.links)) == (2, 3)
    plain = _renamed(model, ["j0", "j1"], ["l0", "l1", "l2"])
    hostile = _renamed(model, names[:2], names[2:])
    folder = tmp_path_factory.mktemp("hostile")
    reference = _preprocessed(folder, _generate(plain, folder))
    g = _generate(hostile, folder)
    _check_compiles(folder, g)
    # the names changed nothing but comments: no byte of a name reaches the code
    assert _preprocessed(folder, g) == reference
    for name in g.manifest["sources"]:  # and in the comments, only as c_text writes them
        assert all(32 <= ord(ch) < 127 or ch == "\n" for ch in g.files[name]), name
    assert all(f": {c_text(raw)}, revolute, parent " in g.files["hostile.h"] for raw in names[:2])
    assert rbdgen.RobotModel.from_dict(g.manifest["model"]).joint_names == tuple(names[:2])  # kept raw in JSON


URDF = """<robot name={robot}>
  <link name={base}/>
  <link name={upper}><inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name={joint} type="revolute"><parent link={base}/><child link={upper}/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""


@needs_gcc
def test_hostile_urdf_compiles_and_runs(tmp_path, build_cache):
    """A URDF whose names try to leave the comments: the build is safe and the solver correct."""
    from conftest import TEST_FLAGS

    evil = ' */ int evil = system("touch PWNED"); /* ??/\n\\\n#define x "'
    text = URDF.format(robot=quoteattr("int"), base=quoteattr("base" + evil), upper=quoteattr("*/upper/*"),
                       joint=quoteattr(evil))
    model = rbdgen.load_urdf_string(text)
    g = rbdgen.generate(model, ops=["gravity", "forward_dynamics"])
    assert g.prefix == "int_robot"  # a reserved word becomes a valid prefix
    solver = g.compile(flags=TEST_FLAGS, cache=build_cache)
    assert not (tmp_path / "PWNED").exists()
    assert abs(solver.gravity([0.3])[0] - 9.80665 * 0.5 * __import__("math").sin(0.3)) < 1e-12
    assert "evil" not in re.sub(r"/\*.*?\*/", "", g.files["int_robot_gravity.c"], flags=re.S)


# -- prefixes --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("prefix, problem", [
    ("a b", "C identifier"), ("9abc", "C identifier"), ("x;y", "C identifier"), ("../../x/ESC", "C identifier"),
    ("", "C identifier"), ("_x", "C identifier"), ("caf\u00e9", "C identifier"), ("a__b", "'__'"),
    ("a_", "'__'"), ("int", "keyword"), ("class", "keyword"), ("x" * (MAX_PREFIX + 1), "at most"),
    (3, "string"),
])
def test_prefix_rules(prefix, problem):
    with pytest.raises(ValueError, match=rf"^prefix .*{re.escape(problem)}.*allowed|^prefix .*{re.escape(problem)}"):
        check_prefix(prefix)
    with pytest.raises(ValueError, match="^prefix"):
        rbdgen.generate(path("double_pendulum"), ops=["gravity"], prefix=prefix)


def test_valid_prefixes_are_kept():
    for prefix in ("x", "panda", "Robot_2", "a" * MAX_PREFIX):
        assert check_prefix(prefix) == prefix == default_prefix(prefix)


@pytest.mark.parametrize("name, prefix", [
    ("my-robot", "my_robot"), ("2dof planar", "robot_2dof_planar"), ("int", "int_robot"), ("__a__b__", "a_b"),
    ("caf\u00e9", "caf"), ("\u30ed\u30dc\u30c3\u30c8", "robot"), ("../../x/ESC", "x_ESC"),
])
def test_default_prefix(name, prefix):
    assert default_prefix(name) == prefix


def test_long_default_prefix_keeps_names_apart():
    a, b = "r" * 60 + "_left", "r" * 60 + "_right"
    assert default_prefix(a) != default_prefix(b)
    assert all(len(default_prefix(n)) <= MAX_PREFIX and check_prefix(default_prefix(n)) for n in (a, b))


def test_load_refuses_a_manifest_that_points_outside(tmp_path):
    g = rbdgen.generate(path("double_pendulum"), ops=["gravity"], prefix="dp")
    folder = g.write(tmp_path / "dp")
    manifest = folder / "dp.json"
    text = manifest.read_text()
    manifest.write_text(text.replace('"dp_gravity.c"', '"../../etc/passwd.c"'))
    with pytest.raises(ValueError, match=r"passwd\.c.*plain names"):
        rbdgen.load(folder)
    manifest.write_text(text.replace('"prefix": "dp"', '"prefix": "../dp"'))
    with pytest.raises(ValueError, match="prefix '../dp'"):
        rbdgen.load(folder)


# -- macros next to the system headers -----------------------------------------------------------------
#: Every C99 header, and the POSIX headers whose macros short names could hit (X_OK, S_IRUSR, E2BIG, ...).
HEADERS = ("assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdarg stdbool "
           "stddef stdint stdio stdlib string tgmath time wchar wctype "
           "unistd fcntl sys/stat sys/types sys/wait sys/mman sys/time sys/socket netinet/in arpa/inet dirent "
           "pthread sched semaphore termios poll dlfcn glob regex strings syslog grp pwd").split()
SHORT = ["x", "r", "w", "f", "e", "s", "o", "n", "i", "l", "g", "j", "ok", "EOF", "NULL", "SIG", "E2BIG", "SEEK",
         "INT", "M", "S", "X", "E"]


@needs_gcc
def test_macros_do_not_collide_with_system_headers(tmp_path):
    """Short robot names next to the C and POSIX headers, included before and after: no redefinition."""
    model = rbdgen.load_urdf(path("double_pendulum"), floating=True)
    includes = [f"#include <{h}.h>" for h in HEADERS]
    robots = []
    for prefix in SHORT:
        g = rbdgen.generate(model, ops=["gravity"], prefix=prefix)
        for name, text in g.files.items():  # the C only: every robot folder has its own CMakeLists.txt
            if name.endswith((".c", ".h")):
                (tmp_path / name).write_text(text)
        robots.append(f'#include "{prefix}.h"')
        assert f"#define RBDGEN_{prefix}_OK 0" in g.files[f"{prefix}.h"]
    for order in (includes + robots, robots + includes):
        unit = tmp_path / "unit.c"
        uses = "".join(f" (void){p}_gravity;" for p in SHORT)  # each header declared its own
        total = " + ".join(f"RBDGEN_{p}_J" for p in SHORT)
        unit.write_text("\n".join(order) + f"\nint main(void) {{{uses} return {total}; }}\n")
        for extra in ([], ["-D_POSIX_C_SOURCE=200809L"], ["-D_GNU_SOURCE"]):
            _run(["gcc", *STRICT, *extra, f"-I{tmp_path}", "-c", unit, "-o", tmp_path / "unit.o"])
    _run(["gcc", *STRICT, "-D_POSIX_C_SOURCE=200809L", f"-I{tmp_path}", "-c", tmp_path / "x_gravity.c",
          "-o", tmp_path / "x.o"])


# -- hostile names in the JAX module, the CUDA files, SymPy symbols and contacts ------------------------
HOSTILE_NAMES = ['a"""; import os #', "x*/ evil /*", "line\nbreak", "\u00e9t\u00e9", 'b"; import os #']


def test_hostile_names_reach_jax_cuda_and_sympy_only_escaped(tmp_path):
    """The JAX module is Python that only its generator wrote (the names are in docstrings, as `c_text` writes
    them), the CUDA files hold no raw name, SymPy symbols are plain identifiers and a contact on a hostile link
    reaches the manifest only (its JAX contact function too)."""
    import ast
    import json

    from rbdgen.codegen.symbolic import symbolic

    model = _renamed(rbdgen.load_urdf(path("double_pendulum")), HOSTILE_NAMES[:2], HOSTILE_NAMES[2:])
    g = rbdgen.generate(model, ops=["gravity", "jacobian", "contact_dynamics"], prefix="hostile",
                        frames=list(model.link_names),
                        contacts=[rbdgen.Contact(HOSTILE_NAMES[-1])])
    text = g.jax_module()
    assert text.isascii()
    tree = ast.parse(text)
    docstrings = {id(f.body[0].value) for f in ast.walk(tree) if isinstance(f, (ast.Module, ast.FunctionDef))
                  and f.body and isinstance(f.body[0], ast.Expr) and isinstance(f.body[0].value, ast.Constant)}
    for node in ast.walk(tree):  # no name anywhere but in a docstring
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            assert not any(c_text(raw) in node.value for raw in HOSTILE_NAMES), node.value
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            assert all(alias.name.split(".")[0] in ("jax", "numpy", "__future__", "functools", "math")
                       for alias in node.names), ast.dump(node)
    functions = {f.name for f in tree.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")}
    assert set(g.manifest["operations"]) <= functions
    if __import__("importlib").util.find_spec("jax") is not None:  # and it imports as such
        assert sorted(g.jax().FUNCTIONS) == sorted(g.manifest["operations"])
    assert all(re.fullmatch(r"[a-z_]+_link[0-9]+|gravity|contact_dynamics", name) for name in g.manifest["operations"])
    cuda = g.cuda_files()
    for name, body in cuda.items():
        assert name in ("hostile.cu", "hostile_cuda.h") and body.isascii()
        assert not any(raw in body for raw in HOSTILE_NAMES)
    inputs = symbolic(model, "gravity", simplify=False).inputs
    assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", str(s)) for column in inputs.values() for s in column)
    assert [c["link"] for c in json.loads(json.dumps(g.manifest))["options"]["contacts"]] == [HOSTILE_NAMES[-1]]
    assert not any(HOSTILE_NAMES[-1] in body for body in g.files.values() if not body.startswith("{"))


@pytest.mark.parametrize("prefix", ['a"""; import os #', "x*/ evil /*", "a\nb", "\u00e9t\u00e9", "../x"])
def test_the_jax_module_takes_only_a_valid_prefix(prefix):
    """The JAX module's file name, module name and docstring take the prefix only through `check_prefix`."""
    from rbdgen.codegen import emit_jax

    with pytest.raises(ValueError, match="prefix"):
        emit_jax.file_name(prefix)
    with pytest.raises(ValueError, match="prefix"):
        emit_jax.load("", prefix)
    model = rbdgen.load_urdf(path("double_pendulum"))
    with pytest.raises(ValueError, match="prefix"):
        emit_jax.module(model, Tree.from_model(model), {"prefix": prefix, "digest": model.digest}, [])
