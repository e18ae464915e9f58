"""Solvers on Dask: a `CompiledSolver` pickles (its sources, not its library; unpickling goes through the build
cache and its checks), and the batched methods take dask arrays (`rbdgen.dask_arrays`): lazy results, one
``map_blocks`` a call, chunks along the states, equal to the NumPy call on the same states; a block's
errors name its states. examples/dask_identification.py runs small on a two-worker `LocalCluster` and
agrees with this process and with the truth it synthesised.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rbdgen
from rbdgen.errors import CacheError
from rbdgen.testing import random_states
from robots import ROBOTS

da = pytest.importorskip("dask.array")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "dask_identification.py"

N, CHUNK = 10, 4


def _unpickle_and_call(tmp_path, data: bytes, q) -> subprocess.CompletedProcess:
    """Unpickle ``data`` in a fresh process (nothing loaded yet) and save its inverse dynamics at ``q``."""
    (tmp_path / "solver.pickle").write_bytes(data)
    np.save(tmp_path / "q.npy", q)
    script = ("import pickle, sys, numpy as np; solver = pickle.load(open(sys.argv[1], 'rb')); "
              "np.save(sys.argv[2], solver.inverse_dynamics(np.load(sys.argv[3]), np.ones(7), np.ones(7)))")
    return subprocess.run([sys.executable, "-c", script, str(tmp_path / "solver.pickle"),
                           str(tmp_path / "tau.npy"), str(tmp_path / "q.npy")], capture_output=True, text=True)


def test_a_compiled_solver_pickles_its_sources_not_its_library(compiled, build_cache, tmp_path):
    solver = compiled("panda")
    data = pickle.dumps(solver)
    assert b"\x7fELF" not in data and b"panda_mass_matrix" in data  # the C sources travel
    entries = _entries(build_cache)
    q = np.linspace(-1.0, 1.0, 7)
    done = _unpickle_and_call(tmp_path, data, q)
    assert done.returncode == 0, done.stderr
    reference = rbdgen.NumpySolver(solver.model).inverse_dynamics(q, np.ones(7), np.ones(7))
    np.testing.assert_allclose(np.load(tmp_path / "tau.npy"), reference, rtol=1e-12, atol=1e-12)
    assert _entries(build_cache) == entries  # loaded from the cache, not built again


def _entries(cache):
    """The cache's finished entries (other test workers' private ``.build-*`` folders come and go)."""
    return sorted(p.name for p in cache.iterdir() if not p.name.startswith("."))


def test_unpickling_keeps_the_build_cache_checks(compiled, build_cache, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    solver = compiled("panda")
    manifest, files, flags, _ = solver.__reduce__()[1]
    data = pickle.dumps(rbdgen.CompiledSolver(manifest, files, flags, cache))
    os.chmod(cache, 0o777)  # now anyone may write there: refused, never loaded
    done = _unpickle_and_call(tmp_path, data, np.zeros(7))
    assert done.returncode != 0 and "CacheError" in done.stderr and "writable" in done.stderr, done.stderr
    assert not (tmp_path / "tau.npy").exists()


class _Recipe:
    """Pickles as a `CompiledSolver` of any recipe, as a tampered pickle of one would."""

    def __init__(self, recipe):
        self.recipe = recipe

    def __reduce__(self):
        return rbdgen.CompiledSolver, self.recipe


HOSTILE = ['a"; import os #', "x*/ evil /*", "line\nbreak", "\u00e9t\u00e9", "../../evil"]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_tampered_pickle_compiles_nothing(compiled, tmp_path, hostile):
    """A pickle's recipe is checked as a folder is (`rbdgen.load`): a hostile prefix, a source name that is not
    a plain ``<identifier>.c`` (a path, a comment, a newline, unicode), a model that is not the manifest's or
    shapes that are not numbers (they reach the entry source) is a ManifestError before anything is written or
    compiled."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    manifest, files, flags, _ = compiled("panda").__reduce__()[1]
    evil = "int evil(void) { return 1; }\n"
    recipes = [({**manifest, "prefix": hostile}, files),
               (manifest, {**files, f"{hostile}.c": evil}),
               (manifest, {**files, hostile: evil}),
               ({**manifest, "model": {**manifest["model"], "name": hostile}}, files),
               ({**manifest, "shapes": {**manifest["shapes"], next(iter(manifest["shapes"])): [hostile, 7]}}, files),
               ({**manifest, "shapes": {**manifest["shapes"], hostile: [1, 1]}}, files)]
    for recipe_manifest, recipe_files in recipes:
        data = pickle.dumps(_Recipe((recipe_manifest, recipe_files, flags, cache)))
        with pytest.raises(rbdgen.errors.ManifestError):
            pickle.loads(data)
        assert not any(cache.iterdir())  # nothing written, nothing compiled


def test_the_numpy_engine_pickles_as_its_model_and_declarations():
    """The model and the contacts' settings travel: a worker's contact dynamics are the same (damped, so a
    lost declaration would show)."""
    feet = [rbdgen.Contact(f"{leg}_FOOT") for leg in ("FL", "FR", "HL")]
    engine = rbdgen.NumpySolver(rbdgen.load_urdf(ROBOTS["solo12"].path, floating=True), contacts=feet,
                                baumgarte=(0.0, 3.0), damping=(1e-6, 5))
    st = random_states(engine, 3, seed=2)
    active = np.ones((3, 3))
    expected = engine.contact_dynamics(st.base, st.q, st.qd, st.tau, active)
    copy = pickle.loads(pickle.dumps(engine))
    assert type(copy) is type(engine) and copy.model.digest == engine.model.digest
    for value, reference in zip(copy.contact_dynamics(st.base, st.q, st.qd, st.tau, active), expected):
        np.testing.assert_array_equal(value, reference)


def _arguments(solver, st):
    """Per operation of ``solver``: positional arguments of a batch and its loads (or None)."""
    values = {"base": st.base, "q": st.q, "qd": st.qd, "qdd": st.qdd, "tau": st.tau}
    calls = {}
    for op in solver.operations:
        names = rbdgen.algorithms.operations.operation(op).input_names(solver.floating)
        calls[op] = (tuple(values[n] for n in names if n != "loads"), st.loads if "loads" in names else None)
    return calls


def _lazy(value):
    """``value`` (an array or a `BaseState`) with its arrays as dask arrays of `CHUNK` states a chunk."""
    if isinstance(value, rbdgen.BaseState):
        return dataclasses.replace(value, translation=_lazy(value.translation), velocity=_lazy(value.velocity))
    return da.from_array(value, chunks=(CHUNK,) + value.shape[1:])


def test_every_batched_method_takes_dask_arrays(compiled):
    solver = compiled("solo12")
    st = random_states(solver, N, seed=3, load_links=solver.link_names)
    for op, (args, loads) in _arguments(solver, st).items():
        expected = getattr(solver, op)(*args, **({} if loads is None else {"loads": loads}))
        lazy = getattr(solver, op)(*(_lazy(a) for a in args), **({} if loads is None else {"loads": _lazy(loads)}))
        pairs = [(lazy[k], expected[k]) for k in expected] if isinstance(expected, dict) else [(lazy, expected)]
        for got, want in pairs:
            assert isinstance(got, da.Array), op
            assert got.chunks[0] == (4, 4, 2), op
            assert sum(name.startswith("rbdgen-") for name in got.dask.layers) == 1, op  # one map_blocks
            np.testing.assert_array_equal(got.compute(), want, err_msg=op)


def test_dask_results_are_lazy_and_computed_once_a_block(compiled, monkeypatch):
    solver = compiled("panda")
    st = random_states(solver, N, seed=4)
    calls = []
    evaluate = solver._evaluate
    monkeypatch.setattr(solver, "_evaluate", lambda *a, **k: calls.append(1) or evaluate(*a, **k))
    terms = solver.passive_terms(_lazy(st.q), st.qd)  # a NumPy batch beside a dask one: cut alike
    assert calls == []
    M, g, c = da.compute(terms["mass_matrix"], terms["gravity"], terms["velocity_product_forces"])
    assert len(calls) == 3  # one evaluation per block for all three results
    reference = rbdgen.NumpySolver(solver.model)
    np.testing.assert_allclose(M, reference.mass_matrix(st.q), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, reference.gravity(st.q), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c, reference.velocity_product_forces(st.q, st.qd), rtol=1e-12, atol=1e-12)


def test_dask_masks_and_single_states(compiled):
    solver = compiled("panda")
    st = random_states(solver, N, seed=5)
    mask = np.arange(N) % 3 == 0
    got = solver.inverse_dynamics(_lazy(st.q), st.qd[0], st.qdd[0], mask=_lazy(mask)).compute()
    expected = solver.inverse_dynamics(st.q, np.broadcast_to(st.qd[0], st.q.shape),
                                       np.broadcast_to(st.qdd[0], st.q.shape), mask=mask)
    np.testing.assert_array_equal(got, expected)
    assert not got[~mask].any() and np.abs(got[mask]).min() > 0


def test_dask_errors(compiled):
    solver = compiled("panda")
    q = random_states(solver, N, seed=6).q
    bad = q.copy()
    bad[9, 2] = np.nan
    lazy = solver.gravity(_lazy(bad))  # the NaN is in the last block, states 8 and 9
    with pytest.raises(ValueError, match="states 8 to 9 of the batch: q: contains a non-finite value"):
        lazy.compute()
    with pytest.raises(TypeError, match="out= cannot receive a lazy result"):
        solver.gravity(_lazy(q), out=np.empty((N, 7)))
    with pytest.raises(ValueError, match="q: a dask array must be a batch of 2 dimensions"):
        solver.gravity(da.from_array(q[0]))
    with pytest.raises(ValueError, match="different batch sizes"):
        solver.velocity_product_forces(_lazy(q), q[:5])
    with pytest.raises(TypeError, match="mask: expected a boolean array"):
        solver.gravity(_lazy(q), mask=_lazy(np.ones(N)))
    with pytest.raises(TypeError, match="q: expected real numbers .float or integer., got a dask array of complex128"):
        solver.gravity(_lazy(q + 1j))  # when called, not at compute()
    up = _lazy(q)[_lazy(q)[:, 0] > 0]  # boolean indexing: the number of states is unknown until computed
    with pytest.raises(ValueError, match=r"q: a dask array of unknown chunk sizes .* compute_chunk_sizes\(\) first"):
        solver.gravity(up)
    up.compute_chunk_sizes()
    assert np.array_equal(solver.gravity(up).compute(), solver.gravity(q[q[:, 0] > 0]))


def test_example_identifies_on_a_local_cluster(build_cache):
    pytest.importorskip("dask.distributed")
    spec = importlib.util.spec_from_file_location("dask_identification", EXAMPLE)
    example = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.identify(states=40_000, chunk=10_000, workers=2, cache=build_cache)
    assert result.torques_equal  # the cluster's inverse dynamics is this process's, bit for bit
    assert result.reference_error < 1e-12  # and the NumPy engine's
    np.testing.assert_allclose(result.viscous, result.viscous_local, rtol=1e-9)
    np.testing.assert_allclose(result.coulomb, result.coulomb_local, rtol=1e-9)
    # the truth the log was made with, within the noise's statistical error (sigma 0.05 N m, 40,000 states)
    np.testing.assert_allclose(result.viscous, example.TRUE_VISCOUS, atol=0.01)
    np.testing.assert_allclose(result.coulomb, example.TRUE_COULOMB, atol=0.01)


def test_dask_scaling_benchmark_runs_small(capsys):
    pytest.importorskip("dask.distributed")
    from benchmarks import dask_scaling

    assert dask_scaling.main(["--states", "4000", "--chunk", "1000", "--rounds", "1"]) == 0
    table = capsys.readouterr().out
    assert "| Dask, 2 local workers |" in table and "| one process, one thread |" in table


def test_dask_contact_targets_with_baumgarte_gains():
    """Where kp is not zero `reference` is a positional batch too: as a dask array or a NumPy one beside dask
    states, the same forces as the NumPy call."""
    import dask.array as da

    feet = [rbdgen.Contact(f"{leg}_FOOT") for leg in ("FL", "FR", "HL")]
    engine = rbdgen.NumpySolver(rbdgen.load_urdf(ROBOTS["solo12"].path, floating=True), contacts=feet,
                                baumgarte=(2.0, 3.0))
    st = random_states(engine, 8, seed=4)
    active, reference = np.ones((8, 3)), np.random.default_rng(4).normal(size=(8, 9))
    expected = engine.contact_dynamics(st.base, st.q, st.qd, st.tau, active, reference)
    for target in (reference, da.from_array(reference, chunks=(CHUNK, 9))):
        got = engine.contact_dynamics(_lazy(st.base), da.from_array(st.q, chunks=(CHUNK, 12)), st.qd, st.tau,
                                      active, target)
        for value, want in zip(got, expected):
            np.testing.assert_allclose(value.compute(), want, rtol=1e-13, atol=1e-13)
