"""Forward-mode derivatives of any algorithm: `Dual` scalars over any scalar backend (`DualOps`).

A `Dual` is a value and its tangents, a sparse map from a seed direction to the derivative
along it; it has the operators the algorithms use (``+ - * /``, `sp`'s folding helpers call
them), and `DualOps` the backend functions (``sin``, ``cos``, ``sqrt``, the checks on the
value, the solves as plain arithmetic). Run on NumPy arrays it is the NumPy engine's Jacobian;
traced on symbols it becomes the generated C's, checks included. Tangents are kept sparse: a
quantity that depends on few inputs (the generalized forces only enter at the end) carries few.
"""

from __future__ import annotations

from .. import spatial as sp
from .ltdl import ltdl_apply_inverse


def _merge(a: dict, b: dict, fa, fb) -> dict:
    """``fa(a_k) + fb(b_k)`` for every direction of either (a missing one is zero)."""
    out = {k: fa(v) for k, v in a.items()}
    for k, v in b.items():
        out[k] = sp.add(out[k], fb(v)) if k in out else fb(v)
    return out


class Dual:
    """A value and its tangents ``{direction: derivative}``."""

    __slots__ = ("v", "t")
    __array_ufunc__ = None  # NumPy arrays defer to the operators here (else an array of Duals)

    def __init__(self, v, t=None):
        self.v, self.t = v, t or {}

    def __add__(self, o):
        if not isinstance(o, Dual):
            return Dual(sp.add(self.v, o), self.t)
        return Dual(sp.add(self.v, o.v), _merge(self.t, o.t, lambda x: x, lambda y: y))

    __radd__ = __add__

    def __neg__(self):
        return Dual(sp.neg(self.v), {k: sp.neg(x) for k, x in self.t.items()})

    def __sub__(self, o):
        if not isinstance(o, Dual):
            return Dual(sp.sub(self.v, o), self.t)
        return Dual(sp.sub(self.v, o.v), _merge(self.t, o.t, lambda x: x, sp.neg))

    def __rsub__(self, o):
        return Dual(sp.sub(o, self.v), {k: sp.neg(x) for k, x in self.t.items()})

    def __mul__(self, o):
        if not isinstance(o, Dual):
            return Dual(sp.mul(self.v, o), {k: sp.mul(x, o) for k, x in self.t.items()})
        return Dual(sp.mul(self.v, o.v), _merge(self.t, o.t, lambda x: sp.mul(x, o.v), lambda y: sp.mul(self.v, y)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        if not isinstance(o, Dual):
            inverse = 1 / o
            return Dual(sp.mul(self.v, inverse), {k: sp.mul(x, inverse) for k, x in self.t.items()})
        inverse = 1 / o.v
        value = sp.mul(self.v, inverse)
        return Dual(value, _merge(self.t, o.t, lambda x: sp.mul(x, inverse),
                                  lambda y: sp.neg(sp.mul(sp.mul(value, inverse), y))))    # (a' - (a/b) b') / b

    def __rtruediv__(self, o):
        inverse = 1 / self.v
        value = sp.mul(o, inverse)
        return Dual(value, {k: sp.neg(sp.mul(sp.mul(value, inverse), x)) for k, x in self.t.items()})


def value(x):
    return x.v if isinstance(x, Dual) else x


def _values(x):
    """``x`` (a scalar, or nested tuples and lists of them) with each Dual replaced by its value."""
    if isinstance(x, (list, tuple)):
        return type(x)(_values(v) for v in x) if type(x) in (list, tuple) else tuple(_values(v) for v in x)
    return value(x)


def tangent(x, k):
    """The derivative of ``x`` along direction ``k`` (0 where it has none)."""
    return x.t.get(k, 0) if isinstance(x, Dual) else 0


def seed(values, first: int) -> list:
    """``values`` as Duals, value ``i`` along direction ``first + i``."""
    return [Dual(v, {first + i: 1}) for i, v in enumerate(values)]


class DualOps:
    """The backend of `Dual` scalars over ``ops`` (NumPy, the tracer's symbols)."""

    def __init__(self, ops):
        self.ops = ops

    @property
    def eps(self):
        return self.ops.eps

    @property
    def tiny(self):
        return self.ops.tiny

    def scope(self, text: str):
        return self.ops.scope(text)

    def label(self, x, name: str) -> None:
        """Name the values (a Dual's value; its tangents stay unnamed)."""
        self.ops.label(_values(x), name)

    def _unary(self, x, f, df):
        if not isinstance(x, Dual):
            return f(x)
        y = f(x.v)
        d = df(x.v, y)
        return Dual(y, {k: sp.mul(d, t) for k, t in x.t.items()})

    def sin(self, x):
        return self._unary(x, self.ops.sin, lambda v, y: self.ops.cos(v))

    def cos(self, x):
        return self._unary(x, self.ops.cos, lambda v, y: sp.neg(self.ops.sin(v)))

    def sqrt(self, x):
        return self._unary(x, self.ops.sqrt, lambda v, y: 0.5 / y)

    def require_positive(self, x, error, message):
        self.ops.require_positive(value(x), error, message)

    def require_not_negative(self, x, error, message):
        self.ops.require_not_negative(value(x), error, message)

    @staticmethod
    def solve_spd(A, b, what):
        raise NotImplementedError(f"{what}: forward-mode derivatives of a dense solve (mimic joints coupling "
                                  f"branches) are not implemented")

    def solve_ltdl(self, L, Dinv, lam, columns):
        return [ltdl_apply_inverse(L, Dinv, lam, b) for b in columns]
