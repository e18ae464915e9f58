"""Twin bodies computed side by side (`rbdgen.ir.twins`, docs/generated-c.md, "Twin bodies").

The twins are checked against the robot files' own left and right names, the order of the paired steps
against the graph (every operand computed before it is read, no lane reading the other's), and the C of the
pairs, in vector registers and in the portable struct, against the NumPy engine and against the C without
pairs, bit for bit: each lane does the same IEEE operations as the statement it replaces.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import rbdgen
from rbdgen.algorithms.kinematics import Tree
from rbdgen.codegen import c
from rbdgen.codegen.c import layout
from rbdgen.codegen.generator import load_robot, trace_operation
from rbdgen.ir import optimize
from rbdgen.ir.trace import LEAVES, Expr, Guard, operands
from rbdgen.ir.twins import twin_bodies
from rbdgen.signatures import OPERATIONS
from rbdgen.testing import random_states
from conftest import TEST_FLAGS
from robots import ROBOTS

#: Per robot: how its files name a right limb's link after the left one's.
MIRROR = {"g1": [("left_", "right_")], "talos": [("_left_", "_right_")], "solo12": [("FL_", "FR_"), ("HL_", "HR_")]}


def _tree(robot: str):
    model = load_robot(ROBOTS[robot].path, floating=ROBOTS[robot].floating)
    return model, Tree.from_model(model)


def _mirrored(name: str, robot: str) -> str:
    for left, right in MIRROR[robot]:
        name = name.replace(left, right)
    return name


@pytest.mark.parametrize("robot, count", [("g1", 13), ("talos", 20), ("solo12", 6), ("panda", 0)])
def test_the_twins_are_the_left_and_right_limbs(robot, count):
    """G1's six leg and seven arm bodies, Talos' legs, arms and grippers, Solo12's front and hind legs: each
    left body's twin is the body the file names as the right one; Panda has none."""
    _, tree = _tree(robot)
    twins = twin_bodies(tree.parent, tree.kind)
    assert len(twins) == count
    for i, j in twins:
        assert tree.bodies[j] == _mirrored(tree.bodies[i], robot) != tree.bodies[i], (tree.bodies[i], tree.bodies[j])


@pytest.mark.parametrize("robot, op, share", [("g1", "inverse_dynamics", 0.75), ("g1", "mass_matrix", 0.85),
                                              ("g1", "forward_dynamics", 0.8), ("talos", "inverse_dynamics", 0.7),
                                              ("solo12", "inverse_dynamics_derivatives", 0.6)])
def test_paired_steps_are_an_order_of_the_same_steps(robot, op, share):
    """With twins, the schedule holds the same steps in another order: each pair's two steps neighbours, each
    operand (an optional input's term too) computed before the step that reads it (or its pair's first), and
    checked before it where it has a check, neither lane reading the other's statement, the checks and calls in
    their order (but checks of one status in a row); at least ``share`` of the arithmetic is paired (the limbs
    are most of the robot)."""
    model, tree = _tree(robot)
    kernel = trace_operation(model, op, tree)
    optional = c.optional_inputs(kernel)
    alone = optimize.schedule(kernel, optional=optional)
    plan = optimize.schedule(kernel, optional=optional, twins=tree)
    assert sorted(map(id, plan.steps)) == sorted(map(id, alone.steps))
    checks, runs = [s for s in alone.steps if not isinstance(s, Expr)], []  # per check or call: its run
    for k, s in enumerate(checks):  # checks of one status in a row are a run (the first failing, one status)
        same = k and isinstance(s, Guard) and isinstance(checks[k - 1], Guard) and s.status == checks[k - 1].status
        runs.append(runs[-1] + (not same) if k else 0)
    run = dict(zip(map(id, checks), runs))
    assert [run[id(s)] for s in plan.steps if not isinstance(s, Expr)] == runs  # the runs in their order
    terms = {n.id: index for opt in plan.optional for index, block in opt.blocks.items() for n in block}
    at = {s.id: k for k, s in enumerate(plan.steps) if isinstance(s, Expr)}
    right = plan.lefts
    checked = {s.value.id: k for k, s in enumerate(plan.steps) if isinstance(s, Guard) and isinstance(s.value, Expr)}
    for k, step in enumerate(plan.steps):
        first = at[right[step.id]] if isinstance(step, Expr) and step.id in right else k
        for x in operands(step):
            if isinstance(step, Expr) and x.id in checked:  # read after its checks (as 1 once one failed)
                assert checked[x.id] < first, (step, x)
            if x.id in at:
                assert at[x.id] < first, (step, x)
            elif x.id in terms:  # an optional input's term: its block is computed before the step at its index
                assert terms[x.id] <= first, (step, x)
            else:
                assert x.op in LEAVES, (step, x)
    for a, twin in plan.twins.items():
        assert at[twin.node.id] == at[a] + 1
        assert a not in {x.id for x in operands(twin.node)}
        assert twin.node.id not in {x.id for x in operands(plan.steps[at[a]])}
    arithmetic = sum(isinstance(s, Expr) and s.op in ("add", "sub", "mul", "div", "neg") for s in plan.steps)
    assert 2 * len(plan.twins) >= share * arithmetic, (2 * len(plan.twins), arithmetic)


OPS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "inverse_dynamics_derivatives")


def _sources(generated) -> str:
    return "".join(text for name, text in generated.files.items() if name.endswith(".c"))


@pytest.fixture(scope="module")
def solo_builds(build_cache):
    """Solo12's C three ways: its pairs in vector registers, in the portable struct (RBDGEN_SCALAR_PAIRS), and
    generated without pairs."""
    robot = ROBOTS["solo12"]
    generated = rbdgen.generate(robot.path, ops=OPS, prefix="solo12", floating=True)
    assert re.search(r"const solo12_pair \w+ = solo12_mul2\(", _sources(generated))
    vector = generated.compile(flags=TEST_FLAGS, cache=build_cache, validate=False)
    struct = generated.compile(flags=TEST_FLAGS + ("-DRBDGEN_SCALAR_PAIRS",), cache=build_cache, validate=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(optimize, "twin_nodes", lambda *args, **kwargs: {})
        plain = rbdgen.generate(robot.path, ops=OPS, prefix="solo12", floating=True)
    assert "solo12_pair " not in _sources(plain)
    return vector, struct, plain.compile(flags=TEST_FLAGS, cache=build_cache, validate=False)


def _flat(result) -> np.ndarray:
    """An operation's outputs as one array (those of several outputs in their order)."""
    parts = result.values() if isinstance(result, dict) else [result]
    return np.concatenate([np.ravel(x) for x in parts])


@pytest.mark.parametrize("op, loads", [(op, loads) for op in OPS for loads in (False, True)
                                       if not loads or "loads" in OPERATIONS[op].inputs])
def test_pairs_compute_what_the_statements_alone_compute(solo_builds, op, loads):
    """Against the NumPy engine within rounding, and against the C without pairs bit for bit, in vector
    registers and in the struct; without the optional loads and with them (their terms, computed where a
    pair first needs them)."""
    vector, struct, plain = solo_builds
    states = random_states(vector.model, 16, seed=7, load_links=("FL_FOOT", "FR_FOOT", "HR_FOOT"))
    engine = _flat(states.call(rbdgen.NumpySolver(vector.model), op, loads=loads))
    results = [_flat(states.call(solver, op, loads=loads)) for solver in (vector, struct, plain)]
    scale = 1.0 + np.abs(engine).max()
    assert np.abs(results[0] - engine).max() <= 1e-12 * scale
    assert np.array_equal(results[0], results[2]) and np.array_equal(results[1], results[2])


def _odd_twins() -> rbdgen.RobotModel:
    """Twins that carry twins (two arms on each of two trunks), three legs of one shape (two twins, one alone),
    prismatic joints that mimic revolute ones, and constants that differ per side (a zero offset, another axis)."""
    inertia = ((0.03, 0.001, 0.002), (0.001, 0.025, 0.003), (0.002, 0.003, 0.02))
    builder = rbdgen.RobotBuilder("odd").add_link("base", 5.0, rotational=((0.2, 0, 0), (0, 0.2, 0), (0, 0, 0.2)))

    def limb(name, parent, xyz, k):
        builder.add_link(f"{name}_a", 1.0 + 0.1 * k, (0.05, 0.02 * (k != 1), 0.1), inertia)
        builder.add_link(f"{name}_b", 0.7, (0.0, 0.01 * k, -0.2), inertia)
        builder.add_joint(f"{name}_j1", "revolute", parent, f"{name}_a", xyz=xyz, axis=(1, 0, 0) if k == 1 else (0, 1, 0))
        builder.add_joint(f"{name}_j2", "prismatic", f"{name}_a", f"{name}_b", xyz=(0.0, 0.1 * (k != 1), -0.3),
                          axis=(0, 0, 1), mimic=(f"{name}_j1", 2.0 + k, 0.1))

    for k in range(3):
        limb(f"leg{k}", "base", (0.1 * k, 0.2, 0.0), k)
    for t in range(2):
        builder.add_link(f"trunk{t}", 2.0, (0, 0, 0.1), inertia)
        builder.add_joint(f"trunk{t}", "revolute", "base", f"trunk{t}", xyz=(0.0, 0.5 * t, 0.4), axis=(0, 0, 1))
        for k in range(2):
            limb(f"trunk{t}_arm{k}", f"trunk{t}", (0.0, 0.1 * k, 0.2), k + t)
    return builder.build(floating=True)


def test_odd_twins_in_parts_compute_what_the_statements_alone_compute(build_cache):
    """`_odd_twins` in parts of at most 60 steps (pairs handed over in neighbouring slots of ``w``): the C with
    pairs, in vector registers and in the struct, gives the bits of the C without them, with and without loads."""
    model = _odd_twins()
    tree = Tree.from_model(model)
    assert [(tree.bodies[i], tree.bodies[j]) for i, j in twin_bodies(tree.parent, tree.kind)][:3] == [
        ("leg0_a", "leg1_a"), ("trunk0", "trunk1"), ("leg0_b", "leg1_b")]
    ops = ("inverse_dynamics", "forward_dynamics", "inverse_dynamics_derivatives")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(layout, "PART_STEPS", 60)
        generated = rbdgen.generate(model, ops=ops, prefix="odd", fd_algorithm="aba")
        patch.setattr(optimize, "twin_nodes", lambda *args, **kwargs: {})
        plain = rbdgen.generate(model, ops=ops, prefix="odd", fd_algorithm="aba")
    assert "odd_load2(w + " in _sources(generated) and "odd_pair " not in _sources(plain)
    solvers = [generated.compile(flags=TEST_FLAGS + extra, cache=build_cache, validate=False)
               for extra in ((), ("-DRBDGEN_SCALAR_PAIRS",))]
    solvers.append(plain.compile(flags=TEST_FLAGS, cache=build_cache, validate=False))
    states = random_states(model, 8, seed=3, load_links=("leg0_b", "leg1_b", "trunk0_arm1_b", "trunk1_arm1_b"))
    for op in ops:
        for loads in (False, True):
            engine = _flat(states.call(rbdgen.NumpySolver(model), op, loads=loads))
            results = [_flat(states.call(solver, op, loads=loads)) for solver in solvers]
            assert np.abs(results[0] - engine).max() <= 1e-11 * (1.0 + np.abs(engine).max()), (op, loads)
            assert np.array_equal(results[0], results[2]) and np.array_equal(results[1], results[2]), (op, loads)


@pytest.mark.parametrize("steps", [10, 20, 60])
def test_no_part_starts_between_twins(monkeypatch, steps):
    """`layout.part_starts` with every other step a pair's second (``joined``), each step reading every value
    before it (so that parts are as short as `PART_STEPS` allows, down to one step): no part starts on such a
    step, and the parts always advance."""
    monkeypatch.setattr(layout, "PART_STEPS", steps)
    length = 120
    defined = {i: i for i in range(length)}
    reads = [(i, k) for k in range(length) for i in range(k)]
    joined = set(range(1, length, 2))
    starts = layout.part_starts(length, defined, reads, set(), joined)
    assert starts[0] == 0 and len(starts) > 1
    assert all(b > a for a, b in zip(starts, starts[1:])) and not joined & set(starts), starts
