"""The Coriolis matrix C(q, qd), Christoffel-consistent: C qd are the velocity-product forces and
Mdot = C + C^T (so Mdot - 2 C is skew-symmetric, the property passivity-based control uses).

Echeandia and Wensing's factorisation (2021): with J_i the Jacobian of body i (nu to its spatial
velocity v_i), I_i its inertia,

    C = sum_i J_i^T (I_i Jdot_i + B_i J_i),   B = (Idot + (I v)xbar) / 2,

where Idot = v x* I - I v x and ``(h)xbar s = s x* h`` (skew-symmetric, so B + B^T = Idot and
B v = v x* I v). Every term is a congruence, so it is evaluated as CRBA is, in body frames
with composites over each subtree (the same as `rnea_derivatives`' IC, hC, BC):

    IC_j = sum I,   hC_j = sum I v,   BC_j = sum Idot      (over the subtree of j, in frame j)
    Sdot_j = v_j x S_j                                     (column j of Jdot, in frame j)

For k an ancestor of j (or j itself), with ``^jX_k`` the transform from k to j:

    C_kj = S_k . ^jX_k^T F_j,     F_j = IC_j Sdot_j + (BC_j S_j + S_j x* hC_j) / 2
    C_jk = Sdot_k . ^jX_k^T a_j + S_k . ^jX_k^T b_j   (k strictly above j),
           a_j = IC_j S_j,        b_j = (BC_j S_j - S_j x* hC_j) / 2

A floating base's six columns in A0 (world axes at the base origin) are, in the base frame B,
s_m = X0 e_m with X0 = rot(E0), and move with A0, which translates without turning:
sdot_m = (0, E0 pdot) x s_m.
"""

from __future__ import annotations

from .. import spatial as sp
from .kinematics import (Tree, base_velocity, body_scope, body_velocities, body_xforms, joint_xforms, per_body, rotate,
                         rotate_back)
from .rnea_derivatives import composites

HALF = 0.5


def coriolis_matrix(tree: Tree, ops, q, qd, base=None):
    """C(q, qd): G x G as a list of rows (body coordinates; `coordinates.product` reduces mimic joints).

    ``base`` (floating only): ``(quat_xyzw, velocity)``, the velocity ``[omega_W, pdot_W]``.
    """
    nb, off = tree.nb, 6 if tree.floating else 0
    G = nb + off
    S = tree.S
    Xup = body_xforms(tree, joint_xforms(tree, q, ops), ops)
    E0, v0 = base_velocity(tree, ops, base)
    v = body_velocities(tree, ops, Xup, qd, v0)
    IC, hC, BC, base_composites = composites(tree, ops, Xup, v, v0)
    Sdot = per_body(tree, ops, "Sdot", lambda i: sp.crm(v[i], S[i]))                 # Sdot_i = v_i x S_i
    C = [[0] * G for _ in range(G)]
    for j in range(nb):
        with body_scope(tree, ops, j, "C column and row"):
            BS, Sh = sp.rigid_apply(BC[j], S[j]), sp.crf(S[j], hC[j])               # BC S, S x* hC
            F = sp.vadd(sp.rigid_apply(IC[j], Sdot[j]), sp.vscale(sp.vadd(BS, Sh), HALF))  # F = IC Sdot + (BC S + S x* hC)/2
            a = sp.rigid_apply(IC[j], S[j])                                         # a = IC S
            b = sp.vscale(sp.vsub(BS, Sh), HALF)                                    # b = (BC S - S x* hC)/2
            C[off + j][off + j] = sp.dot(S[j], F)
            k = j
            while tree.parent[k] != -1:
                F, a, b = (sp.xform_force_back(Xup[k], x) for x in (F, a, b))
                k = tree.parent[k]
                C[off + k][off + j] = sp.dot(S[k], F)                               # C_kj = S_k . F
                C[off + j][off + k] = sp.add(sp.dot(Sdot[k], a), sp.dot(S[k], b))  # C_jk = Sdot_k . a + S_k . b
            if tree.floating:
                F, a, b = (sp.xform_force_back(Xup[k], x) for x in (F, a, b))       # into the base frame B
                column = rotate_back(E0, F)                                         # s_m . F = (X0^T F)_m
                row = rotate_back(E0, sp.vsub(b, sp.crf(_a0_velocity(v0), a)))      # sdot_m . a + s_m . b
                for m in range(6):
                    C[m][off + j], C[off + j][m] = column[m], row[m]
    if tree.floating:
        _base_block(C, E0, v0, *base_composites)
    return C


def _a0_velocity(v0):
    """A0's velocity in the base frame: the base's, without turning, (0, E0 pdot)."""
    return (0, 0, 0) + tuple(v0[3:])


def _base_block(C, E0, v0, IC0, hC0, BC0):
    """C_nm = s_n . (IC0 sdot_m + (BC0 s_m + s_m x* hC0) / 2) for the base's six columns."""
    vA = _a0_velocity(v0)
    for m in range(6):
        s = rotate(E0, tuple(int(k == m) for k in range(6)))                       # s_m = X0 e_m
        sdot = sp.crm(vA, s)                                                        # sdot_m = (0, E0 pdot) x s_m
        F = sp.vadd(sp.rigid_apply(IC0, sdot),
                    sp.vscale(sp.vadd(sp.rigid_apply(BC0, s), sp.crf(s, hC0)), HALF))
        for n, value in enumerate(rotate_back(E0, F)):
            C[n][m] = value


def mass_matrix_derivative(tree: Tree, ops, q, qd, base=None):
    """Mdot(q, qd) = C + C^T, the rate of M along the motion (`coriolis_matrix` is Christoffel-consistent):
    G x G as a list of rows (body coordinates), one scalar for both triangles; ``base`` as there."""
    C = coriolis_matrix(tree, ops, q, qd, base)
    G = len(C)
    Mdot = [[0] * G for _ in range(G)]
    for r in range(G):
        for c in range(r, G):
            Mdot[r][c] = Mdot[c][r] = sp.add(C[r][c], C[c][r])
    return Mdot
