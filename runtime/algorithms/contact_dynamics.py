"""Constrained dynamics: forward dynamics under contacts and the impact map (`rbdgen.contacts`).

Each declared contact ``k`` (`ContactModel`) gives rows ``J_k`` (3 for a point, 6 for a
frame) of the Jacobian of its point ``p`` (link origin + offset, world axes, angular rows
first): ``J_k nu`` is ``[omega, pdot]`` of the point (a point contact: ``pdot`` only). With
``M`` the mass matrix (CRBA) and ``h`` the inverse dynamics at zero acceleration (RNEA, with
the loads), the contact forces ``f`` and the acceleration solve

    M acc + h = tau + J^T f,      J acc + Jdot nu = -kd v_c - kp e_c

(``J acc + Jdot nu``: the points' classical accelerations; ``v_c = J nu``; ``e_c`` the error
from the ``reference``). Structure (the operational-space form, RBDA sec. 8.x):

    X = M^-1 [J^T, tau - h]              (the checked tree-sparse LTDL of M, one factor)
    D = J M^-1 J^T                       (the Delassus matrix, C x C)
    D f = -kd v_c - kp e_c - Jdot nu - J acc_free,   acc = acc_free + M^-1 J^T f

``active`` (1.0 or 0.0 per contact) masks rows without a branch: ``D_ij -> a_i a_j D_ij``,
``D_ii -> a_i D_ii + (1 - a_i)``, ``rhs_i -> a_i rhs_i``, so an inactive contact's force is 0
and it does not constrain the motion. ``D`` is factorised by the checked dense LTDL
(`ltdl.ltdl` on a chain): dependent active contacts (a singular or ill-conditioned ``D``)
return `ConstraintError`'s status. With damping ``mu`` the solve is proximal with a fixed
iteration count: ``(D + mu I) f_{i+1} = rhs + mu f_i`` from ``f_0 = 0`` (the least-squares
forces as the iterations grow), only positivity checked.

The impact map (perfectly inelastic for restitution ``e = 0``): ``qd_plus = nu + M^-1 J^T
Lambda`` with ``D Lambda = -(1 + e) J nu``, so ``J qd_plus = -e J nu`` on the active contacts.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import spatial as sp
from ..errors import ConstraintError, InvalidInputError
from ..model import quaternion_matrix
from . import coordinates
from .crba import crba
from .frames import at_point, base_columns, body_poses, classical, link_path, link_pose, motion_subspaces, velocities
from .ltdl import coordinate_parents, ltdl
from .minv import chain, solve_columns

WHAT_MASS = "mass matrix (contact dynamics)"
WHAT_CONTACTS = "contact constraints: J M^-1 J^T of the active contacts (dependent or redundant contacts: declare damping)"


class PointKinematics:
    """The kinematics of points on ``links`` (their paths only): `at` gives a point's constraint rows."""

    def __init__(self, tree, ops, q, qd, base, links):
        self.tree = tree
        self.still = None if base is None else (base[0], base[1], base[2], (0,) * 6)     # Jdot nu: nudot = 0
        bodies = sorted({b for link in links for b in link_path(tree, link)})
        self.X0 = body_poses(tree, ops, q, self.still, bodies)
        self.s = motion_subspaces(tree, ops, self.X0, bodies)
        self.v, self.a = velocities(tree, ops, self.still, self.s, qd, bodies, [0] * tree.nb)

    def at(self, link, offset, kept):
        """``(rows, velocity, drift, p, R)`` of the point ``offset`` of ``link``: the Jacobian rows ``kept`` of
        ``[omega, pdot]`` (G coordinates), ``v_c = J nu``, ``Jdot nu``, the point and the link rotation."""
        tree = self.tree
        E, r = link_pose(tree, self.X0, link)
        p = sp.vadd(r, sp.mtv3(E, offset))                                            # p = r + R offset
        body = tree.link_body[link]
        on_path = set(link_path(tree, link))
        columns = [at_point(c, p) for c in base_columns(tree, self.still)]
        columns += [at_point(self.s[i], p) if i in on_path else (0,) * 6 for i in range(tree.nb)]
        vb, ab = self.v[body], self.a[body]
        rows = [coordinates.forces(tree, [col[r] for col in columns]) for r in kept]
        v_p, a_p = at_point(vb, p), classical(ab, vb, p)
        velocity = [v_p[r] for r in kept]                                              # v_c = J nu
        drift = [a_p[r] for r in kept]                                                 # Jdot nu
        return rows, velocity, drift, p, sp.transpose3(E)


def kept_rows(kind):
    """The rows of ``[omega, pdot]`` a constraint of ``kind`` holds."""
    return range(6) if kind == "frame" else range(3, 6)


class ContactKinematics:
    """Per contact row (world axes): the Jacobian row over the G coordinates, ``v_c`` and ``Jdot nu``; per
    contact: its point ``p``, its link rotation ``R`` and the first row's index; ``s``: the motion subspaces
    of the bodies on the contacts' paths (world origin)."""

    def __init__(self, tree, ops, q, qd, base):
        model = tree.contacts
        points = PointKinematics(tree, ops, q, qd, base, model.links)
        self.s = points.s                                                              # the paths' subspaces
        self.rows, self.velocity, self.drift, self.points, self.rotations, self.first = [], [], [], [], [], []
        for contact, link in zip(model.contacts, model.links):
            rows, velocity, drift, p, R = points.at(link, contact.offset, kept_rows(contact.kind))
            self.first.append(len(self.rows))
            self.rows += rows
            self.velocity += velocity
            self.drift += drift
            self.points.append(p)
            self.rotations.append(R)


def rotation_error(R, Rref):
    """``vee(A - A^T) / 2`` with ``A = R R_ref^T``: sin(angle) axis (world) from R_ref to R."""
    A = sp.mm3(R, sp.transpose3(Rref))
    return [sp.mul(0.5, sp.sub(A[2][1], A[1][2])), sp.mul(0.5, sp.sub(A[0][2], A[2][0])),
            sp.mul(0.5, sp.sub(A[1][0], A[0][1]))]


def targets(model, reference):
    """Per contact ``(p_ref, R_ref)`` of ``reference`` (``R_ref`` None for a point)."""
    out, at = [], 0
    for contact in model.contacts:
        quat = reference[at + 3: at + 7] if contact.kind == "frame" else None
        out.append((reference[at: at + 3], None if quat is None else quaternion_matrix(quat, 2 / sp.dot(quat, quat))))
        at += 7 if contact.kind == "frame" else 3
    return out


def _errors(model, kin, reference):
    """e_c per row: ``p - p_ref`` and, for a frame, first ``vee(skew(R R_ref^T))`` (sin(angle) axis, world)."""
    e = []
    for (target, Rref), p, R in zip(targets(model, reference), kin.points, kin.rotations):
        if Rref is not None:
            e += rotation_error(R, Rref)
        e += list(sp.vsub(p, target))
    return e


def _masks(model, ops, active):
    """The active flag of each constraint row; `InvalidInputError` unless each contact's is 1.0 or 0.0 (a value
    between would blend the contact's rows: ``-(a (1 - a))^2 >= 0`` holds only at 0 and 1)."""
    for k, a in enumerate(active):
        between = sp.mul(a, sp.sub(1, a))
        ops.require_not_negative(sp.neg(sp.mul(between, between)), InvalidInputError,
                                 f"active[{k}] is neither 1.0 nor 0.0")
    return [active[k] for k, c in enumerate(model.contacts) for _ in range(c.rows)]


def delassus(model, ops, rows, X, masks, what=WHAT_CONTACTS):
    """``(D, (L, Dinv, lam))``: ``J M^-1 J^T`` masked (the module docstring) and its checked dense LTDL factor."""
    n = len(rows)
    upper = {(i, j): sp.dot(rows[i], X[j]) for i in range(n) for j in range(i, n)}      # J M^-1 J^T
    D = [[sp.mul(sp.mul(masks[i], masks[j]), upper[min(i, j), max(i, j)]) if i != j else
          sp.add(sp.add(sp.mul(masks[i], upper[i, i]), sp.sub(1, masks[i])), model.mu) for j in range(n)]
         for i in range(n)]
    lam = chain(n)
    L, Dinv = ltdl(D, lam, ops, what, errors=ConstraintError, conditioned=model.mu == 0)
    return D, (L, Dinv, lam)


def solve_constraints(model, ops, rows, X, rhs, masks, what=WHAT_CONTACTS, system=None):
    """f from ``D f = rhs`` on the active rows (the module docstring's masking and proximal damping; ``system``:
    `delassus`' result where a caller has it)."""
    n = len(rows)
    D, (L, Dinv, lam) = system if system is not None else delassus(model, ops, rows, X, masks, what)
    b = [sp.mul(m, r) for m, r in zip(masks, rhs)]
    if model.mu == 0:
        (f,) = ops.solve_ltdl(L, Dinv, lam, [b])                                   # no residual: `ltdl`
        return f
    f = [0] * n
    for _ in range(model.iterations):
        (f,) = ops.solve_ltdl(L, Dinv, lam, [[sp.add(bi, sp.mul(model.mu, fi)) for bi, fi in zip(b, f)]])
    return f


def mass_matrix(tree, ops, q, quat):
    return coordinates.matrix(tree, crba(tree, ops, q, quat))


def solve_dynamics(settings, tree, ops, M, rows, drift, target, force, masks, what):
    """``(acc, f, X, factor, system)`` (``X = M^-1 J^T``, M's ``(L, Dinv)``, `delassus`' result) from
    ``M acc = force + J^T f`` and ``J acc + drift = target`` on the rows ``masks`` keeps: ``M^-1 [J^T, force]``
    by one tree-sparse LTDL, then the Delassus system (`solve_constraints`)."""
    lam = coordinate_parents(tree)
    factor = ltdl(M, lam, ops, WHAT_MASS)
    *X, acc_free = solve_columns(M, lam, rows + [force], ops, WHAT_MASS, factor)
    rhs = [sp.sub(sp.sub(t, d), sp.dot(row, acc_free)) for t, d, row in zip(target, drift, rows)]
    system = delassus(settings, ops, rows, X, masks, what)
    f = solve_constraints(settings, ops, rows, X, rhs, masks, what, system)
    acc = [sp.add(a, sp.dot([x[g] for x in X], f)) for g, a in enumerate(acc_free)]   # acc_free + M^-1 J^T f
    return acc, f, X, factor, system


class Solution(NamedTuple):
    """A constrained solve and what its derivatives reuse: the contacts' kinematics, M, the rows (the loops'
    after the contacts'), their masks, ``X = M^-1 J^T``, the solution ``y`` (acc or qd_plus), the forces, M's
    tree-sparse factor ``(L, Dinv)`` and the Delassus system (`delassus`' ``(D, (L, Dinv, lam))``)."""

    kin: ContactKinematics
    M: list
    rows: list
    masks: list
    X: list
    y: list
    f: list
    factor: tuple
    system: tuple


def contact_solution(tree, ops, q, qd, nu, tau, h, base, active, reference, loops=None) -> Solution:
    """`contact_dynamics`' solve (``y = acc``, ``f`` with the loops' rows)."""
    model = tree.contacts
    kin = ContactKinematics(tree, ops, q, qd, base)
    M = mass_matrix(tree, ops, q, None if base is None else base[1])
    target = [sp.neg(sp.mul(model.kd, v)) for v in kin.velocity]                     # -kd v_c
    if model.kp:
        target = [sp.sub(t, sp.mul(model.kp, e)) for t, e in zip(target, _errors(model, kin, reference))]
    rows, drift, masks = kin.rows, kin.drift, _masks(model, ops, active)
    if loops:
        rows, drift, target = rows + loops.rows, drift + loops.drift, target + loops.target(model.kp, model.kd)
        masks = masks + [1] * len(loops.rows)
    acc, f, X, factor, system = solve_dynamics(model, tree, ops, M, rows, drift, target,
                                               [sp.sub(t, b) for t, b in zip(tau, h)], masks, WHAT_CONTACTS)
    return Solution(kin, M, rows, masks, X, acc, f, factor, system)


def contact_dynamics(tree, ops, q, qd, nu, tau, h, base, active, reference, loops=None):
    """``(acc, forces)`` of the module docstring; ``nu`` the G velocities, ``h`` the G bias forces (with loads),
    ``base`` None (fixed) or (translation, quaternion, velocity, acceleration); ``loops`` the model's loops
    (`loop_dynamics.LoopKinematics`: rows always active after the contacts'), or None."""
    s = contact_solution(tree, ops, q, qd, nu, tau, h, base, active, reference, loops)
    return s.y, s.f[:len(s.kin.rows)]


def impulse_solution(tree, ops, q, nu, base, active, loops=None) -> Solution:
    """`impulse_dynamics`' solve (``y = qd_plus``, ``f`` the impulses with the loops' rows)."""
    model = tree.contacts
    qd = [0] * tree.nb  # only the Jacobian is needed: the velocities of the contact points are J nu
    kin = ContactKinematics(tree, ops, q, qd, base)
    M = mass_matrix(tree, ops, q, None if base is None else base[1])
    rows, masks = kin.rows, _masks(model, ops, active)
    gains = [-(1 + model.restitution)] * len(rows)
    if loops:
        rows, masks, gains = rows + loops.rows, masks + [1] * len(loops.rows), gains + [-1] * len(loops.rows)
    lam = coordinate_parents(tree)
    factor = ltdl(M, lam, ops, WHAT_MASS)
    X = solve_columns(M, lam, rows, ops, WHAT_MASS, factor)
    rhs = [sp.mul(gain, sp.dot(row, nu)) for gain, row in zip(gains, rows)]          # -(1 + e) J nu
    system = delassus(model, ops, rows, X, masks, WHAT_CONTACTS)
    impulses = solve_constraints(model, ops, rows, X, rhs, masks, WHAT_CONTACTS, system)
    qd_plus = [sp.add(v, sp.dot([x[g] for x in X], impulses)) for g, v in enumerate(nu)]
    return Solution(kin, M, rows, masks, X, qd_plus, impulses, factor, system)


def impulse_dynamics(tree, ops, q, nu, base, active, loops=None):
    """``(qd_plus, impulses)`` of the module docstring; ``loops`` as for `contact_dynamics` (``J qd_plus = 0``)."""
    s = impulse_solution(tree, ops, q, nu, base, active, loops)
    return s.y, s.f[:len(s.kin.rows)]
