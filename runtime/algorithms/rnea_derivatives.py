"""Analytic derivatives of inverse dynamics (RNEA), in body frames.

The structure is Carpentier and Mansard's (RSS 2018; Pinocchio's
``computeRNEADerivatives``): one RNEA forward pass, one backward pass that
accumulates composite quantities per subtree, then O(n d) products. Here every
quantity stays in its body's frame (constant axes and transforms fold), see
``docs/derivatives.md`` for the derivation. For body ``i`` (composites over its
subtree, transported like CRBA's ``IC``):

    IC_i  composite inertia                       F_i  RNEA's subtree force f_i
    hC_i  composite momentum  sum I v             BC_i composite sum of Idot = v x* I - I v x
    alpha_i = IC_i S_i        gamma_i = BC_i S_i - S_i x* hC_i

A change of a coordinate at body ``j`` (``q_j``, ``qd_j`` or the base motion) moves
the whole subtree of ``j`` by one spatial velocity ``dv`` and acceleration ``da``
in frame ``j`` (plus, for ``q_j``, a rigid rotation about ``S_j``):

    q_j:   dv = v_j x S_j,   da = (Xup_j a_p) x S_j + dv x vJ_j,   rigid: S_j x* F_j
    qd_j:  dv = S_j,         da = v_j x S_j

For ``k`` strictly in the subtree of ``j``, with ``alpha_k``, ``gamma_k`` carried to frame
``j``:  ``dtau_k = alpha_k . e + gamma_k . dv`` with ``e = da + v_j x dv``. Row ``j`` is
``S_j . dF_j`` with ``dF_j = IC_j e + dv x* hC_j + BC_j dv``; above ``j``, the parent receives
``Xup_j^T (dF_j + rigid)``, carried up like a force:
``dtau_k = S_k . G``; a floating base's root rows take it from a top body ``i`` to world axes
in one step, ``X0_i = Xup_i rot(E0)``. ``dtau/dqdd`` is the mass matrix (CRBA on these ``IC``).
"""

from __future__ import annotations

from .. import spatial as sp
from .crba import crba_from_composites
from .kinematics import Tree, base_spatial_acceleration, body_scope, per_body, rotate, rotate_back
from .rnea import rnea_passes


def _unit(k, n=6):
    return tuple(int(i == k) for i in range(n))


def _composite_force(IC, BC, hC, dv, e):
    """dF = IC e + dv x* hC + BC dv: the change of a subtree's force (e = da + v x dv)."""
    return sp.vadd(sp.vadd(sp.rigid_apply(IC, e), sp.crf(dv, hC)), sp.rigid_apply(BC, dv))


def composites(tree: Tree, ops, Xup, v, v0=None) -> tuple:
    """The backward pass's composites of each subtree, in its body's frame: ``(IC, hC, BC, base)`` with
    IC = sum I, hC = sum I v (momentum), BC = sum Idot (Idot = v x* I - I v x) per body and, for a
    floating base, ``base = (IC0, hC0, BC0)`` of the base body (with its own inertia; None otherwise)."""
    nb = tree.nb
    IC = list(tree.I)
    hC = per_body(tree, ops, "h", lambda i: sp.rigid_apply(tree.I[i], v[i]))         # h = I v
    BC = per_body(tree, ops, "Idot", lambda i: sp.rigid_variation(tree.I[i], v[i]))  # Idot = v x* I - I v x
    if tree.floating:
        IC0, hC0, BC0 = tree.I_base, sp.rigid_apply(tree.I_base, v0), sp.rigid_variation(tree.I_base, v0)
    for i in reversed(range(nb)):
        p = tree.parent[i]
        if p == -1 and not tree.floating:
            continue
        with body_scope(tree, ops, i, "IC, hC, BC to the parent"):
            ICi, BCi, hCi = (sp.rigid_xform_back(Xup[i], IC[i]), sp.rigid_xform_back(Xup[i], BC[i]),
                             sp.xform_force_back(Xup[i], hC[i]))
            if p == -1:
                IC0, BC0, hC0 = sp.rigid_add(IC0, ICi), sp.rigid_add(BC0, BCi), sp.vadd(hC0, hCi)
            else:
                IC[p], BC[p], hC[p] = sp.rigid_add(IC[p], ICi), sp.rigid_add(BC[p], BCi), sp.vadd(hC[p], hCi)
    return IC, hC, BC, ((IC0, hC0, BC0) if tree.floating else None)


def rnea_derivatives(tree: Tree, ops, q, qd, qdd, base=None, loads=None, gravity=True) -> dict:
    """Jacobians of `rnea` (``gravity`` as there) as columns of G scalars: ``{"q": [J columns], "qd": ...,
    "qdd": ...}`` and, floating, ``"base_velocity"``, ``"base_acceleration"`` (6 columns) and
    ``"base_rotation"`` (3 columns, world-frame rotation vector: ``R -> exp(dtheta x) R``)."""
    nb, off = tree.nb, 6 if tree.floating else 0
    G = nb + off
    r = rnea_passes(tree, ops, q, qd, qdd, base, loads, gravity)
    Xup, S, v = r.Xup, tree.S, r.v
    IC, hC, BC, base_composites = composites(tree, ops, Xup, v, r.v0)
    # the sources: (dv, e = da + v x dv, rigid) per coordinate, in the frame of its body
    sources = {"q": [], "qd": []}
    for j in range(nb):
        with body_scope(tree, ops, j, "dv, da of its coordinate"):
            p = tree.parent[j]
            ap = r.a0 if p == -1 else r.a[p]
            dv = sp.crm(v[j], S[j])                                                 # dv = v_j x S_j
            da = sp.vadd(sp.crm(sp.xform_motion(Xup[j], ap), S[j]), sp.crm(dv, r.vJ[j]))  # da = (Xup ap) x S + dv x vJ
            sources["q"].append((dv, sp.vadd(da, sp.crm(v[j], dv)), sp.crf(S[j], r.f[j])))  # rigid: S x* F
            sources["qd"].append((S[j], sp.vadd(dv, dv), None))                    # dv = S, da = v x S: e = 2 v x S
    cols = {key: [[0] * G for _ in range(nb)] for key in sources}
    # a top body's root rows in one step from A0 (world axes): X0_i = Xup_i rot(E0), X0_i^T = E0^T Xup_i^T
    X0 = {i: sp.Xform(sp.xform_compose(Xup[i], (r.E0, (0, 0, 0)))) for i in range(nb)
          if tree.floating and tree.parent[i] == -1}
    # j and above: dtau_j = S_j . dF_j (S_j . rigid = 0); the parent receives Xup_j^T (dF_j + rigid)
    for key, per_joint in sources.items():
        for j, (dv, e, rigid) in enumerate(per_joint):
            with body_scope(tree, ops, j, f"d tau / d {key}_j, j and above"):
                dF = _composite_force(IC[j], BC[j], hC[j], dv, e)
                Gf, k = (dF if rigid is None else sp.vadd(dF, rigid)), j
                cols[key][j][off + j] = sp.dot(S[j], Gf)                            # dtau_j = S_j . dF_j
                while tree.parent[k] != -1:
                    Gf = sp.xform_force_back(Xup[k], Gf)
                    k = tree.parent[k]
                    cols[key][j][off + k] = sp.dot(S[k], Gf)                        # dtau_k = S_k . G
                if tree.floating:
                    cols[key][j][:6] = sp.xform_force_back(X0[k], Gf)               # the root wrench: X0_k^T G
    # strictly in the subtree of j: alpha_k and gamma_k carried up to each j above k
    base_covectors = []
    for k in range(nb):
        with body_scope(tree, ops, k, "alpha, gamma to the joints above"):
            alpha = sp.rigid_apply(IC[k], S[k])                                     # alpha = IC S
            gamma = sp.vsub(sp.rigid_apply(BC[k], S[k]), sp.crf(S[k], hC[k]))       # gamma = BC S - S x* hC
            j = k
            while tree.parent[j] != -1:
                alpha, gamma = sp.xform_force_back(Xup[j], alpha), sp.xform_force_back(Xup[j], gamma)
                j = tree.parent[j]
                for key, per_joint in sources.items():
                    dv, e, _ = per_joint[j]
                    cols[key][j][off + k] = sp.add(sp.dot(alpha, e), sp.dot(gamma, dv))  # alpha . e + gamma . dv
            if tree.floating:                                                       # to the base frame
                base_covectors.append((sp.xform_force_back(Xup[j], alpha), sp.xform_force_back(Xup[j], gamma)))
    H = crba_from_composites(tree, ops, Xup, [sp.RigidInertia(I) for I in IC],
                             base_composites[0] if tree.floating else None, r.E0)
    out = {"q": cols["q"], "qd": cols["qd"], "qdd": [[H[row][off + j] for row in range(G)] for j in range(nb)]}
    if tree.floating:
        out.update(_base_columns(tree, r, base, base_covectors, base_composites, H, gravity))
    return out


def _base_columns(tree, r, base, covectors, base_composites, H, gravity):
    """The base motion's columns: the whole tree moves by (dv, e = da + v0 x dv) in the base frame."""
    _, velocity, acceleration = base
    w, pdot = velocity[:3], velocity[3:]
    a_rel = base_spatial_acceleration(velocity, acceleration)
    if gravity:
        a_rel = sp.vsub(a_rel, tree.a_grav)                                          # a_W - a_g
    f_W = rotate_back(r.E0, r.f0)
    out = {"base_velocity": [], "base_rotation": []}
    for k in range(6):
        x = _unit(k)                                                                # d[omega_W, pdot_W]
        e_W = sp.cross(w, x[:3]) + sp.vscale(sp.cross(pdot, x[:3]), 2)             # da + v x dv = [w x x_w, 2 pdot x x_w]
        out["base_velocity"].append((rotate(r.E0, x), rotate(r.E0, e_W), None))
    for k in range(3):
        x = _unit(k)                                                                # R -> exp(x x) R: E0 -> E0 (1 - x x)
        dv = rotate(r.E0, sp.vscale(sp.crm(x, velocity), -1))                      # dv = -E0 (x x v_W)
        da = rotate(r.E0, sp.vscale(sp.crm(x, a_rel), -1))                         # da = -E0 (x x (a_W - a_g))
        out["base_rotation"].append((dv, sp.vadd(da, sp.crm(r.v0, dv)), sp.crf(x, f_W)))
    IC0, hC0, BC0 = base_composites
    columns = {"base_acceleration": [[H[row][k] for row in range(len(H))] for k in range(6)]}
    for key, sources in out.items():
        columns[key] = []
        for dv, e, rigid in sources:
            top = rotate_back(r.E0, _composite_force(IC0, BC0, hC0, dv, e))
            if rigid is not None:
                top = sp.vadd(top, rigid)                                           # the root wrench turns too
            columns[key].append(list(top))
    p2 = sp.vscale(r.v0[3:], 2)                                                     # 2 p0
    for alpha, gamma in covectors:
        for column, (dv, e, _) in zip(columns["base_rotation"], out["base_rotation"]):
            column.append(sp.add(sp.dot(alpha, e), sp.dot(gamma, dv)))             # alpha . e + gamma . dv
        # base velocity u = E0 x (base frame): dv = u, e = [w0 x u_w, 2 p0 x u_w], so alpha . e + gamma . dv = r . u
        row = sp.vadd(gamma, sp.vadd(sp.cross(alpha[:3], r.v0[:3]), sp.cross(alpha[3:], p2)) + (0, 0, 0))
        for column, x in zip(columns["base_velocity"], rotate_back(r.E0, row)):     # the row in world axes: E0^T r
            column.append(x)
    return columns
