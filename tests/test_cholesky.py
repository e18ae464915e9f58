"""The checked Cholesky solver: NumPy reference vs the generated C.

The C fragment ``templates/c/cholesky.c.j2`` is rendered (`c.cholesky_source`), wrapped in a
non-static shim and compiled once per session with cffi (API mode, ``-O1``,
``-ffp-contract=off``), for ``double`` and for ``float``.
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rbdgen.algorithms import cholesky as ch
from rbdgen.errors import (
    IllConditionedError,
    InvalidInputError,
    NonFiniteError,
    SingularError,
)

jinja2 = pytest.importorskip("jinja2")
cffi = pytest.importorskip("cffi")

log = logging.getLogger(__name__)

DOUBLE = dict(real="double")
FLOAT = dict(real="float")
CFLAGS = ["-O1", "-std=c99", "-ffp-contract=off"]


def render(real: str, fixed=()) -> str:
    from rbdgen.codegen.c import cholesky_source

    return cholesky_source("t", real, fixed)


def _shim(real: str) -> str:
    return (
        f"int t_solve(int n, const {real} *A, const {real} *b, {real} *x, {real} *work)"
        " { return t_cholesky_solve(n, 1, A, b, x, work); }\n"
        f"int t_solve_many(int n, int m, const {real} *A, const {real} *b, {real} *x, {real} *work)"
        " { return t_cholesky_solve(n, m, A, b, x, work); }\n"
        "int t_work(int n) { return RBDGEN_t_CHOLESKY_WORK_SIZE(n); }\n"
    )


#: Copies of the solver with fixed sizes (n, m) that `clib_fixed` holds besides the generic one.
FIXED_SIZES = [(1, 3), (2, 1), (6, 1), (6, 4), (8, 2)]


def _fixed_shim(real: str) -> str:
    """``t_solve_fixed(n, m, ...)``: the copy for (n, m) of `FIXED_SIZES` (-1 for another size)."""
    calls = "".join(f"    if (n == {n} && m == {m}) return t_cholesky_solve_{n}x{m}(A, b, x, work);\n"
                    for n, m in FIXED_SIZES)
    return (f"int t_solve_fixed(int n, int m, const {real} *A, const {real} *b, {real} *x, {real} *work)\n"
            f"{{\n{calls}    return -1;\n}}\n")


def _build(tmp: Path, name: str, params: dict, fixed: bool = False):
    real = params["real"]
    ffi = cffi.FFI()
    ffi.cdef(
        f"int t_solve(int n, const {real} *A, const {real} *b, {real} *x, {real} *work);"
        f"int t_solve_many(int n, int m, const {real} *A, const {real} *b, {real} *x, {real} *work);"
        "int t_work(int n);"
        + (f"int t_solve_fixed(int n, int m, const {real} *A, const {real} *b, {real} *x, {real} *work);"
           if fixed else "")
    )
    if fixed:
        source = render(**params, fixed=FIXED_SIZES) + "\n" + _shim(real)
        source += _fixed_shim(real)
    else:
        source = render(**params) + "\n" + _shim(real)
    # the fixed copies are meant to be unrolled: build them at -O2 (still without contraction)
    ffi.set_source(name, source, extra_compile_args=CFLAGS + (["-O2"] if fixed else []))
    path = ffi.compile(tmpdir=str(tmp))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def clib(tmp_path_factory):
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    return _build(tmp_path_factory.mktemp("chol_double"), "_rbdgen_test_chol_d", DOUBLE)


@pytest.fixture(scope="session")
def clib_fixed(tmp_path_factory):
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    return _build(tmp_path_factory.mktemp("chol_fixed"), "_rbdgen_test_chol_fixed", DOUBLE, fixed=True)


@pytest.fixture(scope="session")
def clib_float(tmp_path_factory):
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    return _build(tmp_path_factory.mktemp("chol_float"), "_rbdgen_test_chol_f", FLOAT)


def c_solve(mod, A, b, dtype=np.float64, slack=0):
    """Call the C solver on one matrix; returns (x, status, work)."""
    A = np.asarray(A, dtype=dtype)
    n = A.shape[0]
    a = np.ascontiguousarray(A.T).ravel()  # column-major
    bb = np.ascontiguousarray(b, dtype=dtype)
    x = np.full(n, np.nan, dtype=dtype)
    size = mod.lib.t_work(n)
    work = np.full(size + slack, np.nan, dtype=dtype)
    ctype = "double *" if dtype == np.float64 else "float *"
    ffi = mod.ffi
    st = mod.lib.t_solve(
        n,
        ffi.cast(ctype, a.ctypes.data),
        ffi.cast(ctype, bb.ctypes.data),
        ffi.cast(ctype, x.ctypes.data),
        ffi.cast(ctype, work.ctypes.data),
    )
    return x, st, work


def random_spd(rng, n, scale_spread=0.0):
    M = rng.standard_normal((n, n))
    A = M @ M.T / n + np.eye(n)
    if scale_spread:
        d = 10.0 ** rng.uniform(-scale_spread, scale_spread, n)
        A = d[:, None] * A * d[None, :]
    return A


def hilbert(n):
    i = np.arange(n)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


def mixed_matrix(rng, n, kind):
    """A test matrix of one of six kinds: 0 badly scaled SPD, 1 ill-conditioned SPD, 2 rank-deficient,
    3 indefinite, 4 Hilbert (scaled), 5 SPD with a NaN."""
    if kind == 0:
        return random_spd(rng, n, scale_spread=4.0)
    if kind == 1:
        Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        return (Q * np.logspace(0, -rng.uniform(5, 12), n)) @ Q.T
    if kind == 2:
        M = rng.standard_normal((n, max(n - 1, 1)))
        return M @ M.T
    if kind == 3:
        A = rng.standard_normal((n, n))
        return A + A.T
    if kind == 4:
        return hilbert(n) * rng.uniform(0.1, 10.0)
    A = random_spd(rng, n)
    A[rng.integers(n), 0] = np.nan
    return A


def rel(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def exact_rcond(A):
    d = 1.0 / np.sqrt(np.diag(A))
    As = d[:, None] * A * d[None, :]
    return 1.0 / (np.linalg.norm(As, 1) * np.linalg.norm(np.linalg.inv(As), 1))


# ---------------------------------------------------------------------------


@pytest.mark.parametrize("real", ["double", "float"])
def test_template_compiles_warning_free(tmp_path, real):
    params = DOUBLE if real == "double" else FLOAT
    src = tmp_path / "tu.c"
    # The TU uses the solver but not RBDGEN_t_CHOLESKY_WORK_SIZE (a macro: no warning).
    src.write_text(
        render(**params)
        + f"\nint use(int n, const {real} *A, const {real} *b, {real} *x, {real} *w)"
        " { return t_cholesky_solve(n, 1, A, b, x, w); }\n"
    )
    compilers = [
        ("gcc", ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]),
        ("g++", ["-x", "c++", "-Wall", "-Wextra", "-Werror"]),
    ]
    ran = 0
    for cc, flags in compilers:
        if shutil.which(cc) is None:
            continue
        proc = subprocess.run(
            [cc, *flags, "-O1", "-fsyntax-only", str(src)], capture_output=True, text=True
        )
        assert proc.returncode == 0, f"{cc}: {proc.stderr}"
        ran += 1
    if not ran:
        pytest.skip("neither gcc nor g++ available")


@pytest.mark.parametrize("n", [1, 2, 6, 20, 50])
def test_random_spd_matches_numpy_and_c(clib, n):
    rng = np.random.default_rng(1000 + n)
    worst_c = worst_ref = 0.0
    for trial in range(4):
        A = random_spd(rng, n)
        b = rng.standard_normal(n)
        x_np = ch.cholesky_solve(A, b)
        x_c, st, _ = c_solve(clib, A, b)
        assert st == 0
        x_ref = np.linalg.solve(A, b)
        worst_c = max(worst_c, rel(x_c, x_np))
        worst_ref = max(worst_ref, rel(x_np, x_ref), rel(x_c, x_ref))
        # Same algorithm, same operation order, no contraction: bit-identical.
        assert np.array_equal(x_c, x_np), rel(x_c, x_np)
        # Only the lower triangle is read.
        Ag = A.copy()
        Ag[np.triu_indices(n, 1)] = np.nan
        assert np.array_equal(ch.cholesky_solve(Ag, b), x_np)
        assert np.array_equal(c_solve(clib, Ag, b)[0], x_np)
    log.info("n=%d: max rel |x_c - x_np| = %.3g, vs np.linalg.solve %.3g", n, worst_c, worst_ref)
    assert worst_c <= 1e-12
    assert worst_ref <= 1e-12


@pytest.mark.parametrize("n,m", [(1, 3), (6, 4), (20, 25)])
def test_many_right_hand_sides_match_one_at_a_time(clib, n, m):
    """One factorization for m right-hand sides: each column bit-equal to its own solve."""
    rng = np.random.default_rng(3000 + n)
    A = random_spd(rng, n)
    B = rng.standard_normal((m, n))  # column k of the C layout is row k here
    x = np.zeros((m, n))
    work = np.zeros(n * n + 4 * n)
    ffi = clib.ffi
    status = clib.lib.t_solve_many(n, m, ffi.from_buffer("double[]", np.ascontiguousarray(A)),
                                   ffi.from_buffer("double[]", B), ffi.from_buffer("double[]", x),
                                   ffi.from_buffer("double[]", work))
    assert status == 0
    for k in range(m):
        assert np.array_equal(x[k], ch.cholesky_solve(A, B[k]))
    B[-1, 0] = np.inf  # one bad column fails the whole call, and every output is zeroed
    status = clib.lib.t_solve_many(n, m, ffi.from_buffer("double[]", np.ascontiguousarray(A)),
                                   ffi.from_buffer("double[]", B), ffi.from_buffer("double[]", x),
                                   ffi.from_buffer("double[]", work))
    assert status == ch.NONFINITE
    assert not x.any()


@pytest.mark.parametrize("n", [6, 20, 50])
def test_badly_scaled_random_spd_matches_c(clib, n):
    rng = np.random.default_rng(2000 + n)
    for trial in range(3):
        A = random_spd(rng, n, scale_spread=6.0)
        b = rng.standard_normal(n)
        x_np, st_np = ch.cholesky_status(A, b)
        x_c, st_c, _ = c_solve(clib, A, b)
        assert int(st_np) == st_c == 0
        assert np.array_equal(x_c, x_np)


def test_work_size_and_no_out_of_bounds(clib):
    rng = np.random.default_rng(7)
    for n in (1, 3, 6, 13):
        assert clib.lib.t_work(n) == n * n + 4 * n
        A = random_spd(rng, n)
        b = rng.standard_normal(n)
        x, st, work = c_solve(clib, A, b, slack=16)
        assert st == 0
        assert np.all(np.isnan(work[n * n + 4 * n :])), "wrote past n*n + 4*n"
    assert clib.lib.t_work(0) == 0


def test_batch_bit_equal(clib):
    rng = np.random.default_rng(11)
    n = 6
    A = np.stack([random_spd(rng, n, scale_spread=float(k % 3)) for k in range(12)])
    b = rng.standard_normal((12, n))
    # Mix in failing elements so masks diverge inside the batch.
    A[2, 3, 3] = -1.0
    A[5] = hilbert(n) * 1e-3
    A[7, 4, 1] = np.nan
    A[9] = np.outer(np.arange(1.0, n + 1), np.arange(1.0, n + 1))
    A = A.reshape(3, 4, n, n)
    b = b.reshape(3, 4, n)
    x, st = ch.cholesky_status(A, b)
    assert x.shape == (3, 4, n) and st.shape == (3, 4)
    for idx in np.ndindex(3, 4):
        xi, si = ch.cholesky_status(A[idx], b[idx])
        assert si.shape == ()
        assert int(si) == int(st[idx])
        assert np.array_equal(xi, x[idx])
        xc, sc, _ = c_solve(clib, A[idx], b[idx])
        assert sc == int(st[idx])
        assert np.array_equal(xc, x[idx])
    flat = st.ravel()
    assert flat[2] == 2 and flat[7] == 4 and flat[9] in (2, 3)
    assert np.all(x.reshape(12, n)[flat != 0] == 0.0)
    # Broadcasting b against a batch of matrices.
    xb, sb = ch.cholesky_status(A, b[0, 0])
    for idx in np.ndindex(3, 4):
        assert np.array_equal(xb[idx], ch.cholesky_status(A[idx], b[0, 0])[0])
    # The raising API names the first failing batch index.
    with pytest.raises(SingularError, match=r"mass matrix at batch index \(0, 2\)"):
        ch.cholesky_solve(A, b, what="mass matrix")


def _bad_scaled():
    rng = np.random.default_rng(5)
    M = rng.standard_normal((3, 3))
    C = M @ M.T + 3 * np.eye(3)
    d = 1.0 / np.sqrt(np.diag(C))
    C = d[:, None] * C * d[None, :]  # well-conditioned correlation matrix
    D = np.array([1e-8, 1.0, 1e8])
    return D[:, None] * C * D[None, :], C, D


def _singular_exact():
    v = np.array([1.0, 2.0, 4.0])
    return np.outer(v, v) + np.diag([0.0, 0.0, 1.0])


CASES = {
    "nan_lower": (np.array([[4.0, 0.0], [np.nan, 3.0]]), np.ones(2), 4, NonFiniteError),
    "inf_rhs": (np.eye(3), np.array([1.0, np.inf, 0.0]), 4, NonFiniteError),
    "zero_diag": (np.diag([1.0, 0.0, 2.0]), np.ones(3), 2, SingularError),
    "negative_diag": (np.diag([1.0, 2.0, -3.0]), np.ones(3), 2, SingularError),
    "indefinite": (np.array([[1.0, 2.0], [2.0, 1.0]]), np.ones(2), 2, SingularError),
    "singular_psd": (_singular_exact(), np.ones(3), 2, SingularError),
    "hilbert12": (hilbert(12), np.ones(12), 3, IllConditionedError),
    "overflowing_solution": (np.array([[1e-300]]), np.array([1e300]), 4, NonFiniteError),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_cases(clib, case):
    A, b, status, exc = CASES[case]
    x_np, st_np = ch.cholesky_status(A, b)
    x_c, st_c, _ = c_solve(clib, A, b)
    assert int(st_np) == status, case
    assert st_c == status, case
    assert np.all(x_np == 0.0) and np.all(x_c == 0.0)
    with pytest.raises(exc, match="thing") as info:
        ch.cholesky_solve(A, b, what="thing")
    assert info.value.status == status
    log.info("%s: %s", case, info.value)


def test_error_messages():
    with pytest.raises(SingularError, match="pivot 1 is not positive"):
        ch.cholesky_solve(_singular_exact(), np.ones(3))
    with pytest.raises(SingularError, match="diagonal entry 1 is not positive"):
        ch.cholesky_solve(np.diag([1.0, 0.0, 2.0]), np.ones(3))
    with pytest.raises(IllConditionedError, match=r"reciprocal condition estimate .* <= sqrt\(eps\)"):
        ch.cholesky_solve(hilbert(12), np.ones(12))
    with pytest.raises(NonFiniteError, match="non-finite entry"):
        ch.cholesky_solve(np.eye(2), np.array([np.nan, 1.0]))
    with pytest.raises(NonFiniteError, match="solution is not finite"):
        ch.cholesky_solve(np.array([[1e-300]]), np.array([1e300]))


def test_hilbert_pivots_positive_but_ill_conditioned():
    d = ch.cholesky_details(hilbert(12), np.ones(12))
    assert int(d.pivot) == -1  # the factorization succeeded
    assert d.rcond < 1e-15
    assert int(d.status) == 3


def test_rank_deficient_random_psd_agrees(clib):
    rng = np.random.default_rng(3)
    for n in (4, 8, 20):
        M = rng.standard_normal((n, n - 2))
        A = M @ M.T
        b = rng.standard_normal(n)
        _, st_np = ch.cholesky_status(A, b)
        _, st_c, _ = c_solve(clib, A, b)
        assert int(st_np) == st_c
        assert st_c in (2, 3)


def test_randomized_status_and_bitwise_agreement(clib):
    """Mixed well/ill-conditioned, rank-deficient, indefinite and Hilbert-like
    matrices: the C and NumPy statuses agree and the solutions are bit-equal.
    (This exercises every exit of the condition estimator's loop.)"""
    rng = np.random.default_rng(12345)
    seen = set()
    for trial in range(400):
        n = int(rng.integers(1, 25))
        kind = trial % 5
        A = mixed_matrix(rng, n, kind)
        b = rng.standard_normal(n)
        x_np, st_np = ch.cholesky_status(A, b)
        x_c, st_c, _ = c_solve(clib, A, b)
        assert int(st_np) == st_c, (trial, n, kind)
        assert np.array_equal(x_np, x_c), (trial, n, kind)
        seen.add(st_c)
    assert seen == {0, 2, 3}


@pytest.mark.parametrize("n,m", FIXED_SIZES)
def test_fixed_size_copies_match_generic(clib_fixed, n, m):
    """A copy with fixed sizes (unrolled) gives the generic solver's statuses and bit-identical solutions,
    on well- and ill-conditioned, rank-deficient, indefinite and non-finite matrices."""
    rng = np.random.default_rng(4000 + 10 * n + m)
    ffi = clib_fixed.ffi
    seen = set()
    for trial in range(60):
        kind = trial % 6
        A = mixed_matrix(rng, n, kind)
        B = rng.standard_normal((m, n))  # column k of the C layout is row k here
        results = []
        for solve in (clib_fixed.lib.t_solve_many, clib_fixed.lib.t_solve_fixed):
            x = np.full((m, n), np.nan)
            work = np.zeros(n * n + 4 * n)
            status = solve(n, m, ffi.from_buffer("double[]", np.ascontiguousarray(A.T)),
                           ffi.from_buffer("double[]", B), ffi.from_buffer("double[]", x),
                           ffi.from_buffer("double[]", work))
            results.append((status, x))
        (st_generic, x_generic), (st_fixed, x_fixed) = results
        assert st_fixed == st_generic, (trial, kind)
        assert np.array_equal(x_fixed, x_generic), (trial, kind)
        x_np, st_np = ch.cholesky_status(A, B[0])
        assert int(st_np) == st_fixed and np.array_equal(x_np, x_fixed[0]), (trial, kind)
        seen.add(st_fixed)
    assert {0, 4} <= seen and seen & {2, 3}


def test_badly_scaled_well_conditioned_succeeds(clib):
    A, C, D = _bad_scaled()
    x_true = np.array([3.0e7, -2.0, 5.0e-9])
    b = A @ x_true
    x_np = ch.cholesky_solve(A, b)
    x_c, st, _ = c_solve(clib, A, b)
    assert st == 0
    assert np.array_equal(x_c, x_np)
    # componentwise accuracy thanks to the equilibration
    assert np.max(np.abs(x_np - x_true) / np.abs(x_true)) < 1e-12
    d = ch.cholesky_details(A, b)
    assert d.rcond > 0.1  # the scaled matrix is well-conditioned
    assert np.linalg.cond(A) > 1e30  # the unscaled one is not


def test_residual_check_path(monkeypatch):
    rng = np.random.default_rng(9)
    A = random_spd(rng, 5)
    b = rng.standard_normal(5)
    monkeypatch.setattr(ch, "residual_tolerance", lambda n, eps=ch.EPS: 0.0)
    _, st = ch.cholesky_status(A, b)  # this seed's residual is not exactly zero
    assert int(st) == 3
    with pytest.raises(IllConditionedError, match="residual check failed"):
        ch.cholesky_solve(A, b)


@pytest.mark.parametrize("n", [2, 3, 6, 20, 50])
def test_rcond_estimate_bounds(n):
    rng = np.random.default_rng(500 + n)
    ratios = []
    for trial in range(10):
        A = random_spd(rng, n, scale_spread=2.0)
        d = ch.cholesky_details(A, rng.standard_normal(n))
        exact = exact_rcond(A)
        ratios.append(float(d.rcond) / exact)
    ratios = np.array(ratios)
    log.info("n=%d: rcond_est / rcond_exact in [%.4f, %.4f]", n, ratios.min(), ratios.max())
    assert np.all(ratios >= 1.0 - 1e-10)  # never below the exact rcond
    assert np.all(ratios <= 3.0)


def test_rcond_n1():
    d = ch.cholesky_details(np.array([[4.0]]), np.array([2.0]))
    assert float(d.rcond) == 1.0 and float(d.x[0]) == 0.5


def test_float_build(clib_float):
    rng = np.random.default_rng(21)
    A = random_spd(rng, 6, scale_spread=1.0)
    b = rng.standard_normal(6)
    x_c, st, _ = c_solve(clib_float, A, b, dtype=np.float32)
    assert st == 0
    x_ref = np.linalg.solve(A, b)
    err = rel(x_c.astype(np.float64), x_ref)
    log.info("float 6x6: rel err %.3g", err)
    assert err <= 1e-5
    _, st, _ = c_solve(clib_float, hilbert(8), np.ones(8), dtype=np.float32)
    assert st in (2, 3)


def test_invalid_inputs(clib):
    with pytest.raises(InvalidInputError):
        ch.cholesky_solve(np.eye(3), np.ones(2))
    with pytest.raises(InvalidInputError):
        ch.cholesky_solve(np.ones((2, 3)), np.ones(3))
    ffi = clib.ffi
    assert clib.lib.t_solve(-1, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL) == 1
    assert clib.lib.t_solve(0, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL) == 0
    assert clib.lib.t_solve(2, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL) == 1
    x, st = ch.cholesky_status(np.zeros((0, 0)), np.zeros(0))
    assert x.shape == (0,) and int(st) == 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
