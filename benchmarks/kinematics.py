"""Kinematics of the generated C beside Pinocchio C++, dynibo and adam, every rbdgen result checked first.

Usage: python -m benchmarks.kinematics [--robots panda solo12 g1 talos] [--flags "-O2 -g0 -std=c99 -fno-math-errno"]
                                       [--rounds 7] [--target-ms 10] [--no-pinocchio-cpp] [--cache DIR] [--quick]

Per robot, one generated build of the six operations below (the operations on one
link for the link `LINKS` names, or the deepest leaf link), timed in a C loop over 64
random states (`c_loop.py`), beside:

* Pinocchio C++ (`pinocchio_kinematics.cpp`, instantiated from the pin wheel's headers
  with the same flags, in a C++ loop; the ratios are to this column);
* dynibo 0.5.2 from Python, one state per call (it has no CoM Jacobian or centroidal map);
* adam-robotics' CasADi functions from Python, where installed (else "n/a").

| row | rbdgen (generated C) | Pinocchio C++ |
|---|---|---|
| FK, one link | `forward_kinematics_<link>` | `forwardKinematics` + `updateFramePlacement` |
| FK, all links | `forward_kinematics_all` | `framesForwardKinematics` |
| Jacobian | `jacobian_<link>` | `computeFrameJacobian(LOCAL_WORLD_ALIGNED)` |
| Jdot nu | `forward_acceleration_kinematics_<link>` at zero accelerations | `forwardKinematics(q, v, 0)` + `getFrameClassicalAcceleration` |
| CoM Jacobian | `center_of_mass_jacobian` | `jacobianCenterOfMass` |
| centroidal map | `centroidal_momentum_matrix` | `computeCentroidalMap` |

Before timing, the generated C's results at every state (the C loop's dump) and dynibo's
and adam's are compared with Pinocchio's (Python bindings, converted to rbdgen's
conventions by `rbdgen.testing.load_reference`): a normwise relative error above
1e-9 is WRONG, gets no ratio, and the script exits with status 1. Times are medians of
interleaved rounds (each round runs every tool once). ``--quick``: Panda, two rounds,
2 ms loops, -O1, no Pinocchio C++ build: checks the harness, never a speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import numpy as np

import rbdgen
from rbdgen.algorithms.frames import link_path
from rbdgen.algorithms.kinematics import Tree
from rbdgen.codegen.generator import leaf_links
from rbdgen.testing import MimicReference, load_reference, random_states
from rbdgen.testing.compare import rel_error
from tests.robots import ROBOTS

from .builds import BuildError
from .c_loop import bench_operations, build_c_bench, run_c_bench
from .case import Unavailable
from .peers.pinocchio import build_pinocchio_bench

#: (row key, generated operation, label) in table order.
ROWS = (("fk_link", "forward_kinematics", "FK, one link"),
        ("fk_all", "forward_kinematics_all", "FK, all links"),
        ("jacobian", "jacobian", "Jacobian"),
        ("jdot_nu", "forward_acceleration_kinematics", "J̇ν"),
        ("com_jacobian", "center_of_mass_jacobian", "CoM Jacobian"),
        ("centroidal_map", "centroidal_momentum_matrix", "centroidal map"))
OPS = tuple(op for _, op, _ in ROWS)
OPERATION = {row: op for row, op, _ in ROWS}
#: The link of the operations on one link: a hand or a foot at the end of a long chain.
LINKS = {"panda": "panda_hand_tcp", "solo12": "FL_FOOT", "g1": "left_rubber_hand", "talos": "left_sole_link"}
STATES = 64
#: Normwise relative error above which a result is WRONG.
TOLERANCE = 1e-9
#: Generated C at most this fraction of Pinocchio C++'s time (the project's target).
TARGET = 0.3


def deepest_leaf(model) -> str:
    """The first link on a leaf body with the longest path from the root."""
    tree = Tree.from_model(model)
    return model.links[max(leaf_links(model), key=lambda k: len(link_path(tree, k)))].name


def independent_joints(model) -> list:
    """The names of the joints with a coordinate (not mimic joints), in rbdgen's order."""
    return [j.name for j in model.joints if j.mimic is None]


@dataclasses.dataclass
class Robot:
    """One robot's set-up: model, link, states (zero accelerations: Jdot nu) and the Pinocchio reference."""

    name: str
    urdf: str
    floating: bool
    model: rbdgen.RobotModel
    link: str
    states: rbdgen.testing.States
    pinocchio: object  # `rbdgen.testing.load_reference`: a PinocchioReference, or a MimicReference over one

    @classmethod
    def load(cls, name, urdf, floating, link=None):
        model = rbdgen.load_urdf(urdf, floating=floating)
        st = random_states(model, STATES, seed=0)
        st.qdd[:] = 0
        if floating:
            st.acceleration[:] = 0
        ref = load_reference(urdf, floating, "pinocchio", joint_names=independent_joints(model))
        return cls(name, urdf, floating, model, link or LINKS.get(name) or deepest_leaf(model), st, ref)

    def tool_state(self, ref, i: int, *names) -> tuple:
        """State ``i``'s vectors ``names`` (q, qd, qdd) in the coordinates of the tool behind ``ref``:
        with mimic joints, the tools' own models have every joint (`MimicReference.full_state`)."""
        vectors = [getattr(self.states, n)[i] for n in names]
        return ref.full_state(*vectors) if isinstance(ref, MimicReference) else tuple(vectors)

    def expected(self, row: str, i: int) -> np.ndarray:
        """Pinocchio's result of ``row`` at state ``i`` in rbdgen's conventions (flat)."""
        ref, st, link = self.pinocchio, self.states, self.link
        b, q = st.ref_base(i), st.q[i]
        if row == "fk_link":
            return ref.forward_kinematics(b, q, link)
        if row == "fk_all":
            return np.concatenate([ref.forward_kinematics(b, q, k.name) for k in self.model.links])
        if row == "jacobian":
            return ref.jacobian(b, q, link).ravel(order="F")
        if row == "jdot_nu":
            return ref.forward_acceleration_kinematics(b, q, st.qd[i], st.qdd[i], link)
        if row == "com_jacobian":
            return ref.center_of_mass_jacobian(b, q).ravel(order="F")
        return ref.centroidal_momentum_matrix(b, q).ravel(order="F")

    def error(self, row: str, results) -> float:
        """The worst normwise relative error of per-state ``results`` of ``row`` against Pinocchio."""
        worst = 0.0
        for i, got in enumerate(results):
            expected = self.expected(row, i)
            if row in ("fk_link", "fk_all"):  # q and -q are one rotation: take the sign of ours
                poses, reference = np.reshape(got, (-1, 7)), np.reshape(expected, (-1, 7)).copy()
                flip = np.sum(poses[:, 3:] * reference[:, 3:], axis=1) < 0
                reference[flip, 3:] *= -1
                expected = reference.ravel()
            worst = max(worst, rel_error(got, expected, floor=1e-2))
        return worst


# -- the tools --------------------------------------------------------------------------------------------
class GeneratedC:
    """The generated C of ``rows`` ((row key, operation, label), one function each) in a C loop
    (`c_loop.build_c_bench`); its dump gives the results to check."""

    label = "rbdgen C"

    def __init__(self, robot: Robot, flags, cache: Path, work: Path, rows=ROWS, inputs=None, parameters=None):
        ops = tuple(op for _, op, _ in rows)
        start = time.perf_counter()
        prefix = robot.name + ("_parametric" if parameters else "")  # ``parameters``: as rbdgen.generate's
        self.generated = rbdgen.generate(robot.model, ops=ops, prefix=prefix, frames=[robot.link], parameters=parameters)
        self.generate_s = time.perf_counter() - start
        data = {**robot.states.flat(), **(inputs or {})}  # inputs: the operations' other inputs ((N, size) arrays)
        self.exe, self.compile_s = build_c_bench(self.generated, flags, cache, data=data, ops=ops,
                                                 one_output=True)  # as Pinocchio's loop reuses its Data
        self.rows = rows
        self.functions = bench_operations(self.generated, ops)  # one per row, in row order
        self.dump = work / f"{prefix}-c.bin"

    def run_round(self, target_ms) -> dict:
        times = run_c_bench(self.exe, rounds=1, target_ms=target_ms, dump=self.dump)
        return {row: times[fn][0] for (row, _, _), fn in zip(self.rows, self.functions)}

    def results(self) -> dict:
        manifest = self.generated.manifest
        flat, out = np.fromfile(self.dump), {}
        for (row, _, _), fn in zip(self.rows, self.functions):
            size = sum(manifest["sizes"][out] for out in manifest["operations"][fn]["outputs"])
            out[row], flat = flat[:STATES * size].reshape(STATES, size), flat[STATES * size:]
        return out

    def counts(self) -> dict:
        ops = self.generated.manifest["operations"]
        return {row: ops[fn]["counts"] for (row, _, _), fn in zip(self.rows, self.functions)}


class PinocchioCpp:
    """A Pinocchio C++ loop (benchmarks/``source``, taking the link as its argument) on the robot's states."""

    label = "Pinocchio C++"

    def __init__(self, robot: Robot, cxx_flags, cache: Path, work: Path, source="pinocchio_kinematics.cpp"):
        self.exe, self.compile_s = build_pinocchio_bench(cxx_flags, cache, log=lambda *a: None, source=source)
        pin = getattr(robot.pinocchio, "full", robot.pinocchio)  # with mimic joints: every joint
        rows = []
        for i in range(STATES):  # Pinocchio's (q, v, a) of rbdgen's state at zero accelerations
            s = pin.pinocchio_state(robot.states.ref_base(i), *robot.tool_state(robot.pinocchio, i, "q", "qd", "qdd"))
            rows.append(np.concatenate([s.q, s.v, s.a, np.zeros(pin.model.nv)]))
        self.model_file, self.states_file = work / f"{robot.name}-model.bin", work / f"{robot.name}-states.bin"
        pin.model.saveToBinary(str(self.model_file))
        np.asarray(rows, dtype=np.float64).tofile(self.states_file)
        self.link = robot.link

    def run_round(self, target_ms) -> dict:
        proc = subprocess.run([str(self.exe), str(self.model_file), str(self.states_file), self.link, "1",
                               str(target_ms)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise Unavailable(f"{Path(self.exe).name} failed: {proc.stderr.strip()[-300:]}")
        return {line.split()[0]: float(line.split()[1]) for line in proc.stdout.splitlines() if line.strip()}


def time_python(calls, target_ms) -> float:
    """Microseconds per call of ``calls`` (one per state, no arguments), looped for about ``target_ms``."""
    reps, start = 0, time.perf_counter()
    while (time.perf_counter() - start) * 1e3 < target_ms or reps == 0:
        for call in calls:
            call()
        reps += 1
    return 1e6 * (time.perf_counter() - start) / (reps * len(calls))


class DyniboPython:
    """dynibo's Robot methods, one state per call (no CoM Jacobian, no centroidal map)."""

    label = "dynibo Python"
    rows = ("fk_link", "fk_all", "jacobian", "jdot_nu")

    def __init__(self, robot: Robot):
        try:
            self.ref = load_reference(robot.urdf, robot.floating, "dynibo", joint_names=independent_joints(robot.model))
        except ImportError as exc:
            raise Unavailable(f"dynibo is not installed ({exc})") from None
        self.robot = robot

    def _calls(self, row):
        robot, dy = self.robot, getattr(self.ref, "full", self.ref)  # with mimic joints: every joint
        fn, link_id = getattr(dy.robot, OPERATION[row]), dy.robot.link_id(robot.link)
        vectors = {"jdot_nu": ("q", "qd", "qdd")}.get(row, ("q",))
        calls = []
        for i in range(STATES):
            args = dy.arguments(OPERATION[row], robot.states.ref_base(i), *robot.tool_state(self.ref, i, *vectors))
            calls.append((lambda a=args: fn(*a)) if row == "fk_all" else (lambda a=args: fn(*a, link_id)))
        return calls

    def run_round(self, target_ms) -> dict:
        return {row: time_python(self._calls(row), target_ms) for row in self.rows}

    def results(self) -> dict:
        ref, st, link = self.ref, self.robot.states, self.robot.link
        rows = {"fk_link": [], "fk_all": [], "jacobian": [], "jdot_nu": []}
        for i in range(STATES):
            b, q = st.ref_base(i), st.q[i]
            rows["fk_link"].append(ref.forward_kinematics(b, q, link))
            rows["fk_all"].append(ref.forward_kinematics_all(b, q).ravel())
            rows["jacobian"].append(ref.jacobian(b, q, link).ravel(order="F"))
            rows["jdot_nu"].append(ref.forward_acceleration_kinematics(b, q, st.qd[i], st.qdd[i], link))
        return rows


def adam_status() -> str:
    return "installed" if importlib.util.find_spec("adam") else "n/a: adam-robotics is not installed"


# -- one robot -------------------------------------------------------------------------------------------
def interleaved(tools: dict, rounds: int, target_ms: float) -> dict:
    """``{tool: {row: [us per call of each round]}}``: each round runs every tool once, the order rotating."""
    times = {key: {} for key in tools}
    order = list(tools)
    for k in range(rounds):
        for key in order[k % len(order):] + order[:k % len(order)]:
            for row, t in tools[key].run_round(target_ms).items():
                times[key].setdefault(row, []).append(t)
    return times


def bench_robot(name, urdf, floating, args, work: Path, log) -> dict:
    robot = Robot.load(name, urdf, floating, args.link)
    log(f"{name}: link {robot.link}, generating and compiling ...")
    tools = {"rbdgen": GeneratedC(robot, args.flags, args.cache, work)}
    notes = add_pinocchio_cpp(tools, robot, args, work)
    try:
        tools["dynibo"] = DyniboPython(robot)
    except Unavailable as exc:
        notes.append(f"dynibo: {exc}")

    tools["rbdgen"].run_round(0.01)  # writes the dump
    errors = {"rbdgen": {row: robot.error(row, r) for row, r in tools["rbdgen"].results().items()}}
    if "dynibo" in tools:
        errors["dynibo"] = {row: robot.error(row, r) for row, r in tools["dynibo"].results().items()}

    times = interleaved(tools, args.rounds, args.target_ms)
    return dict(name=name, link=robot.link, J=robot.model.joint_count, L=len(robot.model.links),
                counts=tools["rbdgen"].counts(), errors=errors, notes=notes,
                **summary(times),
                generate_s=tools["rbdgen"].generate_s, compile_s=tools["rbdgen"].compile_s)


def add_pinocchio_cpp(tools: dict, robot: Robot, args, work: Path, source="pinocchio_kinematics.cpp") -> list:
    """Add Pinocchio C++'s loop (benchmarks/``source``) to ``tools`` as ``"pinocchio"`` unless ``--no-pinocchio-cpp``;
    returns the notes (why it is missing, if it is)."""
    if not args.pinocchio_cpp:
        return []
    try:
        tools["pinocchio"] = PinocchioCpp(robot, args.cxx_flags, args.cache, work, source=source)
    except Unavailable as exc:
        return [f"Pinocchio C++: {exc}"]
    return []


def summary(times: dict) -> dict:
    """``{"times": medians, "fastest": fastest rounds}``, each ``{tool: {row: us}}``, of `interleaved`'s rounds."""
    return {"times": {key: {row: float(np.median(t)) for row, t in rows.items()} for key, rows in times.items()},
            "fastest": {key: {row: float(np.min(t)) for row, t in rows.items()} for key, rows in times.items()}}


def pinocchio_cells(r, row: str, wrong: bool) -> tuple:
    """``(Pinocchio C++'s median time, ratio, fastest-round ratio)`` of ``row`` as table cells."""
    ours, pin = r["times"]["rbdgen"][row], r["times"].get("pinocchio", {}).get(row)
    if wrong:
        ratio = fastest = "WRONG"
    elif pin:
        ratio = f"{ours / pin:.2f}"
        fastest = f"{r['fastest']['rbdgen'][row] / r['fastest']['pinocchio'][row]:.2f}"
    else:
        ratio = fastest = "n/a"
    return ("n/a" if pin is None else f"{pin:.3f}"), ratio, fastest


def markdown(results, adam) -> str:
    lines = ["| robot | operation | rbdgen C (µs) | Pinocchio C++ (µs) | ratio | fastest-round ratio | dynibo Py (µs) | "
             "adam Py (µs) | mul | add | error rbdgen | error dynibo |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for row, _, label in ROWS:
            err, dy_err = r["errors"]["rbdgen"][row], r["errors"].get("dynibo", {}).get(row)
            pin, ratio, fastest = pinocchio_cells(r, row, err > TOLERANCE)
            dynibo = r["times"].get("dynibo", {}).get(row)
            dynibo = "n/a" if dynibo is None else ("WRONG" if dy_err > TOLERANCE else f"{dynibo:.2f}")
            n = r["counts"][row]
            lines.append(f"| {r['name']} | {label} | {r['times']['rbdgen'][row]:.3f} | {pin} | {ratio} | {fastest} | "
                         f"{dynibo} | {'n/a' if adam != 'installed' else '-'} | {n['mul']} | {n['add']} | "
                         f"{err:.1e} | {'n/a' if dy_err is None else f'{dy_err:.1e}'} |")
    return "\n".join(lines)


def log(message) -> None:
    print(message, file=sys.stderr, flush=True)


def loop_parser(description: str, flags_help: str) -> argparse.ArgumentParser:
    """The options of a benchmark of the generated C in a C loop beside Pinocchio C++ (this one, controller.py)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--robots", nargs="+", default=["panda", "solo12", "g1", "talos"], choices=sorted(ROBOTS))
    p.add_argument("--flags", help=flags_help)
    p.add_argument("--cxx-flags", help="Pinocchio's C++ flags (default: --flags with -std=c++17 -DNDEBUG)")
    p.add_argument("--rounds", type=int, default=7, help="interleaved rounds (medians)")
    p.add_argument("--target-ms", type=float, default=10.0, help="each timed loop lasts about this long")
    p.add_argument("--no-pinocchio-cpp", dest="pinocchio_cpp", action="store_false")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "rbdgen-bench-cache")
    p.add_argument("--quick", action="store_true", help="Panda, 2 rounds, 2 ms, -O1, no Pinocchio C++: a harness check")
    return p


def parse_loop_arguments(p: argparse.ArgumentParser, argv, default_flags) -> argparse.Namespace:
    """`loop_parser`'s arguments, ``--quick`` applied and the flags split (C: ``default_flags`` unless given)."""
    args = p.parse_args(argv)
    if args.quick:
        args.robots, args.rounds, args.target_ms, args.pinocchio_cpp = ["panda"], 2, 2.0, False
    args.flags = shlex.split(args.flags) if args.flags else (["-O1", "-g0", "-std=c99"] if args.quick
                                                              else list(default_flags))
    args.cxx_flags = shlex.split(args.cxx_flags) if args.cxx_flags else (
        [f for f in args.flags if not f.startswith("-std=")] + ["-std=c++17", "-DNDEBUG"])
    return args


def bench_robots(names, bench) -> Optional[list]:
    """``[bench(name, work folder)]`` per robot; None (the reason logged) when a build fails or a tool is missing."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            try:
                results.append(bench(name, Path(tmp)))
            except (BuildError, Unavailable) as exc:
                log(f"{name}: {exc}")
                return None
    return results


def flags_line(args, target: float) -> str:
    return (f"flags: C `{' '.join(args.flags)}`, C++ "
            f"`{' '.join(args.cxx_flags) if args.pinocchio_cpp else 'not built'}`; medians of {args.rounds} "
            f"interleaved rounds, {STATES} states; target: rbdgen C at most {target}x Pinocchio C++\n")


def conclude(results, notes, wrong, tolerance: str, rows, target) -> int:
    """Print the notes, then the ``wrong`` results (exit status 1) or the ratios rbdgen C / Pinocchio C++
    over every robot and row, their range and how many meet ``target`` (a ratio, or ``{row: ratio}``)
    (exit status 0)."""
    goal = target if isinstance(target, dict) else {row: target for row, _, _ in rows}
    print("\nNotes:\n" + "\n".join(f"- {n}" for n in notes))
    if wrong:
        print(f"\nWRONG results (normwise relative error above {tolerance} against Pinocchio): {wrong}")
        return 1
    for what in ("times", "fastest"):
        pin = [(r[what]["rbdgen"][row] / r[what]["pinocchio"][row], goal[row]) for r in results
               if "pinocchio" in r[what] for row, _, _ in rows if row in r[what]["pinocchio"]]
        if pin:
            ratios = [x for x, _ in pin]
            print(f"\nrbdgen C / Pinocchio C++ ({'medians' if what == 'times' else 'fastest rounds'}): "
                  f"{min(ratios):.2f}x to {max(ratios):.2f}x; {sum(x <= g for x, g in pin)} of {len(pin)} at or "
                  f"under the target ({', '.join(f'{g}x' for g in sorted(set(goal.values())))})")
    print("every rbdgen result agrees with Pinocchio")
    return 0


def main(argv=None) -> int:
    p = loop_parser(__doc__.splitlines()[0],
                    "C flags (default: rbdgen's, -O2 -g0 -std=c99 -fno-math-errno; --quick: -O1)")
    p.add_argument("--link", help="the link of the operations on one link (default: LINKS or the deepest leaf)")
    args = parse_loop_arguments(p, argv, rbdgen.build.DEFAULT_FLAGS)
    adam = adam_status()
    results = bench_robots(args.robots, lambda name, work: bench_robot(name, ROBOTS[name].path, ROBOTS[name].floating,
                                                                       args, work, log))
    if results is None:
        return 1
    print(flags_line(args, TARGET))
    print(markdown(results, adam))
    print("\n| robot | link | J | L | generate (s) | compile (s) |\n|---|---|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['name']} | {r['link']} | {r['J']} | {r['L']} | {r['generate_s']:.1f} | {r['compile_s']:.1f} |")
    notes = [f"adam: {adam}"] + [f"{r['name']}: {n}" for r in results for n in r["notes"]]
    wrong = [(r["name"], tool, row) for r in results for tool, rows in r["errors"].items()
             for row, e in rows.items() if e > TOLERANCE]
    return conclude(results, notes, wrong, f"{TOLERANCE:g}", ROWS, TARGET)


if __name__ == "__main__":
    sys.exit(main())
