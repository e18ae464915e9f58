"""The JAX functions (`Generated.jax`, `rbdgen.codegen.emit_jax`): against the NumPy engine, the generated C
and its analytic derivatives, under jax.vmap, jax.jacfwd and jax.jit, sharded over two devices, for builds
with parameters, contacts and loops, and as a written module without rbdgen.

Eager jax.vmap keeps the suite's time small (XLA compiles a straight-line function in seconds): only Panda
inverse dynamics is jitted (1,000 states; 64 states over two devices in a subprocess), and the sine and cosine.
"""

from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import rbdgen
from rbdgen.contacts import REFERENCE_SIZE
from rbdgen.algorithms.kinematics import Tree
from rbdgen.algorithms.operations import OPERATIONS, evaluate, operation
from rbdgen.backends import NumpyOps
from rbdgen.codegen.generator import ALL_OPERATIONS
from rbdgen.testing import random_states
from robots import ROBOTS

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

#: The bundled robots (generated/panda, generated/solo) by their test names, and the operations checked: the
#: bundled folders' for both, every operation for the Panda (on its hand only: eager jax.vmap costs about a
#: millisecond per statement, a second per operation) but those that need declarations the Panda has not
#: (contacts, closed loops).
DECLARED = ("contacts", "loops")
BUNDLED = {"panda": tuple(name for name, op in OPERATIONS.items() if op.group not in DECLARED),
           "solo12": ALL_OPERATIONS}
FRAMES = {"panda": ["panda_hand"], "solo12": None}


@pytest.fixture(scope="module")
def every_operation():
    """``name -> (Generated of the operations of BUNDLED, its JAX module)`` (memoised)."""
    memo = {}

    def get(name):
        if name not in memo:
            robot = ROBOTS[name]
            generated = rbdgen.generate(robot.path, ops=BUNDLED[name], prefix=name, floating=robot.floating,
                                        frames=FRAMES[name])
            memo[name] = generated, generated.jax()
        return memo[name]

    return get


def inputs(model, n: int, seed: int = 3) -> dict:
    """Flat inputs ``(n, size)`` of every operation at random states (a load on every link)."""
    st = random_states(model, n, seed, load_links=[link.name for link in model.links])
    other = random_states(model, n, seed + 1)
    flat = st.flat()
    flat.update(v=st.velocities(), dt=np.full((n, 1), 0.05), q1=other.q, qd_ref=other.velocities(),
                qdd_ref=np.random.default_rng(seed).normal(size=st.velocities().shape))
    if model.floating:
        flat["base1"] = other.flat()["base"]
    return flat


def flat_output(value: np.ndarray, port) -> np.ndarray:
    """A JAX output ``(n, *shape)`` in the C's flat layout (matrices column-major, tables row by row)."""
    value = np.asarray(value)
    n = value.shape[0]
    if value.ndim == 3 and not port.by_row:
        value = value.transpose(0, 2, 1)
    return value.reshape(n, -1)


def numpy_engine(model, op: str, flat: dict, link=None) -> dict:
    """The NumPy engine's pass (`operations.evaluate` on NumPy arrays): flat outputs ``(n, size)``."""
    record = operation(op)
    columns = {name: list(np.ascontiguousarray(flat[name].T)) for name in record.input_names(model.floating)}
    values = evaluate(Tree.from_model(model), NumpyOps(), op, columns, link)
    n = flat["q"].shape[0]
    return {name: np.stack([np.broadcast_to(v, (n,)) for v in vs], axis=1) if vs else np.zeros((n, 0))
            for name, vs in values.items()}


def close(got, expected, rtol=1e-12):
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    np.testing.assert_allclose(got, expected, rtol=0, atol=rtol * scale)


@pytest.mark.parametrize("name", BUNDLED)
def test_every_operation_equals_the_numpy_engine(name, every_operation):
    generated, module = every_operation(name)
    model = generated.model
    flat = inputs(model, 12)
    assert set(module.FUNCTIONS) == set(generated.manifest["operations"])
    for function_name, info in generated.manifest["operations"].items():
        op, link = info.get("operation", function_name), info.get("link")
        record = operation(op)
        names = record.input_names(model.floating)
        result = jax.vmap(module.FUNCTIONS[function_name])(*[jnp.asarray(flat[n]) for n in names])
        assert not np.any(np.asarray(result["status"])), function_name
        expected = numpy_engine(model, op, flat, link)
        ports = {p.name: p for p in record.output_ports(model.floating)}
        assert set(result) == set(expected) | {"status"}
        for out, value in expected.items():
            assert result[out].dtype == jnp.float64
            close(flat_output(result[out], ports[out]), value)


def test_the_dense_checked_solve_equals_the_numpy_engine():
    """A mimic joint in another branch than its master (`test_mimic`'s "cross") leaves the reduced mass matrix
    no tree pattern: forward dynamics solves it with the checked Cholesky solve (the module's
    ``_cholesky_solve``)."""
    from test_mimic import _small

    model = rbdgen.load_urdf_string(_small("cross"), floating=True)
    generated = rbdgen.generate(model, ops=["forward_dynamics"], prefix="cross")
    assert generated.manifest["operations"]["forward_dynamics"]["counts"]["calls"] == 1
    flat = inputs(generated.model, 12)
    names = ("base", "q", "qd", "tau", "loads")
    result = jax.vmap(generated.jax().forward_dynamics)(*[jnp.asarray(flat[n]) for n in names])
    assert not np.any(np.asarray(result["status"]))
    close(np.asarray(result["acc"]), numpy_engine(generated.model, "forward_dynamics", flat)["acc"])


def test_loads_none_are_zero_loads(every_operation):
    generated, module = every_operation("solo12")
    flat = inputs(generated.model, 4)
    head = ("base",) if generated.model.floating else ()
    args = [jnp.asarray(flat[n]) for n in head + ("q", "qd", "qdd")]
    without = jax.vmap(lambda *a: module.inverse_dynamics(*a))(*args)
    zero = jax.vmap(module.inverse_dynamics)(*args, jnp.zeros_like(jnp.asarray(flat["loads"])))
    np.testing.assert_array_equal(without["tau"], zero["tau"])


@pytest.mark.parametrize("name", BUNDLED)
def test_jacfwd_of_forward_dynamics_equals_the_generated_derivatives(name, every_operation, build_model):
    """jax.jacfwd of the JAX forward dynamics against the generated C's analytic forward_dynamics_derivatives
    (for a floating base, the base velocity columns and the rotation along a world rotation vector too)."""
    generated, module = every_operation(name)
    model = generated.model
    flat = inputs(model, 4)
    solver = build_model(model, prefix=name, ops=["forward_dynamics_derivatives"])
    floating = model.floating
    st_args = [flat[n] for n in (("base",) if floating else ()) + ("q", "qd", "tau")]
    expected = solver.forward_dynamics_derivatives(
        *([rbdgen.BaseState(flat["base"][:, 0:3], flat["base"][:, 3:7], flat["base"][:, 7:13],
                            flat["base"][:, 13:19])] if floating else []), flat["q"], flat["qd"], flat["tau"])

    def acc(base, q, qd, tau, theta):
        if floating:
            v, w = base[3:6], base[6]
            quat = base[3:7] + 0.5 * jnp.concatenate([w * theta + jnp.cross(theta, v), -jnp.dot(theta, v)[None]])
            base = jnp.concatenate([base[:3], quat, base[7:]])
            return module.forward_dynamics(base, q, qd, tau)["acc"]
        return module.forward_dynamics(q, qd, tau)["acc"]

    base = jnp.asarray(flat["base"]) if floating else jnp.zeros((4, 19))
    jacobians = jax.vmap(jax.jacfwd(acc, argnums=(0, 1, 2, 3, 4)))(
        base, *[jnp.asarray(a) for a in st_args[-3:]], jnp.zeros((4, 3)))
    d_base, d_q, d_qd, d_tau, d_theta = (np.asarray(j) for j in jacobians)
    close(d_q, np.asarray(expected["dacc_dq"]), 1e-10)
    close(d_qd, np.asarray(expected["dacc_dqd"]), 1e-10)
    close(d_tau, np.asarray(expected["dacc_dtau"]), 1e-10)
    if floating:
        close(d_base[:, :, 7:13], np.asarray(expected["dacc_dbase_velocity"]), 1e-10)
        close(d_theta, np.asarray(expected["dacc_dbase_rotation"]), 1e-10)


def test_jit_batch_equals_the_c_batch(compiled):
    """The module's ``batch`` (jit, chunks of states, no XLA fusion on a CPU) on 1,000 states against the C."""
    solver = compiled("panda")
    generated = rbdgen.generate(ROBOTS["panda"].path, ops=["inverse_dynamics"], prefix="panda", floating=False)
    module = generated.jax()
    st = random_states(solver, 1000, seed=11, load_links=["panda_hand", "panda_link3"])
    flat = st.flat()
    run = module.batch(module.inverse_dynamics, chunk=256)
    result = run(*[jnp.asarray(flat[n]) for n in ("q", "qd", "qdd")], jnp.asarray(st.loads))
    expected = st.call(solver, "inverse_dynamics", loads=True)
    assert not np.any(np.asarray(result["status"]))
    close(np.asarray(result["tau"]), expected)


def test_parts_equal_the_flat_function(every_operation, monkeypatch):
    """The ``"parts"`` structure (nested jitted parts, here of 400 statements) computes what the flat one does."""
    from rbdgen.codegen import emit_jax

    generated, flat_module = every_operation("panda")
    monkeypatch.setattr(emit_jax, "PART_STEPS", 400)
    parts = generated.jax("parts")
    flat = inputs(generated.model, 3)
    args = [jnp.asarray(flat[n]) for n in ("q", "qd", "qdd", "loads")]
    expected = jax.vmap(flat_module.inverse_dynamics)(*args)["tau"]
    close(np.asarray(jax.vmap(parts.inverse_dynamics)(*args)["tau"]), np.asarray(expected))
    assert "    def part2(" in generated.jax_module("parts")


def test_status_of_a_non_finite_input_and_zero_outputs(every_operation):
    _, module = every_operation("panda")
    q = jnp.array([0.1, 0.2, np.nan, 0.4, 0.5, 0.6, 0.7])
    result = module.gravity(q)
    assert int(result["status"]) == 1
    np.testing.assert_array_equal(result["g"], np.zeros(7))
    loads = np.zeros((len(every_operation("panda")[0].model.links), 6))
    loads[3, 2] = np.inf
    assert int(module.gravity(jnp.zeros(7), loads)["status"]) == 1
    assert int(module.gravity(jnp.zeros(7))["status"]) == 0
    with pytest.raises(ValueError, match=r"q: expected 7 values for one state .* got shape \(6,\)"):
        module.gravity(jnp.zeros(6))
    with pytest.raises(ValueError, match=r"q: expected 7 values .* got shape \(\); states along a leading axis go "
                                         r"through jax.vmap or this module's batch"):
        module.batch(module.gravity)(jnp.zeros(7))  # one state given to the batch: each element taken as a state
    for value in (np.full(7, 0.5 + 1j), np.ones(7, dtype=bool)):  # refused, never cast (as the solvers do)
        with pytest.raises(TypeError, match=f"q: expected real numbers .float or integer., got an array of {value.dtype}"):
            module.gravity(value)
    np.testing.assert_array_equal(module.gravity(np.zeros(7, dtype=int))["g"], module.gravity(jnp.zeros(7))["g"])


def test_sine_and_cosine_are_the_c_algorithm_within_an_ulp(every_operation):
    """The module's sine and cosine (the generated C's shared reduction and polynomials in elementwise
    operations): within 1.5 ulp of the C library's (NumPy's: glibc, within 0.52 ulp of the exact values) up
    to 2^19 pi/2 and at the doubles nearest multiples of pi/2; beyond, NaN (a status, never a finite wrong
    value); their derivatives (jax.grad) are cos and -sin."""
    _, module = every_operation("panda")
    sincos = jax.jit(jax.vmap(module._sincos))
    rng = np.random.default_rng(7)
    bound = 2.0 ** 19 * np.pi / 2
    usual = np.concatenate([rng.uniform(-np.pi, np.pi, 100_000), rng.uniform(-bound, bound, 100_000),
                            np.arange(-2 ** 19, 2 ** 19, 7) * (np.pi / 2), [0.0, 1e-300, 2.0 ** -27, -1e-9]])
    for x in (usual, -usual):
        s, c = (np.asarray(v) for v in sincos(x))
        assert np.max(np.abs(s - np.sin(x)) / np.spacing(np.abs(np.sin(x)))) <= 1.5
        assert np.max(np.abs(c - np.cos(x)) / np.spacing(np.abs(np.cos(x)))) <= 1.5
    large = np.concatenate([rng.uniform(bound * (1 + 1e-15), 1e9, 1000) * rng.choice([-1.0, 1.0], 1000),
                            [1e20, -1e300, np.inf]])
    s, c = (np.asarray(v) for v in sincos(large))
    assert np.all(np.isnan(s)) and np.all(np.isnan(c))
    t = jnp.linspace(-7.0, 7.0, 141)
    close(np.asarray(jax.vmap(jax.grad(module._sin))(t)), np.cos(t), 4e-15)
    close(np.asarray(jax.vmap(jax.grad(module._cos))(t)), -np.sin(t), 4e-15)


def test_float32_without_x64(every_operation):
    """The real type is chosen when a function is called: float32 without jax_enable_x64."""
    _, module = every_operation("panda")
    q = np.random.default_rng(1).uniform(-1, 1, 7)
    expected = np.asarray(module.mass_matrix(q)["M"])
    with jax.enable_x64(False):
        M = module.mass_matrix(q)["M"]
        assert M.dtype == jnp.float32
    close(np.asarray(M, np.float64), expected, 1e-5)


def test_written_module_runs_without_rbdgen(tmp_path):
    """``write(..., jax=True)`` (and ``--jax``) writes ``<prefix>_jax.py``; it imports with jax alone and gives
    the same results as `Generated.jax`."""
    generated = rbdgen.generate(ROBOTS["panda"].path, ops=["gravity"], prefix="panda", floating=False)
    folder = generated.write(tmp_path / "panda", jax=True)
    text = (folder / "panda_jax.py").read_text()
    assert "DO NOT EDIT: generated by rbdgen" in text
    q = [0.1, -0.2, 0.3, -1.4, 0.5, 1.6, 0.7]
    script = (f"import sys, importlib.util; sys.modules['rbdgen'] = None\n"
              f"spec = importlib.util.spec_from_file_location('panda_jax', {str(folder / 'panda_jax.py')!r})\n"
              f"m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
              f"import jax; jax.config.update('jax_enable_x64', True)\n"
              f"print(repr(m.gravity({q!r})['g'].tolist()))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    expected = np.asarray(generated.jax().gravity(q)["g"])
    np.testing.assert_array_equal(ast.literal_eval(out), expected)
    cli = subprocess.run([sys.executable, "-m", "rbdgen", "generate", ROBOTS["panda"].path, "--fixed", "--ops",
                          "gravity", "--prefix", "panda", "-o", str(tmp_path / "cli"), "--jax", "--no-compile", "-q"],
                         capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert (tmp_path / "cli" / "panda_jax.py").read_text() == text


SHARDED = """
import sys, importlib.util
import numpy as np
sys.modules["rbdgen"] = None
spec = importlib.util.spec_from_file_location("panda_jax", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec
jax.config.update("jax_enable_x64", True)
args = [np.load(sys.argv[2])[k] for k in ("q", "qd", "qdd", "loads")]
mesh = Mesh(np.array(jax.devices()), ("states",))
sharded = [jax.device_put(a, NamedSharding(mesh, PartitionSpec("states"))) for a in args]
results = {"vmap": jax.jit(jax.vmap(m.inverse_dynamics))(*sharded),
           "batch": m.batch(m.inverse_dynamics, chunk=16, mesh=mesh)(*sharded),
           "one": jax.jit(jax.vmap(m.inverse_dynamics))(*[jax.device_put(a, jax.devices()[0]) for a in args])}
shards = {k: sorted((s.device.id, s.index[0].start, s.index[0].stop) for s in r["tau"].addressable_shards)
          for k, r in results.items()}
print(len(jax.devices()), shards)
np.savez(sys.argv[3], **{k: np.asarray(r["tau"]) for k, r in results.items()},
         status=np.stack([np.asarray(r["status"]) for r in results.values()]))
"""


def test_sharded_over_two_devices_equals_one_device_and_the_c(compiled, tmp_path):
    """The written module's functions sharded over two XLA CPU devices (``NamedSharding`` over the state axis,
    ``jax.jit(jax.vmap(f))``, and ``batch(f, mesh=...)``: each device its half in chunks) compute each half on
    its own device and equal one device and the C batch."""
    generated = rbdgen.generate(ROBOTS["panda"].path, ops=["inverse_dynamics"], prefix="panda", floating=False)
    folder = generated.write(tmp_path / "panda", jax=True)
    st = random_states(generated.model, 64, seed=13, load_links=["panda_hand", "panda_link3"])
    flat = st.flat()
    np.savez(tmp_path / "states.npz", q=flat["q"], qd=flat["qd"], qdd=flat["qdd"], loads=st.loads)
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, "-c", SHARDED, str(folder / "panda_jax.py"), str(tmp_path / "states.npz"),
                          str(tmp_path / "out.npz")], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    devices, shards = run.stdout.split(" ", 1)
    assert devices == "2"
    halves = [(0, 0, 32), (1, 32, 64)]
    assert ast.literal_eval(shards) == {"vmap": halves, "batch": halves, "one": [(0, None, None)]}
    out = np.load(tmp_path / "out.npz")
    assert not np.any(out["status"])
    expected = st.call(compiled("panda"), "inverse_dynamics", loads=True)
    for name in ("vmap", "batch", "one"):
        close(out[name], expected)
    close(out["vmap"], out["one"], 1e-14)
    close(out["batch"], out["one"], 1e-14)


def _fourbar():
    """A planar four-bar linkage (crank, coupler, rocker) closed by a point loop (`rbdgen.loops`)."""
    def rod(length, mass):
        inertia = mass * length ** 2 / 12
        return dict(mass=mass, com=(length / 2, 0, 0), rotational=((1e-4, 0, 0), (0, inertia, 0), (0, 0, inertia)))

    return (rbdgen.RobotBuilder("fourbar").add_link("ground").add_link("crank", **rod(0.3, 1.0))
            .add_link("coupler", **rod(0.5, 0.7)).add_link("rocker", **rod(0.4, 1.3))
            .add_joint("j1", "revolute", "ground", "crank", axis=(0, 0, 1))
            .add_joint("j2", "revolute", "crank", "coupler", xyz=(0.3, 0, 0), axis=(0, 0, 1))
            .add_joint("j3", "revolute", "ground", "rocker", xyz=(0.45, 0, 0), axis=(0, 0, 1))
            .loop("coupler", "rocker", "point", offset1=(0.5, 0, 0), offset2=(0.4, 0, 0))
            .build(gravity=(0, -9.81, 0)))


#: Builds whose C takes more than the model: run-time inertial parameters (every function's ``params``),
#: contacts (``active``, with Baumgarte gains ``reference``) and a closed loop with an actuated joint.
DECLARED_BUILDS = {
    "parametric panda": lambda: rbdgen.generate(
        ROBOTS["panda"].path, floating=False, prefix="panda", parameters="all",
        ops=["gravity", "inverse_dynamics", "forward_dynamics", "mass_matrix"]),
    "solo12 contacts": lambda: rbdgen.generate(
        ROBOTS["solo12"].path, floating=True, prefix="solo12", baumgarte=(25.0, 10.0),
        contacts=[rbdgen.Contact("FL_FOOT"), rbdgen.Contact("HR_FOOT", "point", (0.0, 0.0, -0.015)),
                  rbdgen.Contact("HL_FOOT", "frame")], ops=["contact_dynamics", "impulse_dynamics"]),
    "fourbar loop": lambda: rbdgen.generate(
        _fourbar(), prefix="fourbar", damping=1e-9, baumgarte=(25.0, 10.0), actuated=["j1"],
        ops=["forward_dynamics", "loop_inverse_dynamics", "inverse_dynamics"]),
}


def declared_inputs(generated, n: int, seed: int = 5) -> dict:
    """`inputs` and what a declared build adds: the bodies' parameters (the model's, scaled per body by 0.5 to
    1.5: a physically consistent other robot), contacts active at random and their targets."""
    flat = inputs(generated.model, n, seed)
    rng = np.random.default_rng(seed)
    sizes = generated.manifest["sizes"]
    if "params" in sizes:
        own = rbdgen.parameters.parameter_vector(generated.model).reshape(-1, 10)
        flat["params"] = (own[None] * rng.uniform(0.5, 1.5, (n, len(own), 1))).reshape(n, -1)
    if "active" in sizes:
        flat["active"] = rng.integers(0, 2, (n, sizes["active"])).astype(float)
    if "reference" in sizes:
        reference, at = rng.normal(size=(n, sizes["reference"])), 0
        for contact in generated.contacts.contacts:  # a frame contact's target quaternion, normalised
            if contact.kind == "frame":
                reference[:, at + 3:at + 7] /= np.linalg.norm(reference[:, at + 3:at + 7], axis=1, keepdims=True)
            at += REFERENCE_SIZE[contact.kind]
        flat["reference"] = reference
    return flat


@pytest.mark.parametrize("build", DECLARED_BUILDS)
def test_declared_builds_equal_the_numpy_engine(build):
    """The JAX module follows every build the C follows: each function takes the C's inputs (``params``,
    ``active``, ``reference``; ``loads`` last) and equals the NumPy engine's pass on the build's tree."""
    generated = DECLARED_BUILDS[build]()
    module = generated.jax()
    flat = declared_inputs(generated, 8)
    tree = generated.tree
    for function_name, info in generated.manifest["operations"].items():
        function = module.FUNCTIONS[function_name]
        names = list(inspect.signature(function).parameters)
        assert set(names) == set(info["inputs"]), function_name
        assert "loads" not in names or names[-1] == "loads", function_name
        result = jax.vmap(function)(*[jnp.asarray(flat[n]) for n in names])
        assert not np.any(np.asarray(result["status"])), function_name
        columns = {n: list(np.ascontiguousarray(flat[n].T)) for n in names}
        values = evaluate(tree, NumpyOps(), info.get("operation", function_name), columns)
        ports = {p.name: p for p in operation(info.get("operation", function_name)).output_ports(tree.floating)}
        for out, vs in values.items():
            expected = np.stack([np.broadcast_to(v, (8,)) for v in vs], axis=1)
            close(flat_output(result[out], ports[out]), expected)


def test_parametric_functions_are_the_model_of_their_parameters():
    """A parametric build's JAX functions with other parameters equal the NumPy engine of the model that has
    them (folded): ``params`` is an input, not ignored."""
    generated = DECLARED_BUILDS["parametric panda"]()
    module = generated.jax()
    flat = declared_inputs(generated, 3)
    for k in range(3):
        other = rbdgen.NumpySolver(rbdgen.parameters.with_parameters(generated.model, flat["params"][k]))
        args = (flat["q"][k], flat["qd"][k], flat["tau"][k])
        close(np.asarray(module.forward_dynamics(*args, flat["params"][k])["acc"]), other.forward_dynamics(*args))
        close(np.asarray(module.gravity(flat["q"][k], flat["params"][k])["g"]), other.gravity(flat["q"][k]))
