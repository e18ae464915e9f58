"""Constrained dynamics of the generated C beside Pinocchio C++, every rbdgen result checked first.

Usage: python -m benchmarks.contacts [--robots solo12 g1 talos] [--flags "-O3 -march=native -std=c99 -ffp-contract=fast"]
                                     [--cxx-flags ...] [--rounds 7] [--target-ms 10] [--no-pinocchio-cpp] [--cache DIR]

Per robot, one generated build with its contacts (`CONTACTS`: Solo12's four feet as points, G1's
ankles and Talos' soles as frames; every contact active), timed in a C loop over 64 random
states (`c_loop.py`), beside Pinocchio C++ (`pinocchio_contacts.cpp`, the same flags, the C++
standard aside):

| row | rbdgen (generated C) | Pinocchio C++ |
|---|---|---|
| contact dynamics | `contact_dynamics` | `constraintDynamics` (CONTACT_3D / 6D, LOCAL_WORLD_ALIGNED) |
| impulse dynamics | `impulse_dynamics` | `impulseDynamics` |
| ∂contact dynamics | `contact_dynamics_derivatives` | `constraintDynamics` + `computeConstraintDynamicsDerivatives` |
| ∂impulse dynamics | `impulse_dynamics_derivatives` | `impulseDynamics` + `computeImpulseDynamicsDerivatives` |

The derivatives are analytic (`rbdgen.algorithms.contact_derivatives`). The states' velocities are in the
null space of the contact Jacobian, where Pinocchio's 6-D contact (spatial acceleration) and rbdgen's
(classical) are one problem, with the same derivatives. Before timing, the generated C's results at every
state are compared with Pinocchio's (Python bindings, `PinocchioReference.contact_dynamics` /
`impulse_dynamics`), each Jacobian at four states with Pinocchio's analytic ones
(`PinocchioReference.contact_dynamics_derivatives` / `impulse_dynamics_derivatives`): a normwise relative
error above 1e-9 is WRONG and the script exits with status 1. Talos runs without its grippers' mimic tags on
both sides (G = 50). Times are medians of interleaved rounds; the notes give each build's generation and
compilation times.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.testing import random_states
from rbdgen.testing.compare import rel_error
from rbdgen.testing.references import PinocchioReference, without_mimic
from tests.robots import ROBOTS

from . import kinematics
from .c_loop import bench_operations, build_c_bench
from .case import Unavailable
from .kinematics import (STATES, bench_robots, conclude, flags_line, interleaved, log, loop_parser, parse_loop_arguments,
                         pinocchio_cells)
from .peers.pinocchio import build_pinocchio_bench

FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
#: The contacts of each robot: (link, kind).
CONTACTS = {"solo12": [(f, "point") for f in FEET],
            "g1": [("left_ankle_roll_link", "frame"), ("right_ankle_roll_link", "frame")],
            "talos": [("left_sole_link", "frame"), ("right_sole_link", "frame")]}
ROWS = (("contact_dynamics", "contact_dynamics", "contact dynamics"),
        ("impulse_dynamics", "impulse_dynamics", "impulse dynamics"),
        ("contact_dynamics_derivatives", "contact_dynamics_derivatives", "∂contact dynamics"),
        ("impulse_dynamics_derivatives", "impulse_dynamics_derivatives", "∂impulse dynamics"))
TARGET = {"contact_dynamics": 0.4, "impulse_dynamics": 0.4, "contact_dynamics_derivatives": 0.5,
          "impulse_dynamics_derivatives": 0.5}
TOLERANCE = {"value": 1e-9, "derivative": 1e-9}
FLAGS = ("-O3", "-march=native", "-std=c99", "-ffp-contract=fast")


class Setup:
    """A robot with contacts: model, Pinocchio reference, states (velocities with J nu = 0)."""

    def __init__(self, name: str, work: Path):
        robot = ROBOTS[name]
        text = without_mimic(Path(robot.path).read_text(encoding="utf-8"))
        urdf = work / f"{name}.urdf"
        urdf.write_text(text, encoding="utf-8")
        self.name, self.floating = name, robot.floating
        self.model = rbdgen.load_urdf(str(urdf), floating=robot.floating)
        self.ref = PinocchioReference(str(urdf), robot.floating, self.model.joint_names)
        self.spec = [(link, kind, (0.0, 0.0, 0.0)) for link, kind in CONTACTS[name]]
        self.contacts = [rbdgen.Contact(*c) for c in self.spec]
        st = random_states(self.model, STATES, seed=0)
        rng = np.random.default_rng(0)
        off = 6 if self.floating else 0
        for i in range(STATES):  # a velocity that leaves every contact still
            J = np.vstack([self._rows(st, i, link, kind) for link, kind, _ in self.spec])
            _, sv, Vt = np.linalg.svd(J)
            null = Vt[int(np.sum(sv > 1e-10 * sv[0])):]
            nu = null.T @ rng.normal(size=null.shape[0])
            st.qd[i] = nu[off:]
            if self.floating:
                st.velocity[i] = nu[:6]
        self.states = st
        self.active = np.ones((STATES, len(self.spec)))

    def _rows(self, st, i, link, kind):
        J = self.ref.jacobian(st.ref_base(i), st.q[i], link)
        return J[3:] if kind == "point" else J

    def base(self, i):
        b = self.states.ref_base(i)
        return None if b is None else (b[0], b[1], b[2], np.zeros(6))

    def expected(self, row: str, i: int) -> np.ndarray:
        st = self.states
        if row == "contact_dynamics":
            return np.concatenate(self.ref.contact_dynamics(self.base(i), st.q[i], st.qd[i], st.tau[i], self.spec,
                                                            self.active[i]))
        return np.concatenate(self.ref.impulse_dynamics(self.base(i), st.q[i], st.qd[i], self.spec, self.active[i]))

    def jacobians(self, row: str, i: int) -> dict:
        """Pinocchio's analytic derivatives of ``row`` (``computeConstraintDynamicsDerivatives`` /
        ``computeImpulseDynamicsDerivatives``) as rbdgen's outputs (`PinocchioReference`)."""
        st = self.states
        if row == "contact_dynamics_derivatives":
            return self.ref.contact_dynamics_derivatives(self.base(i), st.q[i], st.qd[i], st.tau[i], self.spec,
                                                         self.active[i])
        return self.ref.impulse_dynamics_derivatives(self.base(i), st.q[i], st.qd[i], self.spec, self.active[i])


class GeneratedC(kinematics.GeneratedC):
    """`kinematics.GeneratedC` of the robot's contacts; its results split by output."""

    def __init__(self, setup: Setup, rows, flags, cache: Path, work: Path):
        ops = tuple(op for _, op, _ in rows)
        start = time.process_time()
        self.generated = rbdgen.generate(setup.model, ops=ops, prefix=f"{setup.name}_contacts", contacts=setup.contacts)
        self.generate_s = time.process_time() - start
        data = {**setup.states.flat(), "active": setup.active}
        self.exe, self.compile_s = build_c_bench(self.generated, flags, cache, data=data, ops=ops, one_output=True)
        self.rows, self.functions = rows, bench_operations(self.generated, ops)
        self.dump = work / f"{setup.name}-contacts-c.bin"

    def results(self) -> dict:
        """``{row: [{output: values} per state]}``."""
        manifest, out = self.generated.manifest, {}
        for row, block in super().results().items():
            fn = self.functions[[r for r, _, _ in self.rows].index(row)]
            names = manifest["operations"][fn]["outputs"]
            sizes = [manifest["sizes"][o] for o in names]
            out[row] = [dict(zip(names, np.split(b, np.cumsum(sizes)[:-1]))) for b in block]
        return out


class PinocchioCpp:
    label = "Pinocchio C++"

    def __init__(self, setup: Setup, rows, cxx_flags, cache: Path, work: Path):
        self.exe, self.compile_s = build_pinocchio_bench(cxx_flags, cache, log=lambda *a: None,
                                                         source="pinocchio_contacts.cpp")
        records = []
        for i in range(STATES):
            s = setup.ref.pinocchio_state(setup.base(i), setup.states.q[i], setup.states.qd[i],
                                          np.zeros(setup.model.joint_count), setup.states.tau[i])
            records.append(np.concatenate([s.q, s.v, s.a, s.tau]))
        self.model_file, self.states_file = work / f"{setup.name}-model.bin", work / f"{setup.name}-states.bin"
        setup.ref.model.saveToBinary(str(self.model_file))
        np.asarray(records, dtype=np.float64).tofile(self.states_file)
        self.arg = ",".join(f"{link}:{3 if kind == 'point' else 6}" for link, kind, _ in setup.spec)
        self.rows = {row for row, _, _ in rows}

    def run_round(self, target_ms) -> dict:
        proc = subprocess.run([str(self.exe), str(self.model_file), str(self.states_file), self.arg, "1",
                               str(target_ms)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise Unavailable(f"{Path(self.exe).name} failed: {proc.stderr.strip()[-300:]}")
        times = {line.split()[0]: float(line.split()[1]) for line in proc.stdout.splitlines() if line.strip()}
        return {row: t for row, t in times.items() if row in self.rows}


def errors(setup: Setup, results: dict) -> dict:
    """``{row: worst error / its tolerance}``: values at every state against Pinocchio, derivatives (each
    Jacobian) at four states against Pinocchio's analytic ones."""
    worst = {}
    for row, per_state in results.items():
        if not row.endswith("_derivatives"):
            for i, got in enumerate(per_state):
                value = np.concatenate(list(got.values()))
                err = rel_error(value, setup.expected(row, i), floor=1e-2) / TOLERANCE["value"]
                worst[row] = max(worst.get(row, 0.0), err)
            continue
        for i in range(4):
            for name, want in setup.jacobians(row, i).items():
                got = per_state[i][name].reshape(want.shape[1], want.shape[0]).T
                err = rel_error(got, want, floor=1e-2) / TOLERANCE["derivative"]
                worst[row] = max(worst.get(row, 0.0), err)
    return worst


def bench_robot(name, args, work: Path) -> dict:
    setup = Setup(name, work)
    rows = ROWS
    log(f"{name}: {len(setup.spec)} contacts, generating and compiling ...")
    tools = {"rbdgen": GeneratedC(setup, rows, args.flags, args.cache, work)}
    notes = [f"generated in {tools['rbdgen'].generate_s:.1f} s (CPU), compiled in {tools['rbdgen'].compile_s:.1f} s"]
    if args.pinocchio_cpp:
        try:
            tools["pinocchio"] = PinocchioCpp(setup, rows, args.cxx_flags, args.cache, work)
        except Unavailable as exc:
            notes.append(f"Pinocchio C++: {exc}")
    tools["rbdgen"].run_round(0.01)  # writes the dump
    checked = errors(setup, tools["rbdgen"].results())
    times = interleaved(tools, args.rounds, args.target_ms)
    return dict(name=name, rows=rows, counts=tools["rbdgen"].counts(), errors=checked, notes=notes,
                contacts=", ".join(f"{link} ({kind})" for link, kind, _ in setup.spec),
                times={key: {row: float(np.median(t)) for row, t in r.items()} for key, r in times.items()},
                fastest={key: {row: float(np.min(t)) for row, t in r.items()} for key, r in times.items()})


def markdown(results) -> str:
    lines = ["| robot | operation | rbdgen C (µs) | Pinocchio C++ (µs) | ratio | fastest-round ratio | target | mul "
             "| add | error / tolerance |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for row, _, label in r["rows"]:
            pin, ratio, fastest = pinocchio_cells(r, row, r["errors"][row] > 1)
            n = r["counts"][row]
            lines.append(f"| {r['name']} | {label} | {r['times']['rbdgen'][row]:.3f} | {pin} | {ratio} | "
                         f"{fastest} | {TARGET[row]} | {n['mul']} | {n['add']} | {r['errors'][row]:.1e} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = loop_parser(__doc__.splitlines()[0], f"C flags (default: {' '.join(FLAGS)}; --quick: -O1)")
    p.set_defaults(robots=["solo12", "g1", "talos"])
    args = parse_loop_arguments(p, argv, FLAGS)
    if args.quick:
        args.robots = ["solo12"]
    results = bench_robots(args.robots, lambda name, work: bench_robot(name, args, work))
    if results is None:
        return 1
    print(flags_line(args, "0.4 (derivatives: 0.5)"))
    print(markdown(results))
    notes = [f"{r['name']}: {r['contacts']}" for r in results] + [f"{r['name']}: {n}" for r in results
                                                                   for n in r["notes"]]
    wrong = [(r["name"], row) for r in results for row, e in r["errors"].items() if e > 1]
    return conclude(results, notes, wrong, "the tolerance", ROWS, TARGET)


if __name__ == "__main__":
    sys.exit(main())
