"""Benchmark rbdgen's generated dynamics against Pinocchio, dynibo, MuJoCo and adam (CasADi).

    python -m benchmarks.bench                      # Panda, UR5, Solo12, G1, Talos (about 10 minutes)
    python -m benchmarks.bench --robots panda solo12
    python -m benchmarks.bench --urdf my_robot.urdf --floating
    python -m benchmarks.bench --quick              # Panda, few rounds: checks the harness, not speed

For each robot and each operation (inverse dynamics, mass matrix, forward dynamics,
gravity, velocity-product forces) every tool (`peers`) is timed on the same
random states: the generated C in a C loop, rbdgen from Python (one state per call
and batched), the NumPy engine (batched), Pinocchio from Python and in a C++ loop,
dynibo, MuJoCo and adam (CasADi from Python and CasADi's generated C in a C loop).

Times are medians over interleaved rounds: each round runs every tool once, in an
order that rotates from round to round, so machine noise hits all of them alike.
Before any time counts, every tool's results at the check states are converted to
rbdgen's conventions and compared with two independent results, rbdgen's NumPy
engine and Pinocchio (`case.REFERENCES`; a tool is not compared with itself); a tool
that disagrees with either is marked WRONG and gets no ratio.

Writes ``results.md``, ``results.json`` and ``results.png`` (ratios to Pinocchio
C++) under ``--out`` (default ``benchmarks/results``; ``--quick`` writes to
``benchmarks/results/quick``). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import gc
import importlib.metadata
import json
import os
import platform
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.testing import random_states
from tests.robots import ROBOTS

from . import peers as P
from .case import OPS, REFERENCES, Case, Unavailable, rel_errors

HERE = Path(__file__).resolve().parent

DEFAULT_ROBOTS = ("panda", "ur5", "solo12", "g1", "talos")
LABELS = {"inverse_dynamics": "ID", "mass_matrix": "M", "forward_dynamics": "FD", "gravity": "g",
          "velocity_product_forces": "C qd"}
#: Worst normwise relative error (per state) a peer may have against a reference before it is WRONG.
TOLERANCE = {op: 1e-8 for op in OPS} | {"forward_dynamics": 1e-6}
BASELINE = "pinocchio_cpp"
ALL_KEYS = [c.key for c in P.ALL_PEERS]
#: Generated-C-over-Pinocchio-C++ limits of the targets, per robot (others: the last one).
C_TARGET = {"panda": 0.4, "ur5": 0.4, "solo12": 0.6, "g1": 0.6, "talos": 0.6}
C_TARGET_OTHER = 0.6
ROBOT_TITLES = {"panda": "Panda", "ur5": "UR5", "solo12": "Solo12", "g1": "G1", "talos": "Talos (full)"}

QUICK = dict(rounds=2, batch=256, states=16, target_ms=2.0)
FULL = dict(rounds=11, batch=10_000, states=64, target_ms=10.0)


def log(*args):
    print(*args, flush=True)


# ---------------------------------------------------------------------------
# setting a robot up


def make_case(name, urdf, floating, opts, classes=P.ALL_PEERS) -> tuple:
    """Generate and compile rbdgen for one robot; its states and the reference results."""
    build = {}
    start = time.perf_counter()
    generated = rbdgen.generate(urdf, floating=floating)
    build["generate_s"] = time.perf_counter() - start
    build["trace_s"] = generated.timings.get("trace")
    build["emit_s"] = generated.timings.get("emit")
    build["c_source_kib"] = sum(len(generated.files[n].encode()) for n in generated.c_sources) / 1024
    # no wrench on a floating base in the forward-dynamics forces: adam's ABA takes joint forces only
    batch = random_states(generated.model, max(opts.batch, opts.states), seed=1, base_wrench=False)
    check = batch.rows(slice(0, opts.states))
    work = opts.work / name
    work.mkdir(parents=True, exist_ok=True)
    # the C loop program compiles (the generated C once more) while cffi compiles the extension
    pool = concurrent.futures.ThreadPoolExecutor(1)
    c_bench = None
    if any(c is P.RbdgenC for c in classes):
        c_bench = pool.submit(P.RbdgenC.build, generated, opts.flags, check, opts.cache)
    pool.shutdown(wait=False)
    installed = set((opts.cache / "rbdgen").glob("*/module"))
    start = time.perf_counter()
    solver = generated.compile(flags=opts.flags, cache=opts.cache / "rbdgen", validate=False)
    build["compile_s"] = time.perf_counter() - start
    build["compile_cached"] = set((opts.cache / "rbdgen").glob("*/module")) == installed
    case = Case(name, str(urdf), floating, generated, solver, check, batch, tuple(opts.flags), opts.cache, work,
                c_bench=c_bench)
    case.compute_references()
    return case, build


def check(peer, op, case: Case) -> dict:
    """``{"check": "ok" | "WRONG" | "failed", "errors": {reference: worst}, "error": worst of all}`` of
    one peer's results of ``op`` against every reference that is not the peer itself."""
    references = {k: v for k, v in case.references.items() if k != peer.implementation}
    if not references:
        return {"check": "failed", "reason": "no independent reference to check against"}
    try:
        got = case.reduce(op, peer.results(op)) if peer.full_coordinates else peer.results(op)
        errors = {k: float(rel_errors(got, ref[op]).max()) for k, ref in references.items()}
    except Exception as exc:  # noqa: BLE001 - a peer's failure must not stop the others
        return {"check": "failed", "reason": f"results failed: {type(exc).__name__}: {exc}"}
    worst = max(errors.values())
    ok = bool(np.isfinite(worst) and worst <= TOLERANCE[op])
    return {"check": "ok" if ok else "WRONG", "errors": errors, "error": worst, "rounds": []}


# ---------------------------------------------------------------------------
# timing


def _run_calls(fn, args, reps) -> float:
    start = time.perf_counter()
    for _ in range(reps):
        for a in args:
            fn(*a)
    return time.perf_counter() - start


def calibrate(fn, args, target_s) -> int:
    """Repeats of ``for a in args: fn(*a)`` that last about ``target_s`` (also warms up)."""
    reps = 1
    while True:
        elapsed = _run_calls(fn, args, reps)
        if elapsed >= 0.5 * target_s or reps >= 1 << 20:
            return max(1, round(reps * target_s / max(elapsed, 1e-9)))
        reps *= 2


def bench_robot(case: Case, peer_classes, opts) -> dict:
    """Set up, check and time every peer on one robot; returns the robot's JSON record."""
    peers, record = [], {}
    for cls in peer_classes:
        peer = cls()
        entry = {"label": peer.label, "kind": peer.kind, "implementation": peer.implementation,
                 "describe": peer.describe, "ops": {}}
        record[peer.key] = entry
        start = time.perf_counter()
        try:
            peer.setup(case.full if peer.full_coordinates else case)
        except Unavailable as exc:
            entry.update(status="unavailable", reason=str(exc))
            log(f"  {peer.label}: unavailable: {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - a peer's failure must not stop the others
            entry.update(status="unavailable", reason=f"setup failed: {type(exc).__name__}: {exc}")
            log(f"  {peer.label}: setup failed:\n{traceback.format_exc()}")
            continue
        entry["setup_s"] = time.perf_counter() - start
        if peer.build_seconds is not None:
            entry["build_s"] = peer.build_seconds
        for attr in ("compile_seconds", "compile_cached", "c_source_kib"):
            if getattr(peer, attr, None) is not None:
                entry[attr.replace("seconds", "s")] = getattr(peer, attr)
        entry.update(status="ok", notes=list(peer.notes))
        # consistency: every supported operation at the check states, against each independent reference
        for op in OPS:
            if op in peer.unsupported:
                entry["ops"][op] = {"check": "unsupported", "reason": peer.unsupported[op]}
                continue
            entry["ops"][op] = item = check(peer, op, case)
            if item["check"] == "failed":
                log(f"  {peer.label} {op}: {item['reason']}")
            elif item["check"] == "WRONG":
                log(f"  {peer.label} {op}: WRONG, worst relative error {item['error']:.3g} > {TOLERANCE[op]:g}")
        peers.append(peer)

    # calibrate the Python peers' repeat counts (also their warm-up)
    target = opts.target_ms * 1e-3
    calls = {}
    for peer in peers:
        if peer.kind == "loop":
            continue
        for op in OPS:
            if record[peer.key]["ops"][op].get("check") in ("ok", "WRONG"):
                fn, args, per = peer.timed(op)
                calls[peer.key, op] = (fn, args, per, calibrate(fn, args, target))

    gc_was = gc.isenabled()
    gc.disable()
    try:
        for r in range(opts.rounds):
            order = peers[r % len(peers):] + peers[: r % len(peers)] if peers else []
            for peer in order:
                ops = record[peer.key]["ops"]
                if peer.kind == "loop":
                    try:
                        times = peer.run_round(opts.target_ms)
                    except Exception as exc:  # noqa: BLE001
                        log(f"  {peer.label}: round failed: {exc}")
                        continue
                    for op, t in times.items():
                        if "rounds" in ops.get(op, {}):
                            ops[op]["rounds"].append(t)
                    continue
                for op in OPS:
                    if (peer.key, op) not in calls:
                        continue
                    fn, args, per, reps = calls[peer.key, op]
                    elapsed = _run_calls(fn, args, reps)
                    ops[op]["rounds"].append(1e6 * elapsed / (reps * len(args) * per))
    finally:
        if gc_was:
            gc.enable()
    return record  # medians etc.: write_outputs


# ---------------------------------------------------------------------------
# results


def cell_us(item) -> tuple:
    """(text, number or None) of one peer's time for the tables."""
    if item is None:
        return "n/a", None
    check = item.get("check")
    if check == "unsupported":
        return "—", None
    if check == "failed":
        return "failed", None
    if "us" not in item:
        return "n/a", None
    if check == "WRONG":
        return f"WRONG ({item['us']:.3g})", None
    return _fmt(item["us"]), item["us"]


def _fmt(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:.0f}"


def time_of(robot_record, key, op, stat="us"):
    """A checked peer's time (``stat``: "us" the median, "min" the fastest round), else None."""
    entry = robot_record["peers"].get(key)
    if not entry or entry.get("status") != "ok":
        return None
    item = entry["ops"].get(op, {})
    return item.get(stat) if item.get("check") == "ok" else None


def evaluate_targets(results) -> list:
    """The issue's targets, one row per robot and operation they apply to.

    ``value``/``met`` use the medians; ``value_min``/``met_min`` the fastest rounds.
    """
    rows = []

    def ratio(rec, num, den, op, stat):
        a, b = time_of(rec, num, op, stat), time_of(rec, den, op, stat)
        return None if a is None or b is None else a / b

    def add(target, name, rec, op, num, den, limit, what):
        row = {"target": target, "robot": name, "op": op, "limit": limit, "what": what}
        for stat, suffix in (("us", ""), ("min", "_min")):
            value = ratio(rec, num, den, op, stat)
            row["value" + suffix] = value
            row["met" + suffix] = None if value is None else bool(value <= limit)
        rows.append(row)

    for name, rec in results["robots"].items():
        for op in OPS:
            if op in ("inverse_dynamics", "mass_matrix", "forward_dynamics"):
                add("C vs Pinocchio C++", name, rec, op, "rbdgen_c", BASELINE, C_TARGET.get(name, C_TARGET_OTHER),
                    "rbdgen C loop / Pinocchio C++ loop")
            if rec["peers"].get("adam_c", {}).get("ops", {}).get(op, {}).get("check") != "unsupported":
                add("C vs adam C", name, rec, op, "rbdgen_c", "adam_c", 1.0, "rbdgen C loop / adam CasADi C loop")
            add("Python vs dynibo", name, rec, op, "rbdgen_py", "dynibo_py", 0.5,
                "rbdgen Python 1 state / dynibo Python")
            add("batch vs C loop", name, rec, op, "rbdgen_batch", "rbdgen_c", 1.2,
                "rbdgen batch per state / rbdgen C loop")
            add("batch vs C loop, same states", name, rec, op, "rbdgen_batch", "rbdgen_batch_c", 1.2,
                "rbdgen batch per state / the generated C's loop over the batch's states")
    return rows


def noise(results) -> dict:
    """How much the rounds of one timing vary: interquartile range / median, over all timings."""
    spreads = []
    for rec in results["robots"].values():
        for entry in rec["peers"].values():
            for item in entry["ops"].values():
                r = item.get("rounds") or []
                if len(r) >= 3 and item.get("us"):
                    q1, q3 = np.percentile(r, [25, 75])
                    spreads.append((q3 - q1) / item["us"])
    if not spreads:
        return {}
    return {"timings": len(spreads), "median_iqr_over_median": float(np.median(spreads)),
            "p90_iqr_over_median": float(np.percentile(spreads, 90)), "max_iqr_over_median": float(max(spreads))}


def versions() -> dict:
    out = {"python": platform.python_version(), "numpy": np.__version__}
    for dist in ("rbdgen", "pin", "dynibo", "mujoco", "adam-robotics", "casadi", "cffi", "matplotlib"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"platform": platform.platform(), "cpu": cpu, "cpus": os.cpu_count(), "load_average": load}


def peer_columns(results) -> list:
    keys = []
    for rec in results["robots"].values():
        for key in rec["peers"]:
            if key not in keys:
                keys.append(key)
    return keys


def label_of(results, key):
    for rec in results["robots"].values():
        if key in rec["peers"]:
            return rec["peers"][key]["label"]
    return key


def consistency_cell(entry, op, ref) -> str:
    """One peer's worst error of ``op`` against reference ``ref`` for the consistency tables."""
    if not entry or entry["status"] != "ok":
        return "n/a"
    item = entry["ops"].get(op, {})
    if item.get("check") not in ("ok", "WRONG"):
        return "—" if item.get("check") == "unsupported" else item.get("check", "n/a")
    if ref not in item.get("errors", {}):
        return "self" if entry.get("implementation") == ref else "n/a"
    err = item["errors"][ref]
    return ("WRONG " if not err <= TOLERANCE[op] else "") + f"{err:.1e}"


def markdown(results) -> str:
    meta, robots = results["meta"], results["robots"]
    keys = peer_columns(results)
    labels = [label_of(results, k) for k in keys]
    head = "| robot | op | " + " | ".join(labels) + " |\n|---|---|" + "---:|" * len(keys) + "\n"
    out = [f"# rbdgen benchmark{' (--quick: checks the harness, not speed)' if meta['quick'] else ''}\n",
           f"{meta['date']}; {meta['machine']['cpu']} ({meta['machine']['cpus']} CPUs, load average at start "
           f"{', '.join(f'{x:.2f}' for x in meta['machine']['load_average'] or [])}); Python {meta['versions']['python']}, "
           f"NumPy {meta['versions']['numpy']}.\n",
           f"C flags (rbdgen, adam's CasADi C): `{' '.join(meta['flags'])}`; Pinocchio C++: "
           f"`{' '.join(meta['cxx_flags']) if meta['cxx_flags'] else 'not built'}`. Medians of {meta['rounds']} "
           f"interleaved rounds; {meta['states']} states per loop (the check states), batches of "
           f"{meta['batch']} states. Command: `{meta['command']}`.\n",
           "\nVersions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items() if v) + ".\n"]

    out.append("\n## Microseconds per call (per state for the batch columns)\n\n" + head)
    for name, rec in robots.items():
        for op in OPS:
            cells = [cell_us(rec["peers"][k]["ops"].get(op) if k in rec["peers"] and rec["peers"][k]["status"] == "ok"
                             else None)[0] for k in keys]
            out.append(f"| {rec['title']} | {LABELS[op]} | " + " | ".join(cells) + " |\n")

    for stat, title in (("us", "Ratio to Pinocchio C++ (medians; lower is faster)"),
                        ("min", "Ratio to Pinocchio C++, fastest rounds (each tool's best round)")):
        out.append(f"\n## {title}\n\n")
        if stat == "min":
            out.append("On a loaded machine the rounds of one timing are often bimodal (quiet / contended CPU), "
                       "and two tools' medians can fall on different modes; the fastest round estimates the "
                       "uncontended speed. See *Noise* below.\n\n")
        if not any(time_of(rec, BASELINE, op, stat) for rec in robots.values() for op in OPS):
            reason = next((rec["peers"].get(BASELINE, {}).get("reason") for rec in robots.values()), None)
            out.append(f"No Pinocchio C++ times: {reason or 'not run'}.\n")
            continue
        out.append(head)
        for name, rec in robots.items():
            for op in OPS:
                base = time_of(rec, BASELINE, op, stat)
                cells = []
                for k in keys:
                    entry = rec["peers"].get(k)
                    text, _ = cell_us(entry["ops"].get(op) if entry and entry["status"] == "ok" else None)
                    value = time_of(rec, k, op, stat)
                    cells.append(f"{value / base:.2f}x" if value is not None and base else
                                 ("WRONG" if text.startswith("WRONG") else "n/a" if text[0].isdigit() else text))
                out.append(f"| {rec['title']} | {LABELS[op]} | " + " | ".join(cells) + " |\n")

    out.append("\n## Consistency: worst relative error against independent results at the check states\n\n"
               "`||peer - reference|| / ||reference||` per state (Frobenius for M), after converting the peer's "
               "conventions, against each reference that is not the peer itself (*self*); WRONG above "
               f"{TOLERANCE['inverse_dynamics']:g} ({TOLERANCE['forward_dynamics']:g} for FD) against either.\n")
    for ref, ref_label in REFERENCES.items():
        out.append(f"\n### Against {ref_label}\n\n" + head)
        for name, rec in robots.items():
            for op in OPS:
                cells = [consistency_cell(rec["peers"].get(k), op, ref) for k in keys]
                out.append(f"| {rec['title']} | {LABELS[op]} | " + " | ".join(cells) + " |\n")
    out.append(f"\nAll checks passed: **{'yes' if results['consistent'] else 'NO'}**.\n")
    nz = results.get("noise")
    if nz:
        out.append(f"\n## Noise\n\nOver the {nz['timings']} timings, the interquartile range of the rounds is "
                   f"{100 * nz['median_iqr_over_median']:.0f}% of the median (median), "
                   f"{100 * nz['p90_iqr_over_median']:.0f}% (90th percentile), "
                   f"{100 * nz['max_iqr_over_median']:.0f}% (worst); all rounds are in results.json.\n")

    out.append("\n## Targets\n\nRatios from the medians (the issue's measure) and from the fastest rounds.\n\n"
               "| target | robot | op | median ratio | limit | met | fastest-round ratio | met |\n"
               "|---|---|---|---:|---:|---|---:|---|\n")

    def show(value, met):
        return ("n/a", "n/a") if value is None else (f"{value:.2f}x", "yes" if met else "**no**")

    for row in results["targets"]:
        v, m = show(row["value"], row["met"])
        v2, m2 = show(row.get("value_min"), row.get("met_min"))
        out.append(f"| {row['target']} | {robots[row['robot']]['title']} | {LABELS[row['op']]} | {v} | "
                   f"{row['limit']:g}x | {m} | {v2} | {m2} |\n")
    summary = {}
    for row in results["targets"]:
        s = summary.setdefault(row["target"], [0, 0, 0, 0, 0, 0])
        s[0 if row["met"] else 1 if row["met"] is False else 2] += 1
        s[3 if row.get("met_min") else 4 if row.get("met_min") is False else 5] += 1
    out.append("\n" + "".join(f"- {t} ({next(r['what'] for r in results['targets'] if r['target'] == t)}): "
                              f"medians {s[0]} met, {s[1]} not met; fastest rounds {s[3]} met, {s[4]} not met"
                              + (f"; {s[2]} not measured" if s[2] else "") + "\n" for t, s in summary.items()))

    out.append("\n## Generated code: operation counts\n\n| robot | op | mul | add | div | sin | cos | sqrt | calls |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
    for name, rec in robots.items():
        for op in OPS:
            c = rec["operation_counts"].get(op, {})
            out.append(f"| {rec['title']} | {LABELS[op]} | " + " | ".join(str(c.get(k, "")) for k in
                                                                          ("mul", "add", "div", "sin", "cos", "sqrt", "calls")) + " |\n")

    out.append("\n## Generation and compile times (seconds; cached: built by an earlier run, see --cache)\n\n"
               "| robot | J | G | trace | emit | generate (total) | rbdgen compile (cffi) | C loop compile | "
               "C source (KiB) | adam functions + C compile | adam C source (KiB) |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for name, rec in robots.items():
        b = rec["build"]

        def num(x, fmt="{:.2f}"):
            return "n/a" if x is None else fmt.format(x)

        def compiled(seconds, cached):
            return "cached" if cached else num(seconds, "{:.1f}")

        adam, c_loop = rec["peers"].get("adam_c", {}), rec["peers"].get("rbdgen_c", {})
        adam_build = (f"{num(adam.get('build_s') - adam.get('compile_s', 0), '{:.1f}')} + cached"
                      if adam.get("compile_cached") and adam.get("build_s") is not None else num(adam.get("build_s"), "{:.1f}"))
        out.append(f"| {rec['title']} | {rec['J']} | {rec['G']} | {num(b.get('trace_s'))} | {num(b.get('emit_s'))} | "
                   f"{num(b.get('generate_s'))} | {compiled(b.get('compile_s'), b.get('compile_cached'))} | "
                   f"{compiled(c_loop.get('compile_s'), c_loop.get('compile_cached'))} | "
                   f"{num(b.get('c_source_kib'), '{:.0f}')} | {adam_build} | "
                   f"{num(adam.get('c_source_kib'), '{:.0f}')} |\n")
    if "pinocchio_cpp_build_s" in meta:
        pin_build = meta["pinocchio_cpp_build_s"]
        out.append("\nPinocchio's C++ benchmark (all robots): " + (f"compiled in {pin_build:.0f} s.\n" if pin_build
                                                                  else "cached build.\n"))

    out.append("\n## Columns\n\n")
    for k in keys:
        for rec in robots.values():
            if k in rec["peers"]:
                out.append(f"- **{rec['peers'][k]['label']}**: {rec['peers'][k]['describe']}.\n")
                break
    out.append("\n## Notes\n\n")
    notes = []
    for name, rec in robots.items():
        for k, entry in rec["peers"].items():
            if entry["status"] != "ok":
                notes.append(f"- {rec['title']}, {entry['label']}: not run: {entry['reason']}")
                continue
            for op, item in entry["ops"].items():
                if item.get("check") in ("unsupported", "failed"):
                    notes.append(f"- {rec['title']}, {entry['label']}, {LABELS[op]}: {item['check']}: {item['reason']}")
            for note in entry.get("notes", []):
                notes.append(f"- {rec['title']}, {entry['label']}: {note}")
        notes += [f"- {rec['title']}: {note}" for note in rec.get("notes", [])]
    out.append("\n".join(dict.fromkeys(notes)) + "\n" if notes else "None.\n")
    out.append("\n" + CONVENTIONS_NOTE)
    return "".join(out)


CONVENTIONS_NOTE = """How results are compared: all in rbdgen's (dynibo 0.5.2's) conventions, gravity
9.80665 m/s^2, no loads. Floating-base states carry a random base pose, velocity and
acceleration; their forward-dynamics forces put no wrench on the base (adam's ABA takes
joint forces only). Pinocchio and dynibo through rbdgen.testing.references' conversions (for
Pinocchio's nonLinearEffects, which is rnea at zero *spatial* base acceleration, the
converted check adds M times the spatial bias of a zero classical acceleration). MuJoCo:
free joint `[pdot_W, omega_B]`, its generalized forces and accelerations mapped by the same
orthogonal matrix. adam: mixed representation `[pdot_W, omega_W]` (a permutation of
rbdgen's); its ID is `M(q) a + h(q, v)` (adam has no RNEA with accelerations), and for a
fixed-base robot its functions are specialised to an identity base pose at rest and only
the joint rows kept.
"""


def bar_chart(results, path) -> str:
    """PNG of the times relative to Pinocchio C++ (absolute times when it did not run).

    Returns a note when no chart can be drawn, else "".
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no chart"
    robots = results["robots"]
    names = list(robots)
    ratios = any(time_of(rec, BASELINE, op) for rec in robots.values() for op in OPS)

    def value(name, key, op):
        t = time_of(robots[name], key, op)
        if not ratios:
            return t
        base = time_of(robots[name], BASELINE, op)
        return t / base if t and base else None

    keys = [k for k in peer_columns(results) if not (ratios and k == BASELINE)]
    keys = [k for k in keys if any(value(n, k, op) for n in names for op in OPS)]
    if not keys:
        return "no times to draw"
    fig, grid = plt.subplots(2, 3, figsize=(16, 9.5))
    axes = grid.ravel()
    width = 0.85 / len(keys)
    colors = plt.get_cmap("tab10")
    for ax, op in zip(axes, OPS):
        for j, key in enumerate(keys):
            xs, ys = [], []
            for i, name in enumerate(names):
                v = value(name, key, op)
                if v:
                    xs.append(i + (j - (len(keys) - 1) / 2) * width)
                    ys.append(v)
            ax.bar(xs, ys, width, label=label_of(results, key), color=colors(ALL_KEYS.index(key) % 10))
        if ratios:
            ax.axhline(1.0, color="black", linewidth=1.0)
        ax.set_yscale("log")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([robots[n]["title"] for n in names])
        ax.set_title({"inverse_dynamics": "inverse dynamics", "mass_matrix": "mass matrix",
                      "forward_dynamics": "forward dynamics", "gravity": "gravity",
                      "velocity_product_forces": "velocity-product forces C(q, qd) qd"}[op])
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.set_ylabel("time / Pinocchio C++ time" if ratios else "microseconds per call (state)")
    handles, labels = axes[0].get_legend_handles_labels()
    axes[-1].axis("off")
    axes[-1].legend(handles, labels, loc="center", fontsize=11, frameon=False)
    title = ("Time per call relative to Pinocchio C++ in a C++ loop (log scale; below the line = faster)" if ratios
             else "Time per call, microseconds (log scale; Pinocchio C++ not run)")
    fig.suptitle(title + ("  [--quick: not a speed measurement]" if results["meta"]["quick"] else ""))
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return ""


# ---------------------------------------------------------------------------
# command line


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--robots", nargs="+", choices=sorted(ROBOTS), metavar="ROBOT",
                   help=f"test robots (default: {' '.join(DEFAULT_ROBOTS)}; --quick: panda)")
    p.add_argument("--urdf", help="benchmark this URDF (instead of --robots unless both are given)")
    p.add_argument("--floating", action="store_true", help="--urdf has a floating base")
    p.add_argument("--quick", action="store_true",
                   help="few rounds, small batches, no Pinocchio C++ build: checks the harness and the results agree")
    p.add_argument("--out", type=Path, help="output folder (default benchmarks/results, --quick: benchmarks/results/quick)")
    p.add_argument("--rounds", type=int, help=f"interleaved rounds (default {FULL['rounds']}, --quick {QUICK['rounds']})")
    p.add_argument("--batch", type=int, help=f"states per batched call (default {FULL['batch']}, --quick {QUICK['batch']})")
    p.add_argument("--states", type=int, help=f"states of the loops and the checks (default {FULL['states']}, "
                   f"--quick {QUICK['states']})")
    p.add_argument("--target-ms", type=float, help="length of one timed loop per tool, operation and round "
                   f"(default {FULL['target_ms']:g}, --quick {QUICK['target_ms']:g})")
    p.add_argument("--flags", default=" ".join(rbdgen.build.DEFAULT_FLAGS),
                   help="C compiler flags of rbdgen's and adam's C (default: %(default)s)")
    p.add_argument("--cxx-flags", help="C++ flags of Pinocchio's benchmark (default: --flags with -std=c++17 "
                   "instead of the C standard, and -DNDEBUG)")
    cpp = p.add_mutually_exclusive_group()
    cpp.add_argument("--pinocchio-cpp", dest="pinocchio_cpp", action="store_true", default=None,
                     help="build and time Pinocchio's C++ (the default except with --quick)")
    cpp.add_argument("--no-pinocchio-cpp", dest="pinocchio_cpp", action="store_false", help="skip Pinocchio's C++")
    p.add_argument("--peers", nargs="+", choices=[c.key for c in P.ALL_PEERS], metavar="PEER",
                   help="only these tools (default: all): " + " ".join(c.key for c in P.ALL_PEERS))
    p.add_argument("--report", type=Path, metavar="JSON",
                   help="run nothing: rewrite results.md and results.png from this results.json (into --out, "
                   "default: its folder)")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "rbdgen-bench-cache",
                   help="folder of cached builds (default: %(default)s)")
    args = p.parse_args(argv)
    mode = QUICK if args.quick else FULL
    for k, v in mode.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if args.pinocchio_cpp is None:
        args.pinocchio_cpp = not args.quick
    if args.out is None:
        args.out = args.report.parent if args.report else HERE / "results" / ("quick" if args.quick else "")
    if args.floating and not args.urdf:
        p.error("--floating goes with --urdf")
    robots = []
    if args.robots or not args.urdf:
        names = args.robots or (["panda"] if args.quick else list(DEFAULT_ROBOTS))
        robots = [(n, ROBOTS[n].path, ROBOTS[n].floating) for n in names]
    if args.urdf:
        robots.append((Path(args.urdf).stem, str(Path(args.urdf).resolve()), args.floating))
    args.robot_list = robots
    args.flags = shlex.split(args.flags)
    if args.cxx_flags is None:
        args.cxx_flags = [f for f in args.flags if not f.startswith("-std=")] + ["-std=c++17", "-DNDEBUG"]
    else:
        args.cxx_flags = shlex.split(args.cxx_flags)
    if args.states < 1 or args.rounds < 1 or args.batch < 1:
        p.error("--states, --rounds and --batch must be positive")
    return args


def _shown_path(path) -> str:
    """``path`` relative to the repository when inside it (results stay machine-independent)."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(HERE.parent))
    except ValueError:
        return path.name if Path(tempfile.gettempdir()) in path.parents else str(path)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.report:
        write_outputs(json.loads(args.report.read_text()), args.out)
        return 0
    args.cache.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    P.PinocchioCpp.cxx_flags = args.cxx_flags if args.pinocchio_cpp else None
    classes = [c for c in P.ALL_PEERS if not args.peers or c.key in args.peers]
    meta = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "command": "python benchmarks/bench.py" + ("" if argv is None and len(sys.argv) < 2 else " ")
                   + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)),
        "quick": args.quick, "rounds": args.rounds, "batch": args.batch, "states": args.states,
        "target_ms": args.target_ms, "flags": args.flags,
        "cxx_flags": args.cxx_flags if args.pinocchio_cpp else None,
        "machine": machine(), "versions": versions(),
    }
    results = {"meta": meta, "robots": {}}
    with tempfile.TemporaryDirectory(prefix="rbdgen-bench-") as work:
        args.work = Path(work)
        if args.pinocchio_cpp and any(c is P.PinocchioCpp for c in classes):
            try:  # once, before the robots, so its build time is reported apart
                _, seconds = P.build_pinocchio_bench(args.cxx_flags, args.cache, log=log)
                meta["pinocchio_cpp_build_s"] = seconds or None
            except Unavailable as exc:
                log(f"Pinocchio C++: {exc}")
        for name, urdf, floating in args.robot_list:
            log(f"{name}: generating and compiling rbdgen ...")
            case, build = make_case(name, urdf, floating, args, classes)
            log(f"{name}: J={case.J} G={case.G}, generated in {build['generate_s']:.1f} s, compiled in "
                f"{build['compile_s']:.1f} s{' (cached)' if build['compile_cached'] else ''}; setting up and "
                "checking the peers ...")
            peers = bench_robot(case, classes, args)
            results["robots"][name] = {
                "title": ROBOT_TITLES.get(name, name), "urdf": _shown_path(urdf), "floating": floating,
                "J": case.J, "G": case.G,
                "build": build, "operation_counts": case.generated.operation_counts, "peers": peers,
                "notes": case.notes,
            }
            shutil.rmtree(case.work, ignore_errors=True)
            log(f"{name}: done ({time.perf_counter() - started:.0f} s so far)")
    meta["seconds"] = time.perf_counter() - started
    write_outputs(results, args.out)
    return 0


def write_outputs(results, out: Path) -> None:
    """Derived fields (consistency, targets, noise), then results.json, results.md and results.png."""
    for rec in results["robots"].values():
        for entry in rec["peers"].values():
            for item in entry["ops"].values():
                if item.get("rounds"):
                    item["us"] = float(np.median(item["rounds"]))
                    item["min"] = float(np.min(item["rounds"]))
    results["consistent"] = all(item.get("check") not in ("WRONG", "failed")
                                for rec in results["robots"].values() for entry in rec["peers"].values()
                                for item in entry["ops"].values())
    results["targets"] = evaluate_targets(results)
    results["noise"] = noise(results)
    meta = results["meta"]
    out.mkdir(parents=True, exist_ok=True)
    note = bar_chart(results, out / "results.png")
    meta.pop("chart", None)
    if note:
        meta["chart"] = note
    (out / "results.json").write_text(json.dumps(results, indent=1, default=float) + "\n")
    text = markdown(results)
    text += f"\nChart: {note}.\n" if note else "\n![times relative to Pinocchio C++](results.png)\n"
    (out / "results.md").write_text(text)
    log(f"\nwrote {out / 'results.md'}, results.json" + ("" if note else ", results.png")
        + (f" in {meta['seconds']:.0f} s" if meta.get("seconds") else "")
        + f"; all checks passed: {results['consistent']}")


if __name__ == "__main__":
    sys.exit(main())
