"""CasADi output (`Generated.casadi` / `Generated.write_casadi`) on panda (fixed) and solo12 (floating).

* every operation's ``casadi.Function`` against the NumPy engine at random states with
  loads on several links (normwise relative error: M, ID, g, C within 1e-12, both forward
  dynamics within 1e-10), the states evaluated in one ``Function.map`` call;
* the functions evaluate on numbers (DM), on SX and on MX symbols (an MX graph that calls
  them, evaluated through a new ``casadi.Function``; CasADi's MX AD through the call:
  dID/dqdd equals the mass matrix);
* they drop into ``casadi.Opti``: minimising ||ID(q, qd, acc)||^2 + rho ||acc||^2 over the
  accelerations (base acceleration included for solo12) with IPOPT gives the closed form
  ``-(M^T M + rho I)^-1 M^T ID(q, qd, 0)``, i.e. ``FD(q, qd, 0)`` up to O(rho);
* ``.casadi`` files from ``write_casadi`` load with ``casadi.Function.load`` in a Python
  where ``import rbdgen`` is blocked and give the same numbers;
* input and output names, order and shapes as documented in ``rbdgen.codegen.casadi.emit_casadi``
  and ``rbdgen.algorithms.operations``.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ca = pytest.importorskip("casadi")

from helpers import LOAD_LINKS, LOOSE, TIGHT, call_reference, pinocchio, random_states, rel_error, solver  # noqa: E402
from rbdgen.algorithms.operations import OPERATIONS as RECORDS  # noqa: E402
from rbdgen.codegen.generator import ALL_OPERATIONS, DERIVATIVE_OPERATIONS  # noqa: E402
from robots import ROBOTS  # noqa: E402

#: The derivatives of the dynamics (G rows; the kinematics derivatives: test_kinematics_derivatives).
DYNAMICS_DERIVATIVES = tuple(op for op in DERIVATIVE_OPERATIONS if RECORDS[op].of in ALL_OPERATIONS)

NAMES = ["panda", "solo12"]
SAMPLES = 6

#: The documented signatures (emit_casadi / operations docstrings), written out here on
#: purpose rather than read from the library: (inputs, outputs, outputs of a floating base only).
DOCUMENTED = {
    "mass_matrix": (("q",), ("M",), ()),
    "velocity_product_forces": (("q", "qd"), ("c",), ()),
    "gravity": (("q", "loads"), ("g",), ()),
    "inverse_dynamics": (("q", "qd", "qdd", "loads"), ("tau",), ()),
    "forward_dynamics": (("q", "qd", "tau", "loads"), ("acc",), ()),
    "forward_dynamics_crba": (("q", "qd", "tau", "loads"), ("acc",), ()),
    "passive_terms": (("q", "qd"), ("M", "g", "c"), ()),
    "inverse_dynamics_derivatives": (("q", "qd", "qdd", "loads"), ("dtau_dq", "dtau_dqd", "dtau_dqdd"),
                                     ("dtau_dbase_velocity", "dtau_dbase_acceleration", "dtau_dbase_rotation")),
    "forward_dynamics_derivatives": (("q", "qd", "tau", "loads"), ("dacc_dq", "dacc_dqd", "dacc_dtau"),
                                     ("dacc_dbase_velocity", "dacc_dbase_rotation")),
}

#: NumPy-engine outputs of `passive_terms` by CasADi output name.
PASSIVE_KEYS = {"M": "mass_matrix", "g": "gravity", "c": "velocity_product_forces"}


# -- helpers (test_derivatives.py uses them too) ---------------------------------------------------
def casadi_map(f, inputs: dict) -> dict:
    """Evaluate ``f`` on a batch in one call (``Function.map``): ``{output: (N, rows, cols)}``.

    ``inputs`` maps (at least) ``f``'s input names to ``(N, size)`` arrays.
    """
    N = next(iter(inputs.values())).shape[0]
    out = f.map(N)(**{name: ca.DM(np.asarray(inputs[name], float).T) for name in f.name_in()})
    result = {}
    for k, name in enumerate(f.name_out()):
        rows, cols = f.size1_out(k), f.size2_out(k)
        dense = np.asarray(ca.densify(out[name]).full())
        result[name] = dense.reshape(rows, N, cols).transpose(1, 0, 2)
    return result


@functools.lru_cache(maxsize=None)
def _generated(name: str):
    import rbdgen

    robot = ROBOTS[name]
    # the CasADi functions need no C: generate one cheap operation, ask for any op by name
    return rbdgen.generate(robot.path, ops=["mass_matrix"], prefix=name, floating=robot.floating)


@functools.lru_cache(maxsize=None)
def casadi_function(name: str, op: str):
    return _generated(name).casadi(op)


@functools.lru_cache(maxsize=None)
def states(name: str, n: int = SAMPLES):
    return random_states(solver(name), n, seed=900 + NAMES.index(name), load_links=LOAD_LINKS[name])


def numpy_reference(name: str, op: str, st) -> dict:
    """The NumPy engine's results of ``op`` on the batch ``st``, by CasADi output name, ``(N, rows, cols)``."""
    s = solver(name)
    head = st.head()
    if op == "passive_terms":
        res = s.passive_terms(*head, st.q, st.qd)
        out = {k: res[v] for k, v in PASSIVE_KEYS.items()}
    else:
        args = {"mass_matrix": (st.q,), "velocity_product_forces": (st.q, st.qd), "gravity": (st.q,),
                "inverse_dynamics": (st.q, st.qd, st.qdd), "forward_dynamics": (st.q, st.qd, st.tau),
                "forward_dynamics_crba": (st.q, st.qd, st.tau)}[op]
        kwargs = {"loads": st.loads} if "loads" in DOCUMENTED[op][0] else {}
        (key,) = DOCUMENTED[op][1]
        out = {key: getattr(s, op)(*head, *args, **kwargs)}
    return {k: (v if v.ndim == 3 else v[:, :, None]) for k, v in out.items()}


def tolerance(op: str) -> float:
    return LOOSE if op.startswith("forward_dynamics") else TIGHT


def worst_error(got: np.ndarray, ref: np.ndarray) -> float:
    """Worst per-state normwise relative error of two ``(N, rows, cols)`` batches."""
    return max(rel_error(g, r) for g, r in zip(got, ref))


# -- accuracy on numbers ---------------------------------------------------------------------------
@pytest.mark.parametrize("op", ALL_OPERATIONS)
@pytest.mark.parametrize("name", NAMES)
def test_matches_numpy_engine(name, op):
    f = casadi_function(name, op)
    st = states(name)
    got = casadi_map(f, st.flat())
    ref = numpy_reference(name, op, st)
    assert set(got) == set(ref)
    for key in ref:
        err = worst_error(got[key], ref[key])
        assert err <= tolerance(op), f"{name} {op} {key}: relative error {err:.3e}"


@pytest.mark.parametrize("op", ALL_OPERATIONS)
@pytest.mark.parametrize("name", NAMES)
def test_matches_pinocchio(name, op):
    """The CasADi functions against Pinocchio itself (`test_matches_numpy_engine` compares the same traced
    algorithms), with the states' loads where the operation takes them."""
    pytest.importorskip("pinocchio")
    st, p = states(name), pinocchio(name)
    got = casadi_map(casadi_function(name, op), st.flat())
    references = PASSIVE_KEYS if op == "passive_terms" else {DOCUMENTED[op][1][0]: op}
    assert set(got) == set(references)
    for key, reference_op in references.items():
        loads = op != "passive_terms" and "loads" in DOCUMENTED[op][0]
        for i in range(st.n):
            expected = call_reference(p, reference_op, st, i, loads=loads)
            err = rel_error(got[key][i].reshape(expected.shape), expected)
            assert err <= tolerance(op), f"{name} {op} {key} state {i}: relative error {err:.3e}"


@pytest.mark.parametrize("name", NAMES)
def test_single_call_on_numbers(name):
    """A plain call on NumPy arrays gives DM; positional and keyword calls agree with the map."""
    st = states(name)
    inputs = st.flat()
    f = casadi_function(name, "inverse_dynamics")
    args = [inputs[n][0] for n in f.name_in()]
    tau = f(*args)
    assert isinstance(tau, ca.DM) and tau.shape == (solver(name).generalized_count, 1)
    assert np.array_equal(np.asarray(f(*[ca.DM(a) for a in args])), np.asarray(tau))
    by_name = f(**{n: inputs[n][0] for n in f.name_in()})["tau"]
    assert np.array_equal(np.asarray(tau), np.asarray(by_name))
    assert np.array_equal(np.asarray(tau)[:, 0], casadi_map(f, inputs)["tau"][0, :, 0])


# -- symbolic evaluation ----------------------------------------------------------------------------
def _symbols(f, kind):
    return [kind.sym(n, f.size1_in(i), f.size2_in(i)) for i, n in enumerate(f.name_in())]


@pytest.mark.parametrize("kind", ["SX", "MX"])
@pytest.mark.parametrize("op", ALL_OPERATIONS)
@pytest.mark.parametrize("name", NAMES)
def test_symbolic_evaluation(name, op, kind):
    """``f(symbols)`` builds an SX expression / an MX graph; a new Function of it gives ``f``'s numbers."""
    f = casadi_function(name, op)
    cls = getattr(ca, kind)
    syms = _symbols(f, cls)
    outs = f(*syms)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    assert all(isinstance(o, cls) for o in outs)
    g = ca.Function(f"{kind}_{op}", syms, outs, f.name_in(), f.name_out())
    if kind == "SX":
        assert g.is_a("SXFunction")
    else:
        assert g.is_a("MXFunction")
    st = states(name, 3)
    inputs = st.flat()
    direct, composed = casadi_map(f, inputs), casadi_map(g, inputs)
    for key in direct:
        err = worst_error(composed[key], direct[key])
        assert err <= 1e-14, f"{name} {op} {key} on {kind}: {err:.3e}"


@pytest.mark.parametrize("name", NAMES)
def test_mx_differentiation_through_the_call(name):
    """MX AD through the SX call node: d ID / d qdd = M[:, joints] (and d ID / d base acceleration
    = M[:, base] for solo12); a composite MX expression evaluates as expected."""
    f_id, f_m = casadi_function(name, "inverse_dynamics"), casadi_function(name, "mass_matrix")
    syms = dict(zip(f_id.name_in(), _symbols(f_id, ca.MX)))
    tau = f_id(*syms.values())
    blocks = [ca.jacobian(tau, syms["qdd"])]
    if "base" in syms:
        blocks.insert(0, ca.jacobian(tau, syms["base"])[:, 13:19])
    jac = ca.Function("id_jacobian", list(syms.values()), [ca.horzcat(*blocks), ca.sumsqr(tau)], list(syms), ["J", "e"])
    st = states(name, 3)
    inputs = st.flat()
    got = casadi_map(jac, inputs)
    M = casadi_map(f_m, inputs)["M"]
    assert worst_error(got["J"], M) <= TIGHT
    tau_ref = solver(name).inverse_dynamics(*st.head(), st.q, st.qd, st.qdd, loads=st.loads)
    assert np.allclose(got["e"][:, 0, 0], np.sum(tau_ref ** 2, axis=1), rtol=1e-12)


# -- optimisation ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_opti_minimum_torque_acceleration(name):
    """min_acc ||ID(q, qd, acc)||^2 + rho ||acc||^2 (rho = 1e-15) with casadi.Opti and IPOPT: the solution is
    ``-(M^T M + rho I)^-1 M^T b`` with ``b = ID(q, qd, 0)`` (1e-8) and, rho being tiny,
    the forward dynamics ``FD(q, qd, tau=0)`` (1e-6)."""
    s = solver(name)
    f = casadi_function(name, "inverse_dynamics")
    st = states(name, 1)
    inputs = {k: v[0] for k, v in st.flat().items()}
    J, G = s.joint_count, s.generalized_count
    rho = 1e-15  # solo12: sigma_min(M)^2 ~ 1e-8, so FD is within ~rho / sigma^2 of the optimum

    opti = ca.Opti()
    acc = opti.variable(G)
    q, qd = opti.parameter(J), opti.parameter(J)
    opti.set_value(q, inputs["q"])
    opti.set_value(qd, inputs["qd"])
    args = {"q": q, "qd": qd, "qdd": acc[G - J:], "loads": ca.DM(inputs["loads"])}
    if s.floating:
        base = opti.parameter(13)
        opti.set_value(base, inputs["base"][:13])
        args["base"] = ca.vertcat(base, acc[:6])  # pose and velocity given, acceleration optimised
    tau = f(**args)["tau"]
    opti.minimize(ca.sumsqr(tau) + rho * ca.sumsqr(acc))
    opti.solver("ipopt", {"print_time": False}, {"print_level": 0, "sb": "yes", "tol": 1e-12})
    sol = opti.solve()
    assert sol.stats()["return_status"] == "Solve_Succeeded"
    got = np.asarray(sol.value(acc)).reshape(G)

    zero = np.zeros_like(st.qdd[0])
    head = st.head(0)
    if s.floating:  # ID's base acceleration is an input: zero it for the bias
        b0 = head[0]
        head = (type(b0)(b0.translation, b0.rotation_xyzw, b0.velocity, np.zeros(6)),)
    M = s.mass_matrix(*head, st.q[0])
    b = s.inverse_dynamics(*head, st.q[0], st.qd[0], zero, loads=st.loads[0])
    closed = -np.linalg.solve(M.T @ M + rho * np.eye(G), M.T @ b)
    assert rel_error(got, closed) <= 1e-8
    fd = s.forward_dynamics(*head, st.q[0], st.qd[0], np.zeros(G), loads=st.loads[0])
    assert rel_error(got, fd) <= 1e-6


# -- saved functions ---------------------------------------------------------------------------------
LOADER = textwrap.dedent("""
    import importlib.abc, json, sys

    class BlockRbdgen(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname == "rbdgen" or fullname.startswith("rbdgen."):
                raise ImportError(f"{fullname} is blocked in this process")
            return None

    sys.meta_path.insert(0, BlockRbdgen())
    try:
        import rbdgen  # noqa: F401
    except ImportError:
        pass
    else:
        raise SystemExit("rbdgen could be imported")

    import casadi as ca
    import numpy as np

    paths, data, out = sys.argv[1], sys.argv[2], sys.argv[3]
    inputs = np.load(data)
    results = {}
    for path in json.loads(open(paths).read()):
        f = ca.Function.load(path)
        res = f.map(inputs["q"].shape[0])(**{n: ca.DM(inputs[n].T) for n in f.name_in()})
        for k, n in enumerate(f.name_out()):
            results[f"{f.name()}:{n}"] = np.asarray(ca.densify(res[n]).full())
        results[f"{f.name()}:names"] = np.array(list(f.name_in()) + ["->"] + list(f.name_out()))
    assert not [m for m in sys.modules if m == "rbdgen" or m.startswith("rbdgen.")]
    np.savez(out, **results)
    print("ok", len(results))
""")


@pytest.mark.parametrize("name", NAMES)
def test_write_casadi_loads_without_rbdgen(name, tmp_path):
    ops = ALL_OPERATIONS + DYNAMICS_DERIVATIVES
    gen = _generated(name)
    written = gen.write_casadi(tmp_path / "functions", ops)
    assert [p.name for p in written] == [f"{name}_{op}.casadi" for op in ops]
    with pytest.raises(FileExistsError):
        gen.write_casadi(tmp_path / "functions", ["mass_matrix"])
    st = states(name, 3)
    inputs = st.flat()
    (tmp_path / "paths.json").write_text(json.dumps([str(p) for p in written]))
    np.savez(tmp_path / "inputs.npz", **inputs)
    script = tmp_path / "load.py"
    script.write_text(LOADER)
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "paths.json"), str(tmp_path / "inputs.npz"),
                           str(tmp_path / "out.npz")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    loaded = np.load(tmp_path / "out.npz")
    for op in ops:
        f = casadi_function(name, op)
        names = list(loaded[f"{name}_{op}:names"])
        assert names == list(f.name_in()) + ["->"] + list(f.name_out())
        expected = f.map(st.n)(**{n: ca.DM(inputs[n].T) for n in f.name_in()})
        for n in f.name_out():
            ref = np.asarray(ca.densify(expected[n]).full())
            assert rel_error(loaded[f"{name}_{op}:{n}"], ref) <= 1e-15, f"{op} {n}"


# -- names and shapes ---------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ALL_OPERATIONS + DYNAMICS_DERIVATIVES)
@pytest.mark.parametrize("name", NAMES)
def test_documented_names_and_shapes(name, op):
    s = solver(name)
    floating = ROBOTS[name].floating
    J, G, L = s.joint_count, s.generalized_count, s.link_count
    f = casadi_function(name, op)
    inputs, outputs, base_outputs = DOCUMENTED[op]
    inputs = (("base",) if floating else ()) + inputs
    outputs = outputs + (base_outputs if floating else ())
    assert f.name() == f"{name}_{op}"
    assert tuple(f.name_in()) == inputs
    assert tuple(f.name_out()) == outputs
    size = {"base": 19, "q": J, "qd": J, "qdd": J, "tau": G, "loads": 6 * L}
    for k, n in enumerate(inputs):
        assert (f.size1_in(k), f.size2_in(k)) == (size[n], 1), n
    cols = {"q": J, "qd": J, "qdd": J, "tau": G, "base_velocity": 6, "base_acceleration": 6, "base_rotation": 3}
    for k, n in enumerate(outputs):
        if n == "M":
            shape = (G, G)
        elif n.startswith("d"):
            shape = (G, cols[n.split("_d", 1)[1]])
        else:
            shape = (G, 1)
        assert (f.size1_out(k), f.size2_out(k)) == shape, n


# -- non-finite inputs and models that always fail -------------------------------------------------
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
@pytest.mark.parametrize("op", ALL_OPERATIONS + DYNAMICS_DERIVATIVES)
@pytest.mark.parametrize("name", NAMES)
def test_non_finite_input_gives_nan_everywhere(name, op, bad):
    """The C refuses a non-finite input (status 1); the CasADi function, which has no status, returns NaN in
    every stored entry of every output, including where an output does not depend on that input (Panda's
    first joint turns about gravity: its dynamics do not depend on q[0], which a NaN there used to leave
    unnoticed, the result equal to the clean input's)."""
    f = casadi_function(name, op)
    clean = {n: np.asarray(v[0], float) for n, v in states(name).flat().items() if n in f.name_in()}
    for arg in f.name_in():
        for k in sorted({0, clean[arg].size - 1}):
            args = {n: v.copy() for n, v in clean.items()}
            args[arg][k] = bad
            out = f(**args)
            for key in f.name_out():
                values = np.array(out[key].nonzeros())
                assert values.size and np.isnan(values).all(), (arg, k, key)


def test_panda_first_joint_nan_reaches_forward_dynamics():
    """The case reported: forward dynamics of Panda with q[0] = NaN (the dynamics do not depend on q[0])."""
    f = casadi_function("panda", "forward_dynamics")
    q = np.full(7, 0.1)
    acc = np.array(f(q, np.zeros(7), np.ones(7), np.zeros(f.size1_in(3)))).ravel()
    q[0] = 0.7  # a finite change of q[0] changes nothing: no structural dependence to carry a NaN
    np.testing.assert_array_equal(np.array(f(q, np.zeros(7), np.ones(7), np.zeros(f.size1_in(3)))).ravel(), acc)
    assert np.isfinite(acc).all()
    q[0] = np.nan
    assert np.isnan(np.array(f(q, np.zeros(7), np.ones(7), np.zeros(f.size1_in(3))))).all()


def test_massless_tip_gives_nan_forward_dynamics(caplog):
    """A massless moving tip: the C's forward dynamics return status 2 for every state; the CasADi ones
    (and their derivatives) are NaN, with the generator's warning, instead of a ZeroDivisionError while
    tracing; the other operations match the NumPy engine."""
    import rbdgen
    from models import chain

    model = rbdgen.load_urdf_string(chain())
    generated = rbdgen.generate(model, ops=["mass_matrix"])
    q, qd, qdd, loads = np.array([0.3, -0.4]), np.array([0.5, 0.1]), np.array([1.0, 2.0]), np.zeros(18)
    for op in ("forward_dynamics", "forward_dynamics_crba", "forward_dynamics_derivatives"):
        with caplog.at_level("WARNING", logger="rbdgen.codegen.casadi.sx"):
            f = generated.casadi(op)
        assert "for every state; the CasADi function returns NaN" in caplog.text
        out = f(**dict(zip(f.name_in(), (q, qd, qdd, loads))))
        for key in f.name_out():
            assert np.isnan(np.array(out[key])).all(), (op, key)
    s = rbdgen.NumpySolver(model)
    assert rel_error(np.array(generated.casadi("inverse_dynamics")(q, qd, qdd, loads)).ravel(),
                     s.inverse_dynamics(q, qd, qdd)) <= TIGHT
    M = np.array(generated.casadi("mass_matrix")(q))
    assert M[1, 1] == 0 and rel_error(M, s.mass_matrix(q)) <= TIGHT
