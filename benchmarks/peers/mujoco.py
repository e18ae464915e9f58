"""MuJoCo from Python (the stripped URDF, constraints, contacts and passive forces off)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import numpy as np

from rbdgen.testing import GRAVITY, rotation_matrix

from ..case import Unavailable
from .base import Peer, stack


#: What MuJoCo's compiler is told about a URDF: keep every body and its inertia as given.
COMPILER = '<mujoco><compiler discardvisual="true" fusestatic="false" balanceinertia="false"/></mujoco>'


def rigid_body_model(mujoco, urdf_text: str, floating: bool):
    """MuJoCo's model of a URDF (a free joint on the root body where ``floating``) with rigid-body dynamics
    only: constraints, contacts, springs, dampers, actuation, friction loss, limits and armature off, gravity
    rbdgen's. `Unavailable` where MuJoCo cannot load it."""
    text = re.sub(r"(<robot\b[^>]*>)", lambda m: m.group(1) + COMPILER, urdf_text, count=1)
    try:
        spec = mujoco.MjSpec.from_string(text)
        if floating:
            root = spec.worldbody.first_body()
            root.add_freejoint()
        m = spec.compile()
    except Exception as exc:  # noqa: BLE001 - MuJoCo's own errors
        raise Unavailable(f"MuJoCo cannot load the URDF: {exc}") from None
    dis = mujoco.mjtDisableBit
    m.opt.disableflags |= (dis.mjDSBL_CONSTRAINT | dis.mjDSBL_CONTACT | dis.mjDSBL_SPRING
                           | dis.mjDSBL_DAMPER | dis.mjDSBL_ACTUATION | dis.mjDSBL_FRICTIONLOSS
                           | dis.mjDSBL_LIMIT)
    m.dof_damping[:] = 0.0
    m.dof_armature[:] = 0.0
    m.dof_frictionloss[:] = 0.0
    m.opt.gravity[:] = GRAVITY
    return m


class MujocoPython(Peer):
    key, label = "mujoco_py", "MuJoCo Python"
    implementation = "mujoco"
    full_coordinates = True
    describe = ("mujoco from Python: ID = mj_kinematics + mj_comPos + mj_comVel + mj_rne; M = mj_kinematics + "
                "mj_comPos + mj_crb + mj_fullM; FD = mj_forward (constraints, contacts and passive forces "
                "disabled); g, C qd = mj_rne without acceleration (zero velocity / zero gravity)")

    def setup(self, case):
        super().setup(case)
        try:
            import mujoco
        except ImportError as exc:
            raise Unavailable(f"mujoco is not installed ({exc})") from None
        self.mj = mujoco
        m = rigid_body_model(mujoco, Path(case.stripped_urdf()).read_text(), case.floating)
        nfree = 6 if case.floating else 0
        if m.nv != case.G or m.nq != case.J + (7 if case.floating else 0):
            raise Unavailable(f"MuJoCo's model has nq={m.nq}, nv={m.nv}; rbdgen's has J={case.J}, G={case.G}")
        try:
            dofs = [int(m.joint(n).dofadr[0]) for n in case.joint_names]
            qadr = [int(m.joint(n).qposadr[0]) for n in case.joint_names]
        except KeyError as exc:
            raise Unavailable(f"MuJoCo's model lacks joint {exc}") from None
        if case.floating and (m.jnt_type[0] != mujoco.mjtJoint.mjJNT_FREE or m.jnt_dofadr[0] != 0):
            raise Unavailable("the free joint is not MuJoCo's first joint")
        self.m, self.d = m, mujoco.MjData(m)
        # mj_fullM(m, d, dst) since MuJoCo 3.3-ish, mj_fullM(m, dst, qM) before
        M = np.zeros((m.nv, m.nv))
        try:
            mujoco.mj_fullM(m, self.d, M)
            self._full_m = mujoco.mj_fullM
        except TypeError:
            self._full_m = lambda m, d, dst: mujoco.mj_fullM(m, dst, d.qM)
        self.dg = mujoco.MjData(m)  # gravity: qvel stays zero, so its velocity terms stay zero
        mujoco.mj_comVel(m, self.dg)
        self.m0 = copy.copy(m)
        self.m0.opt.gravity[:] = 0.0
        self.d0 = mujoco.MjData(self.m0)
        # T maps rbdgen's generalized vector [omega_W, pdot_W, qd] to MuJoCo's
        # [pdot_W, omega_B, dofs]; it is orthogonal, so forces map by T too.
        self.qpos, self.qvel, self.qacc, self.qfrc, self.T = [], [], [], [], []
        st = case.check
        for i in range(case.S):
            T = np.zeros((m.nv, case.G))
            qpos = np.zeros(m.nq)
            for k in range(case.J):
                T[dofs[k], nfree + k] = 1.0
                qpos[qadr[k]] = st.q[i, k]
            if case.floating:
                R = rotation_matrix(st.quat[i])
                T[0:3, 3:6] = np.eye(3)
                T[3:6, 0:3] = R.T
                x, y, z, w = st.quat[i]
                qpos[0:3] = st.translation[i]
                qpos[3:7] = (w, x, y, z)
                nu = np.concatenate([st.velocity[i], st.qd[i]])
                nudot = np.concatenate([st.acceleration[i], st.qdd[i]])
            else:
                nu, nudot = st.qd[i], st.qdd[i]
            self.T.append(T)
            self.qpos.append(qpos)
            self.qvel.append(T @ nu)
            self.qacc.append(T @ nudot)
            self.qfrc.append(T @ st.tau[i])
        self.notes.append("MuJoCo loads the stripped URDF (compiler discardvisual, fusestatic=false, "
                          "balanceinertia=false)" + ("; a free joint is added to the root body" if case.floating else ""))

    def timed(self, op):
        mj, m, d, S = self.mj, self.m, self.d, self.case.S
        nv = m.nv
        if op == "inverse_dynamics":
            out = np.zeros(nv)

            def fn(qpos, qvel, qacc):
                d.qpos[:] = qpos
                d.qvel[:] = qvel
                d.qacc[:] = qacc
                mj.mj_kinematics(m, d)
                mj.mj_comPos(m, d)
                mj.mj_comVel(m, d)
                mj.mj_rne(m, d, 1, out)
                return out

            return fn, [(self.qpos[i], self.qvel[i], self.qacc[i]) for i in range(S)], 1
        if op == "mass_matrix":
            M, full_m = np.zeros((nv, nv)), self._full_m

            def fn(qpos):
                d.qpos[:] = qpos
                mj.mj_kinematics(m, d)
                mj.mj_comPos(m, d)
                mj.mj_crb(m, d)
                full_m(m, d, M)
                return M

            return fn, [(self.qpos[i],) for i in range(S)], 1
        if op == "forward_dynamics":
            def fn(qpos, qvel, qfrc):
                d.qpos[:] = qpos
                d.qvel[:] = qvel
                d.qfrc_applied[:] = qfrc
                mj.mj_forward(m, d)
                return d.qacc

            return fn, [(self.qpos[i], self.qvel[i], self.qfrc[i]) for i in range(S)], 1
        if op == "gravity":
            dg, out = self.dg, np.zeros(nv)

            def fn(qpos):
                dg.qpos[:] = qpos
                mj.mj_kinematics(m, dg)
                mj.mj_comPos(m, dg)
                mj.mj_rne(m, dg, 0, out)
                return out

            return fn, [(self.qpos[i],) for i in range(S)], 1
        m0, d0, out = self.m0, self.d0, np.zeros(nv)

        def fn(qpos, qvel):
            d0.qpos[:] = qpos
            d0.qvel[:] = qvel
            mj.mj_kinematics(m0, d0)
            mj.mj_comPos(m0, d0)
            mj.mj_comVel(m0, d0)
            mj.mj_rne(m0, d0, 0, out)
            return out

        return fn, [(self.qpos[i], self.qvel[i]) for i in range(S)], 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        out = []
        for i, a in enumerate(args):
            y, T = np.array(fn(*a), dtype=float), self.T[i]
            out.append(T.T @ y @ T if op == "mass_matrix" else T.T @ y)
        return stack(out)
