"""`rbdgen.symbolic`: closed-form equations as SymPy matrices, from the graph the C is emitted from.

* The textbook planar 2-link arm (Spong: links with centre of mass at lc1, lc2 and inertias I1, I2)
  and the hanging double pendulum (point masses, relative angles): M(q), the velocity product forces
  C(q, qd) qd, the Coriolis matrix (Christoffel's) and g(q) equal the closed forms written here
  (``sympy.simplify(difference) == 0``), and M and the forcing terms equal those of
  ``sympy.physics.mechanics.LagrangesMethod`` for the same systems.
* ``parameters="all"``: the planar arm's M, C qd and g with the textbook's masses, centres of mass and
  inertias put in for the symbols (in Pinocchio's order: m, m c, inertia about the body origin) are the
  textbook's with those left as symbols; with the model's own values put back, they are the folded ones.
* Lambdified equations equal the generated C (compiled -O1) at random states: the bundled double
  pendulum (simplified) and a 3-joint spatial arm (unsimplified, through ``cse=True``).
* Refusals (checked solves, machine-epsilon branches), the size guard, safe symbol names, the CLI
  and examples/latex_double_pendulum.py.
"""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rbdgen

sympy = pytest.importorskip("sympy")
mechanics = pytest.importorskip("sympy.physics.mechanics")

from rbdgen.codegen.cli import main as cli_main  # noqa: E402
from rbdgen.codegen.symbolic import MAX_SIMPLIFY_COST, ExpressionTooLarge, symbolic  # noqa: E402
from rbdgen.names import sympy_names  # noqa: E402
from robots import path  # noqa: E402

R = sympy.Rational
#: The planar arm's numbers (exact in binary or short decimals: the equations are exact rationals).
M1, M2, L1, LC1, LC2, I1, I2, GRAVITY = R(3, 2), R(3, 4), R(1, 2), R(1, 4), R(3, 10), R(1, 20), R(1, 50), R(981, 100)
#: The double pendulum's point masses and lengths.
PM1, PM2, PL1, PL2 = R(2), R(1), R(3, 4), R(1, 2)
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "latex_double_pendulum.py"


def _f(x) -> float:
    return float(x)


def planar_arm() -> rbdgen.RobotModel:
    """Two links turning about z in the x-y plane, gravity along -y; angles from the x axis."""
    return (rbdgen.RobotBuilder("arm")
            .add_link("base")
            .add_link("upper", _f(M1), (_f(LC1), 0, 0), ((_f(I1), 0, 0), (0, _f(I1), 0), (0, 0, _f(I1))))
            .add_link("fore", _f(M2), (_f(LC2), 0, 0), ((_f(I2), 0, 0), (0, _f(I2), 0), (0, 0, _f(I2))))
            .add_joint("shoulder", "revolute", "base", "upper", axis=(0, 0, 1))
            .add_joint("elbow", "revolute", "upper", "fore", xyz=(_f(L1), 0, 0), axis=(0, 0, 1))
            .build(gravity=(0, -_f(GRAVITY), 0)))


def double_pendulum() -> rbdgen.RobotModel:
    """Point masses on massless rods hanging along -y at q = 0; joints about z, relative angles."""
    return (rbdgen.RobotBuilder("pendulum")
            .add_link("pivot")
            .add_link("rod1", _f(PM1), (0, -_f(PL1), 0))
            .add_link("rod2", _f(PM2), (0, -_f(PL2), 0))
            .add_joint("hinge1", "revolute", "pivot", "rod1", axis=(0, 0, 1))
            .add_joint("hinge2", "revolute", "rod1", "rod2", xyz=(0, -_f(PL1), 0), axis=(0, 0, 1))
            .build(gravity=(0, -_f(GRAVITY), 0)))


def arm_closed_form(q, qd, m1=M1, m2=M2, lc1=LC1, lc2=LC2, i1=I1, i2=I2):
    """Spong's M, Christoffel C, C qd and g of the planar arm (l1 = `L1`)."""
    c2, s2 = sympy.cos(q[1]), sympy.sin(q[1])
    M = sympy.Matrix([[m1 * lc1**2 + m2 * (L1**2 + lc2**2 + 2 * L1 * lc2 * c2) + i1 + i2,
                       m2 * (lc2**2 + L1 * lc2 * c2) + i2],
                      [m2 * (lc2**2 + L1 * lc2 * c2) + i2, m2 * lc2**2 + i2]])
    h = -m2 * L1 * lc2 * s2
    C = sympy.Matrix([[h * qd[1], h * (qd[0] + qd[1])], [-h * qd[0], 0]])
    g = GRAVITY * sympy.Matrix([(m1 * lc1 + m2 * L1) * sympy.cos(q[0]) + m2 * lc2 * sympy.cos(q[0] + q[1]),
                                m2 * lc2 * sympy.cos(q[0] + q[1])])
    return M, C, C * sympy.Matrix(qd), g


def pendulum_closed_form(q, qd):
    """The double pendulum's M, C qd and g in relative angles from the downward vertical."""
    c2, s2 = sympy.cos(q[1]), sympy.sin(q[1])
    M = sympy.Matrix([[(PM1 + PM2) * PL1**2 + PM2 * PL2**2 + 2 * PM2 * PL1 * PL2 * c2, PM2 * PL2**2 + PM2 * PL1 * PL2 * c2],
                      [PM2 * PL2**2 + PM2 * PL1 * PL2 * c2, PM2 * PL2**2]])
    c = PM2 * PL1 * PL2 * s2 * sympy.Matrix([-(2 * qd[0] * qd[1] + qd[1]**2), qd[0]**2])
    g = GRAVITY * sympy.Matrix([(PM1 + PM2) * PL1 * sympy.sin(q[0]) + PM2 * PL2 * sympy.sin(q[0] + q[1]),
                                PM2 * PL2 * sympy.sin(q[0] + q[1])])
    return M, c, g


def is_zero(matrix) -> bool:
    return all(sympy.simplify(entry) == 0 for entry in matrix)


def equations(model, *ops, **options):
    """``{output: Matrix}`` of ``ops``, and the q and qd symbols."""
    out, inputs = {}, {}
    for op in ops:
        eq = symbolic(model, op, **options)
        out.update(eq.outputs)
        inputs.update(eq.inputs)
    return out, list(inputs["q"]), list(inputs["qd"])


def test_planar_arm_equals_the_textbook():
    out, q, qd = equations(planar_arm(), "velocity_product_forces", "mass_matrix", "gravity", "coriolis_matrix")
    M, C, c, g = arm_closed_form(q, qd)
    assert is_zero(out["M"] - M)
    assert is_zero(out["c"] - c)
    assert is_zero(out["g"] - g)
    assert is_zero(out["C"] - C)
    assert [str(s) for s in q] == ["q_shoulder", "q_elbow"]


def test_double_pendulum_equals_the_textbook():
    out, q, qd = equations(double_pendulum(), "velocity_product_forces", "mass_matrix", "gravity")
    M, c, g = pendulum_closed_form(q, qd)
    assert is_zero(out["M"] - M)
    assert is_zero(out["c"] - c)
    assert is_zero(out["g"] - g)


def _lagrange(bodies_of, q, qd):
    """M and the forcing terms (M qdd = forcing) of LagrangesMethod for bodies made by ``bodies_of(frames)``,
    in the symbols ``q``, ``qd``."""
    t1, t2 = mechanics.dynamicsymbols("t1 t2")
    N = mechanics.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [t1, N.z])
    B = A.orientnew("B", "Axis", [t2, A.z])
    O = mechanics.Point("O")
    O.set_vel(N, 0)
    bodies = bodies_of(N, A, B, O)
    method = mechanics.LagrangesMethod(mechanics.Lagrangian(N, *bodies), [t1, t2], frame=N)
    method.form_lagranges_equations()
    rates = {t.diff(): s for t, s in zip((t1, t2), qd)}
    angles = {t: s for t, s in zip((t1, t2), q)}
    return [m.subs(rates).subs(angles) for m in (method.mass_matrix, method.forcing)]


def _arm_bodies(N, A, B, O):
    elbow = O.locatenew("E", L1 * A.x)
    centres = [O.locatenew("P1", LC1 * A.x), elbow.locatenew("P2", LC2 * B.x)]
    centres[0].v2pt_theory(O, N, A)
    elbow.v2pt_theory(O, N, A)
    centres[1].v2pt_theory(elbow, N, B)
    bodies = []
    for name, point, frame, m, i in (("b1", centres[0], A, M1, I1), ("b2", centres[1], B, M2, I2)):
        body = mechanics.RigidBody(name, point, frame, m, (mechanics.inertia(frame, i, i, i), point))
        body.potential_energy = m * GRAVITY * point.pos_from(O).dot(N.y)
        bodies.append(body)
    return bodies


def _pendulum_bodies(N, A, B, O):
    p1 = O.locatenew("P1", -PL1 * A.y)
    p2 = p1.locatenew("P2", -PL2 * B.y)
    p1.v2pt_theory(O, N, A)
    p2.v2pt_theory(p1, N, B)
    bodies = []
    for name, point, m in (("m1", p1, PM1), ("m2", p2, PM2)):
        particle = mechanics.Particle(name, point, m)
        particle.potential_energy = m * GRAVITY * point.pos_from(O).dot(N.y)
        bodies.append(particle)
    return bodies


@pytest.mark.parametrize("model, bodies", [(planar_arm, _arm_bodies), (double_pendulum, _pendulum_bodies)],
                         ids=["planar_arm", "double_pendulum"])
def test_lagranges_method_agrees(model, bodies):
    out, q, qd = equations(model(), "velocity_product_forces", "mass_matrix", "gravity")
    M, forcing = _lagrange(bodies, q, qd)
    assert is_zero(out["M"] - M)
    assert is_zero(out["c"] + out["g"] + forcing)


def test_parameters_are_the_textbook_symbols():
    """Pinocchio's layout: m, m c, inertia about the body origin = the centroidal one + m (|c|^2 1 - c c^T)."""
    m1, m2, lc1, lc2, i1, i2 = sympy.symbols("m1 m2 lc1 lc2 I1 I2", positive=True)
    model = planar_arm()
    out, inputs = {}, {}
    for op in ("velocity_product_forces", "mass_matrix", "gravity"):
        eq = symbolic(model, op, parameters="all")
        assert eq.parameters.shape == (20, 1)
        put = {}
        for k, (m, lc, i) in enumerate(((m1, lc1, i1), (m2, lc2, i2))):
            (mass, mcx, mcy, mcz, ixx, ixy, iyy, ixz, iyz, izz) = eq.parameters[10 * k: 10 * k + 10]
            put.update({mass: m, mcx: m * lc, mcy: 0, mcz: 0, ixx: i, ixy: 0, iyy: i + m * lc**2, ixz: 0,
                        iyz: 0, izz: i + m * lc**2})
        out.update({name: value.subs(put) for name, value in eq.outputs.items()})
        inputs.update(eq.inputs)
    M, _, c, g = arm_closed_form(list(inputs["q"]), list(inputs["qd"]), m1, m2, lc1, lc2, i1, i2)
    assert is_zero(out["M"] - M)
    assert is_zero(out["c"] - c)
    assert is_zero(out["g"] - g)


@pytest.mark.parametrize("op", ["mass_matrix", "inverse_dynamics"])
def test_parameters_folded_back(op):
    """With the model's own values put back, the parametric equations are the folded ones: exactly for the
    planar arm; at random states for the bundled double pendulum (CAD decimals), ``parameters=`` one link."""
    model = planar_arm()
    parametric, folded = symbolic(model, op, parameters="all"), symbolic(model, op)
    assert all(is_zero(parametric.folded()[name] - folded[name]) for name in folded.outputs)
    model = rbdgen.load_urdf(path("double_pendulum"))
    parametric = symbolic(model, op, parameters=["link2"], simplify=False)
    folded = symbolic(model, op, simplify=False)
    assert len(parametric.parameters) == 10 and str(parametric.parameters[0]) == "m_link2"
    assert parametric.values[parametric.parameters[0]] == R(33238, 100000)  # the URDF's mass of link2
    symbols = [s for value in folded.inputs.values() for s in value]
    a, b = (sympy.lambdify(symbols, list(v.values())[0], cse=True) for v in (parametric.folded(), folded.outputs))
    rng = np.random.default_rng(3)
    for _ in range(10):
        x = rng.uniform(-3, 3, len(symbols))
        np.testing.assert_allclose(np.asarray(a(*x), float), np.asarray(b(*x), float), rtol=1e-13, atol=1e-15)


def _against_c(solver, eq, calls, rng, count=20):
    inputs = list(eq.inputs)
    symbols = [s for name in inputs for s in eq.inputs[name]]
    f = sympy.lambdify(symbols, list(eq.outputs.values())[0], cse=True)
    worst = 0.0
    for _ in range(count):
        values = {name: rng.uniform(-3, 3, len(eq.inputs[name])) for name in inputs}
        ours = np.asarray(f(*[x for name in inputs for x in values[name]]), float)
        theirs = np.asarray(calls(solver, **values), float).reshape(ours.shape)
        worst = max(worst, np.max(np.abs(ours - theirs)) / max(np.max(np.abs(theirs)), 1e-300))
    return worst


OPERATIONS = {
    "mass_matrix": lambda s, q: s.mass_matrix(q),
    "gravity": lambda s, q: s.gravity(q),
    "velocity_product_forces": lambda s, q, qd: s.velocity_product_forces(q, qd),
    "inverse_dynamics": lambda s, q, qd, qdd: s.inverse_dynamics(q, qd, qdd),
    "forward_dynamics": lambda s, q, qd, tau: s.forward_dynamics(q, qd, tau),
}


@pytest.mark.parametrize("op", list(OPERATIONS))
def test_lambdified_equals_the_generated_c(compiled, op):
    solver = compiled("double_pendulum")
    eq = symbolic(solver.model if hasattr(solver, "model") else rbdgen.load_urdf(path("double_pendulum")), op)
    assert _against_c(solver, eq, OPERATIONS[op], np.random.default_rng(7)) < 1e-12


def spatial_arm() -> rbdgen.RobotModel:
    """Three revolute joints about z, y, x with offsets along every axis and full inertias."""
    builder = rbdgen.RobotBuilder("spatial").add_link("base")
    parent = "base"
    for k, axis in enumerate(((0, 0, 1), (0, 1, 0), (1, 0, 0))):
        builder.add_link(f"l{k}", 1.0 + 0.5 * k, (0.05, 0.02 * (k + 1), 0.15),
                         ((0.03, 0.001, 0.002), (0.001, 0.025, 0.003), (0.002, 0.003, 0.02)))
        builder.add_joint(f"j{k}", "revolute", parent, f"l{k}", xyz=(0.1, 0.02, 0.3), axis=axis)
        parent = f"l{k}"
    return builder.build()


def test_unsimplified_spatial_arm_equals_the_generated_c(build_model):
    model = spatial_arm()
    solver = build_model(model, ops=["mass_matrix", "inverse_dynamics"])
    for op in ("mass_matrix", "inverse_dynamics"):
        eq = symbolic(model, op, simplify=False)
        assert _against_c(solver, eq, OPERATIONS[op], np.random.default_rng(11)) < 1e-12


def floating_body() -> rbdgen.RobotModel:
    return (rbdgen.RobotBuilder("free")
            .add_link("base", 2.0, (0, 0, 0), ((0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1)))
            .add_link("tip", 1.0, (0.5, 0, 0), ((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.01)))
            .add_joint("j", "revolute", "base", "tip", axis=(0, 0, 1))
            .build(floating=True))


def pendulum_loop() -> rbdgen.RobotModel:
    """A pendulum whose tip is held on a world point: a closed loop."""
    return (rbdgen.RobotBuilder("held").add_link("ground")
            .add_link("rod", 1.0, (0.5, 0, 0), ((1e-3, 0, 0), (0, 0.08, 0), (0, 0, 0.08)))
            .add_joint("j", "revolute", "ground", "rod", axis=(0, 0, 1))
            .loop("rod", None, offset1=(1.0, 0, 0), offset2=(1.0, 0, 0)).build())


@pytest.mark.parametrize("model, op, why", [(planar_arm, "mass_matrix_inverse", "checked solve"),
                                            (floating_body, "difference", "machine epsilon"),
                                            (planar_arm, "contact_dynamics", "solves constraints"),
                                            (pendulum_loop, "forward_dynamics", "closed loops solves constraints"),
                                            (pendulum_loop, "loop_inverse_dynamics", "solves constraints")])
def test_refused_operations(model, op, why):
    with pytest.raises(ValueError, match=why):
        symbolic(model(), op)


def test_floating_base_symbols():
    eq = symbolic(floating_body(), "gravity", simplify=False)
    assert [str(s) for s in eq.inputs["base"]][3:7] == ["base_qx", "base_qy", "base_qz", "base_qw"]
    assert [str(s) for s in eq.inputs["q"]] == ["q_j"]
    assert eq["g"].shape == (7, 1)


def test_size_guard_names_the_size_and_the_way_out():
    model = rbdgen.load_urdf(path("panda"))
    with pytest.raises(ExpressionTooLarge, match=r"expression size \d+ .*simplify=False") as error:
        symbolic(model, "mass_matrix")
    size, angles, cost = map(int, re.search(r"of (\d+) x 2\^(\d+) = (\d+)", str(error.value)).groups())
    assert cost == size * 2**angles > MAX_SIMPLIFY_COST and angles == model.joint_count - 1  # q[0] turns about g
    eq = symbolic(model, "gravity", simplify=False)  # converted at any size: checked against NumPy
    f = sympy.lambdify(list(eq.inputs["q"]), eq["g"], cse=True)
    q = np.random.default_rng(5).uniform(-2, 2, model.joint_count)
    np.testing.assert_allclose(np.asarray(f(*q), float).ravel(), rbdgen.NumpySolver(model).gravity(q),
                               rtol=1e-12, atol=1e-12)


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="'all' or a list of link names"):
        symbolic(planar_arm(), "mass_matrix", parameters="upper")
    with pytest.raises(ValueError, match="fixed base"):
        symbolic(planar_arm(), "mass_matrix", parameters=["base"])
    with pytest.raises(ValueError, match="unknown link .nolink."):
        symbolic(planar_arm(), "mass_matrix", parameters=["nolink"])


def test_symbol_names_are_safe():
    assert sympy_names(["a b/*", "a-b", "", "joint0", "x" * 40, "Elbow"], "joint") == [
        "joint0_1", "joint1", "joint2", "joint0", "joint4", "Elbow"]
    model = (rbdgen.RobotBuilder("odd").add_link("base").add_link("tip", 1.0, (0.5, 0, 0))
             .add_joint("$(rm -rf)\\u", "revolute", "base", "tip", axis=(0, 0, 1)).build())
    eq = symbolic(model, "mass_matrix")
    assert [str(s) for s in eq.inputs["q"]] == ["q_rm_rf_u"]


def test_cli_prints_latex(capsys, tmp_path):
    code = cli_main(["symbolic", path("double_pendulum"), "--op", "mass_matrix", "--latex", "--parameters", "link2"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("M = \\left[\\begin{matrix}") and "m_{link2}" in out
    assert cli_main(["symbolic", path("panda"), "--op", "mass_matrix"]) == 2
    assert "--no-simplify" in capsys.readouterr().err
    assert cli_main(["symbolic", path("double_pendulum"), "--op", "mass_matrix_inverse"]) == 2
    assert "checked solve" in capsys.readouterr().err


def test_example_prints_the_double_pendulum_in_latex():
    """The script's M(q) (unit masses on 1 m rods) is the textbook's, and it prints it in LaTeX."""
    run = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, check=True)
    namespace = runpy.run_path(str(EXAMPLE), run_name="example")
    M = namespace["mass_matrix"]()
    assert run.stdout.splitlines()[0] == f"M(q) = {sympy.latex(M)}"
    q2 = sympy.Symbol("q_hinge2", real=True)
    assert is_zero(M - sympy.Matrix([[3 + 2 * sympy.cos(q2), 1 + sympy.cos(q2)], [1 + sympy.cos(q2), 1]]))


def test_parameter_values_are_pinocchios():
    """``values`` in the layout's order equal Pinocchio's ``Inertia.toDynamicParameters`` body by body."""
    pin = pytest.importorskip("pinocchio")
    reference = pin.buildModelFromUrdf(path("ur5"))
    eq = symbolic(rbdgen.load_urdf(path("ur5")), "gravity", parameters="all", simplify=False)
    ours = np.array([float(eq.values[s]) for s in eq.parameters], float).reshape(-1, 10)
    theirs = np.array([reference.inertias[k].toDynamicParameters() for k in range(1, reference.njoints)])
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


def test_floating_base_equals_the_numpy_engine():
    """The base symbols in the C's order (translation, quaternion xyzw, velocity, acceleration) and the base's
    parameters first: a floating body's inverse dynamics, lambdified, is the NumPy engine's at random states,
    with its parameters as symbols and the model's values put back."""
    model = floating_body()
    eq = symbolic(model, "inverse_dynamics", parameters="all", simplify=False)
    assert [str(s) for s in eq.parameters[:11]] == ["m_base", "mcx_base", "mcy_base", "mcz_base", "Ixx_base",
                                                     "Ixy_base", "Iyy_base", "Ixz_base", "Iyz_base", "Izz_base",
                                                     "m_tip"]
    symbols = [s for value in eq.inputs.values() for s in value]
    f = sympy.lambdify(symbols, eq.folded()["tau"], cse=True)
    engine, rng = rbdgen.NumpySolver(model), np.random.default_rng(13)
    for _ in range(5):
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        translation, velocity, acceleration = rng.normal(size=3), rng.normal(size=6), rng.normal(size=6)
        q, qd, qdd = rng.normal(size=(3, 1))
        ours = np.asarray(f(*translation, *quat, *velocity, *acceleration, *q, *qd, *qdd), float).ravel()
        base = rbdgen.BaseState(translation, quat, velocity, acceleration)
        np.testing.assert_allclose(ours, engine.inverse_dynamics(base, q, qd, qdd), rtol=1e-11, atol=1e-11)


def test_mimic_joint_equals_the_numpy_engine():
    """A mimic joint (moved by 2 q + 0.5 of its master): one symbol per independent coordinate, and the mass
    matrix and gravity reduced as the NumPy engine reduces them."""
    model = (rbdgen.RobotBuilder("mimic").add_link("base")
             .add_link("a", 1.0, (0.3, 0, 0), ((0.01, 0, 0), (0, 0.02, 0), (0, 0, 0.02)))
             .add_link("b", 0.5, (0.2, 0.1, 0), ((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.01)))
             .add_joint("master", "revolute", "base", "a", axis=(0, 1, 0))
             .add_joint("follower", "revolute", "a", "b", xyz=(0.4, 0, 0), axis=(0, 1, 0), mimic=("master", 2.0, 0.5))
             .build())
    engine, q = rbdgen.NumpySolver(model), np.array([0.7])
    for op, output in (("mass_matrix", "M"), ("gravity", "g")):
        eq = symbolic(model, op)
        assert [str(s) for s in eq.inputs["q"]] == ["q_master"]
        ours = np.asarray(sympy.lambdify(list(eq.inputs["q"]), eq[output])(*q), float)
        np.testing.assert_allclose(ours.reshape(-1), np.ravel(getattr(engine, op)(q)), rtol=1e-12, atol=1e-12)
