"""The configuration space of a floating base: a state moved by a velocity, the difference of two states, and
their Jacobians.

A state is x = (base, q): the base translation p and rotation R (a quaternion), the J joint positions. Its
tangent vectors are G long, laid out as generalized velocities: ``[dtheta, dp, dq]``, world axes, angular
first, where a rotation moves as ``R -> exp(dtheta x) R`` (a world-frame rotation vector, the convention of
the base rotation Jacobians of the dynamics derivatives). The base moves on R3 x SO(3), not on SE(3):

* ``integrate(x, v, dt)``: the velocity ``v = [omega_W, pdot_W, qd]`` held constant for ``dt``:
  ``p + pdot dt``, ``exp(omega dt) R`` and ``q + qd dt`` (Pinocchio's free-flyer ``integrate`` is the SE(3)
  exponential of a body twist instead: the two agree for a pure rotation about the base origin or a pure
  translation);
* ``difference(x0, x1)``: the v with ``integrate(x0, v, 1) = x1``: ``[log(R1 R0^T), p1 - p0, q1 - q0]``, the
  shortest rotation (angle at most pi).

Their Jacobians map tangent vectors to tangent vectors (`integrate_jacobians`, `difference_jacobians`); with
``J_l`` the left Jacobian of SO(3), ``phi = omega dt`` and ``w = log(R1 R0^T)``:
``d next/dx = diag(exp(phi), I, I)``, ``d next/dv = dt diag(J_l(phi), I, I)``, ``d next/d dt = v``,
``d v/dx1 = diag(J_l(w)^-1, I, I)`` and ``d v/dx0 = -diag(J_l(-w)^-1, I, I)``.

Every formula is branch-free and exact to rounding at every angle: the norm of a rotation vector is
``sqrt(|phi|^2 + eps^4)`` (`_angle`), equal to ``|phi|`` in floating point unless ``|phi| < eps^1.5``, where
``sin(theta/2)/theta`` and ``atan2(s, c)/s`` take their limits to rounding; a term that cancels at small angles
(``theta - sin theta``) only multiplies a unit axis' ``[u x]^2``, so its error stays that of rounding. The
quaternion's double cover is resolved with ``copysign``, so a rotation by exactly pi has a logarithm too.
"""

from __future__ import annotations

from .. import spatial as sp
from ..model import quaternion_matrix
from .frames import base_quaternion, quat_mul


def _angle(ops, v):
    """``|v|``, but ``sqrt(|v|^2 + eps^4)``: never zero, and ``|v|`` in floating point unless ``|v| < eps^1.5``."""
    e2 = ops.eps * ops.eps
    return ops.sqrt(sp.dot(v, v) + e2 * e2)


def _unit_square(u):
    """``[u x]^2 = u u^T - (u . u) I``."""
    uu = sp.dot(u, u)
    return tuple(tuple(u[r] * u[c] - (uu if r == c else 0) for c in range(3)) for r in range(3))


def _so3_combination(a, skew_coefficient, b, square_coefficient, c):
    """``a I + skew_coefficient [b x] + square_coefficient [c x]^2`` (3 x 3)."""
    K, S = sp.skew(b), _unit_square(c)
    return tuple(tuple((a if r == col else 0) + skew_coefficient * K[r][col] + square_coefficient * S[r][col]
                       for col in range(3)) for r in range(3))


def rotation_exp(ops, phi):
    """``(quaternion of exp(phi x), 1/theta, sin(theta/2)/theta)``, ``theta = |phi|`` (`_angle`)."""
    theta = _angle(ops, phi)
    inverse = 1 / theta
    half = 0.5 * theta
    s = ops.sin(half) * inverse
    return tuple(s * p for p in phi) + (ops.cos(half),), inverse, s


def left_jacobian(ops, phi, inverse, s, c):
    """``J_l(phi) = I + (1 - cos t)/t^2 [phi x] + (t - sin t)/t [u x]^2``, ``u = phi/t``: ``exp(phi + d) =
    exp(J_l d) exp(phi)`` to first order; ``(1 - cos t)/t^2 = 2 (sin(t/2)/t)^2`` and ``(t - sin t)/t =
    1 - 2 (sin(t/2)/t) cos(t/2)``. ``inverse = 1/t``, ``s = sin(t/2)/t`` and ``c = cos(t/2)``: `rotation_exp`'s."""
    u = tuple(p * inverse for p in phi)
    return _so3_combination(1, 2 * s * s, phi, 1 - 2 * s * c, u)


def rotation_log(ops, quat):
    """``(w, J_l(w)^-1)`` of a unit quaternion's rotation: ``w`` its shortest rotation vector (``|w| <= pi``),
    ``J_l^-1(w) = I - [w x]/2 + (1 - (t/2) cot(t/2)) [u x]^2``.

    ``t/2 = atan2(|v|, |c|)`` for the quaternion ``(v, c)`` turned to ``c >= 0`` (``copysign``), so
    ``(t/2) cot(t/2) = atan2(s, |c|) |c| / s``, ``s = |v|`` (`_angle`)."""
    x, y, z, c = quat
    sign = ops.copysign(1.0, c)
    cabs = sign * c
    s = _angle(ops, (x, y, z))
    half = ops.atan2(s, cabs)
    scale = 2 * half * sign / s
    w = (scale * x, scale * y, scale * z)
    u = (x / s, y / s, z / s)
    return w, _so3_combination(1, -0.5, w, 1 - half * cabs / s, u)


def _conjugate(quat):
    x, y, z, w = quat
    return -x, -y, -z, w


def _block_diagonal(rotation, linear, joints: int):
    """``diag(rotation (3 x 3), linear I3, I_J)``, G x G, column-major flat (a fixed base: ``linear I_J``)."""
    n = (6 if rotation is not None else 0) + joints
    blocks = [[0] * n for _ in range(n)]
    first = 0
    if rotation is not None:
        for r in range(3):
            for c in range(3):
                blocks[r][c] = rotation[r][c]
        first = 3
    for k in range(first, n):
        blocks[k][k] = linear
    return [blocks[r][c] for c in range(n) for r in range(n)]


def integrate(tree, ops, base, q, v, dt):
    """``(base values (or None), q_next)``: `BASE`'s layout of the moved base (its velocity and acceleration
    unchanged) and the joint positions, the velocity ``v`` (G) held for ``dt``."""
    joints = list(v[6:]) if tree.floating else list(v)
    q_next = [qi + vi * dt for qi, vi in zip(q, joints)]
    if not tree.floating:
        return None, q_next
    translation, _, velocity, acceleration = base
    e, _, _ = rotation_exp(ops, [w * dt for w in v[:3]])
    quat = quat_mul(e, base_quaternion(tree, ops, base))
    moved = [p + pd * dt for p, pd in zip(translation, v[3:6])]
    return moved + list(quat) + list(velocity) + list(acceleration), q_next


def integrate_jacobians(tree, ops, v, dt):
    """``(d next/dx, d next/dv, d next/d dt)`` (tangent vectors, column-major G x G, G x G and G)."""
    if not tree.floating:
        return _block_diagonal(None, 1, len(v)), _block_diagonal(None, dt, len(v)), list(v)
    phi = [w * dt for w in v[:3]]
    e, inverse, s = rotation_exp(ops, phi)
    Jl = left_jacobian(ops, phi, inverse, s, e[3])
    by_x = _block_diagonal(quaternion_matrix(e), 1, len(v) - 6)
    by_v = _block_diagonal(tuple(tuple(dt * a for a in row) for row in Jl), dt, len(v) - 6)
    return by_x, by_v, list(v)


def _relative_rotation(tree, ops, base0, base1):
    """``R1 R0^T`` as a quaternion (both bases' quaternions normalised)."""
    return quat_mul(base_quaternion(tree, ops, base1), _conjugate(base_quaternion(tree, ops, base0)))


def difference(tree, ops, base0, q0, base1, q1):
    """``v`` (G) with ``integrate(x0, v, 1) = x1``."""
    joints = [b - a for a, b in zip(q0, q1)]
    if not tree.floating:
        return joints
    w, _ = rotation_log(ops, _relative_rotation(tree, ops, base0, base1))
    return list(w) + [b - a for a, b in zip(base0[0], base1[0])] + joints


def difference_jacobians(tree, ops, base0, base1, joints: int):
    """``(d v/dx0, d v/dx1)`` (tangent vectors, column-major G x G each)."""
    if not tree.floating:
        return _block_diagonal(None, -1, joints), _block_diagonal(None, 1, joints)
    _, inverse = rotation_log(ops, _relative_rotation(tree, ops, base0, base1))
    by_x0 = tuple(tuple(-inverse[c][r] for c in range(3)) for r in range(3))  # -J_l(-w)^-1 = -(J_l(w)^-1)^T
    return _block_diagonal(by_x0, -1, joints), _block_diagonal(inverse, 1, joints)
