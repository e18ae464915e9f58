"""Controller operations of the generated C beside Pinocchio C++, every rbdgen result checked first.

Usage: python -m benchmarks.controller [--robots panda solo12 g1 talos]
                                       [--flags "-O3 -march=native -std=c99 -ffp-contract=fast"] [--cxx-flags ...]
                                       [--rounds 7] [--target-ms 10] [--no-pinocchio-cpp] [--cache DIR] [--quick]

Per robot, one generated build of the operations below (the task-space inertia of the
link `kinematics.LINKS` names), timed in a C loop over 64 random states (`c_loop.py`),
beside Pinocchio C++ (`pinocchio_controller.cpp`, instantiated from the pin wheel's
headers with the same flags, the C++ standard aside, in a C++ loop over the same states):

| row | rbdgen (generated C) | Pinocchio C++ |
|---|---|---|
| C(q, q̇) | `coriolis_matrix` | `computeCoriolisMatrix` |
| M⁻¹ | `mass_matrix_inverse` | `computeMinverse` (upper triangle) |
| kinetic energy | `kinetic_energy` | `computeKineticEnergy` |
| potential energy | `potential_energy` | `computePotentialEnergy` |
| Λ, one link | `operational_space_inertia_<link>` | `computeJointJacobians` + `getFrameJacobian` + `computeMinverse` + a 6 x 6 inverse |
| passivity forces | `passivity_forces` | `computeCoriolisMatrix` + `crba` + `computeGeneralizedGravity` + M a_r + C v_r + g (4.1 has no `passivityRNEA`) |
| J̄, one link | `dynamically_consistent_inverse_<link>` | as Λ, then M⁻¹ Jᵀ Λ |
| integrate | `integrate` | `integrate` (SE(3) base: timing only) |
| difference | `difference` | `difference` (SE(3) base: timing only) |
| ∂integrate | `integrate_derivatives` | `dIntegrate` by both arguments |
| ∂difference | `difference_derivatives` | `dDifference` by both arguments |
| ∂twist, one link | `forward_velocity_kinematics_derivatives_<link>` | `computeForwardKinematicsDerivatives` + `getFrameVelocityDerivatives` |
| ∂acceleration, one link | `forward_acceleration_kinematics_derivatives_<link>` | `computeForwardKinematicsDerivatives` + `getFrameAccelerationDerivatives` |
| ∂CoM velocity | `center_of_mass_derivatives` | `computeForwardKinematicsDerivatives` + `centerOfMass` + `getCenterOfMassVelocityDerivatives` + `jacobianCenterOfMass` |

Before timing, the generated C's results at every state (the C loop's dump) are compared
with Pinocchio's (Python bindings, converted to rbdgen's conventions by
`rbdgen.testing.load_reference`; with mimic joints reduced by the mimic map): a normwise
relative error above 1e-9 (for Λ and J̄, inverses: 1e-9 or 50 eps cond, whichever is
larger) is WRONG, gets no ratio, and the script exits with status 1. Times are medians of
interleaved rounds (each round runs every tool once). rbdgen's floating base moves on
R3 x SO(3), Pinocchio's free flyer on SE(3): `integrate`, `difference` and their
derivatives are checked against the references that compose Pinocchio's pieces
(`PinocchioReference.integrate` etc.), never against pin.integrate's own values; their
Pinocchio C++ times are of its own SE(3) functions. The states have zero accelerations;
the passivity forces take a second random batch's velocities as q̇_ref and q̈_ref, and
`difference` goes from each state to the second batch's (Pinocchio C++: to the next state).

Contraction is set explicitly, the same for both (as in benchmarks/derivatives.py): the
default flags name ``-ffp-contract=fast``. Robots with mimic joints (Talos): Pinocchio
runs the URDF without its ``<mimic>`` tags (every joint independent, G = 50), rbdgen the
independent coordinates (G = 38) over the same bodies; a note says so. ``--quick``: Panda,
two rounds, 2 ms loops, -O1, no Pinocchio C++ build: checks the harness, never a speed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from rbdgen.testing import MimicReference, PinocchioReference, States, random_states
from rbdgen.testing.compare import rel_error
from tests.robots import ROBOTS

from .kinematics import (STATES, GeneratedC, Robot, add_pinocchio_cpp, bench_robots, conclude, flags_line,
                         interleaved, log, loop_parser, parse_loop_arguments, pinocchio_cells, summary)

#: (row key, generated operation, label) in table order.
ROWS = (("coriolis_matrix", "coriolis_matrix", "C(q, q̇)"),
        ("mass_matrix_inverse", "mass_matrix_inverse", "M⁻¹"),
        ("kinetic_energy", "kinetic_energy", "kinetic energy"),
        ("potential_energy", "potential_energy", "potential energy"),
        ("operational_space_inertia", "operational_space_inertia", "Λ, one link"))
DERIVATIVES = (("integrate_derivatives", "integrate_derivatives", "∂integrate"),
               ("difference_derivatives", "difference_derivatives", "∂difference"),
               ("forward_velocity_kinematics_derivatives", "forward_velocity_kinematics_derivatives",
                "∂twist, one link"),
               ("forward_acceleration_kinematics_derivatives", "forward_acceleration_kinematics_derivatives",
                "∂acceleration, one link"),
               ("center_of_mass_derivatives", "center_of_mass_derivatives", "∂CoM velocity"))
ROWS += (("passivity_forces", "passivity_forces", "passivity forces"),
         ("dynamically_consistent_inverse", "dynamically_consistent_inverse", "J̄, one link"),
         ("integrate", "integrate", "integrate"),
         ("difference", "difference", "difference")) + DERIVATIVES
#: Normwise relative error above which a result is WRONG (Λ, J̄: at least 50 eps cond).
TOLERANCE = 1e-9
#: Generated C at most this fraction of Pinocchio C++'s time (the project's targets: 0.5x for derivatives).
TARGET = {row: 0.5 if (row, op, label) in DERIVATIVES else 0.4 for row, op, label in ROWS}
#: The time step of `integrate` (Pinocchio C++: the same).
DT = 0.05
#: Square outputs of the inverses, by their column count.
INVERSES = {"operational_space_inertia": 6, "dynamically_consistent_inverse": 6}
EPS = np.finfo(float).eps
#: Both peers' flags (C++: the -std= flag replaced by -std=c++17 -DNDEBUG): contraction named for both.
FLAGS = ("-O3", "-march=native", "-std=c99", "-ffp-contract=fast")


def second_batch(robot: Robot) -> States:
    """The second random batch: q̇_ref, q̈_ref (its velocities and accelerations) and `difference`'s target."""
    return random_states(robot.model, STATES, seed=1)


def accelerations(st: States) -> np.ndarray:
    """``(N, G)`` accelerations of a batch: the base's, then the joints' (as `States.velocities`)."""
    return np.concatenate([st.acceleration, st.qdd], axis=1) if st.floating else st.qdd


def inputs(robot: Robot, other: States) -> dict:
    """The generated C's inputs beyond `States.flat`: ``qd_ref``, ``qdd_ref``, ``v``, ``dt``, ``base1``, ``q1``."""
    extra = {"qd_ref": other.velocities(), "qdd_ref": accelerations(other),
             "v": robot.states.velocities(), "dt": np.full((STATES, 1), DT), "q1": other.q}
    if robot.floating:
        extra["base1"] = other.flat()["base"]
    return extra


def unit(quat) -> np.ndarray:
    """The quaternion of the same rotation with w >= 0 (q and -q are one rotation)."""
    return quat if quat[3] >= 0 else -quat


def integrated(robot: Robot, ref, b, q, v) -> np.ndarray:
    """``integrate`` as rbdgen's flat ``[translation, quaternion (w >= 0), q_next]`` (a fixed base: q_next);
    with mimic joints, the full model's integration of the mapped state, reduced to the independent joints."""
    if isinstance(ref, MimicReference):
        moved = ref.full.integrate(b, ref.full_state(q)[0], ref.PG @ v, DT)
        pick = independent(ref)[6 if robot.floating else 0:] - (6 if robot.floating else 0)
        moved = (*moved[:2], moved[2][pick]) if robot.floating else moved[pick]
    else:
        moved = ref.integrate(b, q, v, DT)
    return np.concatenate([moved[0], unit(moved[1]), moved[2]]) if robot.floating else moved


def independent(ref) -> np.ndarray:
    """The indices of the reduced model's coordinates in the full one's tangent space (base first)."""
    off = 6 if ref.floating else 0
    return np.concatenate([np.arange(off), [off + ref.full.joint_names.index(n) for n in ref.joint_names]]).astype(int)


def configuration(ref, name: str, *args) -> dict:
    """``ref.<name>`` (difference, integrate_derivatives, difference_derivatives) as a dict; with mimic joints,
    the full model's of the mapped states, reduced to the independent coordinates' rows and columns."""
    if not isinstance(ref, MimicReference):
        out = getattr(ref, name)(*args)
        return out if isinstance(out, dict) else {"v": out}
    keep = independent(ref)
    if name == "integrate_derivatives":
        b, q, v, dt = args
        out = ref.full.integrate_derivatives(b, ref.full_state(q)[0], ref.PG @ v, dt)
    else:
        b0, q0, b1, q1 = args
        out = getattr(ref.full, name)(b0, ref.full_state(q0)[0], b1, ref.full_state(q1)[0])
        out = out if isinstance(out, dict) else {"v": out}
    return {k: value[np.ix_(keep, keep)] if value.ndim == 2 else value[keep] for k, value in out.items()}


def link_derivatives(ref, name: str, b, q, *rates, link) -> dict:
    """``ref.<name>`` (frame / CoM derivatives); with mimic joints, the full model's of the mapped state, its
    columns by q, q̇, q̈ mapped by the mimic map (q_full = P q + o)."""
    if not isinstance(ref, MimicReference):
        return getattr(ref, name)(b, q, *rates, *link)
    out = getattr(ref.full, name)(b, *ref.full_state(q, *rates), *link)
    return {k: value @ ref.P if k.endswith(("_dq", "_dqd", "_dqdd")) else value for k, value in out.items()}


def expected(robot: Robot, row: str, i: int, other: States) -> np.ndarray:
    """Pinocchio's result of ``row`` at state ``i`` in rbdgen's conventions (flat, column-major; a dict's
    entries one after the other); ``other``: `second_batch`."""
    ref, st = robot.pinocchio, robot.states
    b, q, qd = st.ref_base(i), st.q[i], st.qd[i]
    # the references' passivity forces and J̄ compose M, C, g, J, M⁻¹ and Λ, which a MimicReference reduces
    if row == "passivity_forces":
        rates = (qd, other.velocities()[i], accelerations(other)[i])
        return PinocchioReference.passivity_forces(ref, b, q, *rates)
    if row == "dynamically_consistent_inverse":
        return PinocchioReference.dynamically_consistent_inverse(ref, b, q, robot.link).ravel(order="F")
    if row == "integrate":
        return integrated(robot, ref, b, q, st.velocities()[i])
    if row in ("difference", "difference_derivatives"):
        return flat(configuration(ref, row, b, q, other.ref_base(i), other.q[i]))
    if row == "integrate_derivatives":
        return flat(configuration(ref, row, b, q, st.velocities()[i], DT))
    if row == "forward_velocity_kinematics_derivatives":
        return flat(link_derivatives(ref, "forward_velocity_kinematics_derivatives", b, q, qd, link=(robot.link,)))
    if row == "forward_acceleration_kinematics_derivatives":
        return flat(link_derivatives(ref, "forward_acceleration_kinematics_derivatives", b, q, qd, st.qdd[i], link=(robot.link,)))
    if row == "center_of_mass_derivatives":
        return flat(link_derivatives(ref, "center_of_mass_derivatives", b, q, qd, link=()))
    if row == "coriolis_matrix":
        return ref.coriolis_matrix(b, q, qd).ravel(order="F")
    if row == "mass_matrix_inverse":
        return ref.mass_matrix_inverse(b, q).ravel(order="F")
    if row == "kinetic_energy":
        return np.array([ref.kinetic_energy(b, q, qd)])
    if row == "potential_energy":
        return np.array([ref.potential_energy(b, q)])
    return ref.operational_space_inertia(b, q, robot.link).ravel(order="F")


def flat(entries: dict) -> np.ndarray:
    """A dict's arrays one after the other, each column-major (the generated outputs' layout)."""
    return np.concatenate([np.ravel(value, order="F") for value in entries.values()])


def tolerance(row: str, want: np.ndarray) -> float:
    if row not in INVERSES:
        return TOLERANCE
    return max(TOLERANCE, 50 * EPS * np.linalg.cond(want.reshape(-1, INVERSES[row], order="F")))


def as_compared(robot: Robot, row: str, got: np.ndarray) -> np.ndarray:
    """A result as `expected` has it: `integrate`'s base as translation and quaternion (w >= 0), then q_next
    (the generated base_next also holds the base's velocity and acceleration)."""
    if row != "integrate" or not robot.floating:
        return got
    return np.concatenate([got[0:3], unit(got[3:7]), got[len(got) - robot.model.joint_count:]])


def errors(robot: Robot, results: dict, other: States) -> dict:
    """``{row: worst error / its tolerance}`` over the states: above 1 is WRONG; ``other``: `second_batch`."""
    worst = {}
    for row, per_state in results.items():
        for i, got in enumerate(per_state):
            got, want = as_compared(robot, row, got), expected(robot, row, i, other)
            worst[row] = max(worst.get(row, 0.0), rel_error(got, want, floor=1e-2) / tolerance(row, want))
    return worst


def bench_robot(name, args, work: Path) -> dict:
    robot = ROBOTS[name]
    robot = Robot.load(name, robot.path, robot.floating)
    log(f"{name}: link {robot.link}, generating and compiling ...")
    other = second_batch(robot)
    tools = {"rbdgen": GeneratedC(robot, args.flags, args.cache, work, rows=ROWS, inputs=inputs(robot, other))}
    notes = add_pinocchio_cpp(tools, robot, args, work, source="pinocchio_controller.cpp")
    tools["rbdgen"].run_round(0.01)  # writes the dump
    checked = errors(robot, tools["rbdgen"].results(), other)
    times = interleaved(tools, args.rounds, args.target_ms)
    model = robot.model
    if model.joint_count < len(model.joints):
        off = 6 if model.floating else 0
        notes.append(f"{len(model.joints) - model.joint_count} mimic joints: Pinocchio runs the URDF without its "
                     f"<mimic> tags (G = {len(model.joints) + off}), rbdgen the independent coordinates "
                     f"(G = {model.joint_count + off}), over the same {len(model.joints)} bodies")
    return dict(name=name, link=robot.link, counts=tools["rbdgen"].counts(), errors=checked, notes=notes,
                **summary(times))


def markdown(results) -> str:
    lines = ["| robot | operation | rbdgen C (µs) | Pinocchio C++ (µs) | ratio | fastest-round ratio | target | mul "
             "| add | div | error / tolerance |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for row, _, label in ROWS:
            pin, ratio, fastest = pinocchio_cells(r, row, r["errors"][row] > 1)
            n = r["counts"][row]
            lines.append(f"| {r['name']} | {label} | {r['times']['rbdgen'][row]:.3f} | {pin} | {ratio} | {fastest} | "
                         f"{TARGET[row]} | {n['mul']} | {n['add']} | {n['div']} | {r['errors'][row]:.1e} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = loop_parser(__doc__.splitlines()[0], f"C flags (default: {' '.join(FLAGS)}; --quick: -O1)")
    args = parse_loop_arguments(p, argv, FLAGS)
    results = bench_robots(args.robots, lambda name, work: bench_robot(name, args, work))
    if results is None:
        return 1
    print(flags_line(args, "0.4 (derivatives: 0.5)"))
    print(markdown(results))
    notes = [f"{r['name']}: Λ of {r['link']}" for r in results] + [f"{r['name']}: {n}" for r in results
                                                                      for n in r["notes"]]
    wrong = [(r["name"], row) for r in results for row, e in r["errors"].items() if e > 1]
    return conclude(results, notes, wrong, "the tolerance", ROWS, TARGET)


if __name__ == "__main__":
    sys.exit(main())
