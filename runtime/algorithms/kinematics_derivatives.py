"""Analytic derivatives of a link's twist and classical acceleration and of the centre of mass's velocity.

Everything is in world coordinates at the world origin, as in `frames` (``s``, ``v``, ``a``:
the path's motion subspaces, velocities and accelerations). A change of one coordinate moves
what lies after it: with ``c`` its spatial motion (``s_j`` for joint j, a base column of
`frames.base_columns` for the base), ``vp``, ``ap`` the velocity and acceleration of the
body before it, and b the link's body with origin p,

    q_j (and the base rotation, c = [e_k, p_b x e_k], vp = v0):
        dv = c x (v_b - vp)
        da = c x (a_b - ap) + (vp x c) x (v_b - vp)      (Jacobi's identity on the sum over the path)
        dp = c_lin + c_ang x p
    qd_j:    dv = s_j,  da = s_j x (v_b - v_j) + v_j x s_j,  dp = 0
    qdd_j:   dv = 0,    da = s_j,                            dp = 0
    base velocity:      dv = c,  da = da0 + c x (v_b - v0)  (da0: `frames.base_motion`'s a0 by it)
    base acceleration:  dv = 0,  da = c

and the outputs change as (w, pdot: the link's angular velocity and origin velocity)

    d[omega, pdot]         = [dw, dv_lin + dw x p + w x dp]
    d[omegadot, pddot]     = [dwdot, da_lin + dwdot x p + wdot x dp + dw x pdot + w x dpdot]

(`frames.classical` differentiated). The centre of mass's velocity is the moving bodies' linear
momentum over their mass M, ``vcom = P / M``. A change of q_j moves the subtree of j (mass M_j,
first moment mc_j, momentum P_j, all world) rigidly with s_j while each body's velocity turns
with it, so ``dvcom = (s_ang x P_j + M_j u_lin + u_ang x mc_j) / M`` with ``u = vp x s_j``;
by qd_j it is the centre-of-mass Jacobian's column ``(M_j s_lin + s_ang x mc_j) / M``.
"""

from __future__ import annotations

from .. import spatial as sp
from . import coordinates
from .centroidal import _require_mass
from .frames import UNIT, _frame, base_columns, body_poses, motion_subspaces, velocities
from .kinematics import Tree


def _point(c, p):
    """The velocity of the world point p moving with the spatial motion c: c_lin + c_ang x p."""
    return sp.vadd(c[3:], sp.cross(c[:3], p))


def _turned(c, vb, ab, vp, ap):
    """(dv, da) of the link's body when the motion c turns everything after a body of (vp, ap)."""
    rel = sp.vsub(vb, vp)
    dv = sp.crm(c, rel)                                                              # c x (v_b - vp)
    if ab is None:
        return dv, None
    return dv, sp.vadd(sp.crm(c, sp.vsub(ab, ap)), sp.crm(sp.crm(vp, c), rel))    # c x (a_b - ap) + (vp x c) x rel


def _base_acceleration_rates(base):
    """d a0 / d[omega_W, pdot_W] of the base (`frames.base_motion`): [0, pdot x e_k], then [0, e_k x omega]."""
    w, pdot = tuple(base[2][:3]), tuple(base[2][3:])
    return [(0, 0, 0) + sp.cross(pdot, e) for e in UNIT] + [(0, 0, 0) + sp.cross(e, w) for e in UNIT]


def frame_derivatives(tree: Tree, ops, q, qd, base, link: int, qdd=None, offset=None) -> dict:
    """Jacobians of the link origin's (or its point ``offset``'s) twist (``qdd`` None) or classical acceleration,
    as columns of 6: ``{"q": [nb columns], "qd": ..., ("qdd": ...)}`` per body and, floating,
    ``"base_velocity"`` (6), ``"base_rotation"`` (3) and, for the acceleration, ``"base_acceleration"`` (6)."""
    bodies, s, p = _frame(tree, ops, q, base, link, offset)
    v, a = velocities(tree, ops, base, s, qd, bodies, qdd)
    b = tree.link_body[link]
    vb, ab = v[b], (a[b] if qdd is not None else None)
    w = vb[:3]
    pdot = _point(vb, p)
    zero = (0,) * 3

    def column(dv, da, dp):
        dw = dv[:3]
        dpdot = sp.vadd(sp.vadd(dv[3:], sp.cross(dw, p)), sp.cross(w, dp))          # dv_lin + dw x p + w x dp
        if ab is None:
            return tuple(dw) + dpdot
        dwdot, wdot = da[:3], ab[:3]
        lin = sp.vadd(sp.vadd(da[3:], sp.cross(dwdot, p)), sp.cross(wdot, dp))      # da_lin + dwdot x p + wdot x dp
        return tuple(dwdot) + sp.vadd(lin, sp.vadd(sp.cross(dw, pdot), sp.cross(w, dpdot)))  # + dw x pdot + w x dpdot

    still = (0,) * 6
    on_path = set(bodies)
    out = {"q": [], "qd": []} if qdd is None else {"q": [], "qd": [], "qdd": []}
    for j in range(tree.nb):
        if j not in on_path:
            for key in out:
                out[key].append(still)
            continue
        parent = tree.parent[j]
        dv, da = _turned(s[j], vb, ab, v[parent], a.get(parent))
        out["q"].append(column(dv, da, _point(s[j], p)))
        da = None if ab is None else sp.vadd(sp.crm(s[j], sp.vsub(vb, v[j])), sp.crm(v[j], s[j]))
        out["qd"].append(column(s[j], da, zero))
        if qdd is not None:
            out["qdd"].append(column(still, s[j], zero))
    out = _combined(tree, out)
    if tree.floating:
        cols = base_columns(tree, base)
        rates = _base_acceleration_rates(base)
        out["base_velocity"] = [column(c, None if ab is None else sp.vadd(r, sp.crm(c, sp.vsub(vb, v[-1]))), zero)
                                for c, r in zip(cols, rates)]
        out["base_rotation"] = [column(*_turned(c, vb, ab, v[-1], a.get(-1)), _point(c, p)) for c in cols[:3]]
        if qdd is not None:
            out["base_acceleration"] = [column(still, c, zero) for c in cols]
    return out


def _combined(tree: Tree, columns: dict) -> dict:
    """The bodies' columns on the independent coordinates (mimic joints: combined by P)."""
    return {wrt: coordinates.combine_columns(tree, cols) for wrt, cols in columns.items()}


def center_of_mass_velocity(tree: Tree, ops, q, qd, base) -> list:
    """The centre of mass's velocity P / M (world axes)."""
    return list(_subtrees(tree, ops, q, qd, base)[0])


def _subtrees(tree: Tree, ops, q, qd, base):
    """(vcom, s, v, sub, total, 1 / M): ``sub[j] = [M_j, mc_j, P_j]``, the mass, first moment and linear
    momentum (world coordinates) of the subtree of body j (-1: a floating base's, the whole robot), summed
    leaf to root; ``total``: the moving bodies' (a fixed base's root does not count)."""
    bodies = range(tree.nb)
    X0 = body_poses(tree, ops, q, base, bodies)
    s = motion_subspaces(tree, ops, X0, bodies)
    v, _ = velocities(tree, ops, base, s, qd, bodies)
    inertias = dict(enumerate(tree.I))
    if tree.floating:
        inertias[-1] = tree.I_base
    sub = {}
    for i, (m, h, _) in inertias.items():
        E, r = X0[i]
        mc = sp.vadd(sp.vscale(r, m), sp.mtv3(E, h))                                 # m c = m r + R h
        P = sp.vadd(sp.vscale(v[i][3:], m), sp.cross(v[i][:3], mc))                 # P = m v_lin + w x m c
        sub[i] = [m, mc, P]
    total = [0, (0, 0, 0), (0, 0, 0)]
    for i in reversed(sorted(sub)):
        parent = tree.parent[i] if i >= 0 else None
        into = sub[parent] if parent is not None and parent in sub else total
        into[0] = sp.add(into[0], sub[i][0])
        into[1], into[2] = sp.vadd(into[1], sub[i][1]), sp.vadd(into[2], sub[i][2])
    inverse_mass = 1 / _require_mass(total[0])
    return sp.vscale(total[2], inverse_mass), s, v, sub, total, inverse_mass


def center_of_mass_derivatives(tree: Tree, ops, q, qd, base) -> dict:
    """Jacobians of `center_of_mass_velocity` as columns of 3: ``{"q": [...], "qd": [...]}`` (qd: the
    centre-of-mass Jacobian's columns, which are also d com / dq) and, floating, ``"base_velocity"`` (6)
    and ``"base_rotation"`` (3)."""
    _, s, v, sub, total, k = _subtrees(tree, ops, q, qd, base)

    def moved(c, M, mc):
        """(M c_lin + c_ang x mc) / M: the subtree moving with c."""
        return sp.vscale(sp.vadd(sp.vscale(c[3:], M), sp.cross(c[:3], mc)), k)

    def turned(c, vp, M, mc, P):
        """(c_ang x P + M u_lin + u_ang x mc) / M, u = vp x c: the subtree turned by c."""
        return sp.vadd(sp.vscale(sp.cross(c[:3], P), k), moved(sp.crm(vp, c), M, mc))

    out = {"q": [turned(s[j], v[tree.parent[j]], *sub[j]) for j in range(tree.nb)],
           "qd": [moved(s[j], *sub[j][:2]) for j in range(tree.nb)]}
    out = _combined(tree, out)
    if tree.floating:
        cols = base_columns(tree, base)
        out["base_velocity"] = [moved(c, *total[:2]) for c in cols]
        out["base_rotation"] = [turned(c, v[-1], *total) for c in cols[:3]]
    return out
