"""Spatial algebra (Featherstone, *Rigid Body Dynamics Algorithms*, ch. 2) on tuples of scalars.

A scalar is anything with ``+ - * /``: a float, a NumPy array holding one value
per state of a batch, or a symbol being traced for code generation. Structural
zeros and ones are Python ``int`` s and every helper here folds them, so a
traced algorithm never emits ``0 * x`` or ``1 * x``: specialising the code for
one robot comes from running the generic algorithm on its constants.

Shapes and layout (all row-major tuples):

* motion and force vectors: 6-tuples, angular part first ``(wx, wy, wz, vx, vy, vz)``;
* 3x3 matrices: tuples of 3 rows;
* Plücker transform ``X = (E, r)`` from frame A to frame B: ``E`` rotates A
  coordinates into B coordinates, ``r`` is B's origin in A coordinates, i.e.
  ``X = rot(E) xlt(r)`` (RBDA eq. 2.24);
* rigid-body inertia ``(m, h, Ib)``: mass, first moment ``h = m c`` and the
  rotational inertia about the frame origin ``Ib = Ic - m cx cx`` (RBDA eq. 2.63);
* general spatial matrices (articulated inertias): tuples of 6 rows of 6.

`Motion`, `Force`, `Xform` and `RigidInertia` (at the end) are the same tuples with
spatial_v2's notation as operators (``Xup @ vp + vJ``, ``Xup.T @ f``, ``I @ a``,
``v.cross(vJ)``, ``S @ f``), each one call of a helper here.
"""

from __future__ import annotations

from .model import Inertia, Transform


# -- scalars with structural folding ------------------------------------------
def const(x: float):
    """A model constant; exact 0, 1 and -1 become structural ints."""
    return int(x) if x in (0.0, 1.0, -1.0) else x


def is_zero(x) -> bool:
    return type(x) is int and x == 0


def add(a, b):
    if is_zero(a):
        return b
    if is_zero(b):
        return a
    return a + b


def sub(a, b):
    if is_zero(b):
        return a
    if is_zero(a):
        return neg(b)
    return a - b


def neg(a):
    return 0 if is_zero(a) else -a


def mul(a, b):
    if is_zero(a) or is_zero(b):
        return 0
    if type(a) is int and a == 1:
        return b
    if type(b) is int and b == 1:
        return a
    if type(a) is int and a == -1:
        return -b
    if type(b) is int and b == -1:
        return -a
    return a * b


def dot(xs, ys):
    """Sum of products, folding structural zeros (left to right, fixed order)."""
    out = 0
    for x, y in zip(xs, ys):
        out = add(out, mul(x, y))
    return out


# -- 3-vectors and 3x3 matrices -----------------------------------------------
def cross(a, b):
    return (
        sub(mul(a[1], b[2]), mul(a[2], b[1])),
        sub(mul(a[2], b[0]), mul(a[0], b[2])),
        sub(mul(a[0], b[1]), mul(a[1], b[0])),
    )


def mv3(m, v):
    """m @ v"""
    return tuple(dot(row, v) for row in m)


def mtv3(m, v):
    """m.T @ v"""
    return tuple(dot((m[0][j], m[1][j], m[2][j]), v) for j in range(3))


def mm3(a, b):
    """a @ b"""
    return tuple(tuple(dot(a[i], (b[0][j], b[1][j], b[2][j])) for j in range(3)) for i in range(3))


def transpose3(m):
    return tuple(tuple(m[j][i] for j in range(3)) for i in range(3))


def skew(v):
    """vx, the matrix with vx @ u = v x u."""
    return ((0, neg(v[2]), v[1]), (v[2], 0, neg(v[0])), (neg(v[1]), v[0], 0))


# -- spatial vectors ------------------------------------------------------------
def vadd(a, b):
    return tuple(add(x, y) for x, y in zip(a, b))


def vsub(a, b):
    return tuple(sub(x, y) for x, y in zip(a, b))


def vscale(v, s):
    return tuple(mul(x, s) for x in v)


def crm(v, m):
    """v x m: motion cross product (RBDA eq. 2.31)."""
    w, u = v[:3], v[3:]
    return cross(w, m[:3]) + vadd(cross(w, m[3:]), cross(u, m[:3]))


def crf(v, f):
    """v x* f: force cross product (RBDA eq. 2.32)."""
    w, u = v[:3], v[3:]
    return vadd(cross(w, f[:3]), cross(u, f[3:])) + cross(w, f[3:])


# -- Plücker transforms ---------------------------------------------------------
def xform_from_pose(pose: Transform):
    """X from a parent frame to a child frame posed by ``pose`` in it (constants folded)."""
    rotation = tuple(tuple(const(x) for x in row) for row in pose.rotation)
    return transpose3(rotation), tuple(const(x) for x in pose.translation)


def xform_motion(X, m):
    """X m: motion vector from frame A to frame B."""
    E, r = X
    w = m[:3]
    return mv3(E, w) + mv3(E, vsub(m[3:], cross(r, w)))


def xform_motion_back(X, m):
    """X^-1 m: motion vector from frame B back to frame A."""
    E, r = X
    w = mtv3(E, m[:3])
    return w + vadd(mtv3(E, m[3:]), cross(r, w))


def xform_force_back(X, f):
    """X^T f: force vector from frame B back to frame A."""
    E, r = X
    lin = mtv3(E, f[3:])
    return vadd(mtv3(E, f[:3]), cross(r, lin)) + lin


def xform_compose(X2, X1):
    """X2 X1: first X1 (A to B), then X2 (B to C)."""
    E2, r2 = X2
    E1, r1 = X1
    return mm3(E2, E1), vadd(r1, mtv3(E1, r2))


def xform_matrix(X):
    """X as a 6x6 matrix: [[E, 0], [-E rx, E]]."""
    E, r = X
    lower = mm3(E, skew(r))
    return tuple(E[i] + (0, 0, 0) for i in range(3)) + tuple(
        tuple(neg(x) for x in lower[i]) + E[i] for i in range(3)
    )


# -- rigid-body inertias ----------------------------------------------------------
def rigid_inertia(inertia: Inertia):
    """(m, h, Ib) of a body from its mass, com and com inertia (constants folded)."""
    m = inertia.mass
    c = inertia.com
    h = tuple(m * x for x in c)
    cc = sum(x * x for x in c)
    Ib = tuple(
        tuple(inertia.rotational[i][j] + m * ((cc if i == j else 0.0) - c[i] * c[j]) for j in range(3))
        for i in range(3)
    )
    return const(m), tuple(const(x) for x in h), tuple(tuple(const(x) for x in row) for row in Ib)


def rigid_add(a, b):
    return add(a[0], b[0]), vadd(a[1], b[1]), tuple(vadd(ra, rb) for ra, rb in zip(a[2], b[2]))


def rigid_apply(I, v):
    """I v: momentum of a body moving with v (RBDA eq. 2.63)."""
    m, h, Ib = I
    w, u = v[:3], v[3:]
    return vadd(mv3(Ib, w), cross(h, u)) + vsub(tuple(mul(m, x) for x in u), cross(h, w))


def rigid_force(I, a, v):
    """I a + v x* I v: the force that moves a body with v and a (RBDA table 5.1), by the classical
    acceleration of the origin, ac = a_lin + w x v_lin: [Ib aw + w x Ib w + h x ac; m ac - h x aw - w x (h x w)].

    The same vector as ``rigid_apply(I, a) + crf(v, rigid_apply(I, v))`` (the m v_lin x v_lin and, by the
    Jacobi identity, the h terms of v_lin x* I v collapse into h x ac): 57 multiplications for a general
    inertia where that spatial form takes 66.
    """
    m, h, Ib = I
    aw, al, w, u = a[:3], a[3:], v[:3], v[3:]
    ac = vadd(al, cross(w, u))
    Iw = mv3(Ib, w)
    return (vadd(vadd(mv3(Ib, aw), cross(w, Iw)), cross(h, ac))
            + vsub(vsub(tuple(mul(m, x) for x in ac), cross(h, aw)), cross(w, cross(h, w))))


def rigid_xform_back(X, I):
    """X^T I X: a rigid inertia given in frame B, expressed in frame A (RBDA eq. 2.66).

    With h' = E^T h and hA = h' + m r, RBDA's Ib_A = E^T Ib E - rx h'x - hAx rx written out
    (a_x b_x = b a^T - (a.b) 1): off the diagonal ``-(h'_i r_j + r_i hA_j)``, on it
    ``sum over k != i of (h'_k + hA_k) r_k``; each product once (9 multiplications for a
    general r, where the two matrix products take 18). The result is symmetric, so only the
    upper triangle is computed and mirrored.
    """
    m, h, Ib = I
    E, r = X
    Eh = mtv3(E, h)
    hA = vadd(Eh, tuple(mul(m, x) for x in r))
    Ib_E = mm3(Ib, E)
    d = [mul(add(Eh[k], hA[k]), r[k]) for k in range(3)]                         # (h'_k + hA_k) r_k
    IbA = [[0] * 3 for _ in range(3)]
    for i in range(3):
        for j in range(i, 3):
            e = dot((E[0][i], E[1][i], E[2][i]), (Ib_E[0][j], Ib_E[1][j], Ib_E[2][j]))  # (E^T Ib E)_ij
            if i == j:
                shift = add(d[(i + 1) % 3], d[(i + 2) % 3])
            else:
                shift = neg(add(mul(Eh[i], r[j]), mul(r[i], hA[j])))
            IbA[i][j] = IbA[j][i] = add(e, shift)
    return m, hA, tuple(tuple(row) for row in IbA)


def _plane_turn(E, k: int):
    """For E a rotation by q about coordinate axis k: the plane's axes ``i, j``, ``s^2``, ``s c`` (``c = E_ii``,
    ``s = E_ij``) and the function turning a 2-vector ``(x, y)`` of that plane by q."""
    i, j = (k + 1) % 3, (k + 2) % 3
    c, s = E[i][i], E[i][j]

    def turned(x, y):
        return sub(mul(c, x), mul(s, y)), add(mul(s, x), mul(c, y))

    return i, j, mul(s, s), mul(s, c), turned


def rigid_rotate_back(E, k: int, I):
    """X^T I X for X = rot(E), E a rotation about coordinate axis k (a revolute joint's about it):
    (m, E^T h, E^T Ib E) with fewer products than `rigid_xform_back`.

    Only the plane of the other two axes (i, j) turns, by the angle q with ``c = cos q = E_ii`` and
    ``s = sin q = E_ij``: h and Ib's column k as 2-vectors, and Ib's 2x2 block of that plane by the double
    angle (cos 2q = 1 - 2 s^2, sin 2q = 2 s c): with u = Ib_ii - Ib_jj and x = u s^2 + Ib_ij sin 2q, the
    block becomes ``[[Ib_ii - x, u s c + Ib_ij cos 2q], [., Ib_jj + x]]``. 14 multiplications, where the
    general transform takes about 26.
    """
    m, h, Ib = I
    i, j, ss, sc, turned = _plane_turn(E, k)
    sin2, cos2 = add(sc, sc), sub(1, add(ss, ss))

    hR = [0] * 3
    hR[i], hR[j] = turned(h[i], h[j])
    hR[k] = h[k]
    u = sub(Ib[i][i], Ib[j][j])
    x = add(mul(u, ss), mul(Ib[i][j], sin2))
    IbR = [list(row) for row in Ib]
    IbR[i][i], IbR[j][j] = sub(Ib[i][i], x), add(Ib[j][j], x)
    IbR[i][j] = IbR[j][i] = add(mul(u, sc), mul(Ib[i][j], cos2))
    IbR[i][k], IbR[j][k] = turned(Ib[i][k], Ib[j][k])
    IbR[k][i], IbR[k][j] = IbR[i][k], IbR[j][k]
    return m, tuple(hR), tuple(tuple(row) for row in IbR)


def rigid_variation(I, v):
    """Idot = v x* I - I v x: the rate of change of a rigid inertia moving with v, itself in
    rigid-inertia form (0, hdot, Ibdot): hdot = m u + w x h, Ibdot = P + P^T with P = wx Ib - ux hx."""
    m, h, Ib = I
    w, u = v[:3], v[3:]
    wx, ux, hx = skew(w), skew(u), skew(h)
    P = [[sub(dot(wx[i], (Ib[0][j], Ib[1][j], Ib[2][j])), dot(ux[i], (hx[0][j], hx[1][j], hx[2][j])))
          for j in range(3)] for i in range(3)]
    Ibdot = [[0] * 3 for _ in range(3)]
    for i in range(3):
        for j in range(i, 3):
            Ibdot[i][j] = Ibdot[j][i] = add(P[i][j], P[j][i])
    return 0, vadd(tuple(mul(m, x) for x in u), cross(w, h)), tuple(tuple(row) for row in Ibdot)


def rigid_matrix(I):
    """The 6x6 spatial inertia [[Ib, hx], [hx^T, m 1]]."""
    m, h, Ib = I
    hx = skew(h)
    mI = ((m, 0, 0), (0, m, 0), (0, 0, m))
    return tuple(Ib[i] + hx[i] for i in range(3)) + tuple(
        tuple(hx[i][k] for i in range(3)) + mI[k] for k in range(3)
    )


# -- general 6x6 matrices -----------------------------------------------------------
def mat_vec(M, v):
    return tuple(dot(row, v) for row in M)


def mat_congruence(X, M):
    """X^T M X for a transform X = rot(E) xlt(r) (A to B) and a symmetric 6x6 M = [[A, B], [B^T, C]] in B:
    M in A.

    The rotation first, each 3x3 block Y to E^T Y E (the identity E folds away), then the translation,
    xlt(r)^T M xlt(r) = [[A - Q - Q^T - rx T, B - T^T], [., C]] with Q = B rx and T = C rx: 48
    multiplications for a general r, where the 6x6 products take 66. Only the upper triangle is
    computed; the lower one is the same scalars.
    """
    E, r = X
    Et = transpose3(E)

    def turned(row, col, symmetric):  # E^T Y E of M's 3x3 block Y at rows row.., columns col..
        YE = mm3(tuple(tuple(M[row + a][col + b] for b in range(3)) for a in range(3)), E)
        out = [[0] * 3 for _ in range(3)]
        for a in range(3):
            for b in range(a if symmetric else 0, 3):
                out[a][b] = dot(Et[a], (YE[0][b], YE[1][b], YE[2][b]))
                if symmetric:
                    out[b][a] = out[a][b]
        return out

    A, B, C = turned(0, 0, True), turned(0, 3, False), turned(3, 3, True)
    rx = skew(r)
    Q, T = mm3(B, rx), mm3(C, rx)
    out = [[0] * 6 for _ in range(6)]
    for a in range(3):
        for b in range(a, 3):
            rT = dot(rx[a], (T[0][b], T[1][b], T[2][b]))
            out[a][b] = out[b][a] = sub(sub(sub(A[a][b], Q[a][b]), Q[b][a]), rT)
        for b in range(3):
            out[a][3 + b] = out[3 + b][a] = sub(B[a][b], T[b][a])
            out[3 + a][3 + b] = C[a][b]
    return tuple(tuple(row) for row in out)


def mat_rotate_back(E, k: int, M):
    """X^T M X for X = rot(E), E a rotation about coordinate axis k (a revolute joint's), and a symmetric
    6x6 M (an articulated inertia): each 3x3 block Y turns to E^T Y E, which moves only the plane (i, j)
    of the other two axes, by the angle q with ``c = E_ii``, ``s = E_ij``: Y's row and column k as
    2-vectors, and its 2x2 block of the plane by the double angle, as in `rigid_rotate_back` but for any
    2x2 block P (the symmetric and the antisymmetric parts; the latter does not turn): with u = P_ii - P_jj
    and t = P_ij + P_ji, P_ii - x and P_jj + x for x = u s^2 + t s c, P_ij + y and P_ji + y for
    y = u s c - t s^2. 30 multiplications (12 for the off-diagonal block, 8 for each symmetric one), where
    `mat_congruence` takes 54.
    """
    i, j, ss, sc, turned = _plane_turn(E, k)

    def block(r, o):  # E^T Y E for the block Y of M at rows r.., columns o..
        Y = [[M[r + a][o + b] for b in range(3)] for a in range(3)]
        out = [row[:] for row in Y]
        u, t = sub(Y[i][i], Y[j][j]), add(Y[i][j], Y[j][i])
        x, y = add(mul(u, ss), mul(t, sc)), sub(mul(u, sc), mul(t, ss))
        out[i][i], out[j][j] = sub(Y[i][i], x), add(Y[j][j], x)
        out[i][j], out[j][i] = add(Y[i][j], y), add(Y[j][i], y)
        out[i][k], out[j][k] = turned(Y[i][k], Y[j][k])
        out[k][i], out[k][j] = turned(Y[k][i], Y[k][j])
        return out

    A, B, C = block(0, 0), block(0, 3), block(3, 3)
    return tuple(tuple(A[a]) + tuple(B[a]) for a in range(3)) + tuple(
        tuple(B[b][a] for b in range(3)) + tuple(C[a]) for a in range(3))


def mat_sub_outer(M, u, s):
    """M - u u^T s (s a scalar), for a symmetric M: the upper triangle, mirrored."""
    out = [[0] * 6 for _ in range(6)]
    for i in range(6):
        for j in range(i, 6):
            out[i][j] = out[j][i] = sub(M[i][j], mul(mul(u[i], u[j]), s))
    return tuple(tuple(row) for row in out)


def mat_project_out(M, u, w, null=None):
    """M - u w^T for a symmetric M and w = u / d, a multiple of u (an articulated inertia less its joint's
    share, IA - U U^T / d): one product per entry of the upper triangle, mirrored. ``null``: the index of a
    row and column that are exactly 0 (a joint whose motion subspace is the coordinate axis ``null``, without
    armature: d = U_null, so M e_null - u w_null = 0), left out."""
    keep = [i for i in range(6) if i != null]
    out = [[0] * 6 for _ in range(6)]
    for a, i in enumerate(keep):
        for j in keep[a:]:
            out[i][j] = out[j][i] = sub(M[i][j], mul(u[i], w[j]))
    return tuple(tuple(row) for row in out)


def mat_add(A, B):
    return tuple(tuple(add(a, b) for a, b in zip(ra, rb)) for ra, rb in zip(A, B))


# -- value types: spatial_v2's notation over the helpers above ------------------------------
# Thin tuple subclasses (a value is still the tuple every helper above takes); each operator is
# one helper call, so an algorithm written with them traces to exactly the same graph. ``+`` and
# ``-`` are vector sums also with a plain tuple on the left (the subclass's reflected operator
# comes first), never tuple concatenation; ``m * s`` scales (write the vector first).
class _Vector(tuple):
    """What motion and force vectors share: ``x + y``, ``x - y``, ``-x``, ``x * s`` (a scalar s)."""

    __slots__ = ()

    def __add__(self, other):
        return type(self)(vadd(self, other))

    def __radd__(self, other):
        return type(self)(vadd(other, self))

    def __sub__(self, other):
        return type(self)(vsub(self, other))

    def __rsub__(self, other):
        return type(self)(vsub(other, self))

    def __mul__(self, s):
        return type(self)(vscale(self, s))

    def __neg__(self):
        return type(self)(vscale(self, -1))


class Motion(_Vector):
    """A motion vector; also ``v.cross(m)`` (v x m for a motion m, v x* f for a `Force` f) and
    ``m @ f`` (the scalar m^T f)."""

    __slots__ = ()

    def cross(self, other):
        return Force(crf(self, other)) if isinstance(other, Force) else Motion(crm(self, other))

    def __matmul__(self, f):
        return dot(self, f)


class Force(_Vector):
    """A force vector."""

    __slots__ = ()


class Xform(tuple):
    """A Plücker transform ``(E, r)``: ``X @ m`` for a motion m; ``X.T @ f`` for a force f
    (`xform_force_back`) and ``X.T @ I @ X`` for a `RigidInertia` I (`rigid_xform_back`)."""

    __slots__ = ()

    def __matmul__(self, m):
        return Motion(xform_motion(self, m))

    @property
    def T(self) -> "_Transposed":
        return _Transposed(self)


class RigidInertia(tuple):
    """A rigid-body inertia ``(m, h, Ib)``: ``I @ v`` (a `Force`, the momentum), ``I + J``."""

    __slots__ = ()

    def __matmul__(self, v):
        return Force(rigid_apply(self, v))

    def __add__(self, other):
        return RigidInertia(rigid_add(self, other))


class _Transposed:
    """``X.T`` of an `Xform`, only ever applied at once: ``X.T @ f`` or ``X.T @ I @ X``."""

    __slots__ = ("X",)

    def __init__(self, X):
        self.X = X

    def __matmul__(self, other):
        if isinstance(other, RigidInertia):
            return _Congruence(self.X, other)
        return Force(xform_force_back(self.X, other))


class _Congruence:
    """``X.T @ I`` waiting for its ``@ X``."""

    __slots__ = ("X", "I")

    def __init__(self, X, I):
        self.X, self.I = X, I

    def __matmul__(self, X):
        if X is not self.X:
            raise ValueError("X.T @ I @ X needs the same transform X on both sides")
        return RigidInertia(rigid_xform_back(X, self.I))
