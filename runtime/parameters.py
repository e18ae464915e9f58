"""The inertial parameters of a model: one layout for regressors, identification and parametric builds.

Each body has 10 parameters, in Pinocchio's order and frame (``Inertia::toDynamicParameters``):
``m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz``, with ``c`` the centre of mass and ``I`` the
rotational inertia *about the body origin*, both in the body (joint) frame; links welded by fixed
joints are merged into their body, as in the model. The bodies are the model's moving bodies in
their order (mimic joints included), after the floating base's own body where there is one (a fixed
base's root does not move and has none). ``pi`` is the concatenation, 10 per body; that is also the
column order of the regressors (`rbdgen.algorithms.regressor`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import spatial as sp
from .algorithms.kinematics import Tree
from .errors import ModelError
from .model import Inertia, RobotModel

#: The 10 parameters of one body, in order.
BODY_PARAMETERS = ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")

#: Where each inertia entry about the origin sits among a body's parameters: (row, column) -> index.
INERTIA_INDEX = {(0, 0): 4, (0, 1): 5, (1, 0): 5, (1, 1): 6, (0, 2): 7, (2, 0): 7, (1, 2): 8, (2, 1): 8, (2, 2): 9}


def body_names(model: RobotModel) -> tuple:
    """One name per body with parameters: the floating base's root link, then each moving body's link
    (the child link of its joint, the first link welded to it)."""
    first = {}
    for link in model.links:
        first.setdefault(link.body, link.name)
    return ((first[-1],) if model.floating else ()) + tuple(first[i] for i in range(len(model.joints)))


def body_count(model: RobotModel) -> int:
    return len(model.joints) + (1 if model.floating else 0)


def parameter_names(model: RobotModel) -> tuple:
    """``"<link>.<parameter>"`` for each of the 10 B columns."""
    return tuple(f"{body}.{p}" for body in body_names(model) for p in BODY_PARAMETERS)


def inertias(model: RobotModel) -> tuple:
    """The bodies' `Inertia` in the layout's order."""
    return ((model.base_inertia,) if model.floating else ()) + tuple(j.inertia for j in model.joints)


def from_inertia(inertia: Inertia) -> np.ndarray:
    """The 10 parameters of one body (``Inertia``: mass, com and inertia about the com), with the same
    arithmetic as the folded build (`spatial.rigid_inertia`)."""
    m, h, Ib = sp.rigid_inertia(inertia)
    return np.array([m, *h] + [Ib[r][k] for (r, k), _ in sorted(INERTIA_INDEX.items(), key=lambda e: e[1])
                               if r <= k], dtype=float)


def rotational_about_origin(pi10) -> np.ndarray:
    """The 3x3 inertia about the body origin of one body's 10 parameters."""
    return np.array([[pi10[INERTIA_INDEX[r, k]] for k in range(3)] for r in range(3)], dtype=float)


def to_inertia(pi10, where: str = "body") -> Inertia:
    """The `Inertia` of one body's 10 parameters (a `ModelError` for a negative or non-finite mass, or a
    first moment without mass)."""
    pi10 = np.asarray(pi10, dtype=float)
    m, h = float(pi10[0]), pi10[1:4]
    if not np.all(np.isfinite(pi10)):
        raise ModelError(f"{where}: inertial parameters must be finite, got {pi10.tolist()}")
    if m < 0:
        raise ModelError(f"{where}: mass {m!r} is negative (project the parameters first: rbdgen.consistency.project)")
    if m == 0 and np.any(h != 0):
        raise ModelError(f"{where}: first moment {h.tolist()} without mass")
    c = h / m if m > 0 else np.zeros(3)
    about_com = rotational_about_origin(pi10) - m * (c @ c * np.eye(3) - np.outer(c, c))
    return Inertia(m, tuple(c), tuple(map(tuple, about_com)))


def parameter_vector(model: RobotModel) -> np.ndarray:
    """``pi`` (10 B,) of the model's own inertias."""
    return np.concatenate([from_inertia(i) for i in inertias(model)]) if body_count(model) else np.zeros(0)


def with_parameters(model: RobotModel, pi) -> RobotModel:
    """A copy of ``model`` whose bodies have the parameters ``pi`` (10 B values)."""
    pi = np.asarray(pi, dtype=float)
    if pi.shape != (10 * body_count(model),):
        raise ValueError(f"pi: expected {10 * body_count(model)} values (10 per body), got shape {pi.shape}")
    names = body_names(model)
    bodies = [to_inertia(pi[10 * b: 10 * b + 10], f"body {names[b]!r}") for b in range(len(names))]
    base = bodies.pop(0) if model.floating else model.base_inertia
    joints = tuple(dataclasses.replace(j, inertia=i) for j, i in zip(model.joints, bodies))
    return dataclasses.replace(model, joints=joints, base_inertia=base, inertia_report=None)


def parametric_bodies(model: RobotModel, chosen) -> tuple:
    """The bodies (indices in this module's order) whose parameters a build takes at run time: ``"all"``,
    or link names (any link welded to a body names it); a ValueError names an unknown link."""
    if isinstance(chosen, str):
        if chosen != "all":
            raise ValueError(f"parameters: expected 'all' or a list of link names, got {chosen!r}")
        return tuple(range(body_count(model)))
    base = 1 if model.floating else 0
    bodies = set()
    for name in chosen:
        if not isinstance(name, str) or name not in model.link_names:
            raise ValueError(f"parameters: unknown link {name!r}; the links are {list(model.link_names)}")
        body = model.links[model.link_id(name)].body
        if body == -1 and not model.floating:
            raise ValueError(f"parameters: link {name!r} is welded to the fixed base: its inertia never acts")
        bodies.add(body + base)
    if not bodies:
        raise ValueError("parameters: name at least one link (or 'all')")
    return tuple(sorted(bodies))


def parametric_tree(model: RobotModel, chosen=None, contacts=None) -> Tree:
    """The model's `Tree` (with the declared ``contacts``, a `ContactModel`), with the bodies of
    ``chosen`` (`parametric_bodies`; None: none) as inputs."""
    tree = Tree.from_model(model, contacts)
    return dataclasses.replace(tree, parameters=parametric_bodies(model, chosen)) if chosen else tree
