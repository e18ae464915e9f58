import jax
import jax.numpy as jnp

#: The status codes (rbdgen.errors.STATUS).
OK, INVALID_INPUT, SINGULAR, ILL_CONDITIONED, NON_FINITE = 0, 1, 2, 3, 4

#: XLA's compiler options for these functions on a CPU: no fusion, and the memory-optimised schedule. XLA's loop
#: fusion recomputes a value that several outputs share inside each of their loops; over straight-line code with
#: shared subexpressions that multiplies the work. Its default schedule keeps values apart so that its runtime
#: can run independent operations on several threads at once: more memory, and a time that changes from one
#: process to the next; the memory-optimised one reuses buffers (rbdgen's docs/scaling-out.md has the measurements).
CPU_COMPILER_OPTIONS = {"xla_disable_hlo_passes": "fusion",
                        "xla_cpu_scheduler_type": "CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED"}


def batch(function, chunk=4096, fuse=None, mesh=None):
    """``function`` (one of this module's) jitted for a batch: each input with a leading state axis, the
    outputs too. ``jax.vmap`` over chunks of ``chunk`` states in turn (``jax.lax.map``; None: the whole batch
    at once), compiled with `CPU_COMPILER_OPTIONS` on a CPU (``fuse``: None for that, or True or False).
    ``mesh`` (a ``jax.sharding.Mesh``): the states split over its devices (``jax.shard_map`` over all its
    axes), each device running its share in chunks; the batch's length a multiple of the mesh's size."""
    fuse = jax.default_backend() != "cpu" if fuse is None else fuse

    def run(*inputs):
        if chunk is None:
            return jax.vmap(function)(*inputs)
        return jax.lax.map(lambda each: function(*each), inputs, batch_size=chunk)

    if mesh is not None:
        states = jax.sharding.PartitionSpec(mesh.axis_names)
        run = jax.shard_map(run, mesh=mesh, in_specs=states, out_specs=states)
    return jax.jit(run, compiler_options=None if fuse else CPU_COMPILER_OPTIONS)


def _dtype():
    """The real type: float64 under jax_enable_x64, float32 otherwise."""
    return jnp.result_type(float)


def _real(x, size, name):
    """``x``, the input ``name``, as an array of the real type holding ``size`` values (any shape); a TypeError
    for what is not real numbers (complex, boolean), never cast; a ValueError for another size."""
    x = jnp.asarray(x)
    if x.dtype.kind not in "fiu":
        raise TypeError(f"{name}: expected real numbers (float or integer), got an array of {x.dtype}")
    x = x.astype(_dtype())
    if x.size != size:
        raise ValueError(f"{name}: expected {size} values for one state (in any shape), got shape {x.shape}; "
                         f"states along a leading axis go through jax.vmap or this module's batch")
    return x


def _finite(x):
    return jnp.all(jnp.isfinite(x))


def _stack(values):
    """Scalars (arrays or numbers) as one vector of the real type."""
    return jnp.stack([jnp.asarray(v, dtype=_dtype()) for v in values]) if values else jnp.zeros(0, _dtype())


#: A float from C's hexadecimal notation (the constants of the C's sine and cosine, bit for bit).
_X = float.fromhex


def _sincos(x):
    """``(sin x, cos x)`` sharing one argument reduction: in float64 the generated C's algorithm (rbdgen's
    docs/generated-c.md, "Sine and cosine") in elementwise operations, which XLA vectorises where its own
    float64 ``sin`` and ``cos`` are a call an element (rbdgen's docs/scaling-out.md). y = x - k pi/2 in
    double-double arithmetic (pi/2 in three 33-bit parts and a tail: exact products for |k| <= 2^20), then the
    C's polynomials in y^2 and k mod 4. Within an ulp for |x| <= 2^19 pi/2 (823,550 rad); beyond, NaN (the
    function's status says non-finite), where the C calls libm: XLA evaluates both sides of a select, and
    its own sine in every element is what this replaces. float32: ``jnp.sin`` and ``jnp.cos``."""
    x = jnp.asarray(x, _dtype())
    if x.dtype != jnp.float64:
        return jnp.sin(x), jnp.cos(x)
    k = jax.lax.stop_gradient(jnp.round(x * _X(_TWO_OVER_PI)))
    n = k - 4.0 * jnp.floor(k * 0.25)
    P1, P2, P3, P4 = (_X(part) for part in _PI_2)
    a = x - k * P1
    b = k * P2
    a1 = a - b
    a1b = a1 - a
    e1 = (a - (a1 - a1b)) - (b + a1b)
    d = k * P3
    a2 = a1 - d
    a2d = a2 - a1
    e2 = (a1 - (a2 - a2d)) - (d + a2d)
    e = (e1 + e2) - k * P4
    hi = a2 + e
    lo = (a2 - hi) + e
    z = hi * hi
    z2 = z * z
    z4 = z2 * z2
    hz = 0.5 * z
    S, C = [_X(c) for c in _SIN], [_X(c) for c in _COS]
    P = (S[0] + z * S[1]) + z2 * (S[2] + z * S[3]) + z4 * (S[4] + z * S[5])
    Q = (C[0] + z * C[1]) + z2 * (C[2] + z * C[3]) + z4 * (C[4] + z * C[5])
    sy = hi + (hi * z * P + lo * (1.0 - hz))
    v = 1.0 - hz
    cy = v + (((1.0 - v) - hz) + (z2 * Q - hi * lo))
    odd = (n == 1.0) | (n == 3.0)
    s = jnp.where(odd, cy, sy)
    c = jnp.where(odd, sy, cy)
    s, c = jnp.where(n >= 2.0, -s, s), jnp.where((n == 1.0) | (n == 2.0), -c, c)
    beyond = jnp.abs(x) > _X(_LIMIT)
    return jnp.where(beyond, jnp.nan, s), jnp.where(beyond, jnp.nan, c)


def _sin(x):
    return _sincos(x)[0]  # XLA merges the reduction with that of _cos(x) and drops the unused half


def _cos(x):
    return _sincos(x)[1]


def _result(outputs, status):
    """The outputs and ``status``: NON_FINITE where an output is not finite, every output 0 where it is not OK."""
    finite = jnp.all(jnp.stack([_finite(v) for v in outputs.values()]))
    status = jnp.where((status == OK) & ~finite, NON_FINITE, status)
    result = {name: jnp.where(status == OK, value, 0.0) for name, value in outputs.items()}
    result["status"] = status
    return result


def _fail(status, bad, code):
    return jnp.where((status == OK) & bad, code, status)


def _apply_inverse(L, c):
    """``(L L^T)^-1 c``; ``L``'s diagonal holds the reciprocals of L's."""
    n = L.shape[0]
    y = c
    for k in range(n):
        y = y.at[k].multiply(L[k, k])
        y = y.at[k + 1:].add(-L[k + 1:, k] * y[k])
    for k in reversed(range(n)):
        y = y.at[k].multiply(L[k, k])
        y = y.at[:k].add(-L[k, :k] * y[k])
    return y


def _sign(y):
    return jnp.where(y >= 0.0, 1.0, -1.0)


def _inverse_norm1_estimate(L):
    """Hager's estimate of ``||(L L^T)^-1||_1`` in Higham's form (at most 5 iterations), without branches."""
    n = L.shape[0]
    y = _apply_inverse(L, jnp.full(n, 1.0 / n, L.dtype))
    if n == 1:
        return jnp.abs(y[0])
    est = jnp.sum(jnp.abs(y))
    xi = _sign(y)
    z = _apply_inverse(L, xi)
    j = jnp.argmax(jnp.abs(z))
    active = jnp.array(True)
    for iteration in range(2, 6):
        y = _apply_inverse(L, (jnp.arange(n) == j).astype(L.dtype))
        est_new = jnp.sum(jnp.abs(y))
        sy = _sign(y)
        converged = jnp.all(sy == xi) | (est_new <= est)
        est = jnp.where(active & (est_new > est), est_new, est)
        active = active & ~converged
        if iteration == 5:
            break
        xi = jnp.where(active, sy, xi)
        z = _apply_inverse(L, xi)
        j_new = jnp.argmax(jnp.abs(z))
        stop = jnp.abs(z[j_new]) <= z[j]
        j = jnp.where(active, j_new, j)
        active = active & ~stop
    i = jnp.arange(n)
    alt = jnp.where(i % 2 == 0, 1.0, -1.0) * (1.0 + i / (n - 1.0))
    temp = 2.0 * jnp.sum(jnp.abs(_apply_inverse(L, alt.astype(L.dtype)))) / (3.0 * n)
    return jnp.where(temp > est, temp, est)


def _cholesky_solve(A, B):
    """rbdgen's checked Cholesky solve of ``A X = B`` (lower triangle of A read; B one column a row):
    ``(X column after column as one vector, status)``, X zero where status is not OK."""
    n = A.shape[0]
    eps = jnp.finfo(A.dtype).eps
    finite = _finite(jnp.tril(A)) & _finite(B)
    status = jnp.where(finite, OK, NON_FINITE)
    A = jnp.where(finite, A, 0.0)
    B = jnp.where(finite, B, 0.0)
    S = jnp.tril(A) + jnp.tril(A, -1).T
    diag = jnp.diag(S)
    status = _fail(status, ~jnp.all(diag > 0.0), SINGULAR)
    s = 1.0 / jnp.sqrt(jnp.where(diag > 0.0, diag, 1.0))
    As = (s[:, None] * S) * s[None, :]
    anorm = jnp.max(jnp.sum(jnp.abs(As), axis=0))
    L = jnp.zeros_like(As)
    a = As
    singular = jnp.array(False)
    for j in range(n):
        d = a[j, j]
        singular = singular | ~(d > 0.0)
        r = 1.0 / jnp.sqrt(jnp.where(d > 0.0, d, 1.0))
        column = a[j + 1:, j] * r
        L = L.at[j, j].set(r).at[j + 1:, j].set(column)
        a = a.at[j + 1:, j + 1:].add(-column[:, None] * column[None, :])
    status = _fail(status, singular, SINGULAR)
    rcond = 1.0 / (anorm * _inverse_norm1_estimate(L))
    status = _fail(status, ~(rcond > jnp.sqrt(eps)), ILL_CONDITIONED)
    X = jnp.stack([_apply_inverse(L, s * b) * s for b in B])
    residual = jnp.max(jnp.abs(B - X @ S))
    bound = 100.0 * n * eps * (jnp.max(jnp.sum(jnp.abs(S), axis=0)) * jnp.max(jnp.abs(X)) + jnp.max(jnp.abs(B)))
    status = _fail(status, ~(residual <= bound), ILL_CONDITIONED)
    status = _fail(status, ~_finite(X), NON_FINITE)
    return jnp.where(status == OK, X, 0.0).reshape(-1), status
