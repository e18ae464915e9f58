"""Physical consistency of inertial parameters (10 per body, `rbdgen.parameters`), for use after a fit.

A body's parameters belong to a rigid body (mass >= 0, a positive semi-definite rotational inertia
that satisfies the triangle inequality at the centre of mass) exactly when its pseudo-inertia

    J = [[Sigma, h], [h^T, m]],   Sigma = 1/2 tr(I) 1 - I   (I about the body origin, h = m c)

is positive semi-definite (Wensing, Kim and Slotine, 2017: the second moments of a non-negative
mass distribution). `violations` names what a parameter vector breaks; `project` returns the nearest
consistent one in J's Frobenius norm, body by body (J's negative eigenvalues raised to ``floor``).
"""

from __future__ import annotations

import numpy as np

from .parameters import BODY_PARAMETERS, INERTIA_INDEX, rotational_about_origin


def pseudo_inertia(pi10) -> np.ndarray:
    """The 4x4 pseudo-inertia of one body's 10 parameters."""
    pi10 = np.asarray(pi10, dtype=float)
    I = rotational_about_origin(pi10)
    J = np.empty((4, 4))
    J[:3, :3] = 0.5 * np.trace(I) * np.eye(3) - I
    J[:3, 3] = J[3, :3] = pi10[1:4]
    J[3, 3] = pi10[0]
    return J


def from_pseudo_inertia(J) -> np.ndarray:
    """The 10 parameters of a pseudo-inertia (I = tr(Sigma) 1 - Sigma)."""
    J = np.asarray(J, dtype=float)
    I = np.trace(J[:3, :3]) * np.eye(3) - J[:3, :3]
    out = np.empty(10)
    out[0], out[1:4] = J[3, 3], J[:3, 3]
    for (r, k), index in INERTIA_INDEX.items():
        out[index] = I[r, k]
    return out


def _bodies(pi) -> np.ndarray:
    pi = np.asarray(pi, dtype=float)
    if pi.ndim != 1 or pi.size % len(BODY_PARAMETERS):
        raise ValueError(f"pi: expected 10 values per body, got shape {pi.shape}")
    if not np.all(np.isfinite(pi)):
        raise ValueError("pi: the parameters must be finite")
    return pi.reshape(-1, len(BODY_PARAMETERS))


def violations(pi, names=None, tolerance: float = 1e-12) -> list:
    """What ``pi`` breaks, one line per inconsistent body (empty: consistent); ``names``: the bodies'
    names (`parameters.body_names`); ``tolerance``: relative to the body's largest |J| entry."""
    bodies = _bodies(pi)
    if names is not None and len(names) != len(bodies):
        raise ValueError(f"names: expected {len(bodies)} body names (rbdgen.parameters.body_names), got {len(names)}")
    out = []
    for b, body in enumerate(bodies):
        name = names[b] if names is not None else f"body {b}"
        J = pseudo_inertia(body)
        lowest = np.linalg.eigvalsh(J)[0]
        if lowest >= -tolerance * max(np.abs(J).max(), np.finfo(float).tiny):
            continue
        reasons = []
        m = body[0]
        if m < 0:
            reasons.append(f"mass {m:.6g} < 0")
        elif m > 0:
            c = body[1:4] / m
            Ic = rotational_about_origin(body) - m * (c @ c * np.eye(3) - np.outer(c, c))
            moments = np.linalg.eigvalsh(Ic)
            if moments[0] < 0:
                reasons.append(f"principal moment {moments[0]:.6g} < 0 at the centre of mass")
            elif moments[0] + moments[1] < moments[2]:
                reasons.append(f"triangle inequality broken at the centre of mass: {moments[0]:.6g} + "
                               f"{moments[1]:.6g} < {moments[2]:.6g}")
        elif np.any(body[1:4] != 0):
            reasons.append("first moment without mass")
        out.append(f"{name}: pseudo-inertia eigenvalue {lowest:.6g} < 0" + (f" ({'; '.join(reasons)})" if reasons else ""))
    return out


def project(pi, floor: float = 0.0) -> np.ndarray:
    """The consistent parameters nearest ``pi``: each body's pseudo-inertia with its eigenvalues below
    ``floor`` (>= 0; > 0 makes the mass positive and every body strictly physical) raised to it."""
    if floor < 0:
        raise ValueError(f"floor must be >= 0, got {floor!r}")
    out = []
    for body in _bodies(pi):
        values, vectors = np.linalg.eigh(pseudo_inertia(body))
        if values[0] >= floor:
            out.append(body)
            continue
        J = (vectors * np.maximum(values, floor)) @ vectors.T
        out.append(from_pseudo_inertia(0.5 * (J + J.T)))
    return np.concatenate(out) if out else np.zeros(0)
