"""The generated C's checks as users compile it, from a plain C program (no Python in the loop).

A harness written here calls every exported function of small robots (single
state and batch, NULL loads, NULL optional outputs, mask and status NULL or
given) on random and extreme states: NaN, inf, 1e300, denormals, -0, a zero
quaternion, a singular and an ill-conditioned configuration. The harness itself
checks the contract (a status from the list; outputs zero on an error, finite
otherwise; the batch agrees with single calls) and prints every status.

* ``-O2`` and ``-O3 -ffast-math`` give the same statuses (but where fast-math flushes denormals), and the expected ones
  (NaN/inf in q: invalid input; singular; ill-conditioned);
* AddressSanitizer + UndefinedBehaviorSanitizer find nothing;
* ``-fstack-usage`` at -O0 and -O2 stays within the bound in the header and manifest.

The robots named ``<robot>_parts`` are the same robots with every operation split into parts
(`layout.PART_STEPS` made small), so the checks, solves and statuses cross the parts.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import rbdgen
from models import body, point_mass_wrist
from rbdgen.codegen.c import layout
from robots import path

pytestmark = pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")

OK, INVALID, SINGULAR, ILL, NONFINITE = 0, 1, 2, 3, 4
GENERATED = Path(__file__).resolve().parents[1] / "generated"


def _run(args, **kw):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300, **kw)
    assert result.returncode == 0, f"{' '.join(map(str, args))}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def _states(model, rng, extra: dict) -> dict:
    """Named states: {case: {input: flat values}} for every input a function of ``model`` takes; ``extra``
    gives more cases as changes to a random state."""
    J, G, L = model.joint_count, model.generalized_count, len(model.links)

    def state(quat=(0.0, 0.0, 0.0, 1.0), fill=None):
        if fill is not None:
            values = {n: np.full(k, fill) for n, k in (("q", J), ("qd", J), ("qdd", J), ("tau", G), ("loads", 6 * L))}
            values["base"] = np.r_[np.full(3, fill), quat, np.full(12, fill)]
            return values
        quat = rng.normal(size=4)
        return {"q": rng.uniform(-3, 3, J), "qd": rng.normal(size=J), "qdd": rng.normal(size=J),
                "tau": rng.normal(size=G), "loads": rng.normal(size=6 * L),
                "base": np.r_[rng.normal(size=3), quat / np.linalg.norm(quat), rng.normal(size=12)]}

    cases = {f"random{k}": state() for k in range(3)}
    cases["huge"] = state(fill=1e300)
    cases["denormal"] = state(fill=5e-324)
    cases["negative zero"] = state(fill=-0.0)
    for name, value in (("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)):
        bad = state()
        bad["q" if J else "base"][0] = value
        cases[f"{name} in q"] = bad
    overflow = state()
    overflow["qd" if J else "tau"][:] = 1e200
    cases["overflow"] = overflow
    if model.floating:
        zero = state()
        zero["base"][3:7] = 0.0
        cases["zero quaternion"] = zero
        tiny = state()
        tiny["base"][3:7] = 5e-324
        cases["denormal quaternion"] = tiny
    for case, changes in extra.items():
        cases[case] = {**state(), **{n: np.asarray(v, float) for n, v in changes.items()}}
    return cases


def _hex(values) -> str:
    """IEEE bit patterns: NaN and inf survive any compiler flag."""
    return ", ".join(f"0x{struct.unpack('<Q', struct.pack('<d', float(v)))[0]:016x}u" for v in values) or "0u"


HARNESS = """\
/* Written by tests/test_c_checks.py. */
#ifdef TRAP_FP
#define _GNU_SOURCE
#include <fenv.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "{prefix}.h"

#define CASES {cases}
static int failures;

static double bits(uint64_t u) {{ double x; memcpy(&x, &u, sizeof x); return x; }}

static int is_finite(double x)
{{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u & 0x7ff0000000000000u) != 0x7ff0000000000000u;
}}

/* the contract: outputs zero on an error, finite otherwise */
static void contract(const char *what, int c, int s, const double *x, int n)
{{
    int i;
    if (s < 0 || s > 4) {{ printf("BAD %s case %d: status %d\\n", what, c, s); ++failures; }}
    for (i = 0; i < n; ++i) {{
        if (s != 0 ? x[i] != 0 : !is_finite(x[i])) {{ printf("BAD %s case %d output %d (status %d)\\n", what, c, i, s); ++failures; return; }}
    }}
}}

{arrays}

int main(void)
{{
    int c, i, s, st[CASES];
    unsigned char mask[CASES];
    for (i = 0; i < CASES; ++i) mask[i] = (unsigned char)(i % 2);
#ifdef TRAP_FP
    feenableexcept(FE_DIVBYZERO | FE_INVALID);  /* a division by zero or an invalid operation ends the program */
#endif
{fill}
{body}
    printf("failures %d\\n", failures);
    return failures != 0;
}}
"""


def _harness(g, extra: dict, cases=None) -> str:
    manifest = g.manifest
    prefix, sizes = manifest["prefix"], manifest["sizes"]
    states = _states(g.model, np.random.default_rng(7), extra)
    if cases is not None:  # only these
        states = {c: states[c] for c in cases}
    names = list(states)
    inputs = sorted({n for info in manifest["operations"].values() for n in info["inputs"]})
    outputs = sorted({n for info in manifest["operations"].values() for n in info["outputs"]})
    arrays = [f"/* cases: {', '.join(names)} */"]
    fill = []
    for n in inputs:
        flat = np.concatenate([states[c][n] for c in names])
        arrays.append(f"static const uint64_t bits_{n}[] = {{{_hex(flat)}}};")
        arrays.append(f"static double in_{n}[CASES * {sizes[n]} + 1];")
        fill.append(f"    for (i = 0; i < CASES * {sizes[n]}; ++i) in_{n}[i] = bits(bits_{n}[i]);")
    for n in outputs:
        arrays.append(f"static double out_{n}[CASES * {sizes[n]} + 1], one_{n}[{sizes[n]} + 1];")
    body = []
    for op, info in manifest["operations"].items():
        ins, outs = info["inputs"], info["outputs"]
        nulls = [()] + ([(o,) for o in outs] if op == "passive_terms" else [])
        for null in nulls:
            for loads in ((True, False) if "loads" in ins else (True,)):
                tag = op + "".join(f" {o}=NULL" for o in null) + ("" if loads else " loads=NULL")
                args = [f"in_{n} + c * {sizes[n]}" if (n != "loads" or loads) else "NULL" for n in ins]
                one = [f"one_{o}" if o not in null else "NULL" for o in outs]
                check = "".join(f" contract(\"{tag}\", c, s, one_{o}, {sizes[o]});" for o in outs if o not in null)
                body.append(f"    for (c = 0; c < CASES; ++c) {{ s = {prefix}_{op}({', '.join(args + one)});"
                            f"{check} printf(\"{tag}|%d|%d\\n\", c, s); }}")
                bargs = [f"in_{n}" if (n != "loads" or loads) else "NULL" for n in ins]
                bouts = [f"out_{o}" if o not in null else "NULL" for o in outs]
                for masked in (False, True):
                    m = "mask" if masked else "NULL"
                    body.append(f"    s = {prefix}_{op}_batch(CASES, {', '.join(bargs + bouts)}, {m}, st);")
                    body.append(f"    for (c = 0; c < CASES; ++c) {{ printf(\"{tag} batch{' masked' if masked else ''}"
                                f"|%d|%d\\n\", c, st[c]);"
                                + "".join(f" contract(\"{tag} batch\", c, st[c], out_{o} + c * {sizes[o]}, {sizes[o]});"
                                          for o in outs if o not in null) + " }")
                body.append(f"    (void){prefix}_{op}_batch(CASES, {', '.join(bargs + bouts)}, NULL, NULL);")
    return HARNESS.format(prefix=prefix, cases=len(names), arrays="\n".join(arrays), fill="\n".join(fill),
                          body="\n".join(body)), names


def _statuses(output: str, names: list) -> dict:
    """``{(function variant, case name): status}`` from the harness's lines."""
    table = {}
    for line in output.splitlines():
        if "|" in line:
            what, case, status = line.split("|")
            table[(what, names[int(case)])] = int(status)
    return table


def _build_and_run(g, folder: Path, extra: dict, flags: list, tag: str, cases=None) -> dict:
    text, names = _harness(g, extra, cases)
    main = folder / "harness.c"
    main.write_text(text)
    sources = [folder / n for n in g.manifest["sources"] if n.endswith(".c")]
    exe = folder / f"harness_{tag}"
    _run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", *flags, f"-I{folder}", main, *sources,
          "-o", exe, "-lm"])
    out = _run([exe])
    assert "BAD" not in out and out.strip().endswith("failures 0"), out[-2000:]
    table = _statuses(out, names)
    for (what, case), status in table.items():  # the batch agrees with single calls (masked: 0)
        if " batch" in what:
            single = table[(what.split(" batch")[0], case)]
            masked = what.endswith("masked") and names.index(case) % 2 == 0
            assert status == (OK if masked else single), (what, case)
    return table


FD = ("forward_dynamics", "forward_dynamics_crba")
#: The functions that square the velocities (C qd): 1e300 or 1e200 there overflows to inf.
VELOCITY = ("velocity_product_forces", "inverse_dynamics", "passive_terms") + FD


def _extremes(changes=None) -> dict:
    """The status of every function (and variant) on the extreme states: all inputs 1e300 ("huge") and qd
    1e200 ("overflow") are non-finite where the velocities are squared and finite elsewhere (M, g and J^T
    loads: sines, cosines and lever arms below 1e300); denormals and -0 are a state at rest (OK).
    ``changes``: {case: {function: status}} where a robot's own check fires first."""
    overflow = {None: OK, **dict.fromkeys(VELOCITY, NONFINITE), "passive_terms c=NULL": OK}
    cases = {"huge": overflow, "overflow": dict(overflow), "denormal": {None: OK}, "negative zero": {None: OK}}
    for case, statuses in (changes or {}).items():
        cases[case] = {**cases[case], **statuses}
    return cases


#: name -> (model, extra cases {case: inputs}, expected statuses {case: {variant, operation or None (any): status}}).
ROBOTS = {
    # q_wrist = 0: the point mass sits on the elbow's axis, M is singular (denormal and -0 q: at 0)
    "wrist": (lambda: rbdgen.load_urdf_string(point_mass_wrist("wrist")), {"singular": {"q": [0.3, 0.0]}},
              {"singular": dict.fromkeys(FD, SINGULAR),
               **_extremes({"denormal": dict.fromkeys(FD, SINGULAR), "negative zero": dict.fromkeys(FD, SINGULAR)})}),
    # both forward dynamics are CRBA's here (`generate`'s choice), whose LTDL passes a denormal state
    "floater": (lambda: rbdgen.load_urdf(path("double_pendulum"), floating=True), {},
                {"zero quaternion": {None: INVALID}, "denormal quaternion": {None: INVALID}, **_extremes({})}),
    # positive definite but ill-conditioned at any state (see test_codegen.test_ill_conditioned_floating_base);
    # all inputs 1e300: forward_dynamics is CRBA's here (`generate`'s cost model: a body without joints),
    # whose conditioning check reports the solve; no joints: "overflow" is tau = 1e200 (finite everywhere but in
    # the ill-conditioned solves)
    "needle": (lambda: rbdgen.load_urdf_string(body(1, (1e-12,) * 3, "0.1 0 0", name="needle"), floating=True),
               {"ill": {"base": [1, 2, 3, 0, 0, 0, 1, 0.1, 0.2, 0.3, 1, 2, 3, 0, 0, 0, 0, 0, 0],
                        "tau": [1e-20, 2e-20, 0, 1, 0, 0]}},
               {**_extremes({"huge": dict.fromkeys(FD, ILL),
                             "overflow": {**dict.fromkeys(VELOCITY, OK), **dict.fromkeys(FD, ILL)},
                             "denormal": dict.fromkeys(FD, ILL), "negative zero": dict.fromkeys(FD, ILL)}),
                **{case: dict.fromkeys(FD, ILL) for case in ("ill", "random0", "random1", "random2")}}),
}
#: Steps per part of the split variants: a few parts per operation.
PART_STEPS = 40
ROBOTS.update({f"{name}_parts": ROBOTS[name] for name in ("wrist", "floater", "needle")})


@pytest.fixture(scope="module")
def robots(tmp_path_factory):
    """Each robot's sources, written once: (Generated, folder, extra cases, expected statuses)."""
    out = {}
    for name, (make, extra, expected) in ROBOTS.items():
        with pytest.MonkeyPatch.context() as patch:
            if name.endswith("_parts"):
                patch.setattr(layout, "PART_STEPS", PART_STEPS)
            g = rbdgen.generate(make(), prefix=name)
            split = any(re.fullmatch(rf"{name}__\d+_\w+\.c", n) for n in g.files)
            assert split == name.endswith("_parts"), name
        out[name] = (g, g.write(tmp_path_factory.mktemp(name)), extra, expected)
    return out


def _expect(table, expected):
    """Non-finite inputs: invalid input everywhere; the robot's expected statuses (every case of them run);
    random states fine."""
    assert set(expected) <= {case for _, case in table}, set(expected) - {case for _, case in table}
    for case in ("nan in q", "inf in q", "-inf in q"):
        assert {s for (what, c), s in table.items() if c == case and "masked" not in what} == {INVALID}, case
    _expect_cases(table, expected)


def _expect_cases(table, expected):
    """The robot's expected statuses (by variant, e.g. ``passive_terms c=NULL``, else by function, else
    ``None``: any function); random states fine."""
    for (what, case), s in table.items():
        op, variant = what.split(" ")[0], what.removesuffix(" batch")
        if "masked" in what:
            continue
        keys = [k for k in (variant, op, None) if k in expected.get(case, {})]
        if keys:
            assert s == expected[case][keys[0]], (what, case, s)
        elif case.startswith("random"):
            assert s == OK, (what, case, s)


@pytest.mark.parametrize("name", list(ROBOTS))
def test_fast_math_keeps_the_checks(robots, name):
    g, folder, extra, expected = robots[name]
    plain = _build_and_run(g, folder, extra, ["-O2"], "O2")
    fast = _build_and_run(g, folder, extra, ["-O3", "-ffast-math"], "fast")
    _expect(plain, expected)
    # fast-math flushes denormals to zero (a state of denormals is a state of zeros there): only its status may differ
    assert {k: v for k, v in fast.items() if k[1] != "denormal"} == {k: v for k, v in plain.items() if k[1] != "denormal"}


@pytest.mark.parametrize("name", list(ROBOTS))
def test_sanitizers(robots, name):
    g, folder, extra, expected = robots[name]
    flags = ["-O0", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    _expect(_build_and_run(g, folder, extra, flags, "san"), expected)


@pytest.mark.parametrize("name", ["wrist", "wrist_parts", "floater", "floater_parts", "needle_parts"])
def test_failed_checks_raise_no_floating_point_exception(robots, name):
    """After a failed check the rest of a part runs on, its results discarded (docs/generated-c.md, checks): the
    checked value reads as 1 there, so a zero pivot or a zero quaternion reaches no division by zero and no square
    root of a negative number. A program that traps those exceptions (glibc's feenableexcept) gets the status.
    Extreme finite inputs (1e300) are left out: their overflow to inf may raise an invalid operation before the
    output check reports it."""
    g, folder, extra, expected = robots[name]
    states = _states(g.model, np.random.default_rng(7), extra)
    cases = [c for c in ("random0", "singular", "ill", "zero quaternion") if c in states]
    table = _build_and_run(g, folder, extra, ["-O2", "-DTRAP_FP"], "trap", cases)
    _expect_cases(table, expected)
    for case in cases[1:]:  # a check failed in some operation
        assert any(s != OK for (_, c), s in table.items() if c == case), case


def twin_wrists() -> rbdgen.RobotModel:
    """Two legs of one shape (twins, docs/generated-c.md, "Twin bodies"): a hip (z), an elbow (y) and the wrist
    (x) turning a point mass 0.2 m out along the elbow's axis: at wrist = 0 the elbow's articulated inertia is
    zero, and the left elbow's check comes after the right leg's in ABA's backward pass."""
    builder = rbdgen.RobotBuilder("twin_wrists").add_link("base", 1.0, rotational=((0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1)))
    for k, side in enumerate("lr"):
        builder.add_link(f"hip_{side}", 1.0, (0.1, 0, 0), ((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.01)))
        builder.add_link(f"upper_{side}").add_link(f"hand_{side}", 0.5, (0.0, 0.2, 0.0))
        builder.add_joint(f"hip_{side}", "revolute", "base", f"hip_{side}", xyz=(0.0, 0.3 * k, 0.0), axis=(0, 0, 1))
        builder.add_joint(f"elbow_{side}", "revolute", f"hip_{side}", f"upper_{side}", xyz=(0.2, 0, 0), axis=(0, 1, 0))
        builder.add_joint(f"wrist_{side}", "revolute", f"upper_{side}", f"hand_{side}", axis=(1, 0, 0))
    return builder.build()


def test_twins_read_no_pivot_before_its_check(tmp_path):
    """Twin legs in pairs (`rbdgen.ir.twins`) with ABA: where the left wrist is at 0 (its elbow's pivot zero), the
    statements reading that pivot come after its check (its value read as 1 once a check failed), so a program
    that traps floating-point exceptions gets the status."""
    model = twin_wrists()
    g = rbdgen.generate(model, ops=["forward_dynamics"], fd_algorithm="aba", prefix="twin_wrists")
    assert "twin_wrists_pair " in "".join(t for n, t in g.files.items() if n.endswith(".c"))
    extra = {"singular": {"q": [0.3, -0.2, 0.5, 0.4, 0.0, 0.7]}}  # hip, elbow, wrist; left, right
    assert model.joint_names == ("hip_l", "hip_r", "elbow_l", "elbow_r", "wrist_l", "wrist_r")
    table = _build_and_run(g, g.write(tmp_path), extra, ["-O2", "-DTRAP_FP"], "trap", ["random0", "singular"])
    _expect_cases(table, {"singular": {"forward_dynamics": SINGULAR}})


# -- stack -----------------------------------------------------------------------------------------------
def _stack_usage(folder: Path, sources: list, flags: list) -> dict:
    """``{function: bytes}`` from -fstack-usage: every frame bounded (the generated code has no VLA or alloca;
    GCC reports a frame that pushes arguments for a call as "dynamic,bounded", its bound the bytes given)."""
    usage = {}
    for source in sources:
        obj = folder / (source.stem + ".o")
        _run(["gcc", "-std=c99", *flags, "-fstack-usage", "-c", source, "-o", obj], cwd=folder)
        for line in obj.with_suffix(".su").read_text().splitlines():
            where, size, kind = line.split("\t")
            assert kind in ("static", "dynamic,bounded"), line
            usage[(source.name, where.rsplit(":", 1)[-1].split(".")[0])] = int(size)
    return usage


@pytest.mark.parametrize("robot, level", [("panda", "-O0"), ("panda", "-O2"), ("wrist", "-O2"), ("floater", "-O0"),
                                          ("wrist_parts", "-O2"), ("floater_parts", "-O0"), ("solo", "-O0"),
                                          ("solo", "-O0 -DRBDGEN_SCALAR_PAIRS")])
def test_stack_within_the_stated_bound(robots, tmp_path, robot, level):
    """An operation's frame plus every helper's frame in its source (a bound on any call chain) is within the
    bytes the header and the manifest state; a split operation's frame plus its largest part's chain. Solo12's
    twin legs (docs/generated-c.md, "Twin bodies"): its pairs in vector registers and in the struct, whose
    helpers are functions at -O0."""
    if robot in ("panda", "solo"):
        manifest = json.loads((GENERATED / robot / f"{robot}.json").read_text())
        folder = GENERATED / robot
    else:
        manifest, folder = robots[robot][0].manifest, robots[robot][1]
    work = tmp_path / "build"
    work.mkdir()
    for name in manifest["sources"]:
        shutil.copy(folder / name, work / name)
    header = (work / f"{manifest['prefix']}.h").read_text()
    prefix = manifest["prefix"]
    split = []
    for op, info in manifest["operations"].items():
        source = work / f"{prefix}_{op}.c"
        parts = [work / n for n in manifest["sources"] if re.fullmatch(rf"{prefix}__\d+_{op}\.c", n)]
        usage = _stack_usage(work, [source, *parts], level.split())
        exported, batch = f"{prefix}_{op}", f"{prefix}_{op}_batch"

        def chain(file, function):  # the function's frame plus every helper's in its source
            return usage[(file.name, function)] + sum(v for (f, g), v in usage.items()
                                                      if f == file.name and g not in (function, batch))

        split.append(len(parts) > 1)
        total = chain(source, exported) + max((chain(p, f"{prefix}_{p.stem[len(prefix) + 1:]}") for p in parts),
                                              default=0)
        bound = info["stack_bytes"]
        assert total <= bound and usage[(source.name, batch)] <= total + 256, (op, level, total, bound)
        assert re.search(rf"Stack: at most {bound} bytes \(RBDGEN_{prefix}_STACK_{op.upper()}\)", header)
        assert f"#define RBDGEN_{prefix}_STACK_{op.upper()} {bound}\n" in header
    assert any(split) == (robot.endswith("_parts") or robot == "solo")


def test_g1_forward_dynamics_crba_stack_within_8_kib(tmp_path):
    """G1's forward_dynamics_crba split into parts (docs/generated-c.md, the stack of split operations): at -O2, the
    function's frame (the array ``w``) plus its largest part's chain stays within 8 KiB, as the docs state."""
    g = rbdgen.generate(path("g1"), floating=True, ops=["forward_dynamics_crba"], prefix="g1")
    folder = g.write(tmp_path)
    op = "forward_dynamics_crba"
    parts = [folder / n for n in g.c_sources if re.fullmatch(rf"g1__\d+_{op}\.c", n)]
    assert len(parts) > 1
    usage = _stack_usage(folder, [folder / f"g1_{op}.c", *parts], ["-O2"])

    def chain(file):  # every function of a source but the batch form: the function or part and its helpers
        return sum(v for (f, g), v in usage.items() if f == file.name and g != f"g1_{op}_batch")

    total = chain(folder / f"g1_{op}.c") + max(chain(p) for p in parts)
    assert total <= 8192, total


#: Values with their IEEE bits (NaN and inf survive -ffast-math): the largest finite value, a denormal, -0, inf, -inf,
#: a quiet and a negative NaN.
SPECIAL = {"max": 0x7FEFFFFFFFFFFFFF, "denormal": 1, "-0": 0x8000000000000000, "inf": 0x7FF0000000000000,
           "-inf": 0xFFF0000000000000, "nan": 0x7FF8000000000000, "-nan": 0xFFF8000000000001}

FINITE_PROGRAM = """\
#include <stdio.h>
#include "{prefix}_internal.h"

static double value(uint64_t u) {{ double x; memcpy(&x, &u, sizeof x); return x; }}

int main(void)
{{
    static const uint64_t special[] = {{{special}}};
    double x[24];
    int n, at, v, i;
    for (v = 0; v < {count}; ++v)
        for (n = 0; n <= 24; ++n)
            for (at = 0; at < n; ++at) {{
                for (i = 0; i < 24; ++i) x[i] = 1.5;
                x[at] = value(special[v]);
                printf("%d %d %d %d\\n", v, n, at, {prefix}_finite(x, n));
            }}
    return 0;
}}
"""


@pytest.mark.parametrize("flags", [["-O2"], ["-O3", "-march=native", "-ffast-math"]])
def test_finite_against_numpy(robots, tmp_path, flags):
    """`<p>_finite` of the first n of 24 values (every n: the four-value steps and their tail) with one special
    value at each place, against NumPy's isfinite."""
    _, folder, _, _ = robots["floater"]
    main = tmp_path / "finite.c"
    main.write_text(FINITE_PROGRAM.format(prefix="floater", special=", ".join(f"0x{u:016x}u" for u in SPECIAL.values()),
                                          count=len(SPECIAL)))
    exe = tmp_path / "finite"
    _run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", *flags, f"-I{folder}", main, "-o", exe])
    values = [struct.unpack("<d", struct.pack("<Q", u))[0] for u in SPECIAL.values()]
    lines = _run([exe]).splitlines()
    assert len(lines) == len(SPECIAL) * 24 * 25 // 2
    for line in lines:
        v, n, at, finite = map(int, line.split())
        assert finite == bool(np.isfinite(values[v])), line
