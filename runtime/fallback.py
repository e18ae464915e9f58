"""`NumpySolver`: the generic algorithms on NumPy arrays, one array element per state.

It is the reference the compiled solvers are validated against and the fallback
where no compiler is available. Each scalar the algorithms see is a float64
array of shape (N,), so a batch costs one pass of the algorithm, not N.
"""

from __future__ import annotations

import numpy as np

from .algorithms.aba import aba
from .algorithms.crba import crba
from .algorithms.kinematics import Tree
from .algorithms.rnea import rnea
from .backends import NumpyOps
from .errors import NonFiniteError
from .interface import SolverBase
from .model import RobotModel


def _columns(a):
    """The columns of an (N, n) array as n contiguous (N,) arrays."""
    return list(np.ascontiguousarray(a.T))


def _stack(values, N, shape):
    out = np.empty((N,) + shape)
    flat = out.reshape(N, -1)
    for k, value in enumerate(values):
        flat[:, k] = value
    return out


class NumpySolver(SolverBase):
    """Generic dynamics for any `RobotModel`, single states or batches (see `SolverBase`)."""

    def __init__(self, model: RobotModel):
        super().__init__(model)
        self.tree = Tree.from_model(model)

    def _evaluate(self, op, inputs):
        tree, ops = self.tree, NumpyOps
        N = inputs["q"].shape[0]
        G = self.generalized_count
        zeros = [0] * self.joint_count
        q = _columns(inputs["q"])
        loads = None
        if "loads" in inputs:
            loads = [_columns(inputs["loads"][:, link, :]) for link in range(self.link_count)]
        quat = _columns(inputs["quat"]) if tree.floating else None
        velocity = _columns(inputs["velocity"]) if tree.floating else None
        still = [0] * 6
        if op == "mass_matrix":
            H = crba(tree, ops, q, quat)
            return _stack([H[r][c] for r in range(G) for c in range(G)], N, (G, G))
        if op == "velocity_product_forces":
            values = rnea(tree, ops, q, _columns(inputs["qd"]), zeros, (quat, velocity, still), None, gravity=False)
        elif op == "gravity":
            values = rnea(tree, ops, q, zeros, zeros, (quat, still, still), loads)
        elif op == "inverse_dynamics":
            base = (quat, velocity, _columns(inputs["acceleration"])) if tree.floating else None
            values = rnea(tree, ops, q, _columns(inputs["qd"]), _columns(inputs["qdd"]), base, loads)
        elif op == "forward_dynamics":
            values = aba(tree, ops, q, _columns(inputs["qd"]), _columns(inputs["tau"]), (quat, velocity), loads)
        elif op == "forward_dynamics_crba":
            values = self._forward_dynamics_crba(q, _columns(inputs["qd"]), _columns(inputs["tau"]), quat, velocity, loads)
        else:
            raise ValueError(f"unknown operation {op!r}")
        out = _stack(values, N, (G,))
        if not np.all(np.isfinite(out)):
            bad = int(np.flatnonzero(~np.all(np.isfinite(out), axis=1))[0])
            raise NonFiniteError(f"{op}: numerical failure, non-finite result (state {bad})")
        return out

    def _forward_dynamics_crba(self, q, qd, tau, quat, velocity, loads):
        """qdd = M^-1 (tau - b): b = ID(q, qd, 0) with one RNEA call, one checked Cholesky."""
        tree, ops = self.tree, NumpyOps
        zeros = [0] * self.joint_count
        H = crba(tree, ops, q, quat)
        bias = rnea(tree, ops, q, qd, zeros, (quat, velocity, [0] * 6), loads)
        return ops.solve_spd(H, [t - b for t, b in zip(tau, bias)], "mass matrix")
