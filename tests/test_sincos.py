"""The generated C's sine and cosine (``templates/c/sincos.c.j2``) against mpmath and libm.

The kernel is rendered (`c.sincos_source`), wrapped in a loop over an array (two neighbours
at a time through ``t_sincos2``, the vector form, and the single angle through ``t_sincos``, which a
test compares bit for bit, as it does four at a time through ``t_sincos4``) and compiled with cffi at -O2 (ISO C99, so no contraction into fused multiply-adds, like the default build;
docs/generated-c.md says what -ffast-math does to it). The reference is mpmath at 200 bits: the
error of each result is measured in units in the last place (ulp) of the exact value, and must
stay at most 1 (the documented bound is 0.8). A million points per set are compared with the
C library's sin and cos (glibc's are within 0.52 ulp of the exact values), at most 1.5 ulp of
the C library's result apart; the thousand points where the two differ most, the points with
the smallest reduced arguments and every special set go to mpmath.
"""

from __future__ import annotations

import importlib.util
import shutil

import cffi
import mpmath  # the test extra's correctly rounded reference
import numpy as np
import pytest

#: |x| up to which the kernel reduces the argument itself (beyond: libm).
BOUND = 2.0**19 * np.pi / 2


@pytest.fixture(scope="module")
def clib(tmp_path_factory):
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    from rbdgen.codegen.c import sincos_source

    ffi = cffi.FFI()
    ffi.cdef("void t_many(int n, const double *x, double *s, double *c);"
             "void t_single(int n, const double *x, double *s, double *c);"
             "void t_four(int n, const double *x, double *s, double *c);"
             "void libm_many(int n, const double *x, double *s, double *c);")
    shim = ("void t_many(int n, const double *x, double *s, double *c)\n"
            "{ int i; for (i = 0; i + 1 < n; i += 2) t_sincos2(x[i], x[i + 1], s + i, c + i, s + i + 1, c + i + 1);\n"
            "  if (n % 2) t_sincos(x[n - 1], s + n - 1, c + n - 1); }\n"
            "void t_four(int n, const double *x, double *s, double *c)\n"
            "{ int i; for (i = 0; i + 3 < n; i += 4) t_sincos4(x[i], x[i + 1], x[i + 2], x[i + 3], s + i, c + i,\n"
            "  s + i + 1, c + i + 1, s + i + 2, c + i + 2, s + i + 3, c + i + 3);\n"
            "  for (; i < n; ++i) t_sincos(x[i], s + i, c + i); }\n"
            "void t_single(int n, const double *x, double *s, double *c)\n"
            "{ int i; for (i = 0; i < n; ++i) t_sincos(x[i], s + i, c + i); }\n"
            "void libm_many(int n, const double *x, double *s, double *c)\n"
            "{ int i; for (i = 0; i < n; ++i) { s[i] = sin(x[i]); c[i] = cos(x[i]); } }\n")
    ffi.set_source("_rbdgen_test_sincos", sincos_source("t") + "\n" + shim,
                   extra_compile_args=["-O2", "-std=c99"], libraries=["m"])
    path = ffi.compile(tmpdir=str(tmp_path_factory.mktemp("sincos")))
    spec = importlib.util.spec_from_file_location("_rbdgen_test_sincos", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def evaluate(mod, fn: str, x):
    x = np.ascontiguousarray(x, dtype=np.float64)
    s, c = np.empty_like(x), np.empty_like(x)
    cast = mod.ffi.cast
    getattr(mod.lib, fn)(len(x), *(cast("double *", a.ctypes.data) for a in (x, s, c)))
    return s, c


def kernel(mod, x):
    """The generated kernel's sine and cosine of ``x``, two neighbours a call (``t_sincos2``)."""
    return evaluate(mod, "t_many", x)


def libm(mod, x):
    return evaluate(mod, "libm_many", x)


def ulps(values, exact) -> np.ndarray:
    """|value - exact| in ulps of the exact value (mpf), subnormal spacing included."""
    out = np.empty(len(values))
    for i, (v, e) in enumerate(zip(values, exact)):
        if e == 0:
            out[i] = 0.0 if v == 0 else np.inf
            continue
        exponent = max(int(mpmath.floor(mpmath.log(abs(e), 2))), -1022)
        out[i] = float(abs(mpmath.mpf(float(v)) - e) / mpmath.mpf(2) ** (exponent - 52))
    return out


def exact(x):
    with mpmath.workprec(200):
        return [mpmath.sin(mpmath.mpf(float(v))) for v in x], [mpmath.cos(mpmath.mpf(float(v))) for v in x]


def assert_within(mod, x, bound: float = 1.0):
    """Every sine and cosine of ``x`` within ``bound`` ulps of the exact value."""
    s, c = kernel(mod, x)
    es, ec = exact(x)
    for what, got, want in (("sin", s, es), ("cos", c, ec)):
        err = ulps(got, want)
        worst = int(np.argmax(err))
        assert err[worst] <= bound, f"{what}({x[worst]!r}) = {got[worst]!r}: {err[worst]:.3f} ulp from {want[worst]}"
    return s, c


def libm_gap(mod, x) -> np.ndarray:
    """max over sin and cos of |kernel - libm| in ulps of libm's result, per point."""
    s, c = kernel(mod, x)
    ls, lc = libm(mod, x)
    gaps = [np.abs(a - b) / np.spacing(np.abs(b)) for a, b in ((s, ls), (c, lc))]
    return np.maximum(*gaps)


def check_many(mod, x, hardest: int = 1000):
    """A million points against libm, the ``hardest`` that differ most against mpmath."""
    gap = libm_gap(mod, x)
    assert gap.max() <= 1.5, f"x = {x[np.argmax(gap)]!r}: {gap.max():.2f} ulp from libm"
    assert_within(mod, x[np.argsort(gap)[-hardest:]])


def test_random_angles(clib):
    rng = np.random.default_rng(1)
    x = rng.uniform(-np.pi, np.pi, 1_000_000)
    check_many(clib, x)
    assert_within(clib, x[:5000])


def test_large_angles(clib):
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-BOUND, BOUND, 500_000),
                        np.exp(rng.uniform(np.log(np.pi), np.log(BOUND), 500_000)) * rng.choice([-1, 1], 500_000)])
    check_many(clib, x)


def reduced(x) -> np.ndarray:
    """|x - k pi/2| for the nearest k, exactly (integers scaled by 2^1200), as doubles."""
    with mpmath.workprec(1300):
        half_pi = int(mpmath.nint(mpmath.pi / 2 * mpmath.mpf(2) ** 1200))
    out = []
    for v in np.abs(x).tolist():
        m, d = v.as_integer_ratio()
        scaled = (m << 1200) // d  # exact: d is a power of two
        r = scaled - (scaled + half_pi // 2) // half_pi * half_pi
        out.append(float(mpmath.mpf(abs(r)) / mpmath.mpf(2) ** 1200))
    return np.array(out)


def test_near_multiples_of_half_pi(clib):
    """The doubles next to k pi/2 for every k up to the bound: the reduction's worst cancellations."""
    k = np.arange(1, 2**19 + 1, dtype=np.float64)
    near = k * (np.pi / 2)  # within an ulp of k pi/2: the nearest double is near or a neighbour
    up, down = np.nextafter(near, np.inf), np.nextafter(near, 0)
    x = np.concatenate([near, up, down, np.nextafter(up, np.inf), np.nextafter(down, 0)])
    check_many(clib, np.concatenate([x, -x]))
    # the smallest |x - k pi/2| of a sample (every k up to 4096, 20,000 more) to mpmath as well
    rng = np.random.default_rng(3)
    pick = np.concatenate([np.arange(4096), rng.integers(4096, len(k), 20_000)])
    candidates = np.concatenate([near[pick], up[pick], down[pick]])
    hardest = candidates[np.argsort(reduced(candidates))[:300]]
    assert_within(clib, np.concatenate([hardest, -hardest]))


def test_small_zero_and_subnormal(clib):
    tiny = np.ldexp(1.0, np.arange(-1074, -20))
    x = np.concatenate([tiny, np.nextafter(tiny, 0), np.nextafter(tiny, 1), [2.0**-27, np.nextafter(2.0**-27, 0)],
                        np.geomspace(1e-8, 1.0, 2000)])
    x = np.concatenate([x, -x])
    s, c = assert_within(clib, x)
    s0, c0 = kernel(clib, np.array([0.0, -0.0]))
    assert list(c0) == [1.0, 1.0]
    assert [np.signbit(v) for v in s0] == [False, True], "sin keeps the sign of zero"


def test_at_and_beyond_the_bound(clib):
    """Both sides of the bound, up to the largest double: libm there, so the same bits."""
    edge = np.array([BOUND, np.nextafter(BOUND, 0), np.nextafter(BOUND, np.inf)])
    x = np.concatenate([edge, np.geomspace(BOUND, 1.7e308, 3000), [np.finfo(float).max]])
    x = np.concatenate([x, -x])
    assert_within(clib, x)


def test_inf_and_nan_give_nan(clib):
    s, c = kernel(clib, np.array([np.inf, -np.inf, np.nan]))
    assert np.isnan(s).all() and np.isnan(c).all()


def test_two_angles_a_call_equal_one(clib):
    """``t_sincos2`` gives each lane's angle the bits ``t_sincos`` gives it, also where one lane is a rare case
    (tiny, zero, near a multiple of pi/2, beyond the bound, inf, NaN) beside a usual one."""
    rng = np.random.default_rng(4)
    rare = np.array([0.0, -0.0, 1e-9, -3e-300, 2.0**-27, np.pi / 2, -np.pi, 45.553093477052, 2 * BOUND, 1e300,
                     np.inf, -np.inf, np.nan])
    usual = rng.uniform(-4.0, 4.0, 4 * len(rare))
    x = np.concatenate([np.column_stack([usual[:len(rare)], rare]).ravel(),
                        np.column_stack([rare, usual[len(rare):2 * len(rare)]]).ravel(),
                        np.column_stack([rare, rare[::-1]]).ravel(), usual, rng.uniform(-BOUND, BOUND, 10_001)])
    for got, want in zip(kernel(clib, x), evaluate(clib, "t_single", x)):
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), x[got.view(np.uint64) != want.view(np.uint64)]


def test_four_angles_a_call_equal_one(clib):
    """``t_sincos4`` (two vectors of two side by side) gives each angle the bits ``t_sincos`` gives it, also
    where one of the four is a rare case beside usual ones."""
    rng = np.random.default_rng(5)
    rare = np.array([0.0, -0.0, 1e-9, -3e-300, 2.0**-27, np.pi / 2, -np.pi, 45.553093477052, 2 * BOUND, 1e300,
                     np.inf, -np.inf, np.nan])
    usual = rng.uniform(-4.0, 4.0, (len(rare), 4))
    quads = [np.where(np.arange(4) == lane, r, u) for lane in range(4) for r, u in zip(rare, usual)]
    x = np.concatenate(quads + [rng.uniform(-BOUND, BOUND, 10_001)])
    for got, want in zip(evaluate(clib, "t_four", x), evaluate(clib, "t_single", x)):
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), x[got.view(np.uint64) != want.view(np.uint64)]
