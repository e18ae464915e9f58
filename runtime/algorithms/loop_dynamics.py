"""Forward dynamics of a model with closed loops (`rbdgen.loops`): the contacts' solve, every row active.

Each loop ``k`` between points ``p1`` (on link1) and ``p2`` (on link2, or a world point) gives rows
``J_k = J1(p1) - J2(p2)`` (3 for a point loop, 6 for a frame loop, angular first, world axes), its
velocity ``v_k = J_k nu``, its drift ``Jdot_k nu`` (the difference of the points' classical
accelerations at ``nudot = 0``) and its error ``e_k = [vee(A - A^T) / 2 with A = R1 Rrel R2^T, p1 - p2]``.
The loop forces ``f`` and the acceleration solve

    M acc + h = tau + J^T f,      J acc + Jdot nu = -kd v - kp e

as `contact_dynamics` does (`contact_dynamics.solve_constraints`): the tree-sparse LTDL of M gives
``M^-1 [J^T, tau - h]``, then the Delassus system ``J M^-1 J^T f = -kd v - kp e - Jdot nu - J acc_free``
is factorised by the checked dense LTDL; dependent rows (a planar loop held in 3-D) need ``damping``
(the proximal solve), else they return `ConstraintError`'s status. ``(kp, kd)`` and the damping are the
ones declared at generation (`LoopModel`).
"""

from __future__ import annotations

from .. import spatial as sp
from ..model import quaternion_matrix
from .contact_dynamics import PointKinematics, WHAT_MASS, kept_rows, mass_matrix, rotation_error, solve_constraints
from .ltdl import coordinate_parents
from .minv import solve_columns

UNIT = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
WHAT_LOOPS = "closed loops: J M^-1 J^T of the loop constraints (dependent rows, a planar loop held in 3-D: declare damping)"


class LoopKinematics:
    """Per loop row (world axes): the Jacobian row over the G coordinates, ``v = J nu``, ``Jdot nu`` and ``e``."""

    def __init__(self, tree, ops, q, qd, base):
        model = tree.loops
        points = PointKinematics(tree, ops, q, qd, base, [k for pair in model.links for k in pair if k >= 0])
        self.rows, self.velocity, self.drift, self.error = [], [], [], []
        for loop, (link1, link2) in zip(model.loops, model.links):
            kept = kept_rows(loop.kind)
            rows1, velocity1, drift1, p1, R1 = points.at(link1, loop.offset1, kept)
            if link2 < 0:  # the world: a fixed point, the world's axes
                rows2, velocity2, drift2, p2, R2 = [[0] * len(rows1[0])] * len(kept), [0] * len(kept), \
                    [0] * len(kept), loop.offset2, UNIT
            else:
                rows2, velocity2, drift2, p2, R2 = points.at(link2, loop.offset2, kept)
            self.rows += [sp.vsub(a, b) for a, b in zip(rows1, rows2)]                 # J1(p1) - J2(p2)
            self.velocity += sp.vsub(velocity1, velocity2)
            self.drift += sp.vsub(drift1, drift2)
            if loop.kind == "frame":
                self.error += rotation_error(sp.mm3(R1, quaternion_matrix(loop.rotation)), R2)
            self.error += sp.vsub(p1, p2)


def forward_dynamics(tree, ops, q, qd, tau, h, base):
    """``(acc, f)`` of the module docstring: ``h`` the G bias forces (with loads), ``base`` None (fixed) or
    (translation, quaternion, velocity, acceleration)."""
    model = tree.loops
    kin = LoopKinematics(tree, ops, q, qd, base)
    M = mass_matrix(tree, ops, q, None if base is None else base[1])
    *X, acc_free = solve_columns(M, coordinate_parents(tree), kin.rows + [[sp.sub(t, b) for t, b in zip(tau, h)]],
                                 ops, WHAT_MASS)
    target = [sp.sub(sp.neg(sp.mul(model.kd, v)), sp.mul(model.kp, e)) for v, e in zip(kin.velocity, kin.error)]
    rhs = [sp.sub(sp.sub(t, d), sp.dot(row, acc_free)) for t, d, row in zip(target, kin.drift, kin.rows)]
    f = solve_constraints(model, ops, kin.rows, X, rhs, [1] * len(kin.rows), WHAT_LOOPS)
    acc = [sp.add(a, sp.dot([x[g] for x in X], f)) for g, a in enumerate(acc_free)]   # acc_free + M^-1 J^T f
    return acc, f
