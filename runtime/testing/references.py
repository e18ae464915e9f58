"""Reference dynamics from Pinocchio and dynibo 0.5.2, in rbdgen's conventions.

Used by the tests and the benchmarks; needs the ``test`` extra (``pin``, ``dynibo``),
imported when a reference is made. rbdgen follows dynibo 0.5.2 (see docs/concepts.md):

* joint order: breadth-first over *all* joints (fixed ones included) from the root
  link, the child joints of a link in URDF document order (:func:`dynibo_joint_order`);
* a floating base is given as ``base = (translation(3), quaternion_xyzw(4),
  velocity(6), acceleration(6))`` with velocity ``[omega_W, pdot_W]`` (world axes,
  angular first, ``pdot`` the velocity of the base origin) and acceleration
  ``[omegadot_W, pddot_W]`` (classical acceleration of the base origin);
  ``base=None`` for a fixed base.  ``velocity``/``acceleration`` may be omitted
  or None (zero);
* generalized velocities ``[omega_W, pdot_W, qd]``, generalized forces
  ``[torque_W about the base origin, force_W, joint forces]``; the mass matrix
  rows/columns in the same order;
* gravity 9.80665 m/s^2 along -z;
* ``loads``: ``(link_name, torque(3), force(3))``, a wrench at the link's origin
  in the link's frame.  dynibo's sign: a load is the wrench the *link applies to
  its environment*; it adds ``+J^T w`` to inverse dynamics/gravity, i.e.
  ``tau = M nudot + C nu + g + J^T w`` (measured: a load along +y on the tip of a
  pendulum changes the ID torque by ``+J^T f``, opposite to Pinocchio's ``fext``,
  which is a wrench applied *to* the body).  So Pinocchio's ``fext = -w``.

Both classes return NumPy arrays: ``(G, G)`` for the mass matrix, ``(G,)``
otherwise, with ``G = J`` (fixed base) or ``J + 6`` (floating base). Each adapter is named
after the operation it checks (`rbdgen.algorithms.operations`) and takes the operation's
inputs in the record's order, a base first (None for a fixed base): `compare.call_reference`
and the tests find it by that name.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tempfile
import xml.etree.ElementTree as ET
from collections import deque
from typing import Optional

import numpy as np

GRAVITY = (0.0, 0.0, -9.80665)

__all__ = ["GRAVITY", "DyniboReference", "MimicReference", "PinocchioReference", "PinocchioState",
           "dynibo_joint_order", "load_reference", "mimic_map", "mimic_tags", "rotation_matrix", "without_mimic"]


# ---------------------------------------------------------------------------
# URDF helpers


def _urdf_tree(urdf_path):
    root = ET.parse(urdf_path).getroot()
    joints = []  # (name, type, parent, child) in document order
    for j in root.findall("joint"):
        joints.append((j.get("name"), j.get("type"), j.find("parent").get("link"),
                       j.find("child").get("link")))
    links = [l.get("name") for l in root.findall("link")]
    children = {l: [] for l in links}
    child_links = set()
    for name, jtype, parent, child in joints:
        children[parent].append((name, jtype, child))
        child_links.add(child)
    roots = [l for l in links if l not in child_links]
    if len(roots) != 1:
        raise ValueError(f"{urdf_path}: expected one root link, found {roots}")
    return roots[0], children


def dynibo_joint_order(urdf_path) -> list[str]:
    """Moving joints in dynibo 0.5.2's order.

    Breadth-first over all joints from the root link (fixed joints are traversed
    but take no slot); the child joints of a link are visited in URDF document
    order.  Confirmed by comparing dynibo's mass matrix with Pinocchio's
    (depth-first) one permuted by name, on G1, Talos and the Allegro hand.
    """
    root, children = _urdf_tree(urdf_path)
    order = []
    queue = deque([root])
    while queue:
        link = queue.popleft()
        for name, jtype, child in children[link]:
            if jtype != "fixed":
                order.append(name)
            queue.append(child)
    return order


def _as_vec(x, n, what):
    a = np.asarray(x, dtype=float).reshape(-1)
    if a.shape != (n,):
        raise ValueError(f"{what}: expected {n} values, got {a.shape[0]}")
    return a


def _unpack_base(base):
    """(p, quat_xyzw unit, R world<-base, omega_W, pdot_W, omegadot_W, pddot_W)."""
    if base is None:
        raise ValueError("this robot has a floating base: base must not be None")
    base = tuple(base) + (None,) * (4 - len(base))
    p = _as_vec(base[0], 3, "base translation")
    quat = _as_vec(base[1], 4, "base quaternion")
    nq = np.linalg.norm(quat)
    if not np.isfinite(nq) or nq == 0:
        raise ValueError("base quaternion must be finite and non-zero")
    quat = quat / nq
    vel = np.zeros(6) if base[2] is None else _as_vec(base[2], 6, "base velocity")
    acc = np.zeros(6) if base[3] is None else _as_vec(base[3], 6, "base acceleration")
    return p, quat, rotation_matrix(quat), vel[:3], vel[3:], acc[:3], acc[3:]


def rotation_matrix(quat) -> np.ndarray:
    """World <- base rotation of a unit quaternion ``(x, y, z, w)``."""
    x, y, z, w = quat
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def _angular_first(M):
    """Rows [linear, angular] (Pinocchio's) as [angular, linear]."""
    M = np.asarray(M, dtype=float)
    return np.concatenate([M[3:6], M[0:3]])


def task_space_inertia(J, Minv) -> np.ndarray:
    """Lambda = (J M^-1 J^T)^-1 of a link Jacobian ``J`` (6 x G) and ``M^-1``."""
    return np.linalg.inv(J @ Minv @ J.T)


def _skew(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


class _Common:
    def __init__(self, urdf_path, floating, joint_names):
        self.urdf_path = str(urdf_path)
        self.floating = bool(floating)
        self.dynibo_joint_names = dynibo_joint_order(self.urdf_path)
        if joint_names is None:
            joint_names = list(self.dynibo_joint_names)
        joint_names = list(joint_names)
        if sorted(joint_names) != sorted(self.dynibo_joint_names):
            raise ValueError("joint_names must be a permutation of the URDF's moving joints "
                             f"{self.dynibo_joint_names}")
        self.joint_names = joint_names
        self.J = len(joint_names)
        self.G = self.J + (6 if self.floating else 0)

    def _check_base(self, base):
        if not self.floating and base is not None:
            raise ValueError("fixed-base robot: base must be None")


# ---------------------------------------------------------------------------
# Pinocchio


@dataclasses.dataclass
class PinocchioState:
    """One state in Pinocchio's coordinates.

    ``T`` maps rbdgen's generalized vectors to Pinocchio's (``v = T nu``, forces too: T
    is orthogonal); ``bias`` is Pinocchio's spatial base acceleration of a zero
    *classical* base acceleration (``-omega_B x v_B``; zero for a fixed base).
    ``v``, ``a`` and ``tau`` are None where the state had no ``qd``, ``qdd`` or ``tau``.
    """

    q: np.ndarray
    T: np.ndarray
    bias: np.ndarray
    v: Optional[np.ndarray] = None
    a: Optional[np.ndarray] = None
    tau: Optional[np.ndarray] = None


class PinocchioReference(_Common):
    """Pinocchio (``pin``) dynamics converted to rbdgen's (dynibo's) conventions."""

    def __init__(self, urdf_path, floating: bool, joint_names=None, armature=None,
                 gravity=GRAVITY):
        import pinocchio as pin

        super().__init__(urdf_path, floating, joint_names)
        self._pin = pin
        if self.floating:
            model = pin.buildModelFromUrdf(self.urdf_path, pin.JointModelFreeFlyer())
        else:
            model = pin.buildModelFromUrdf(self.urdf_path)
        model.gravity.linear = np.asarray(gravity, dtype=float)
        model.gravity.angular = np.zeros(3)
        self.model = model
        self.data = model.createData()

        first = 2 if self.floating else 1
        pin_names = list(model.names[first:])
        if sorted(pin_names) != sorted(self.joint_names):
            raise ValueError(f"Pinocchio's joints {pin_names} differ from the URDF's {self.joint_names}")
        self._jid = [model.getJointId(n) for n in self.joint_names]
        for jid in self._jid:
            if model.joints[jid].nv != 1:
                raise ValueError(f"joint {model.names[jid]} has {model.joints[jid].nv} dofs")
        self._iv = np.array([model.joints[j].idx_v for j in self._jid])
        # continuous joints are (cos, sin) in Pinocchio
        self._iq = [(model.joints[j].idx_q, model.joints[j].nq) for j in self._jid]

        if armature:
            arm = np.array(model.armature, dtype=float)
            for name, value in armature.items():
                if name not in self.joint_names:
                    raise ValueError(f"armature for unknown joint {name!r}")
                arm[model.joints[model.getJointId(name)].idx_v] = float(value)
            model.armature = arm

        # T maps our generalized vector to Pinocchio's: nu_pin = T nu_ours.
        self._Tjoint = np.zeros((model.nv, self.G))
        off = 6 if self.floating else 0
        for k, iv in enumerate(self._iv):
            self._Tjoint[iv, off + k] = 1.0

    # -- conversions ------------------------------------------------------

    def pinocchio_state(self, base, q, qd=None, qdd=None, tau=None) -> PinocchioState:
        """rbdgen's state (``base`` as in the module docstring) in Pinocchio's coordinates."""
        self._check_base(base)
        q = _as_vec(q, self.J, "q")
        qp = np.zeros(self.model.nq)
        for k, (iq, nq) in enumerate(self._iq):
            if nq == 1:
                qp[iq] = q[k]
            else:
                qp[iq], qp[iq + 1] = np.cos(q[k]), np.sin(q[k])
        T = self._Tjoint.copy()
        bias = np.zeros(self.model.nv)
        head_v, head_a = np.zeros(0), np.zeros(0)
        if self.floating:
            p, quat, R, w, v, wd, vd = _unpack_base(base)
            qp[0:3] = p
            qp[3:7] = quat
            T[0:3, 3:6] = R.T
            T[3:6, 0:3] = R.T
            bias[0:3] = -np.cross(R.T @ w, R.T @ v)
            head_v, head_a = np.concatenate([w, v]), np.concatenate([wd, vd])
        state = PinocchioState(qp, T, bias)
        if qd is not None:
            state.v = T @ np.concatenate([head_v, _as_vec(qd, self.J, "qd")])
        if qdd is not None:
            state.a = T @ np.concatenate([head_a, _as_vec(qdd, self.J, "qdd")]) + bias
        if tau is not None:
            state.tau = T @ _as_vec(tau, self.G, "tau")
        return state

    def forces(self, raw, state: PinocchioState) -> np.ndarray:
        """Pinocchio's generalized forces (rnea, gravity...) as rbdgen's."""
        return state.T.T @ np.asarray(raw, dtype=float)

    def mass(self, raw, state: PinocchioState) -> np.ndarray:
        """Pinocchio's crba result (possibly its upper triangle only) as rbdgen's mass matrix."""
        M = np.asarray(raw, dtype=float)
        M = np.triu(M) + np.triu(M, 1).T
        return state.T.T @ M @ state.T

    def accelerations(self, raw, state: PinocchioState) -> np.ndarray:
        """Pinocchio's aba result (spatial base acceleration) as rbdgen's (classical)."""
        return state.T.T @ (np.asarray(raw, dtype=float) - state.bias)

    def external_forces(self, loads):
        """Pinocchio's ``fext`` (per joint, joint frame, force first) for rbdgen's loads; None without."""
        pin = self._pin
        if not loads:
            return None
        fext = [pin.Force.Zero() for _ in range(self.model.njoints)]
        for link, torque, force in loads:
            fid = self.model.getFrameId(link, pin.BODY)
            if fid >= len(self.model.frames):
                raise ValueError(f"unknown link {link!r}")
            frame = self.model.frames[fid]
            w = pin.Force(_as_vec(force, 3, "load force"), _as_vec(torque, 3, "load torque"))
            # dynibo's load is the wrench the link applies; fext is applied to it.
            fext[frame.parentJoint] = fext[frame.parentJoint] - frame.placement.act(w)
        return fext

    def _rnea(self, qp, v, a, fext, gravity=True):
        pin = self._pin
        g = self.model.gravity.linear.copy()
        if not gravity:
            self.model.gravity.linear = np.zeros(3)
        try:
            if fext is None:
                return pin.rnea(self.model, self.data, qp, v, a).copy()
            return pin.rnea(self.model, self.data, qp, v, a, fext).copy()
        finally:
            self.model.gravity.linear = g

    # -- API --------------------------------------------------------------

    def mass_matrix(self, base, q):
        s = self.pinocchio_state(base, q)
        return self.mass(self._pin.crba(self.model, self.data, s.q), s)

    def velocity_product_forces(self, base, q, qd):
        s = self.pinocchio_state(base, q, qd)
        return self.forces(self._rnea(s.q, s.v, s.bias, None, gravity=False), s)

    def gravity(self, base, q, loads=()):
        s = self.pinocchio_state(base, q)
        z = np.zeros(self.model.nv)
        return self.forces(self._rnea(s.q, z, z, self.external_forces(loads)), s)

    def inverse_dynamics(self, base, q, qd, qdd, loads=()):
        s = self.pinocchio_state(base, q, qd, qdd)
        return self.forces(self._rnea(s.q, s.v, s.a, self.external_forces(loads)), s)

    def forward_dynamics(self, base, q, qd, tau, loads=()):
        pin = self._pin
        s = self.pinocchio_state(base, q, qd, tau=tau)
        fext = self.external_forces(loads)
        if fext is None:
            a = pin.aba(self.model, self.data, s.q, s.v, s.tau)
        else:
            a = pin.aba(self.model, self.data, s.q, s.v, s.tau, fext)
        return self.accelerations(a, s)

    forward_dynamics_crba = forward_dynamics  # the same accelerations, by another algorithm

    # -- kinematics at a link origin, world axes, angular first (Pinocchio: linear first) --

    def _kinematics(self, base, q, qd=None, qdd=None) -> PinocchioState:
        """The state, after Pinocchio's frame placements, velocities, accelerations and joint Jacobians."""
        pin = self._pin
        st = self.pinocchio_state(base, q, qd, qdd)
        zero = np.zeros(self.model.nv)
        pin.forwardKinematics(self.model, self.data, st.q, zero if st.v is None else st.v,
                              zero if st.a is None else st.a)
        pin.updateFramePlacements(self.model, self.data)
        pin.computeJointJacobians(self.model, self.data, st.q)
        return st

    def _frame_id(self, link):
        return self.model.getFrameId(link, self._pin.BODY)

    def forward_kinematics(self, base, q, link):
        """``framesForwardKinematics``: [x, y, z, qx, qy, qz, qw] of a link frame."""
        self._kinematics(base, q)
        M = self.data.oMf[self._frame_id(link)]
        return np.concatenate([M.translation, self._pin.Quaternion(M.rotation).coeffs()])

    def jacobian(self, base, q, link):
        """``getFrameJacobian(LOCAL_WORLD_ALIGNED)`` with rbdgen's rows and columns."""
        st = self._kinematics(base, q)
        J = self._pin.getFrameJacobian(self.model, self.data, self._frame_id(link), self._pin.LOCAL_WORLD_ALIGNED)
        return _angular_first(J) @ st.T

    def jacobian_derivative(self, base, q, qd, link):
        """d/dt of `jacobian`: Pinocchio's time variation of its Jacobian, plus its Jacobian times dT/dt."""
        pin = self._pin
        st = self._kinematics(base, q, qd)
        pin.computeJointJacobiansTimeVariation(self.model, self.data, st.q, st.v)
        fid = self._frame_id(link)
        J = pin.getFrameJacobian(self.model, self.data, fid, pin.LOCAL_WORLD_ALIGNED)
        dJ = pin.getFrameJacobianTimeVariation(self.model, self.data, fid, pin.LOCAL_WORLD_ALIGNED)
        Tdot = np.zeros_like(st.T)
        if self.floating:
            _, _, R, w, _, _, _ = _unpack_base(base)
            Tdot[0:3, 3:6] = Tdot[3:6, 0:3] = -R.T @ _skew(w)  # d/dt R^T = -R^T [w]x
        return _angular_first(dJ) @ st.T + _angular_first(J) @ Tdot

    def forward_velocity_kinematics(self, base, q, qd, link):
        """``getFrameVelocity(LOCAL_WORLD_ALIGNED)``, angular first."""
        self._kinematics(base, q, qd)
        v = self._pin.getFrameVelocity(self.model, self.data, self._frame_id(link), self._pin.LOCAL_WORLD_ALIGNED)
        return np.concatenate([v.angular, v.linear])

    def forward_acceleration_kinematics(self, base, q, qd, qdd, link):
        """``getFrameClassicalAcceleration(LOCAL_WORLD_ALIGNED)``, angular first."""
        self._kinematics(base, q, qd, qdd)
        a = self._pin.getFrameClassicalAcceleration(self.model, self.data, self._frame_id(link),
                                                    self._pin.LOCAL_WORLD_ALIGNED)
        return np.concatenate([a.angular, a.linear])

    def center_of_mass(self, base, q):
        return np.array(self._pin.centerOfMass(self.model, self.data, self.pinocchio_state(base, q).q))

    def center_of_mass_jacobian(self, base, q):
        st = self.pinocchio_state(base, q)
        return np.array(self._pin.jacobianCenterOfMass(self.model, self.data, st.q)) @ st.T

    def centroidal_momentum_matrix(self, base, q):
        """``computeCentroidalMap`` (linear rows first in Pinocchio) with rbdgen's rows and columns."""
        st = self.pinocchio_state(base, q)
        return _angular_first(self._pin.computeCentroidalMap(self.model, self.data, st.q)) @ st.T

    def centroidal_momentum_bias(self, base, q, qd):
        """The centroidal momentum's rate at rbdgen's nudot = 0 (Pinocchio's acceleration is then the
        base bias): ``computeCentroidalMapTimeVariation`` times v, plus A_G times the bias."""
        st = self.pinocchio_state(base, q, qd)
        dAg = self._pin.computeCentroidalMapTimeVariation(self.model, self.data, st.q, st.v)
        return _angular_first((dAg @ st.v + self.data.Ag @ st.bias)[:, None])[:, 0]

    def kinetic_energy(self, base, q, qd):
        s = self.pinocchio_state(base, q, qd)
        return float(self._pin.computeKineticEnergy(self.model, self.data, s.q, s.v))

    def potential_energy(self, base, q):
        s = self.pinocchio_state(base, q)
        return float(self._pin.computePotentialEnergy(self.model, self.data, s.q))

    def _body_columns(self, Y):
        """Pinocchio's regressor columns (10 per joint, depth-first) in rbdgen's body order (the base's first)."""
        order = ([1] if self.floating else []) + list(self._jid)
        return np.concatenate([np.asarray(Y)[..., 10 * (j - 1): 10 * j] for j in order], axis=-1)

    def inverse_dynamics_regressor(self, base, q, qd, qdd):
        """``computeJointTorqueRegressor`` with rbdgen's rows and body order."""
        s = self.pinocchio_state(base, q, qd, qdd)
        return self.forces(self._body_columns(self._pin.computeJointTorqueRegressor(self.model, self.data, s.q, s.v,
                                                                                     s.a)), s)

    def energy_regressor(self, base, q, qd):
        """``computeKineticEnergyRegressor`` and ``computePotentialEnergyRegressor`` (2 x 10 B), rbdgen's body order."""
        s = self.pinocchio_state(base, q, qd)
        kinetic = self._pin.computeKineticEnergyRegressor(self.model, self.data, s.q, s.v)
        potential = self._pin.computePotentialEnergyRegressor(self.model, self.data, s.q)
        return self._body_columns(np.stack([np.ravel(kinetic), np.ravel(potential)]))

    def mass_matrix_inverse(self, base, q):
        s = self.pinocchio_state(base, q)
        return self.mass(self._pin.computeMinverse(self.model, self.data, s.q), s)  # T orthogonal: T^T M^-1 T

    def momentum(self, base, q, qd):
        s = self.pinocchio_state(base, q, qd)
        M = self.mass(self._pin.crba(self.model, self.data, s.q), s)
        return M @ (s.T.T @ s.v)

    def passivity_forces(self, base, q, qd, qd_ref, qdd_ref, loads=()):
        """M qdd_ref + C qd_ref + g + J^T loads from Pinocchio's M, C (`coriolis_matrix`) and RNEA."""
        return (self.mass_matrix(base, q) @ qdd_ref + self.coriolis_matrix(base, q, qd) @ qd_ref
                + self.gravity(base, q, loads))

    # -- constrained dynamics: contacts are (link, kind "point"/"frame", offset), ``active`` one flag each --

    def _constraints(self, contacts, active, s: PinocchioState):
        """Pinocchio's ``RigidConstraintModel`` (CONTACT_3D / CONTACT_6D, LOCAL_WORLD_ALIGNED) of each active
        contact, the contact frame at the link frame moved by the offset. Pinocchio's 6-D contact holds the
        frame's spatial acceleration at zero (its ``desired_contact_acceleration`` is not read by
        ``constraintDynamics`` in 4.1), rbdgen's the classical one: both are one problem where the contact
        frame does not move (``J nu = 0``), which is where the tests compare frame contacts."""
        pin = self._pin
        models = []
        for (link, kind, offset), on in zip(contacts, active):
            if not on:
                continue
            frame = self.model.frames[self._frame_id(link)]
            placement = frame.placement * pin.SE3(np.eye(3), np.asarray(offset, dtype=float))
            c = pin.RigidConstraintModel(pin.ContactType.CONTACT_3D if kind == "point" else pin.ContactType.CONTACT_6D,
                                         self.model, frame.parentJoint, placement, pin.LOCAL_WORLD_ALIGNED)
            models.append(c)
        models = pin.StdVec_RigidConstraintModel(models)
        return models, pin.StdVec_RigidConstraintData([c.createData() for c in models])

    def _constraint_values(self, datas, contacts, active, attribute):
        """Per declared contact, rbdgen's layout (a frame: [torque, force]) of Pinocchio's world-axes result;
        zero for an inactive one."""
        out, at = [], 0
        for (link, kind, _), on in zip(contacts, active):
            n = 3 if kind == "point" else 6
            if on:
                f = getattr(datas[at], attribute) if attribute else None
                out.append(f.linear if n == 3 else np.concatenate([f.angular, f.linear]))
                at += 1
            else:
                out.append(np.zeros(n))
        return np.concatenate(out)

    def contact_dynamics(self, base, q, qd, tau, contacts, active, loads=()):
        """``constraintDynamics`` (no damping): ``(acc, forces)`` in rbdgen's layout. Loads enter as the
        generalized forces they add (``tau - J^T loads``, `gravity` with and without them)."""
        pin = self._pin
        tau = np.asarray(tau, dtype=float)
        if loads:
            tau = tau - (self.gravity(base, q, loads) - self.gravity(base, q))
        s = self.pinocchio_state(base, q, qd, tau=tau)
        models, datas = self._constraints(contacts, active, s)
        data = self.model.createData()
        pin.initConstraintDynamics(self.model, data, models, datas)
        a = pin.constraintDynamics(self.model, data, s.q, s.v, s.tau, models, datas)
        return self.accelerations(a, s), self._constraint_values(datas, contacts, active, "contact_force")

    def impulse_dynamics(self, base, q, qd, contacts, active, restitution=0.0):
        """``impulseDynamics``: ``(qd_plus, impulses)`` in rbdgen's layout (Pinocchio's ``dq_after`` and
        ``contact_forces``, impulses, per constraint)."""
        pin = self._pin
        s = self.pinocchio_state(base, q, qd)
        models, datas = self._constraints(contacts, active, s)
        data = self.model.createData()
        pin.initConstraintDynamics(self.model, data, models, datas)
        v = pin.impulseDynamics(self.model, data, s.q, s.v, models, datas, restitution)
        return s.T.T @ np.asarray(v), self._constraint_values(datas, contacts, active, "contact_force")

    def _constraint_rows(self, rows, contacts, active) -> np.ndarray:
        """Pinocchio's stacked rows of the active constraints (a 6-D one: linear first) in rbdgen's layout (a
        frame: angular first), zero rows for an inactive contact."""
        rows, out, at = np.asarray(rows, dtype=float), [], 0
        for (_, kind, _), on in zip(contacts, active):
            n = 3 if kind == "point" else 6
            block = rows[at: at + n] if on else np.zeros((n, rows.shape[1]))
            out.append(block if n == 3 or not on else _angular_first(block))
            at += n if on else 0
        return np.vstack(out)

    def _constrained_jacobians(self, base, s: PinocchioState, y, pin_jacobians, by_tau) -> dict:
        """rbdgen's Jacobians of a constrained solve from Pinocchio's ``{output: (d/dq, d/dv, d/dtau or None)}``
        (``y``: ``{output: rbdgen's value}``; an output in ``by_tau`` is a generalized vector ``T^T y_pin`` less
        the bias ``T^T bias``, the others world-axes forces). A floating base: ``v_pin = T nu``, ``tau_pin =
        T tau`` and ``bias`` turn with the base (`_base_chain`; ``d(T^T z)/dtheta = -[z]x`` per triple)."""
        T = s.T
        joint = T[:, T.shape[1] - self.J:]
        out = {}
        for name, (Dq, Dv, Dt) in pin_jacobians.items():
            left = T.T if name in by_tau else np.eye(Dq.shape[0])
            out[f"d{name}_dq"], out[f"d{name}_dqd"] = left @ Dq @ joint, left @ Dv @ joint
            if Dt is not None:
                out[f"d{name}_dtau"] = left @ Dt @ T
            if not self.floating:
                continue
            _, _, R, w, pd, _, _ = _unpack_base(base)
            chain = self._base_chain(base, s)
            biased = name in by_tau and Dt is not None
            out[f"d{name}_dbase_velocity"] = left @ (Dv @ T[:, :6] - (chain["dbias"] if biased else 0))
            turn = Dq @ chain["ddelta"] + Dv @ chain["dv"]
            if Dt is not None:
                tau = T.T @ s.tau
                dtau = np.zeros((self.model.nv, 3))                                  # tau_pin = [R^T f_W, R^T n_W]
                dtau[0:3], dtau[3:6] = R.T @ _skew(tau[3:6]), R.T @ _skew(tau[0:3])
                turn = turn + Dt @ dtau
            if biased:
                dbias = np.zeros((self.model.nv, 3))                                 # bias = R^T (pdot x omega)
                dbias[0:3] = R.T @ _skew(-np.cross(w, pd))
                turn = turn - dbias
            out[f"d{name}_dbase_rotation"] = left @ turn
            if name in by_tau:
                explicit = np.zeros((self.G, 3))
                explicit[0:3], explicit[3:6] = -_skew(y[name][0:3]), -_skew(y[name][3:6])
                out[f"d{name}_dbase_rotation"] += explicit
        return out

    def contact_dynamics_derivatives(self, base, q, qd, tau, contacts, active):
        """``computeConstraintDynamicsDerivatives`` as rbdgen's ``dacc_d*``, ``dforces_d*`` (`_constrained_jacobians`;
        LOCAL_WORLD_ALIGNED forces are rbdgen's). A frame contact agrees where the frame is still (J nu = 0: the
        spatial and classical accelerations' derivatives agree there)."""
        pin = self._pin
        s = self.pinocchio_state(base, q, qd, tau=tau)
        models, datas = self._constraints(contacts, active, s)
        data = self.model.createData()
        pin.initConstraintDynamics(self.model, data, models, datas)
        pin.constraintDynamics(self.model, data, s.q, s.v, s.tau, models, datas)
        pin.computeConstraintDynamicsDerivatives(self.model, data, models, datas)
        acc, forces = self.contact_dynamics(base, q, qd, tau, contacts, active)
        rows = functools.partial(self._constraint_rows, contacts=contacts, active=active)
        return self._constrained_jacobians(base, s, {"acc": acc, "forces": forces}, {
            "acc": (data.ddq_dq, data.ddq_dv, data.ddq_dtau),
            "forces": (rows(data.dlambda_dq), rows(data.dlambda_dv), rows(data.dlambda_dtau))}, ("acc",))

    def impulse_dynamics_derivatives(self, base, q, qd, contacts, active, restitution=0.0):
        """``computeImpulseDynamicsDerivatives`` as rbdgen's Jacobians (`_constrained_jacobians`): Pinocchio
        4.1's ``ddq_dv`` is the velocity *change*'s, so d qd_plus/dqd adds the identity."""
        pin = self._pin
        s = self.pinocchio_state(base, q, qd)
        models, datas = self._constraints(contacts, active, s)
        data = self.model.createData()
        pin.initConstraintDynamics(self.model, data, models, datas)
        pin.impulseDynamics(self.model, data, s.q, s.v, models, datas, restitution)
        pin.computeImpulseDynamicsDerivatives(self.model, data, models, datas, restitution)
        qd_plus, impulses = self.impulse_dynamics(base, q, qd, contacts, active, restitution)
        rows = functools.partial(self._constraint_rows, contacts=contacts, active=active)
        return self._constrained_jacobians(base, s, {"qd_plus": qd_plus, "impulses": impulses}, {
            "qd_plus": (data.ddq_dq, np.asarray(data.ddq_dv) + np.eye(self.model.nv), None),
            "impulses": (rows(data.dlambda_dq), rows(data.dlambda_dv), None)}, ("qd_plus",))

    def operational_space_inertia(self, base, q, link):
        return task_space_inertia(self.jacobian(base, q, link), self.mass_matrix_inverse(base, q))

    def dynamically_consistent_inverse(self, base, q, link):
        J = self.jacobian(base, q, link)
        return self.mass_matrix_inverse(base, q) @ J.T @ self.operational_space_inertia(base, q, link)

    def coriolis_matrix(self, base, q, qd):
        """``T^T C_pin T + T^T M_pin Tdot``: with nu_pin = T nu, rbdgen's Jacobians are J_pin T, whose time
        derivative adds J_pin Tdot (Tdot: the base block's R^T turning, Rdot^T = -R^T omega_x)."""
        s = self.pinocchio_state(base, q, qd)
        C = np.asarray(self._pin.computeCoriolisMatrix(self.model, self.data, s.q, s.v), dtype=float)
        M = np.asarray(self._pin.crba(self.model, self.data, s.q), dtype=float)
        M = np.triu(M) + np.triu(M, 1).T
        Tdot = np.zeros_like(s.T)
        if self.floating:
            _, _, R, w, _, _, _ = _unpack_base(base)
            Tdot[0:3, 3:6] = Tdot[3:6, 0:3] = -R.T @ _skew(w)
        return s.T.T @ C @ s.T + s.T.T @ M @ Tdot

    def mass_matrix_derivative(self, base, q, qd):
        """d/dt (T^T M_pin T) = C + C^T of `coriolis_matrix` (Pinocchio's C: Mdot_pin = C_pin + C_pin^T)."""
        C = self.coriolis_matrix(base, q, qd)
        return C + C.T

    # -- kinematics derivatives (rbdgen holds the world-frame base velocity and classical acceleration fixed) --

    def _base_chain(self, base, st: PinocchioState) -> dict:
        """How Pinocchio's tangent and state move with rbdgen's base inputs: ``d(delta)/dtheta`` (the local
        tangent by a world rotation vector), ``d(v_pin)/dtheta``, and the bias's rates ``d(bias)/dnu_base``,
        ``d(a_pin)/dtheta`` (``v_pin = T nu``, ``a_pin = T nudot + bias``, bias ``= R^T (pdot x omega)``;
        ``d(R^T y)/dtheta = R^T [y]x``)."""
        _, _, R, w, pd, wd, pdd = _unpack_base(base)
        nv = self.model.nv
        ddelta, dv, dbias, da = np.zeros((nv, 3)), np.zeros((nv, 3)), np.zeros((nv, 6)), np.zeros((nv, 3))
        ddelta[3:6] = R.T
        dv[0:3], dv[3:6] = R.T @ _skew(pd), R.T @ _skew(w)
        dbias[0:3, 0:3], dbias[0:3, 3:6] = R.T @ _skew(pd), -R.T @ _skew(w)
        da[0:3], da[3:6] = R.T @ _skew(pdd - np.cross(w, pd)), R.T @ _skew(wd)
        return {"ddelta": ddelta, "dv": dv, "dbias": dbias, "da": da}

    def _frame_derivatives(self, base, q, qd, qdd, link, acceleration: bool) -> dict:
        """``getFrameVelocityDerivatives`` / ``getFrameAccelerationDerivatives`` (LOCAL_WORLD_ALIGNED) after
        ``computeForwardKinematicsDerivatives``, as rbdgen's Jacobians of the twist and, with
        ``acceleration``, of the classical acceleration ``[omegadot, a_lin + omega x pdot]`` (Pinocchio's
        is spatial): its derivatives add ``[0, domega x pdot + omega x dpdot]`` from the twist's.
        Pinocchio's LOCAL_WORLD_ALIGNED partials by q hold the point fixed in the world where rbdgen's
        follow the link origin as it moves by ``dp`` (the Jacobian's linear rows; by the base rotation
        its angular columns' ``e_k x (p - p_b)``): they add ``[0, omega x dp]`` (``[0, omegadot x dp]``)."""
        pin = self._pin
        J = self.jacobian(base, q, link)
        moved = {"q": J[3:, J.shape[1] - self.J:], "base_rotation": J[3:, :3]}  # dp
        st = self.pinocchio_state(base, q, qd, np.zeros(self.J) if qdd is None else qdd)
        pin.computeForwardKinematicsDerivatives(self.model, self.data, st.q, st.v, st.a)
        fid = self._frame_id(link)
        Dq, Dv = pin.getFrameVelocityDerivatives(self.model, self.data, fid, pin.LOCAL_WORLD_ALIGNED)
        joint = st.T[:, st.T.shape[1] - self.J:]
        dtwist = {"q": _angular_first(Dq) @ joint, "qd": _angular_first(Dv) @ joint}
        if self.floating:
            chain = self._base_chain(base, st)
            dtwist["base_velocity"] = _angular_first(Dv) @ st.T[:, :6]
            dtwist["base_rotation"] = _angular_first(Dq @ chain["ddelta"] + Dv @ chain["dv"])
        twist = self.forward_velocity_kinematics(base, q, qd, link)
        for key, dp in moved.items():
            if key in dtwist:
                dtwist[key][3:] += np.cross(twist[:3], dp.T).T                # omega x dp
        if not acceleration:
            return {f"dtwist_d{k}": v for k, v in dtwist.items()}
        _, Aq, Av, Aa = pin.getFrameAccelerationDerivatives(self.model, self.data, fid, pin.LOCAL_WORLD_ALIGNED)
        out = {"q": _angular_first(Aq) @ joint, "qd": _angular_first(Av) @ joint, "qdd": _angular_first(Aa) @ joint}
        if self.floating:
            out["base_velocity"] = _angular_first(Av @ st.T[:, :6] + Aa @ chain["dbias"])
            out["base_acceleration"] = _angular_first(Aa) @ st.T[:, :6]
            out["base_rotation"] = _angular_first(Aq @ chain["ddelta"] + Av @ chain["dv"] + Aa @ chain["da"])
        wdot = self.forward_acceleration_kinematics(base, q, qd, qdd, link)[:3]
        for key, dp in moved.items():
            if key in out:
                out[key][3:] += np.cross(wdot, dp.T).T                        # omegadot x dp
        w, pdot = twist[:3], twist[3:]
        for key, value in out.items():
            d = dtwist.get(key, np.zeros_like(value))                   # qdd, base acceleration: no twist change
            value[3:] += np.cross(d[:3].T, pdot).T + np.cross(w, d[3:].T).T  # domega x pdot + omega x dpdot
        return {f"dacceleration_d{k}": v for k, v in out.items()}

    def forward_velocity_kinematics_derivatives(self, base, q, qd, link) -> dict:
        """rbdgen's ``forward_velocity_kinematics_derivatives`` from Pinocchio (`_frame_derivatives`)."""
        return self._frame_derivatives(base, q, qd, None, link, False)

    def forward_acceleration_kinematics_derivatives(self, base, q, qd, qdd, link) -> dict:
        """rbdgen's ``forward_acceleration_kinematics_derivatives`` from Pinocchio (`_frame_derivatives`)."""
        return self._frame_derivatives(base, q, qd, qdd, link, True)

    def center_of_mass_velocity(self, base, q, qd):
        st = self.pinocchio_state(base, q, qd)
        self._pin.centerOfMass(self.model, self.data, st.q, st.v)
        return np.array(self.data.vcom[0])

    def center_of_mass_derivatives(self, base, q, qd) -> dict:
        """``getCenterOfMassVelocityDerivatives`` (after ``computeForwardKinematicsDerivatives`` and
        ``centerOfMass``) and ``jacobianCenterOfMass`` as rbdgen's Jacobians of the CoM velocity."""
        pin = self._pin
        st = self.pinocchio_state(base, q, qd)
        pin.computeForwardKinematicsDerivatives(self.model, self.data, st.q, st.v, np.zeros(self.model.nv))
        pin.centerOfMass(self.model, self.data, st.q, st.v)
        D = np.array(pin.getCenterOfMassVelocityDerivatives(self.model, self.data))
        Jc = np.array(pin.jacobianCenterOfMass(self.model, self.data, st.q))
        joint = st.T[:, st.T.shape[1] - self.J:]
        out = {"dvcom_dq": D @ joint, "dvcom_dqd": Jc @ joint}
        if self.floating:
            chain = self._base_chain(base, st)
            out["dvcom_dbase_velocity"] = Jc @ st.T[:, :6]
            out["dvcom_dbase_rotation"] = D @ chain["ddelta"] + Jc @ chain["dv"]
        return out

    # -- the configuration space: rbdgen's base moves on R3 x SO(3) (world omega held), Pinocchio's free flyer on
    # SE(3) (a body twist held); they share pure rotations about the base origin and pure translations.
    def _configuration(self, qp):
        """``(translation, quaternion xyzw, q)`` of a Pinocchio configuration (a continuous joint's angle in
        (-pi, pi]); a fixed base: ``q``."""
        q = np.array([qp[iq] if nq == 1 else np.arctan2(qp[iq + 1], qp[iq]) for iq, nq in self._iq])
        return (qp[0:3].copy(), qp[3:7].copy(), q) if self.floating else q

    def _base_step(self, qp, angular, linear):
        """pin.integrate of a world rotation vector ``angular`` about the base origin, or of a world translation
        ``linear`` (body axes: R^T of either), nothing else moving."""
        step = np.zeros(self.model.nv)
        R = rotation_matrix(qp[3:7])
        step[0:3], step[3:6] = R.T @ linear, R.T @ angular
        return self._pin.integrate(self.model, qp, step)

    def integrate(self, base, q, v, dt):
        """rbdgen's ``integrate`` as two pin.integrate steps: a rotation exp(omega dt) about the base origin with
        the joints' motion qd dt, then the translation pdot dt; returns ``(translation, quaternion, q)``."""
        s = self.pinocchio_state(base, q, v[6:] if self.floating else v)
        step = s.v * dt
        if not self.floating:
            return self._configuration(self._pin.integrate(self.model, s.q, step))
        step[0:3] = 0.0
        step[3:6] = rotation_matrix(s.q[3:7]).T @ v[0:3] * dt
        moved = self._base_step(self._pin.integrate(self.model, s.q, step), np.zeros(3), v[3:6] * dt)
        return self._configuration(moved)

    def se3_integrate(self, base, q, v, dt):
        """Pinocchio's own pin.integrate of ``v`` (rbdgen's velocity, converted: the body twist T v) for ``dt``:
        ``(translation, quaternion, q)``, the SE(3) exponential; rbdgen's ``integrate`` where the base only
        turns about its origin or only translates."""
        s = self.pinocchio_state(base, q)
        return self._configuration(self._pin.integrate(self.model, s.q, s.T @ np.asarray(v, dtype=float) * dt))

    def difference(self, base0, q0, base1, q1):
        """rbdgen's ``difference`` from pin.difference: to the state with x1's rotation and joints and x0's
        translation (a pure rotation: body angular log3(R0^T R1), world R0 of it), and from there to x1 (a pure
        translation)."""
        a, b = self.pinocchio_state(base0, q0), self.pinocchio_state(base1, q1)
        if not self.floating:
            return self._Tjoint.T @ self._pin.difference(self.model, a.q, b.q)
        turned = b.q.copy()
        turned[0:3] = a.q[0:3]
        first = self._pin.difference(self.model, a.q, turned)
        second = self._pin.difference(self.model, turned, b.q)
        R0, R1 = rotation_matrix(a.q[3:7]), rotation_matrix(b.q[3:7])
        return np.concatenate([R0 @ first[3:6], R1 @ second[0:3], (self._Tjoint.T @ first)[6:]])

    def _joint_block(self, jacobian) -> np.ndarray:
        """The joints' rows and columns of a Pinocchio tangent-space Jacobian, in rbdgen's joint order."""
        return np.asarray(jacobian)[np.ix_(self._iv, self._iv)]

    def _tangent(self, rotation, linear, joints) -> np.ndarray:
        """``diag(rotation, linear I3, joints)`` (a fixed base: ``joints``)."""
        if not self.floating:
            return joints
        out = np.zeros((self.G, self.G))
        out[0:3, 0:3], out[3:6, 3:6], out[6:, 6:] = rotation, linear * np.eye(3), joints
        return out

    def integrate_derivatives(self, base, q, v, dt):
        """``{"dx_next_dx", "dx_next_dv", "dx_next_ddt"}``: the base rotation's blocks from Pinocchio's SO(3) maps,
        exp3(phi) and dt J_l(phi) = dt exp3(phi) Jexp3(phi), phi = omega dt; the joints' from pin.dIntegrate."""
        pin = self._pin
        s = self.pinocchio_state(base, q, v[6:] if self.floating else v)
        by_q, by_v = (self._joint_block(pin.dIntegrate(self.model, s.q, s.v * dt, arg))
                      for arg in (pin.ArgumentPosition.ARG0, pin.ArgumentPosition.ARG1))
        phi = np.asarray(v[0:3], dtype=float) * dt
        E = pin.exp3(phi) if self.floating else None
        return {"dx_next_dx": self._tangent(E, 1.0, by_q),
                "dx_next_dv": self._tangent(dt * E @ pin.Jexp3(phi) if self.floating else None, dt, dt * by_v),
                "dx_next_ddt": np.array(v, dtype=float)}

    def difference_derivatives(self, base0, q0, base1, q1):
        """``{"dv_dx0", "dv_dx1"}``: the base rotation's blocks from Jlog3 of R = R1 R0^T (J_r^-1), -J_r^-1 and
        J_l^-1 = J_r^-1 R^T; the joints' from pin.dDifference."""
        pin = self._pin
        a, b = self.pinocchio_state(base0, q0), self.pinocchio_state(base1, q1)
        by_0, by_1 = (self._joint_block(pin.dDifference(self.model, a.q, b.q, arg))
                      for arg in (pin.ArgumentPosition.ARG0, pin.ArgumentPosition.ARG1))
        if not self.floating:
            return {"dv_dx0": by_0, "dv_dx1": by_1}
        R = rotation_matrix(b.q[3:7]) @ rotation_matrix(a.q[3:7]).T
        inverse = pin.Jlog3(R)
        return {"dv_dx0": self._tangent(-inverse, -1.0, by_0), "dv_dx1": self._tangent(inverse @ R.T, 1.0, by_1)}


# ---------------------------------------------------------------------------
# dynibo


class DyniboReference(_Common):
    """dynibo 0.5.2 (rbdgen's conventions by definition), re-ordered if asked."""

    def __init__(self, urdf_path, floating: bool, joint_names=None, armature=None,
                 gravity=GRAVITY):
        import dynibo

        super().__init__(urdf_path, floating, joint_names)
        if armature and any(float(a) != 0.0 for a in armature.values()):
            raise NotImplementedError("dynibo has no joint armature")
        if tuple(float(g) for g in gravity) != GRAVITY:
            raise NotImplementedError("dynibo's gravity is fixed at 9.80665 m/s^2 along -z")
        self._dy = dynibo
        cls = dynibo.FloatingRobot if self.floating else dynibo.Robot
        self.robot = cls.from_urdf(self.urdf_path)
        if self.robot.joint_count != self.J:
            raise ValueError(f"dynibo has {self.robot.joint_count} joints, the URDF {self.J}")
        # ours[k] = dynibo[perm[k]] for the joint part
        pos = {n: i for i, n in enumerate(self.dynibo_joint_names)}
        off = 6 if self.floating else 0
        self._perm = np.concatenate([np.arange(off),
                                     off + np.array([pos[n] for n in self.joint_names], dtype=int)])
        self._jinv = np.argsort([pos[n] for n in self.joint_names])  # dynibo[k] = ours[_jinv[k]]

    def arguments(self, op, base, q, qd=None, qdd=None, tau=None, loads=None) -> tuple:
        """dynibo's positional arguments of ``op`` for rbdgen's state: the base state (floating),
        the given vectors in dynibo's joint order, then the loads where given (``loads=None``:
        none passed, dynibo's default)."""
        self._check_base(base)
        args = []
        if self.floating:
            p, quat, _, w, v, wd, vd = _unpack_base(base)
            dy = self._dy
            args.append(dy.BaseState(dy.Pose(p, quat), dy.Twist(w, v), dy.Twist(wd, vd)))
        for name, x in (("q", q), ("qd", qd), ("qdd", qdd)):
            if x is not None:
                args.append(_as_vec(x, self.J, name)[self._jinv])
        if tau is not None:
            x = _as_vec(tau, self.G, "tau")
            off = self.G - self.J
            args.append(np.concatenate([x[:off], x[off:][self._jinv]]))
        if loads is not None:
            args.append([self._dy.Load(self.robot.link_id(link), _as_vec(t, 3, "load torque"),
                                       _as_vec(f, 3, "load force")) for link, t, f in loads])
        return tuple(args)

    def result(self, op, raw) -> np.ndarray:
        """dynibo's result of ``op`` in rbdgen's joint order (the mass matrix as a (G, G) array)."""
        y = np.asarray(raw, dtype=float)
        if op == "mass_matrix":
            return y.reshape(self.G, self.G, order="F")[np.ix_(self._perm, self._perm)]
        return y[self._perm]

    def _call(self, op, base, *vectors, **named):
        return self.result(op, getattr(self.robot, op)(*self.arguments(op, base, *vectors, **named)))

    def mass_matrix(self, base, q):
        return self._call("mass_matrix", base, q)

    def velocity_product_forces(self, base, q, qd):
        return self._call("velocity_product_forces", base, q, qd)

    def gravity(self, base, q, loads=()):
        return self._call("gravity", base, q, loads=loads)

    def inverse_dynamics(self, base, q, qd, qdd, loads=()):
        return self._call("inverse_dynamics", base, q, qd, qdd, loads=loads)

    def forward_dynamics(self, base, q, qd, tau, loads=()):
        return self._call("forward_dynamics", base, q, qd, tau=tau, loads=loads)

    forward_dynamics_crba = forward_dynamics  # the same accelerations, by another algorithm

    # -- kinematics at a link origin, world axes, angular first ----------------------

    def _on_link(self, op, base, link, *vectors, **options):
        return getattr(self.robot, op)(*self.arguments(op, base, *vectors), self.robot.link_id(link), **options)

    def _columns(self, flat):
        """dynibo's flat column-major 6 x G matrix with rbdgen's column order."""
        return np.asarray(flat, dtype=float).reshape(self.G, 6).T[:, self._perm]

    def forward_kinematics(self, base, q, link):
        p = self._on_link("forward_kinematics", base, link, q)
        return np.concatenate([p.translation, p.rotation_xyzw])

    def forward_kinematics_all(self, base, q):
        """Every link's pose (L x 7; dynibo's link order is rbdgen's)."""
        return np.asarray(self.robot.forward_kinematics_all(*self.arguments("forward_kinematics_all", base, q)),
                          dtype=float).reshape(-1, 7)

    def jacobian(self, base, q, link):
        return self._columns(self._on_link("jacobian", base, link, q))

    def jacobian_derivative(self, base, q, qd, link):
        return self._columns(self._on_link("jacobian_derivative", base, link, q, qd))

    def forward_velocity_kinematics(self, base, q, qd, link, tool=None):
        """The twist of the link origin or, with ``tool`` = (translation, rotation_xyzw), of that point."""
        options = {} if tool is None else {"tool": self._dy.Pose(*tool)}
        t = self._on_link("forward_velocity_kinematics", base, link, q, qd, **options)
        return np.concatenate([t.angular, t.linear])

    def forward_acceleration_kinematics(self, base, q, qd, qdd, link):
        a = self._on_link("forward_acceleration_kinematics", base, link, q, qd, qdd)
        return np.concatenate([a.angular, a.linear])

    def kinetic_energy(self, base, q, qd):
        """0.5 nu^T M(q) nu from dynibo's mass matrix."""
        nu = _as_vec(qd, self.J, "qd")
        if self.floating:
            _, _, _, w, v, _, _ = _unpack_base(base)
            nu = np.concatenate([w, v, nu])
        return float(0.5 * nu @ self.mass_matrix(base, q) @ nu)


# ---------------------------------------------------------------------------
# mimic joints


def mimic_tags(urdf_text: str) -> dict:
    """The ``<mimic>`` tags of a URDF: ``{joint: (master, multiplier, offset)}`` as written, but for
    those of a joint the file does not have (ignored, as urdfdom and Pinocchio do)."""
    tags = {}
    root = ET.fromstring(urdf_text)
    names = {joint.get("name") for joint in root.iter("joint")}
    for joint in root.iter("joint"):
        mimic = joint.find("mimic")
        if mimic is not None:
            if mimic.get("joint") in names:
                tags[joint.get("name")] = (mimic.get("joint"), float(mimic.get("multiplier", 1)),
                                           float(mimic.get("offset", 0)))
    return tags


def without_mimic(urdf_text: str) -> str:
    """The URDF with its ``<mimic>`` tags removed: every mimic joint an independent joint."""
    root = ET.fromstring(urdf_text)
    for joint in root.iter("joint"):
        for mimic in joint.findall("mimic"):
            joint.remove(mimic)
    return ET.tostring(root, encoding="unicode")


def mimic_map(tags: dict, independent, full) -> tuple:
    """``(P, o)`` with ``q_full = P q + o``: rows in the order of ``full`` (every moving joint), columns
    in the order of ``independent``; chains of mimics are followed to their independent joint."""
    P, o = np.zeros((len(full), len(independent))), np.zeros(len(full))
    for i, name in enumerate(full):
        a, b = 1.0, 0.0
        while name in tags:
            name, a2, b2 = tags[name]
            a, b = a * a2, a * b2 + b
        P[i, list(independent).index(name)] = a
        o[i] = b
    return P, o


class MimicReference:
    """A reference (`PinocchioReference`, `DyniboReference`) of a URDF with mimic joints, in
    rbdgen's reduced coordinates.

    Neither tool takes these URDFs as they are (dynibo refuses mimic joints; Pinocchio's
    ``mimic=True`` refuses a master after its mimic depth-first, as in Talos). Without its
    ``<mimic>`` tags the URDF is a robot whose every joint is independent (``full``); with them
    each mimic joint's position is ``a q_m + b``: ``q_full = P q + o``, ``qd_full = P qd``,
    ``qdd_full = P qdd``. So the reduced mass matrix is ``P^T M_full P``, the reduced forces
    ``P^T tau_full``, forward dynamics ``M^-1 (tau - P^T ID_full(q_full, P qd, 0))``, Jacobians
    ``J_full P`` (``P`` with the base's identity block first for a floating base). ``P`` and
    ``o`` come from the ``<mimic>`` tags themselves (chains followed here), not from rbdgen.
    ``joint_names``: the independent joints (default: dynibo's breadth-first order without the
    mimic joints); ``armature`` may name mimic joints too (``P^T diag(armature) P`` then).
    """

    def __init__(self, urdf_path, floating: bool, joint_names=None, armature=None, gravity=GRAVITY,
                 full=PinocchioReference):
        self.urdf_path = str(urdf_path)
        self.floating = bool(floating)
        with open(self.urdf_path, encoding="utf-8") as f:
            text = f.read()
        tags = mimic_tags(text)
        with tempfile.TemporaryDirectory() as folder:
            stripped = os.path.join(folder, "without_mimic.urdf")
            with open(stripped, "w", encoding="utf-8") as f:
                f.write(without_mimic(text))
            self.full = full(stripped, floating, armature=armature, gravity=gravity)
        independent = [n for n in self.full.joint_names if n not in tags]
        if joint_names is None:
            joint_names = independent
        if sorted(joint_names) != sorted(independent):
            raise ValueError(f"joint_names must be a permutation of the URDF's independent joints {independent}")
        self.joint_names = list(joint_names)
        self.J = len(self.joint_names)
        self.G = self.J + (6 if self.floating else 0)
        self.P, self.o = mimic_map(tags, self.joint_names, self.full.joint_names)
        off = 6 if self.floating else 0
        self.PG = np.zeros((off + self.P.shape[0], self.G))
        self.PG[:off, :off] = np.eye(off)
        self.PG[off:, off:] = self.P

    def full_state(self, q, *rates) -> tuple:
        """``(q_full, *rates_full)`` of a reduced position and any of its rates (qd, qdd)."""
        return (self.P @ _as_vec(q, self.J, "q") + self.o,) + tuple(self.P @ _as_vec(x, self.J, "qd/qdd")
                                                                   for x in rates)

    # -- dynamics ----------------------------------------------------------------------

    def mass_matrix(self, base, q):
        return self.PG.T @ self.full.mass_matrix(base, *self.full_state(q)) @ self.PG

    def inverse_dynamics(self, base, q, qd, qdd, loads=()):
        return self.PG.T @ self.full.inverse_dynamics(base, *self.full_state(q, qd, qdd), loads)

    def gravity(self, base, q, loads=()):
        return self.PG.T @ self.full.gravity(base, *self.full_state(q), loads)

    def velocity_product_forces(self, base, q, qd):
        return self.PG.T @ self.full.velocity_product_forces(base, *self.full_state(q, qd))

    def forward_dynamics(self, base, q, qd, tau, loads=()):
        rest = None if base is None else tuple(base)[:3]  # the base acceleration omitted: zero
        bias = self.inverse_dynamics(rest, q, qd, np.zeros(self.J), loads)
        return np.linalg.solve(self.mass_matrix(base, q), _as_vec(tau, self.G, "tau") - bias)

    forward_dynamics_crba = forward_dynamics  # the same accelerations, by another algorithm

    def kinetic_energy(self, base, q, qd):
        return self.full.kinetic_energy(base, *self.full_state(q, qd))

    def potential_energy(self, base, q):
        return self.full.potential_energy(base, *self.full_state(q))

    def mass_matrix_inverse(self, base, q):
        return np.linalg.inv(self.mass_matrix(base, q))

    def inverse_dynamics_regressor(self, base, q, qd, qdd):
        return self.PG.T @ self.full.inverse_dynamics_regressor(base, *self.full_state(q, qd, qdd))

    def energy_regressor(self, base, q, qd):
        return self.full.energy_regressor(base, *self.full_state(q, qd))

    def coriolis_matrix(self, base, q, qd):
        """``P^T C_full(P qd) P``: the Christoffel symbols of ``P^T M_full(P q + o) P`` (P constant)."""
        return self.PG.T @ self.full.coriolis_matrix(base, *self.full_state(q, qd)) @ self.PG

    def operational_space_inertia(self, base, q, link):
        return task_space_inertia(self.jacobian(base, q, link), self.mass_matrix_inverse(base, q))

    # -- kinematics at a link origin, world axes, angular first -----------------------------

    def forward_kinematics(self, base, q, link):
        return self.full.forward_kinematics(base, *self.full_state(q), link)

    def forward_kinematics_all(self, base, q):
        return self.full.forward_kinematics_all(base, *self.full_state(q))

    def jacobian(self, base, q, link):
        return self.full.jacobian(base, *self.full_state(q), link) @ self.PG

    def jacobian_derivative(self, base, q, qd, link):
        return self.full.jacobian_derivative(base, *self.full_state(q, qd), link) @ self.PG  # P is constant

    def forward_velocity_kinematics(self, base, q, qd, link, tool=None):
        return self.full.forward_velocity_kinematics(base, *self.full_state(q, qd), link, *(() if tool is None else (tool,)))

    def forward_acceleration_kinematics(self, base, q, qd, qdd, link):
        return self.full.forward_acceleration_kinematics(base, *self.full_state(q, qd, qdd), link)

    def center_of_mass(self, base, q):
        return self.full.center_of_mass(base, *self.full_state(q))

    def center_of_mass_jacobian(self, base, q):
        return self.full.center_of_mass_jacobian(base, *self.full_state(q)) @ self.PG

    def centroidal_momentum_matrix(self, base, q):
        return self.full.centroidal_momentum_matrix(base, *self.full_state(q)) @ self.PG

    def centroidal_momentum_bias(self, base, q, qd):
        return self.full.centroidal_momentum_bias(base, *self.full_state(q, qd))


def load_reference(urdf_path, floating: bool, implementation: str = "pinocchio", **options):
    """The reference (``implementation`` "pinocchio" or "dynibo") of a URDF in rbdgen's coordinates:
    `PinocchioReference` / `DyniboReference`, or a `MimicReference` over one when the URDF has
    mimic joints. ``options``: ``joint_names``, ``armature``, ``gravity``."""
    cls = {"pinocchio": PinocchioReference, "dynibo": DyniboReference}[implementation]
    with open(urdf_path, encoding="utf-8") as f:
        if mimic_tags(f.read()):
            return MimicReference(urdf_path, floating, full=cls, **options)
    return cls(urdf_path, floating, **options)
