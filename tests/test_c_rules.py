"""The committed generated C, on its own (no Python bindings): a strict C99 and C++
compile, no allocation and no mutable static state in the objects, and a plain C
program that links two robots (Panda and Solo12) and checks every function.

The C program's expected numbers come from `NumpySolver` (computed here, written
into its source as literals); the program itself runs without Python.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import rbdgen
from rbdgen.algorithms.operations import OPERATIONS
from rbdgen.testing import random_states

GENERATED = Path(__file__).resolve().parents[1] / "generated"
FOLDERS = sorted(p.parent for p in GENERATED.glob("*/*.json"))

#: Functions an object may call: libm's (and nothing that allocates).
LIBM = {f"{fn}{suffix}" for fn in ("sin", "cos", "sincos", "sqrt", "fabs", "copysign", "exp", "log", "atan2", "pow",
                                   "fmax", "fmin")
        for suffix in ("", "f")}
ALLOCATION = ("malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "alloca")

#: Tolerance of the C program's checks (normwise relative, as in the other tests).
TOL = 1e-12

pytestmark = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("nm")), reason="needs gcc and nm")


def _run(args, cwd=None):
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{' '.join(map(str, args))} failed:\n{result.stdout}\n{result.stderr}"
    return result


def _symbols(obj: Path) -> list:
    """``(type, name)`` of every symbol of an object file (nm)."""
    out = _run(["nm", obj]).stdout
    symbols = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            symbols.append((parts[-2], parts[-1]))
    return symbols


def _check_object(obj: Path, parts: set):
    symbols = _symbols(obj)
    names = {name for _, name in symbols}
    assert not names & set(ALLOCATION), f"{obj.name} uses {sorted(names & set(ALLOCATION))}"
    undefined = {name for kind, name in symbols if kind == "U"}
    assert undefined <= LIBM | parts, f"{obj.name}: undefined symbols other than libm's and the parts': " \
                                      f"{sorted(undefined - LIBM - parts)}"
    # no global or static mutable state: nothing in .data or .bss (read-only tables are fine)
    mutable = [(kind, name) for kind, name in symbols if kind in "bBdDgGsSC"]
    assert not mutable, f"{obj.name}: mutable static data {mutable}"


def _sources(folder: Path) -> list:
    """The C sources the manifest lists (one per operation)."""
    manifest = json.loads(next(folder.glob("*.json")).read_text())
    return [folder / name for name in manifest["sources"] if name.endswith(".c")]


def _exported(folder: Path) -> set:
    """The functions a robot's header declares: each operation and its batch form."""
    manifest = json.loads(next(folder.glob("*.json")).read_text())
    return {f"{manifest['prefix']}_{op}{batch}" for op in manifest["operations"] for batch in ("", "_batch")}


def _parts(folder: Path) -> set:
    """The parts of the split operations (docs/generated-c.md): each defined in a source of its own, called
    from its operation's source; and the operations another operation calls (the manifest's ``calls``:
    forward_dynamics_crba where forward_dynamics is CRBA's)."""
    manifest = json.loads(next(folder.glob("*.json")).read_text())
    prefix = manifest["prefix"]
    return ({Path(n).stem for n in manifest["sources"] if re.fullmatch(rf"{prefix}__\d+_\w+\.c", n)}
            | {f"{prefix}_{info['calls']}" for info in manifest["operations"].values() if "calls" in info})


def _compile_each(tmp_path: Path, folder: Path, command: list) -> set:
    """Compile every source of ``folder`` on its own with ``command``; the functions the objects define."""
    defined = set()
    for source in _sources(folder):
        obj = tmp_path / (source.stem + ".o")
        _run([*command, "-c", source, "-o", obj])
        _check_object(obj, _parts(folder))
        defined |= {name for kind, name in _symbols(obj) if kind == "T"}
    return defined


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_strict_c99(tmp_path, folder):
    defined = _compile_each(tmp_path, folder, ["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
    assert defined == _exported(folder) | _parts(folder)  # one source per operation or part; every helper static


@pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")
@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_compiles_as_cplusplus(tmp_path, folder):
    defined = _compile_each(tmp_path, folder, ["g++", "-x", "c++", "-Wall", "-Wextra", "-Werror"])
    assert defined == _exported(folder) | _parts(folder)  # the headers give the functions C linkage: not mangled


# -- a C program using two robots ---------------------------------------------------------------
def _literal(values) -> str:
    return "{" + ", ".join(repr(float(v)) for v in np.ravel(values)) + "}"


def _robot(folder: Path):
    manifest = json.loads(next(folder.glob("*.json")).read_text())
    model = rbdgen.RobotModel.from_dict(manifest["model"])
    assert model.digest == manifest["digest"]
    return manifest, rbdgen.NumpySolver(model)


def _state(s, seed):
    """One random state with a load on every link: the C's flat inputs, and the `States` of it."""
    st = random_states(s, 1, seed, load_links=s.link_names)
    return {name: value[0] for name, value in st.flat().items()}, st


def _expected(s, op, st) -> dict:
    """NumpySolver's outputs of ``op`` as the flat arrays the C writes (M column-major)."""
    if op == "passive_terms":
        return {"M": st.call(s, "mass_matrix", 0).ravel(order="F"), "g": st.call(s, "gravity", 0),
                "c": st.call(s, "velocity_product_forces", 0)}
    result = st.call(s, op, 0, loads=OPERATIONS[op].loads)
    (name,) = (p.name for p in OPERATIONS[op].outputs)
    return {name: result.ravel(order="F")}


def _declared(header: str, prefix: str) -> set:
    return set(re.findall(rf"^int ({prefix}_\w+)\(", header, flags=re.M))


def _robot_source(folder: Path, seed: int):
    """C declarations and statements that exercise every function of one robot."""
    manifest, s = _robot(folder)
    prefix, sizes = manifest["prefix"], manifest["sizes"]
    P = f"RBDGEN_{prefix}"
    state, st = _state(s, seed)
    decls = [f"/* {prefix} */"]
    for name, value in state.items():
        flat = np.ravel(value)
        decls.append(f"static const double {prefix}_in_{name}[{flat.size}] = {_literal(flat)};")
        decls.append(f"static const double {prefix}_in2_{name}[{2 * flat.size}] = {_literal(np.r_[flat, flat])};")
    J = s.joint_count
    decls.append(f"static double {prefix}_bad_q[{J}];")
    body = [f"    /* {prefix}: J = {s.joint_count}, G = {s.generalized_count} */",
            f"    if ({P}_J != {s.joint_count} || {P}_G != {s.generalized_count} || {P}_L != {s.link_count}) "
            f'{{ printf("FAIL {prefix} sizes\\n"); ++failures; }}',
            f"    memcpy({prefix}_bad_q, {prefix}_in_q, sizeof {prefix}_bad_q);",
            f"    {prefix}_bad_q[{J - 1}] = NAN;"]
    called = set()
    for op, info in manifest["operations"].items():
        assert op in OPERATIONS, f"{prefix}: no expected values for {op}: extend this test"
        expected = _expected(s, op, st)
        outputs = info["outputs"]
        for name in outputs:
            size = sizes[name]
            assert expected[name].size == size
            decls.append(f"static const double {prefix}_{op}_want_{name}[{size}] = {_literal(expected[name])};")
            decls.append(f"static const double {prefix}_{op}_want2_{name}[{2 * size}] = "
                         f"{_literal(np.r_[expected[name], expected[name]])};")
        out_decl = " ".join(f"double {n}[{sizes[n]}], {n}2[{2 * sizes[n]}];" for n in outputs)
        single_args = ", ".join([f"{prefix}_in_{n}" for n in info["inputs"]] + list(outputs))
        batch_args = ", ".join([f"{prefix}_in2_{n}" for n in info["inputs"]] + [f"{n}2" for n in outputs])
        bad_args = ", ".join([f"{prefix}_bad_q" if n == "q" else f"{prefix}_in_{n}" for n in info["inputs"]]
                             + list(outputs))
        what = f"{prefix}_{op}"
        called |= {what, f"{what}_batch"}
        block = [f"    {{ /* {what} */", f"        {out_decl}", "        int rc, status[2];",
                 "        unsigned char mask[2] = {1, 0};"]
        fill = " ".join(f"fill({n}, {sizes[n]}, 7.0);" for n in outputs)
        block.append(f"        {fill}")
        block.append(f"        rc = {what}({single_args});")
        block.append(f'        if (rc != {P}_OK) {{ printf("FAIL {what}: status %d\\n", rc); ++failures; }}')
        for n in outputs:
            block.append(f'        failures += check("{what} {n}", {n}, {prefix}_{op}_want_{n}, {sizes[n]});')
        # the batch, then the batch with the second state masked out
        block.append(f"        rc = {what}_batch(2, {batch_args}, NULL, status);")
        block.append(f"        if (rc != 0 || status[0] != 0 || status[1] != 0) "
                     f'{{ printf("FAIL {what}_batch: status %d\\n", rc); ++failures; }}')
        for n in outputs:
            block.append(f'        failures += check("{what}_batch {n}", {n}2, {prefix}_{op}_want2_{n}, '
                         f'{2 * sizes[n]});')
        fill2 = " ".join(f"fill({n}2, {2 * sizes[n]}, 7.0);" for n in outputs)
        block.append(f"        {fill2}")
        block.append("        status[1] = -1;")
        block.append(f"        rc = {what}_batch(2, {batch_args}, mask, status);")
        block.append(f"        if (rc != 0 || status[0] != 0 || status[1] != 0) "
                     f'{{ printf("FAIL {what}_batch masked: status %d\\n", rc); ++failures; }}')
        for n in outputs:
            block.append(f'        failures += check("{what}_batch masked {n}", {n}2, {prefix}_{op}_want_{n}, '
                         f'{sizes[n]});')
            block.append(f'        failures += zero("{what}_batch masked-out {n}", {n}2 + {sizes[n]}, {sizes[n]});')
        # a non-finite q: status 1 (invalid input), every output zero
        block.append(f"        {fill}")
        block.append(f"        rc = {what}({bad_args});")
        block.append(f'        if (rc != {P}_INVALID_INPUT) {{ printf("FAIL {what} NaN q: status %d\\n", rc); '
                     f"++failures; }}")
        for n in outputs:
            block.append(f'        failures += zero("{what} NaN q {n}", {n}, {sizes[n]});')
        block.append("    }")
        body += block
    header = (folder / f"{prefix}.h").read_text()
    assert called == _declared(header, prefix), "the program must call every function the header declares"
    return prefix, decls, body


PROGRAM = """\
/* Written by tests/test_c_rules.py: two generated robots in one C program. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "panda.h"
#include "solo.h"

static void fill(double *x, int n, double value)
{{
    int i;
    for (i = 0; i < n; ++i) x[i] = value;
}}

/* 1 (and a message) unless ||got - want|| <= {tol} ||want||. */
static int check(const char *what, const double *got, const double *want, int n)
{{
    double num = 0, den = 0;
    int i;
    for (i = 0; i < n; ++i) {{
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }}
    if (!(sqrt(num) <= {tol} * sqrt(den))) {{
        printf("FAIL %s: relative error %g\\n", what, sqrt(num / den));
        return 1;
    }}
    return 0;
}}

static int zero(const char *what, const double *x, int n)
{{
    int i;
    for (i = 0; i < n; ++i) {{
        if (x[i] != 0) {{
            printf("FAIL %s: output %d is %g, not 0\\n", what, i, x[i]);
            return 1;
        }}
    }}
    return 0;
}}

{decls}

int main(void)
{{
    int failures = 0;
{body}
    if (failures) {{
        printf("%d failures\\n", failures);
        return 1;
    }}
    printf("PASS\\n");
    return 0;
}}
"""


def test_c_program_with_two_robots(tmp_path):
    panda, solo = GENERATED / "panda", GENERATED / "solo"
    prefixes, decls, body = [], [], []
    for seed, folder in enumerate((panda, solo)):
        prefix, d, b = _robot_source(folder, seed)
        prefixes.append(prefix)
        decls += d
        body += b
    assert prefixes == ["panda", "solo"]
    main = tmp_path / "main.c"
    main.write_text(PROGRAM.format(tol=repr(TOL), decls="\n".join(decls), body="\n".join(body)))
    exe = tmp_path / "two_robots"
    _run(["gcc", "-O1", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{panda}", f"-I{solo}",
          main, *_sources(panda), *_sources(solo), "-o", exe, "-lm"])
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1] == "PASS", result.stdout
