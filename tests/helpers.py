"""Shared helpers of the dynamics tests: solvers, references, errors.

Random states and the references come from `rbdgen.testing` (shared with the
benchmarks); everything is in rbdgen's (= dynibo 0.5.2's) conventions
(``docs/concepts.md``).
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from typing import Optional

import numpy as np

import rbdgen
from rbdgen.testing import States, load_reference, random_states  # noqa: F401 (re-exported)
from rbdgen.testing.compare import call_reference, rel_error, roundtrip_errors  # noqa: F401 (re-exported)
from robots import LOAD_LINKS, ROBOTS

NAMES = list(ROBOTS)
FIXED_NAMES = [n for n in NAMES if not ROBOTS[n].floating]
FLOATING_NAMES = [n for n in NAMES if ROBOTS[n].floating]

#: Tolerances on the normwise relative error (see `rel_error`).
TIGHT = 1e-12  # mass matrix, inverse dynamics, gravity, velocity products
LOOSE = 1e-10  # forward dynamics

#: One link per robot that is welded to a moving body through a fixed joint.
WELDED_LINKS = {
    "ur5": "ee_link",
    "panda": "panda_hand",
    "hand": "link_3.0_tip",
    "solo12": "FL_FOOT",
    "g1": "right_rubber_hand",
    "talos": "left_sole_link",
}

#: Operations that take loads.
LOAD_OPERATIONS = tuple(op for op in rbdgen.DYNAMICS if rbdgen.algorithms.operations.OPERATIONS[op].loads)


# -- errors -----------------------------------------------------------------------
def assert_close(a, b, tol: float, what: str = "") -> None:
    err = rel_error(a, b)
    assert err <= tol, f"{what}: relative error {err:.3e} > {tol:.0e} (||b|| = {np.linalg.norm(b):.3e})"


def fixed_joint_children(urdf_path) -> set:
    """Links that are the child of a ``fixed`` joint in the URDF."""
    root = ET.parse(urdf_path).getroot()
    return {j.find("child").get("link") for j in root.findall("joint") if j.get("type") == "fixed"}


# -- solvers and references ----------------------------------------------------------
@functools.lru_cache(maxsize=None)
def model(name: str) -> rbdgen.RobotModel:
    robot = ROBOTS[name]
    return rbdgen.load_urdf(robot.path, floating=robot.floating)


@functools.lru_cache(maxsize=None)
def solver(name: str) -> rbdgen.NumpySolver:
    """The default NumpySolver of test robot ``name`` (standard gravity, no armature)."""
    return rbdgen.NumpySolver(model(name))


@functools.lru_cache(maxsize=None)
def reference(name: str, which: str):
    """Pinocchio's (``which="pinocchio"``) or dynibo's reference of test robot ``name``, in
    reduced coordinates where it has mimic joints (Talos: `rbdgen.testing.MimicReference`)."""
    robot = ROBOTS[name]
    return load_reference(robot.path, robot.floating, which)


def pinocchio(name: str):
    return reference(name, "pinocchio")


def dynibo(name: str):
    return reference(name, "dynibo")


# -- calling operations uniformly ---------------------------------------------------------
def call(solver, op: str, st: States, i: Optional[int] = None, loads: bool = False, out=None):
    """Run ``op`` on the whole batch (``i`` None) or on state ``i`` alone (see `States.call`)."""
    return st.call(solver, op, i, loads, **({} if out is None else {"out": out}))


def tolerance(op: str) -> float:
    return LOOSE if op.startswith("forward_dynamics") else TIGHT
