"""Reference dynamics from Pinocchio and dynibo 0.5.2, in rbdgen's conventions.

rbdgen follows dynibo 0.5.2 (see shared/reference/conventions.md):

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
otherwise, with ``G = J`` (fixed base) or ``J + 6`` (floating base).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import deque

import numpy as np

GRAVITY = (0.0, 0.0, -9.80665)

__all__ = ["GRAVITY", "dynibo_joint_order", "PinocchioReference", "DyniboReference"]


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
    x, y, z, w = quat
    R = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    return p, quat, R, vel[:3], vel[3:], acc[:3], acc[3:]


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

    def _q(self, base, q):
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
        if self.floating:
            p, quat, R, w, v, _, _ = _unpack_base(base)
            qp[0:3] = p
            qp[3:7] = quat
            T[0:3, 3:6] = R.T
            T[3:6, 0:3] = R.T
            wB, vB = R.T @ w, R.T @ v
            bias[0:3] = -np.cross(wB, vB)
        return qp, T, bias

    def _nu(self, base, T, qd):
        qd = _as_vec(qd, self.J, "qd")
        if self.floating:
            _, _, _, w, v, _, _ = _unpack_base(base)
            return T @ np.concatenate([w, v, qd])
        return T @ qd

    def _nudot(self, base, T, bias, qdd):
        qdd = _as_vec(qdd, self.J, "qdd")
        if self.floating:
            _, _, _, _, _, wd, vd = _unpack_base(base)
            return T @ np.concatenate([wd, vd, qdd]) + bias
        return T @ qdd

    def _fext(self, qp, loads):
        """Pinocchio fext (per joint, joint frame, force first) for our loads."""
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
        qp, T, _ = self._q(base, q)
        M = np.array(self._pin.crba(self.model, self.data, qp), dtype=float)
        M = np.triu(M) + np.triu(M, 1).T
        return T.T @ M @ T

    def velocity_product_forces(self, base, q, qd):
        qp, T, bias = self._q(base, q)
        v = self._nu(base, T, qd)
        return T.T @ self._rnea(qp, v, bias, None, gravity=False)

    def gravity(self, base, q, loads=()):
        qp, T, _ = self._q(base, q)
        z = np.zeros(self.model.nv)
        return T.T @ self._rnea(qp, z, z, self._fext(qp, loads))

    def inverse_dynamics(self, base, q, qd, qdd, loads=()):
        qp, T, bias = self._q(base, q)
        v = self._nu(base, T, qd)
        a = self._nudot(base, T, bias, qdd)
        return T.T @ self._rnea(qp, v, a, self._fext(qp, loads))

    def forward_dynamics(self, base, q, qd, tau, loads=()):
        pin = self._pin
        qp, T, bias = self._q(base, q)
        v = self._nu(base, T, qd)
        tau_pin = T @ _as_vec(tau, self.G, "tau")
        fext = self._fext(qp, loads)
        if fext is None:
            a = pin.aba(self.model, self.data, qp, v, tau_pin)
        else:
            a = pin.aba(self.model, self.data, qp, v, tau_pin, fext)
        return T.T @ (np.asarray(a, dtype=float) - bias)

    def kinetic_energy(self, base, q, qd):
        qp, T, _ = self._q(base, q)
        v = self._nu(base, T, qd)
        return float(self._pin.computeKineticEnergy(self.model, self.data, qp, v))


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
        self._jperm = np.array([pos[n] for n in self.joint_names], dtype=int)
        self._jinv = np.argsort(self._jperm)  # dynibo[k] = ours[_jinv[k]]

    def _to_dy(self, x, n, what):  # joint vector in our order -> dynibo's
        return _as_vec(x, n, what)[self._jinv]

    def _gen_to_dy(self, x):
        x = _as_vec(x, self.G, "tau")
        off = 6 if self.floating else 0
        return np.concatenate([x[:off], x[off:][self._jinv]])

    def _out(self, y):
        return np.asarray(y, dtype=float)[self._perm]

    def _bs(self, base):
        self._check_base(base)
        if not self.floating:
            return None
        p, quat, _, w, v, wd, vd = _unpack_base(base)
        dy = self._dy
        return dy.BaseState(dy.Pose(p, quat), dy.Twist(w, v), dy.Twist(wd, vd))

    def _loads(self, loads):
        dy = self._dy
        return [dy.Load(self.robot.link_id(link), _as_vec(t, 3, "load torque"),
                        _as_vec(f, 3, "load force")) for link, t, f in loads]

    def _call(self, fn, base, *args):
        bs = self._bs(base)
        return fn(*args) if bs is None else fn(bs, *args)

    def mass_matrix(self, base, q):
        flat = self._call(self.robot.mass_matrix, base, self._to_dy(q, self.J, "q"))
        M = np.asarray(flat, dtype=float).reshape(self.G, self.G, order="F")
        return M[np.ix_(self._perm, self._perm)]

    def velocity_product_forces(self, base, q, qd):
        return self._out(self._call(self.robot.velocity_product_forces, base,
                                    self._to_dy(q, self.J, "q"), self._to_dy(qd, self.J, "qd")))

    def gravity(self, base, q, loads=()):
        return self._out(self._call(self.robot.gravity, base, self._to_dy(q, self.J, "q"),
                                    self._loads(loads)))

    def inverse_dynamics(self, base, q, qd, qdd, loads=()):
        return self._out(self._call(self.robot.inverse_dynamics, base,
                                    self._to_dy(q, self.J, "q"), self._to_dy(qd, self.J, "qd"),
                                    self._to_dy(qdd, self.J, "qdd"), self._loads(loads)))

    def forward_dynamics(self, base, q, qd, tau, loads=()):
        return self._out(self._call(self.robot.forward_dynamics, base,
                                    self._to_dy(q, self.J, "q"), self._to_dy(qd, self.J, "qd"),
                                    self._gen_to_dy(tau), self._loads(loads)))

    def kinetic_energy(self, base, q, qd):
        """0.5 nu^T M(q) nu from dynibo's mass matrix."""
        nu = _as_vec(qd, self.J, "qd")
        if self.floating:
            _, _, _, w, v, _, _ = _unpack_base(base)
            nu = np.concatenate([w, v, nu])
        return float(0.5 * nu @ self.mass_matrix(base, q) @ nu)
