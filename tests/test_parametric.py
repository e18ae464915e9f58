"""Builds with run-time inertial parameters (``parameters=``, `rbdgen.algorithms.parametric`): with the
URDF's own values they give the folded build's results bit for bit; with other values, the dynamics
of the model with those inertias (`rbdgen.parameters.with_parameters`) in C, NumPy and CasADi."""

from __future__ import annotations

import json

import numpy as np
import pytest

import rbdgen
from rbdgen import parameters
from rbdgen.testing import random_states
from conftest import TEST_FLAGS
from helpers import LOAD_OPERATIONS, model as robot_model
from test_mimic import _small
from test_regressor import _random_parameters
from robots import ROBOTS

CASES = {"panda": "all", "solo12": ["FL_FOOT", "base_link"], "mimic": "all"}


def _model(name):
    return rbdgen.load_urdf_string(_small("chain"), floating=True) if name == "mimic" else robot_model(name)


@pytest.fixture(scope="module")
def builds(build_cache):
    """name -> (model, folded CompiledSolver, parametric Generated, parametric CompiledSolver)."""
    out = {}
    for name, chosen in CASES.items():
        model = _model(name)
        folded = rbdgen.generate(model, prefix=name).compile(flags=TEST_FLAGS, cache=build_cache)
        generated = rbdgen.generate(model, prefix=f"{name}_parametric", parameters=chosen)
        out[name] = (model, folded, generated, generated.compile(flags=TEST_FLAGS, cache=build_cache))
    return out


@pytest.mark.parametrize("name", CASES)
def test_own_values_give_the_folded_results_bit_for_bit(builds, name):
    model, folded, _, parametric = builds[name]
    st = random_states(model, 20, seed=21, load_links=model.link_names[-1:])
    for op in rbdgen.DYNAMICS:
        loads = op in LOAD_OPERATIONS
        np.testing.assert_array_equal(st.call(parametric, op, loads=loads), st.call(folded, op, loads=loads),
                                      err_msg=op)


@pytest.mark.parametrize("name", CASES)
def test_other_values_give_that_model(builds, name):
    """C, the NumPy engine (batches and single states) and CasADi with random parameters on the chosen bodies
    against the NumPy engine of the model that has them."""
    model, _, generated, parametric = builds[name]
    bodies = parameters.parametric_bodies(model, CASES[name])
    pi = parameters.parameter_vector(model)
    chosen = _random_parameters(model, np.random.default_rng(22)).reshape(-1, 10)[list(bodies)]
    pi.reshape(-1, 10)[list(bodies)] = chosen
    reference = rbdgen.NumpySolver(parameters.with_parameters(model, pi))
    engine = rbdgen.NumpySolver(model, parameters=CASES[name])
    parametric.params = engine.params = chosen.reshape(-1)
    assert parametric.parameter_names == engine.parameter_names
    assert len(parametric.parameter_names) == 10 * len(bodies)
    st = random_states(model, 6, seed=23, load_links=model.link_names[-1:])
    for op in rbdgen.DYNAMICS:
        loads = op in LOAD_OPERATIONS
        expected = st.call(reference, op, loads=loads)
        tol = (1e-9 if "forward" in op else 1e-12) * max(1.0, np.abs(expected).max())
        for solver in (parametric, engine):
            np.testing.assert_allclose(st.call(solver, op, loads=loads), expected, rtol=0, atol=tol, err_msg=op)
        np.testing.assert_allclose(st.call(engine, op, 0, loads=loads), expected[0], rtol=0, atol=tol, err_msg=op)
    function = generated.casadi("inverse_dynamics")
    head = [np.concatenate([st.translation[0], st.quat[0], st.velocity[0], st.acceleration[0]])] if model.floating else []
    tau = np.array(function(*head, st.q[0], st.qd[0], st.qdd[0], np.zeros(6 * len(model.links)), chosen.reshape(-1)))
    np.testing.assert_allclose(tau[:, 0], reference.inverse_dynamics(*st.head(0), st.q[0], st.qd[0], st.qdd[0]),
                               rtol=0, atol=1e-12 * np.abs(tau).max())


def test_manifest_and_errors(builds):
    model, folded, generated, parametric = builds["solo12"]
    assert generated.manifest["options"]["parameters"] == ["base_link", "FL_LOWER_LEG"]
    assert generated.manifest["operations"]["gravity"]["inputs"] == ["base", "q", "loads", "params"]
    assert "params" not in folded.manifest["operations"]["gravity"]["inputs"]
    assert generated.manifest["sizes"]["params"] == 20
    with pytest.raises(ValueError, match="expected 20 finite values"):
        parametric.params = np.zeros(3)
    with pytest.raises(ValueError, match="expected 20 finite values"):
        parametric.params = np.full(20, np.nan)
    with pytest.raises(ValueError, match="no run-time parameters"):
        folded.params = np.zeros(0)
    with pytest.raises(ValueError, match="unknown link 'nope'"):
        rbdgen.generate(model, parameters=["nope"])
    with pytest.raises(ValueError, match="expected 'all' or a list of link names"):
        rbdgen.generate(model, parameters="some")
    with pytest.raises(ValueError, match="welded to the fixed base"):
        rbdgen.generate(robot_model("panda"), parameters=["panda_link0"])


def test_command_line(tmp_path, capsys, build_cache):
    from rbdgen.codegen import cli

    urdf = str(ROBOTS["panda"].path)
    assert cli.main(["generate", urdf, "-o", str(tmp_path / "bad"), "--parameters", "nope", "-q", "--no-compile"]) == 2
    assert "--parameters: unknown link 'nope'" in capsys.readouterr().err
    assert cli.main(["generate", urdf, "-o", str(tmp_path / "out"), "--parameters", "all", "-q", "--no-compile"]) == 0
    manifest = json.loads((tmp_path / "out" / "panda.json").read_text())
    assert manifest["options"]["parameters"] == [f"panda_link{k}" for k in range(1, 8)]
    solver = rbdgen.load(tmp_path / "out", flags=TEST_FLAGS, cache=build_cache)   # the written folder, parametric
    assert solver.parameter_names[0] == "panda_link1.m" and solver.params.shape == (70,)
    np.testing.assert_array_equal(solver.params, parameters.parameter_vector(robot_model("panda")))


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_a_pickle_or_copy_keeps_the_parameters_set(builds, engine):
    """A Dask worker's solver (a pickle) and a copy compute with the `params` set on the original, not the
    URDF's: the dynamics of the model with those inertias."""
    import copy
    import pickle

    model, _, _, compiled = builds["panda"]
    solver = compiled if engine == "compiled" else rbdgen.NumpySolver(model, parameters=CASES["panda"])
    pi = _random_parameters(model, np.random.default_rng(5))
    solver.params = pi
    q, qd, qdd = (np.random.default_rng(k).uniform(-1, 1, 7) for k in range(3))
    expected = rbdgen.NumpySolver(parameters.with_parameters(model, pi)).inverse_dynamics(q, qd, qdd)
    for other in (pickle.loads(pickle.dumps(solver)), copy.deepcopy(solver)):
        np.testing.assert_array_equal(other.params, pi)
        np.testing.assert_allclose(other.inverse_dynamics(q, qd, qdd), expected, rtol=1e-12, atol=1e-12)
