"""CasADi output: the same algorithms traced on SX, as ``casadi.Function`` objects.

`CasadiOps` is the scalar backend: the algorithms in `rbdgen.algorithms` run
unchanged on SX scalars (structural zeros and ones still fold), so the SX graph
is specialised to the robot exactly like the C. A CasADi graph cannot return a
status, so ``require_positive`` records nothing: where the C returns SINGULAR,
a CasADi function evaluates to inf or NaN. ``solve_spd`` is CasADi's sparse
symbolic LDL^T (exact derivatives through the solve).

Functions take the C functions' inputs, in order and with their names (``base``
first for a floating base), each a column vector; ``M`` is a G x G matrix. The
derivative functions return Jacobians, one output per differentiated input:

* ``inverse_dynamics_derivatives(base, q, qd, qdd, loads)`` ->
  ``dtau_dq, dtau_dqd, dtau_dqdd`` (G x J) and, floating, ``dtau_dbase_velocity``,
  ``dtau_dbase_acceleration`` (G x 6) and ``dtau_dbase_rotation`` (G x 3);
* ``forward_dynamics_derivatives(base, q, qd, tau, loads)`` ->
  ``dacc_dq, dacc_dqd`` (G x J), ``dacc_dtau`` (G x G) and, floating,
  ``dacc_dbase_velocity`` (G x 6) and ``dacc_dbase_rotation`` (G x 3).

A base rotation derivative is taken along a world-frame rotation vector
``dtheta``: ``R -> exp(dtheta x) R`` (the quaternion ``q -> q + [dtheta, 0] q / 2``).
"""

from __future__ import annotations

import casadi as ca

from ..algorithms.cholesky import EPS
from ..algorithms.kinematics import Tree
from ..algorithms.operations import BASE, BASE_SIZE, SIGNATURES, derivative_outputs, evaluate, input_names, sizes
from ..names import check_prefix

#: The operation each derivative function differentiates.
DERIVATIVES = {"inverse_dynamics_derivatives": "inverse_dynamics", "forward_dynamics_derivatives": "forward_dynamics"}
BASE_PARTS = {"base_velocity": BASE["velocity"], "base_acceleration": BASE["acceleration"]}


class CasadiOps:
    """SX scalars: sin/cos are CasADi's, checks are not representable, solves are symbolic LDL^T."""

    sin = staticmethod(ca.sin)
    cos = staticmethod(ca.cos)
    sqrt = staticmethod(ca.sqrt)
    eps = EPS

    @staticmethod
    def require_positive(x, error, message):
        """Nothing to record: a CasADi graph has no status (see the module docstring)."""

    require_not_negative = require_positive

    @staticmethod
    def solve_spd(A, b, what):
        n = len(b)
        Am = ca.SX(n, n)
        for r in range(n):
            for c in range(n):
                if not (isinstance(A[r][c], (int, float)) and A[r][c] == 0):
                    Am[r, c] = A[r][c]
        D, LT, p = ca.ldl(Am)
        x = ca.ldl_solve(ca.vertcat(*b), D, LT, p)
        return [x[i] for i in range(n)]


def _world_rotation(base, dtheta):
    """The base vector with its quaternion turned by the world-frame rotation vector dtheta (first order)."""
    quat = base[BASE["quat"]]
    v, w = quat[0:3], quat[3]
    dq = 0.5 * ca.vertcat(w * dtheta + ca.cross(dtheta, v), -ca.dot(dtheta, v))
    return ca.vertcat(base[BASE["translation"]], quat + dq, base[BASE["quat"].stop:BASE_SIZE])


def _trace(model, op, tree, symbols):
    scalars = {name: [sym[i] for i in range(sym.numel())] for name, sym in symbols.items()}
    return evaluate(tree, CasadiOps, op, scalars)


def _matrix(values, rows, cols):
    return ca.reshape(ca.vertcat(*values), rows, cols) if values else ca.SX(rows, cols)


def function(model, op: str, prefix: str) -> ca.Function:
    """``op`` (an operation of `operations.SIGNATURES` or of `DERIVATIVES`) as a casadi.Function named
    ``<prefix>_<op>`` (``prefix``: see `rbdgen.names.check_prefix`)."""
    check_prefix(prefix)
    tree = Tree.from_model(model)
    G = model.generalized_count
    if op in DERIVATIVES:
        return _derivative_function(model, op, prefix, tree)
    if op not in SIGNATURES:
        raise ValueError(f"unknown operation {op!r}")
    size = sizes(tree, len(model.links))
    symbols = {name: ca.SX.sym(name, size[name]) for name in input_names(op, model.floating)}
    values = _trace(model, op, tree, symbols)
    outputs = {name: _matrix(values[name], G, G if name == "M" else 1) for name in SIGNATURES[op][1]}
    return ca.Function(f"{prefix}_{op}", list(symbols.values()), list(outputs.values()),
                       list(symbols), list(outputs), {"cse": True})


def _derivative_function(model, op, prefix, tree):
    base_op = DERIVATIVES[op]
    (out_name,) = SIGNATURES[base_op][1]
    size = sizes(tree, len(model.links))
    symbols = {name: ca.SX.sym(name, size[name]) for name in input_names(base_op, model.floating)}
    traced = dict(symbols)
    dtheta = ca.SX.sym("dtheta", 3)
    if model.floating:
        traced["base"] = _world_rotation(symbols["base"], dtheta)
    out = ca.vertcat(*_trace(model, base_op, tree, traced)[out_name])
    jacobians = {}
    for key, (_, name) in derivative_outputs(op, model.floating).items():
        if name == "base_rotation":
            jac = ca.jacobian(out, dtheta)
        elif name in BASE_PARTS:
            jac = ca.jacobian(out, symbols["base"])[:, BASE_PARTS[name]]
        else:
            jac = ca.jacobian(out, symbols[name])
        jacobians[key] = ca.substitute(jac, dtheta, ca.DM.zeros(3))
    return ca.Function(f"{prefix}_{op}", list(symbols.values()), list(jacobians.values()),
                       list(symbols), list(jacobians), {"cse": True})
