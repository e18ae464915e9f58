"""Inertial parameters as inputs: a `Tree` whose chosen bodies take their inertias from the input ``params``.

``tree.parameters`` lists the bodies (indices in `rbdgen.parameters`' order: a floating base's body
first) whose 10 parameters each ``m, m c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz`` (about the body origin) are
read from ``params`` in that order; `operations.evaluate` puts them in before running any algorithm,
so every operation, on every backend, takes them at run time and keeps the other bodies folded.
"""

from __future__ import annotations

import dataclasses

from .. import spatial as sp
from .kinematics import Tree


def rigid_inertia(pi) -> sp.RigidInertia:
    """The rigid inertia ``(m, h, Ib)`` of one body's 10 parameters (scalars of any backend)."""
    m, hx, hy, hz, ixx, ixy, iyy, ixz, iyz, izz = pi
    return sp.RigidInertia((m, (hx, hy, hz), ((ixx, ixy, ixz), (ixy, iyy, iyz), (ixz, iyz, izz))))


def substitute(tree: Tree, params) -> Tree:
    """``tree`` with the inertias of ``tree.parameters`` taken from ``params`` (10 scalars per body)."""
    I, I_base = list(tree.I), tree.I_base
    base = 1 if tree.floating else 0
    for k, body in enumerate(tree.parameters):
        inertia = rigid_inertia(params[10 * k: 10 * k + 10])
        if body < base:
            I_base = tuple(inertia)
        else:
            I[body - base] = inertia
    return dataclasses.replace(tree, I=tuple(I), I_base=I_base)
