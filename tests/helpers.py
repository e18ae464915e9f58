"""Shared helpers of the dynamics tests: solvers, references, random states, errors.

Everything here is in rbdgen's (= dynibo 0.5.2's) conventions, see
``shared/reference/conventions.md`` and ``tests/reference.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import xml.etree.ElementTree as ET
from typing import Optional

import numpy as np

import rbdgen
from reference import DyniboReference, PinocchioReference
from robots import ROBOTS

NAMES = list(ROBOTS)
FIXED_NAMES = [n for n in NAMES if not ROBOTS[n].floating]
FLOATING_NAMES = [n for n in NAMES if ROBOTS[n].floating]

#: Tolerances on the normwise relative error (see `rel_error`).
TIGHT = 1e-12  # mass matrix, inverse dynamics, gravity, velocity products
LOOSE = 1e-10  # forward dynamics

#: Denominator floor of `rel_error`: only guards exact zeros; the test robots'
#: quantities range from ~1e-3 (Allegro hand) to ~1e3 (Talos).
FLOOR = 1e-9

#: Links that get loads: moving links, links welded through fixed joints (feet,
#: hands, tool frames, finger tips) and, for floating robots, the base link.
LOAD_LINKS = {
    "double_pendulum": ["link1", "link2"],
    "ur5": ["forearm_link", "wrist_3_link", "ee_link", "tool0"],
    "panda": ["panda_link3", "panda_hand", "panda_leftfinger", "panda_hand_tcp"],
    "hand": ["link_1.0", "link_3.0_tip", "link_11.0_tip", "link_14.0", "palm_link"],
    "solo12": ["base_link", "FL_FOOT", "HR_FOOT", "FR_LOWER_LEG"],
    "g1": ["pelvis", "left_ankle_roll_link", "right_rubber_hand", "head_link", "torso_link"],
    "talos": ["base_link", "left_sole_link", "right_sole_link", "gripper_left_base_link",
              "arm_right_4_link", "torso_2_link"],
}

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
LOAD_OPERATIONS = ("gravity", "inverse_dynamics", "forward_dynamics", "forward_dynamics_crba")


# -- errors -----------------------------------------------------------------------
def rel_error(a, b, floor: float = FLOOR) -> float:
    """Normwise relative error ``||a - b|| / max(floor, ||b||)`` (Frobenius for matrices)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, f"shapes differ: {a.shape} != {b.shape}"
    return float(np.linalg.norm(a - b) / max(floor, np.linalg.norm(b)))


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
def pinocchio(name: str) -> PinocchioReference:
    robot = ROBOTS[name]
    return PinocchioReference(robot.path, robot.floating)


@functools.lru_cache(maxsize=None)
def dynibo(name: str) -> DyniboReference:
    robot = ROBOTS[name]
    return DyniboReference(robot.path, robot.floating)


def reference(name: str, which: str):
    return {"pinocchio": pinocchio, "dynibo": dynibo}[which](name)


# -- random states ---------------------------------------------------------------------
def random_quaternions(rng, n: int) -> np.ndarray:
    """``n`` random unit quaternions (xyzw), uniform on the sphere."""
    quat = rng.normal(size=(n, 4))
    return quat / np.linalg.norm(quat, axis=1, keepdims=True)


@dataclasses.dataclass
class States:
    """A batch of N random states of one solver, with loads, in two forms.

    ``base`` is a batched `rbdgen.BaseState` (None for a fixed base); the
    references take ``ref_base(i)``. ``loads`` is the dense ``(N, L, 6)`` array,
    ``load_lists[i]`` the same loads as ``(link, torque, force)`` triples.
    """

    translation: Optional[np.ndarray]
    quat: Optional[np.ndarray]
    velocity: Optional[np.ndarray]
    acceleration: Optional[np.ndarray]
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    loads: np.ndarray
    load_lists: list

    @property
    def n(self) -> int:
        return self.q.shape[0]

    @property
    def floating(self) -> bool:
        return self.quat is not None

    @property
    def base(self) -> Optional[rbdgen.BaseState]:
        if not self.floating:
            return None
        return rbdgen.BaseState(self.translation, self.quat, self.velocity, self.acceleration)

    def head(self):
        """``(base,)`` for a floating base, ``()`` otherwise: the leading solver arguments."""
        return (self.base,) if self.floating else ()

    def state_head(self, i: int):
        """The leading solver arguments of state ``i`` alone (unbatched)."""
        if not self.floating:
            return ()
        return (rbdgen.BaseState(self.translation[i], self.quat[i], self.velocity[i], self.acceleration[i]),)

    def ref_base(self, i: int):
        """State ``i``'s base for `reference.py` (None for a fixed base)."""
        if not self.floating:
            return None
        return (self.translation[i], self.quat[i], self.velocity[i], self.acceleration[i])


def random_states(solver, n: int, seed: int, load_links=()) -> States:
    """``n`` random states: q uniform in [-pi, pi], qd ~ 2 N(0, 1), qdd ~ 5 N(0, 1),
    tau ~ 10 N(0, 1); bases within 3 m of the origin with random unit quaternions
    and N(0, 1) velocities and accelerations; one random load per link in ``load_links``."""
    rng = np.random.default_rng(seed)
    J, G, L = solver.joint_count, solver.generalized_count, solver.link_count
    base = [None] * 4
    if solver.floating:
        base = [rng.uniform(-3.0, 3.0, (n, 3)), random_quaternions(rng, n),
                rng.normal(size=(n, 6)), rng.normal(size=(n, 6))]
    q = rng.uniform(-np.pi, np.pi, (n, J))
    qd = 2.0 * rng.normal(size=(n, J))
    qdd = 5.0 * rng.normal(size=(n, J))
    tau = 10.0 * rng.normal(size=(n, G))
    loads = np.zeros((n, L, 6))
    load_lists = []
    for i in range(n):
        entries = []
        for link in load_links:
            torque, force = rng.normal(size=3), 10.0 * rng.normal(size=3)
            loads[i, solver.link_id(link)] += np.concatenate([torque, force])
            entries.append((link, torque, force))
        load_lists.append(entries)
    return States(*base, q, qd, qdd, tau, loads, load_lists)


# -- calling operations uniformly ---------------------------------------------------------
def call(solver, op: str, st: States, i: Optional[int] = None, loads: bool = False, out=None):
    """Run ``op`` on the whole batch (``i`` None) or on state ``i`` alone."""
    head = st.head() if i is None else st.state_head(i)
    pick = (lambda x: x) if i is None else (lambda x: x[i])
    args = {
        "mass_matrix": (st.q,),
        "velocity_product_forces": (st.q, st.qd),
        "gravity": (st.q,),
        "inverse_dynamics": (st.q, st.qd, st.qdd),
        "forward_dynamics": (st.q, st.qd, st.tau),
        "forward_dynamics_crba": (st.q, st.qd, st.tau),
    }[op]
    kwargs = {"loads": pick(st.loads)} if loads else {}
    if out is not None:
        kwargs["out"] = out
    return getattr(solver, op)(*head, *(pick(a) for a in args), **kwargs)


def call_reference(ref, op: str, st: States, i: int, loads: bool = False):
    """The reference's result for state ``i`` (``forward_dynamics_crba``: its forward dynamics)."""
    b = st.ref_base(i)
    ld = st.load_lists[i] if loads else ()
    if op == "mass_matrix":
        return ref.mass_matrix(b, st.q[i])
    if op == "velocity_product_forces":
        return ref.velocity_product_forces(b, st.q[i], st.qd[i])
    if op == "gravity":
        return ref.gravity(b, st.q[i], ld)
    if op == "inverse_dynamics":
        return ref.inverse_dynamics(b, st.q[i], st.qd[i], st.qdd[i], ld)
    if op in ("forward_dynamics", "forward_dynamics_crba"):
        return ref.forward_dynamics(b, st.q[i], st.qd[i], st.tau[i], ld)
    raise ValueError(op)


def tolerance(op: str) -> float:
    return LOOSE if op.startswith("forward_dynamics") else TIGHT


def roundtrip_errors(s, p, st):
    """Worst relative errors of FD(ID(qdd)) with loads for ``s`` (both FD paths) and for the
    reference ``p``'s own round trip on the same states. Floating: the base acceleration
    round-trips too (forward dynamics ignores the base state's acceleration: it is the result).
    Returns ``({op: worst}, reference_worst)``."""
    tau = call(s, "inverse_dynamics", st, loads=True)
    expected = np.concatenate([st.acceleration, st.qdd], axis=1) if st.floating else st.qdd
    worst = {}
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        back = getattr(s, op)(*st.head(), st.q, st.qd, tau, loads=st.loads)
        worst[op] = max(rel_error(back[k], expected[k]) for k in range(st.n))
    reference_worst = 0.0
    for k in range(st.n):
        b, ld = st.ref_base(k), st.load_lists[k]
        tau_ref = p.inverse_dynamics(b, st.q[k], st.qd[k], st.qdd[k], ld)
        reference_worst = max(reference_worst, rel_error(p.forward_dynamics(b, st.q[k], st.qd[k], tau_ref, ld),
                                                         expected[k]))
    return worst, reference_worst
