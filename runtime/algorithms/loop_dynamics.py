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
from ..errors import ConstraintError
from ..model import quaternion_matrix
from .contact_dynamics import (PointKinematics, kept_rows, mass_matrix, rotation_error, solve_constraints,
                               solve_dynamics)
from .frames import UNIT

WHAT_ACTUATION = "loop inverse dynamics: S^T S + J^T J (the actuated joints and the loops do not span the motion)"
WHAT_LOOPS = ("closed loops: J M^-1 J^T of the loop constraints (dependent rows, a planar loop held in 3-D: "
              "declare damping)")


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

    def target(self, kp, kd):
        """The rows' relative acceleration ``-kd v - kp e``."""
        return [sp.sub(sp.neg(sp.mul(kd, v)), sp.mul(kp, e)) for v, e in zip(self.velocity, self.error)]


def forward_dynamics(tree, ops, q, qd, tau, h, base):
    """``(acc, f)`` of the module docstring: ``h`` the G bias forces (with loads), ``base`` None (fixed) or
    (translation, quaternion, velocity, acceleration)."""
    model = tree.loops
    kin = LoopKinematics(tree, ops, q, qd, base)
    M = mass_matrix(tree, ops, q, None if base is None else base[1])
    acc, f, *_ = solve_dynamics(model, tree, ops, M, kin.rows, kin.drift, kin.target(model.kp, model.kd),
                               [sp.sub(t, b) for t, b in zip(tau, h)], [1] * len(kin.rows), WHAT_LOOPS)
    return acc, f


def inverse_dynamics(tree, ops, q, base, tau):
    """``(tau_actuated, f)``: the actuated joints' torques and the loop forces that give the generalized forces
    ``tau = M qdd + h`` (inverse dynamics of the tree, with loads): ``S^T tau_actuated + J^T f = tau``. With
    ``A = [S^T, J^T]`` (G x (A + LC)), the least-norm solution ``x = A^T y``, ``A A^T y = tau``: exact where the
    actuated joints and the loops span the G coordinates; dependent loop rows share their force least-norm."""
    model = tree.loops
    kin = LoopKinematics(tree, ops, q, [0] * tree.nb, base)
    A = [[int(g == a) for a in model.actuated] + [row[g] for row in kin.rows] for g in range(len(tau))]
    y = solve_constraints(model, ops, A, A, tau, [1] * len(tau), WHAT_ACTUATION)   # (S^T S + J^T J) y = tau
    x = [y[a] for a in model.actuated] + [sp.dot(row, y) for row in kin.rows]        # [tau_actuated, f] = A^T y
    _check_actuation(ops, [sp.dot(row, x) for row in A], tau)
    return x[:len(model.actuated)], x[len(model.actuated):]


def _check_actuation(ops, achieved, tau):
    """``S^T tau_actuated + J^T f = tau`` to ``10 sqrt(eps)`` relative: a damped solve also answers (least
    squares) where the actuated joints and the loops cannot give ``tau`` (a floating base's rows): refused."""
    residual = [sp.sub(a, t) for a, t in zip(achieved, tau)]
    bound = sp.mul(100 * ops.eps, sp.add(sp.dot(achieved, achieved), sp.dot(tau, tau)))
    ops.require_not_negative(sp.sub(bound, sp.dot(residual, residual)), ConstraintError,
                             "loop inverse dynamics: the actuated joints and the loops cannot give these forces "
                             "(under-actuated: a floating base, or too few actuated joints; or a damped solve whose "
                             "iterations did not converge: lower the damping or raise its iterations)")
