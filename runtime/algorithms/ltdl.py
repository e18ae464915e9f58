"""Tree-sparse LTDL factorisation of the mass matrix and its checked solve (RBDA sec. 6.5, tables 6.3, 6.4).

The mass matrix of a kinematic tree has ``H[i][j] != 0`` only where coordinate
``j`` is ``i`` itself, an ancestor or a descendant of ``i`` in the parent array
``lambda`` (`dof_parents`). Factorised from the leaves up as ``H = L^T D L``
(``L`` unit lower triangular, ``D`` diagonal), ``L`` has exactly that pattern:
no fill-in, ``O(n d)`` work for depth ``d`` instead of ``O(n^3)``. A floating
base is six coordinates in a chain (its 6x6 block is dense); a joint on the
base hangs under its last coordinate.

The checks are the dense checked Cholesky's (`cholesky`), reformulated so that
a trace turns each into a guard and needs no solver call (``eps`` is the machine
epsilon of the backend's precision, ``ops.eps``):

1. positivity: every pivot ``D[k] > 0`` (NaN included), else `SingularError`;
2. conditioning: every pivot of the diagonally equilibrated matrix,
   ``D[k] / H[k][k]``, must exceed ``sqrt(eps)``, else `IllConditionedError`.
   ``D[k] / H[k][k]`` is ``1 / (A_k^-1)[k][k]`` for the equilibrated block
   ``A_k`` of ``k``'s subtree (``k`` included), so their minimum is at least
   the smallest eigenvalue of the whole equilibrated matrix, which in turn is
   at least its reciprocal 2-norm condition number (the largest eigenvalue of
   a matrix with unit diagonal is at least 1). A failing estimate therefore
   proves ill-conditioning; a passing one can miss it (it may overestimate the
   reciprocal condition number).

No residual is checked, and none need be: a residual check as the dense
solve's, ``||b - H x||_2 <= 100 n eps (trace(H) ||x||_2 + ||b||_2)`` (for a
positive definite H, ``trace(H)`` bounds ``||H||_2``), cannot fail once every
pivot is positive. The solve is then backward stable in that norm: each column solved
satisfies ``(H + dH) x = b`` with ``|dH| <= gamma_{3n+2} |L^T| D |L|`` (Higham,
"Accuracy and Stability of Numerical Algorithms", thm. 10.4, with
``R = D^1/2 L``: its ``gamma_{3n+1}`` and one rounding more, multiplying by
``Dinv`` instead of dividing by D; LTDL of a positive definite matrix needs no
pivoting, and a skipped structural zero is an exact term), and
``|L^T| D |L|``, positive semi-definite, has a 2-norm at most its trace,
``sum_k D_k L_ki^2`` over i: the trace of ``L^T D L``, that is of H to first
order. So ``||b - H x||_2 <= (3n + 2) eps trace(H) ||x||_2`` to first order,
inside the check's bound, whichever vector is solved. Every solve by a factor
of `ltdl` relies on this (`solve_tree`, `minv`, `fd_derivatives`, the contact
solves by M and by the Delassus matrix): a probe column or a residual would cost
operations and could not fail. NaN would pass a residual check anyway: a non-finite right-hand side or
solution is reported as `NonFiniteError` by the finiteness check of every
operation's outputs, as the dense solve reports it.
"""

from __future__ import annotations

from .. import spatial as sp
from ..errors import IllConditionedError, SingularError


def dof_parents(parent, floating: bool) -> tuple:
    """lambda: the parent coordinate of each generalized coordinate (-1: none), ``lambda[k] < k``."""
    off = 6 if floating else 0
    base = tuple(range(-1, off - 1))                                                # base coordinates in a chain
    return base + tuple(off + p if p != -1 else off - 1 for p in parent)


def coordinate_parents(tree):
    """lambda of the G generalized coordinates, or None where mimic joints leave no tree pattern.

    Without mimic joints it is `dof_parents`. With them, coordinate ``k`` moves several
    bodies and ``P^T H P`` couples coordinates ``r`` and ``c`` where a body of ``r`` is a body
    of ``c``, an ancestor or a descendant of one. That is again a tree's pattern (LTDL
    without fill-in) when the coordinates below ``k`` that it couples with form one chain:
    ``lambda[k]`` is the last of them and the others are its ancestors. A gripper whose
    fingers all follow one joint keeps the pattern (the fingers hang under the wrist); a
    mimic joint in a branch beside its master's descendants breaks it (None: a dense solve).
    """
    lam = dof_parents(tree.parent, tree.floating)
    if tree.nj == tree.nb:
        return lam
    off = 6 if tree.floating else 0
    bodies = [[r] for r in range(off)] + [[] for _ in range(tree.nj)]
    for i, (k, _, _) in enumerate(tree.coordinates):
        bodies[off + k].append(off + i)
    above = [set(ancestors(lam, i)) for i in range(len(lam))]

    def coupled(r, c):
        return any(i == j or i in above[j] or j in above[i] for i in bodies[r] for j in bodies[c])

    reduced = []
    for k in range(len(bodies)):
        below = {j for j in range(k) if coupled(k, j)}
        reduced.append(max(below, default=-1))
        if below != set(ancestors(reduced, k)):
            return None
    return tuple(reduced)


def ancestors(lam, k):
    """The coordinates above ``k``, nearest first."""
    j = lam[k]
    while j != -1:
        yield j
        j = lam[j]


def ltdl(H, lam, ops, what: str, errors=None, conditioned: bool = True):
    """``H = L^T D L`` (RBDA table 6.3) with the positivity and (where ``conditioned``) conditioning checks.

    ``errors``: one `SolverError` class that both checks report instead of `SingularError` and
    `IllConditionedError` (the contact constraints' `ConstraintError`).

    ``H``: rows of a symmetric matrix with the pattern of ``lam``. Returns
    ``(L, Dinv)``: ``L[k]`` maps each ancestor ``j`` of ``k`` to ``L[k][j]``,
    ``Dinv[k] = 1 / D[k]``.
    """
    n = len(H)
    rcond_min = ops.sqrt(ops.eps)
    A = [{j: H[k][j] for j in ancestors(lam, k)} for k in range(n)]
    D = [H[k][k] for k in range(n)]
    Dinv = [None] * n
    for k in reversed(range(n)):
        with ops.scope(f"{what}, LTDL: pivot {k}"):
            ops.require_positive(D[k], errors or SingularError, f"{what} is not positive definite (pivot {k})")
            if conditioned:
                ops.require_positive(sp.sub(D[k], sp.mul(rcond_min, H[k][k])), errors or IllConditionedError,
                                     f"{what} is ill-conditioned (equilibrated pivot {k} <= sqrt(eps))")
            Dinv[k] = 1 / D[k]
            ops.label(Dinv[k], f"Dinv{k}")
            for i in ancestors(lam, k):
                a = sp.mul(A[k][i], Dinv[k])                                        # a = H_ki / H_kk
                D[i] = sp.sub(D[i], sp.mul(A[k][i], a))                             # H_ii -= H_ki a
                for j in ancestors(lam, i):
                    A[i][j] = sp.sub(A[i][j], sp.mul(A[k][j], a))                   # H_ij -= H_kj a
                A[k][i] = a                                                         # L_ki = a
                ops.label(a, f"L{k}_{i}")
    return A, Dinv


def ltdl_sweep_up(L, lam, b) -> list:
    """``L^-T b`` (the first half of `ltdl_apply_inverse`), from the leaves: ``x_j -= L_kj x_k``. A row stays a
    structural zero where ``b`` is zero on it and on all its descendants."""
    x = list(b)
    for k in reversed(range(len(x))):
        for j in ancestors(lam, k):
            x[j] = sp.sub(x[j], sp.mul(L[k][j], x[k]))                              # x_j -= L_kj x_k
    return x


def ltdl_apply_inverse(L, Dinv, lam, b):
    """``x = (L^T D L)^-1 b`` (RBDA table 6.4): ``L^T`` from the leaves, ``D``, then ``L`` from the root."""
    x = [sp.mul(xk, dk) for xk, dk in zip(ltdl_sweep_up(L, lam, b), Dinv)]        # x = D^-1 L^-T b
    for k in range(len(x)):
        for j in ancestors(lam, k):
            x[k] = sp.sub(x[k], sp.mul(L[k][j], x[j]))                              # x_k -= L_kj x_j
    return x


def solve_tree(H, b, lam, ops, what: str):
    """Solve ``H x = b`` for the tree-patterned SPD ``H``: factorise (its pivots checked), solve (no residual:
    the module docstring)."""
    L, Dinv = ltdl(H, lam, ops, what)
    with ops.scope(f"{what}, LTDL: solve"):
        return ltdl_apply_inverse(L, Dinv, lam, b)
