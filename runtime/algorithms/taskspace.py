"""A link frame's task-space (operational-space) inertia and the dynamically consistent inverse.

With J the link origin's 6 x G Jacobian (world axes, angular first, `frames.jacobian`):

    X = M^-1 J^T          (six columns solved by M's checked factor, `minv.solve_columns`)
    Lambda^-1 = J X       (6 x 6, symmetric)
    Lambda = (J M^-1 J^T)^-1,    J# = M^-1 J^T Lambda = X Lambda

Lambda is inverted by the checked LTDL of a dense 6 x 6 (`minv.chain`): a task the robot cannot
move in every direction (a 6-D task at a singularity, or on fewer than six joints) has a singular
or ill-conditioned Lambda^-1 and returns that status, never inf.
"""

from __future__ import annotations

from .. import spatial as sp
from . import coordinates
from .crba import crba
from .ltdl import coordinate_parents
from .minv import chain, solve_columns, symmetric_inverse

WHAT_MASS = "mass matrix (task-space inertia)"
WHAT_TASK = "task-space inertia: J M^-1 J^T (the link cannot move in every direction here)"


def task_space(tree, ops, q, base_quat, J) -> tuple:
    """``(Lambda, X)``: Lambda as 6 rows, X = M^-1 J^T as six columns of G, for the link Jacobian ``J``
    (6 x G column-major, in the G coordinates)."""
    G = len(J) // 6
    rows = [[J[c * 6 + r] for c in range(G)] for r in range(6)]
    H = coordinates.matrix(tree, crba(tree, ops, q, base_quat))
    X = solve_columns(H, coordinate_parents(tree), rows, ops, WHAT_MASS)            # M^-1 J^T
    Linv = [[sp.dot(rows[r], X[c]) if r <= c else None for c in range(6)] for r in range(6)]
    Linv = [[Linv[min(r, c)][max(r, c)] for c in range(6)] for r in range(6)]     # J M^-1 J^T, symmetric
    return symmetric_inverse(Linv, chain(6), ops, WHAT_TASK), X


def dynamically_consistent_inverse(Lam, X) -> list:
    """J# = X Lambda: G x 6 as rows."""
    return [[sp.dot([X[k][g] for k in range(6)], [Lam[k][c] for k in range(6)]) for c in range(6)]
            for g in range(len(X[0]))]
