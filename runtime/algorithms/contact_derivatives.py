"""Analytic derivatives of constrained dynamics (as Pinocchio's ``computeConstraintDynamicsDerivatives`` and
``computeImpulseDynamicsDerivatives``, Carpentier and Mansard, RSS 2018).

`contact_dynamics` solves ``r = ID(q, qd, acc) - J^T f - tau = 0`` (the loads in ID, the contact forces
``f`` held in world axes at their points) and ``c = J acc + Jdot nu + kd J nu + kp e = 0`` on the active
rows. Differentiating both at the solution by a state input x (a, f moving with it):

    M da - J^T df = -r_x,   J da = -c_x,   with r_tau = -I.

Every column is one tree-sparse solve with the KKT matrix, the contact rows first:

    K [df; da] = [-a c_x; r_x],    K = [[1 - a, J_a], [J_a^T, -M]]

(``a`` the rows' active flags, ``J_a`` the active rows: an inactive row reads ``df = 0``). Its LTDL factor
``K = L^T D L`` has the contact rows as a chain above the root coordinate and is assembled from the solve's own
factors (`contact_dynamics.Solution`), nothing factorised again: the coordinates' rows are M's (``L_M``, ``-D_M``),
the contacts' those of the masked Delassus matrix ``D = J M^-1 J^T`` (``L_D``, ``D_D``), and between them
``L_mc = -D_M^-1 L_M^-T J_a^T``, non-zero on the contacts' paths only (then ``L_mc^T (-D_M) L_mc = -J_a M^-1
J_a^T`` and the contact block is ``D - J_a M^-1 J_a^T = 1 - a``). Eliminating da gives the Schur form,
``D df = J M^-1 r_x - c_x``, ``da = M^-1 (J^T df - r_x)``, without its products by J and J^T in straight-line code
and with one solve instead of three. The factors were checked by the solve (pivots: positivity, conditioning).
By tau (``r_tau = -I``), da is ``-K^-1``'s coordinate block, symmetric: each column is read at the rows up to it
depth first only, the rest mirrored (`minv.mirrored`), so the C's solve skips the others' L sweep.
The pieces:

- ``r_x``: `rnea_derivatives` at ``qdd = acc`` (the loads body-fixed, as `rnea` takes them), less
  ``d(J^T f)/dx``: with ``W = [n + p x f, f]`` a contact's wrench (world origin) and ``s_j`` the path's motion
  subspaces (world origin), ``(J^T f)_j = s_j . W``. A coordinate i on the path with motion ``c`` (``s_i``, or a
  base column for the base rotation) turns what lies after it (``ds_j = c x s_j``) and moves the point by
  ``dp = c_lin + c_ang x p`` (``dW = [dp x f, 0]``), so ``d(J^T f)_j = s_j . U`` with ``U = [dp x f, 0]`` for j
  before i and the base columns, ``U = [dp x f, 0] - c x* W`` for i and after it.
- ``c_x``: the point's classical-acceleration derivatives (`kinematics_derivatives.frame_derivatives` at the
  point, with ``qdd = acc + kd nu``: its ``qdd`` columns are J, so ``dJ/dq (acc + kd nu) + d(Jdot nu)/dq``
  comes in one call), plus ``kd J`` by the velocities and ``kp e_x`` by q: ``e_x = J`` (linear rows) for a
  position, ``(tr(A) I - A) J_omega / 2`` for a frame's ``vee(A - A^T) / 2``, ``A = R R_ref^T``.

`impulse_dynamics` likewise: ``r = M (qd_plus - nu) - J^T Lambda`` (``d(M delta)/dq`` is `rnea_derivatives`
without gravity at zero velocity and ``qdd = delta = qd_plus - nu``; ``r_nu = -M``) and
``c = J (qd_plus + e nu)`` (the twist derivatives at the velocity ``qd_plus + e nu``; ``c_nu = e J``).

Inactive contacts are masked rows (their right-hand sides zero, D's rows the identity): their forces' derivatives
are zero. The formula is the derivative of the exact solution: a damped solve (proximal iterations) or closed
loops are differentiated by forward-mode duals instead (`operations`).
"""

from __future__ import annotations

from .. import spatial as sp
from . import coordinates
from .contact_dynamics import contact_solution, impulse_solution, targets
from .frames import at_point, base_columns, link_path
from .kinematics_derivatives import frame_derivatives
from .ltdl import ancestors, coordinate_parents, ltdl_sweep_up
from .minv import mirrored
from .rnea_derivatives import rnea_derivatives

#: The state inputs of the Jacobians, in the outputs' order (the base's: floating only).
JOINTS, BASE = ("q", "qd"), ("base_velocity", "base_rotation")


def _wrenches(tree, kin, f):
    """Per contact ``(path, p, W, force)``: ``W = [n + p x f, f]`` its wrench at the world origin (world axes)."""
    out = []
    for k, (contact, link) in enumerate(zip(tree.contacts.contacts, tree.contacts.links)):
        at, p = kin.first[k], kin.points[k]
        n, force = ((f[at], f[at + 1], f[at + 2]), tuple(f[at + 3: at + 6])) if contact.kind == "frame" else \
            ((0, 0, 0), tuple(f[at: at + 3]))
        out.append((link_path(tree, link), p, sp.vadd(n, sp.cross(p, force)) + force, force))
    return out


def _force_columns(tree, kin, f, base):
    """``d(J^T f)/dx`` with f held in world axes (the module docstring), full coordinates: ``{"q": [nb columns],
    "base_rotation": [3 columns]}`` of ``6 + nb`` (fixed: nb) rows."""
    off = 6 if tree.floating else 0
    s, cols = kin.s, base_columns(tree, base)
    out = {"q": [[0] * (off + tree.nb) for _ in range(tree.nb)]}
    if tree.floating:
        out["base_rotation"] = [[0] * (off + tree.nb) for _ in cols[:3]]
    for path, p, W, force in _wrenches(tree, kin, f):
        moves = [(out["q"][i], s[i], path[:at], path[at:]) for at, i in enumerate(path)]
        moves += [(column, c, [], path) for column, c in zip(out.get("base_rotation", ()), cols[:3])]
        for column, c, before, after in moves:
            U = sp.cross(at_point(c, p)[3:], force) + (0, 0, 0)                       # [dp x f, 0]
            turned = sp.vsub(U, sp.crf(c, W))                                           # U - c x* W
            for g, cg in enumerate(cols):
                column[g] = sp.add(column[g], sp.dot(cg, U))
            for j in before:
                column[off + j] = sp.add(column[off + j], sp.dot(s[j], U))
            for j in after:
                column[off + j] = sp.add(column[off + j], sp.dot(s[j], turned))
    return out


def _constraint_columns(tree, ops, kin, q, qd, base, qdd, gain, kp, reference):
    """``c_x`` by q, qd and the base (``{wrt: columns of C}``, independent coordinates): the contact points'
    classical-acceleration derivatives at ``qdd`` (or, ``qdd`` None, their twists' by q only), plus ``gain J``
    by the velocities and ``kp e_x`` by q."""
    model = tree.contacts
    off, C = (6 if tree.floating else 0), len(kin.rows)
    keys = JOINTS + (BASE if tree.floating else ())
    count = {"q": tree.nj, "qd": tree.nj, "base_velocity": 6, "base_rotation": 3}
    out = {wrt: [[0] * C for _ in range(count[wrt])] for wrt in keys}
    moved = {"q": lambda row, j: row[off + j], "base_rotation": lambda row, k: row[k]}     # dp/dx: J's columns
    by_rate = {"qd": moved["q"], "base_velocity": moved["base_rotation"]}
    goals = targets(model, reference) if kp else [(None, None)] * len(model.contacts)
    for k, (contact, link) in enumerate(zip(model.contacts, model.links)):
        A = frame_derivatives(tree, ops, q, qd, base, link, qdd, contact.offset)
        at, frame = kin.first[k], contact.kind == "frame"
        turn = None
        if goals[k][1] is not None:                                                   # d e_rot = K J_omega
            E = sp.mm3(kin.rotations[k], sp.transpose3(goals[k][1]))                  # A = R R_ref^T
            trace = sp.add(sp.add(E[0][0], E[1][1]), E[2][2])
            turn = [[sp.mul(0.5, sp.sub(trace if r == m else 0, E[r][m])) for m in range(3)] for r in range(3)]
        for r, row in enumerate(range(6) if frame else range(3, 6)):
            i = at + r
            for wrt in keys:
                if qdd is None and wrt in by_rate:
                    continue
                for x, column in enumerate(out[wrt]):
                    column[i] = A[wrt][x][row]
            for wrt, entry in by_rate.items():
                if wrt in out and gain:
                    for x, column in enumerate(out[wrt]):
                        column[i] = sp.add(column[i], sp.mul(gain, entry(kin.rows[i], x)))      # + gain J
            if not kp:
                continue
            for wrt, entry in moved.items():
                if wrt not in out:
                    continue
                for x, column in enumerate(out[wrt]):
                    e = entry(kin.rows[i], x) if row >= 3 else \
                        sp.dot(turn[row], [entry(kin.rows[at + m], x) for m in range(3)])
                    column[i] = sp.add(column[i], sp.mul(kp, e))                        # + kp e_x
    return out


def _kkt_factor(tree, ops, sol):
    """``(L, Dinv, lam)`` of ``K = [[1 - a, J_a], [J_a^T, -M]]``, the contact rows first (the module docstring)."""
    L_M, Dinv_M = sol.factor
    _, (L_D, Dinv_D, lam_D) = sol.system
    lam_M, C = coordinate_parents(tree), len(sol.rows)
    lam = tuple(lam_D) + tuple(C + j if j != -1 else C - 1 for j in lam_M)
    with ops.scope("KKT: L_mc = -D_M^-1 L_M^-T J_a^T"):
        W = [ltdl_sweep_up(L_M, lam_M, [sp.mul(sp.neg(m), x) for x in row]) for m, row in zip(sol.masks, sol.rows)]
        L = list(L_D)
        for k, d in enumerate(Dinv_M):                                              # the ancestors nearest first
            L.append({j: L_M[k][j - C] if j >= C else sp.mul(d, W[j][k]) for j in ancestors(lam, C + k)})
    return L, list(Dinv_D) + [sp.neg(d) for d in Dinv_M], lam


def _kkt(tree, ops, sol, rhs):
    """``{wrt: (da columns, df columns)}`` from ``{wrt: [(c, r)]}`` (``c = c_x``, None: zero; ``r = r_x``): the
    columns of ``K [df; da] = [-a c; r]`` in one solve with K's factor (`_kkt_factor`)."""
    L, Dinv, lam = _kkt_factor(tree, ops, sol)
    C = len(sol.rows)
    pairs = [(wrt, c, r) for wrt, columns in rhs.items() for c, r in columns]
    with ops.scope("KKT: -a c_x"):
        B = [([0] * C if c is None else [sp.mul(sp.neg(m), e) for m, e in zip(sol.masks, c)]) + list(r)
             for _, c, r in pairs]
    out = {wrt: ([], []) for wrt in rhs}
    for (wrt, _, _), x in zip(pairs, ops.solve_ltdl(L, Dinv, lam, B)):
        out[wrt][0].append(x[C:])
        out[wrt][1].append(x[:C])
    return out


def _residual_columns(tree, dID, forces, keys):
    """``r_x = dID/dx - d(J^T f)/dx`` by ``keys`` on the independent coordinates."""
    r = {wrt: dID[wrt] for wrt in keys}
    for wrt, columns in forces.items():
        r[wrt] = [[sp.sub(a, b) for a, b in zip(x, y)] for x, y in zip(r[wrt], columns)]
    return coordinates.jacobians(tree, r)


def contact_dynamics_derivatives(tree, ops, q, qd, nu, tau, h, base, active, reference, loads) -> dict:
    """``{"acc": {wrt: columns}, "forces": {wrt: columns}}`` for wrt in q, qd, tau and, floating, the base
    velocity and rotation (`contact_dynamics`' arguments; ``loads`` as `rnea` takes them)."""
    model = tree.contacts
    off = 6 if tree.floating else 0
    sol = contact_solution(tree, ops, q, qd, nu, tau, h, base, active, reference)
    acc, G = sol.y, len(sol.y)
    id_base = (base[1], base[2], acc[:6]) if tree.floating else None
    with ops.scope("r_x: RNEA derivatives at acc"):
        dID = rnea_derivatives(tree, ops, q, qd, coordinates.rates(tree, acc[off:]), id_base, loads)
    keys = JOINTS + (BASE if tree.floating else ())
    with ops.scope("r_x: the contact forces turned"):
        r = _residual_columns(tree, dID, _force_columns(tree, sol.kin, sol.f, base), keys)
    u = [sp.add(a, sp.mul(model.kd, v)) for a, v in zip(acc, nu)]                   # acc + kd nu
    u_base = (base[0], base[1], base[2], u[:6]) if tree.floating else None
    with ops.scope("c_x: the contact points' accelerations"):
        c = _constraint_columns(tree, ops, sol.kin, q, qd, u_base, coordinates.rates(tree, u[off:]), model.kd,
                                model.kp, reference)
    rhs = {wrt: list(zip(c[wrt], r[wrt])) for wrt in keys}
    rhs["tau"] = [(None, [-int(g == k) for g in range(G)]) for k in range(G)]          # r_tau = -I
    out = _kkt(tree, ops, sol, rhs)
    out["tau"] = (mirrored(out["tau"][0], coordinate_parents(tree)), out["tau"][1])   # -K^-1's block: symmetric
    return {"acc": {wrt: v[0] for wrt, v in out.items()}, "forces": {wrt: v[1] for wrt, v in out.items()}}


def impulse_dynamics_derivatives(tree, ops, q, nu, base, active) -> dict:
    """``{"qd_plus": {wrt: columns}, "impulses": {wrt: columns}}`` for wrt in q, qd and, floating, the base
    velocity and rotation (`impulse_dynamics`' arguments)."""
    model = tree.contacts
    off = 6 if tree.floating else 0
    sol = impulse_solution(tree, ops, q, nu, base, active)
    delta = [sp.sub(a, b) for a, b in zip(sol.y, nu)]                                  # qd_plus - nu = M^-1 J^T Lambda
    still = (base[1], (0,) * 6, delta[:6]) if tree.floating else None
    with ops.scope("r_x: d(M delta)/dx"):
        dM = rnea_derivatives(tree, ops, q, [0] * tree.nb, coordinates.rates(tree, delta[off:]), still, None,
                              gravity=False)
    turns = ("q",) + (("base_rotation",) if tree.floating else ())
    with ops.scope("r_x: the impulses turned"):
        r = _residual_columns(tree, dM, _force_columns(tree, sol.kin, sol.f, base), turns)
    r["qd"] = [[sp.neg(x) for x in sol.M[off + j]] for j in range(tree.nj)]         # r_nu = -M (M symmetric)
    if tree.floating:
        r["base_velocity"] = [[sp.neg(x) for x in sol.M[k]] for k in range(6)]
    u = [sp.add(a, sp.mul(model.restitution, v)) for a, v in zip(sol.y, nu)]        # qd_plus + e nu
    u_base = (base[0], base[1], u[:6], (0,) * 6) if tree.floating else None
    with ops.scope("c_x: the contact points' velocities"):
        c = _constraint_columns(tree, ops, sol.kin, q, coordinates.rates(tree, u[off:]), u_base, None,
                                model.restitution, 0, None)
    out = _kkt(tree, ops, sol, {wrt: list(zip(c[wrt], r[wrt])) for wrt in c})
    return {"qd_plus": {wrt: v[0] for wrt, v in out.items()}, "impulses": {wrt: v[1] for wrt, v in out.items()}}
