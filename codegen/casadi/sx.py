"""The CasADi front end: operations traced on SX symbols for the CasADi output.

`CasadiOps` is the scalar backend: the algorithms in `rbdgen.algorithms` run
unchanged on SX scalars (structural zeros and ones still fold), so the SX graph
is specialised to the robot exactly like the C. A CasADi graph cannot return a
status, so ``require_positive`` records nothing: where the C returns SINGULAR,
a CasADi function evaluates to inf or NaN; a check that fails for every state (a
massless moving tip) makes every output NaN, with the C generator's warning.
``solve_spd`` is CasADi's sparse symbolic LDL^T (exact derivatives through the solve).

Where the C refuses a non-finite input (status 1), every entry of every output is NaN (but
the structural zeros of a sparse one):
an output that does not depend on an input (Panda's first joint turns about gravity,
so its dynamics do not depend on ``q[0]``) would otherwise ignore a NaN there.

`trace_operation` gives an operation's input symbols (the C functions' inputs, in order,
``base`` first for a floating base, each a column vector) and its outputs as SX
matrices of the registry's shapes. A derivative operation's outputs are the
Jacobians of the operation it differentiates, one per differentiated input; a
base rotation derivative is taken along a world-frame rotation vector ``dtheta``:
``R -> exp(dtheta x) R`` (the quaternion ``q -> q + [dtheta, 0] q / 2``).
"""

from __future__ import annotations

import logging

import casadi as ca

from ...algorithms.cholesky import EPS, TINY
from ...backends import NumpyOps
from ...algorithms.kinematics import Tree
from ...algorithms.operations import BASE, BASE_SIZE, dimensions, operation
from ...algorithms.scalars import ScalarOps
from ...ir.trace import StructuralFailure, decided, trace

log = logging.getLogger(__name__)

#: Where the base vector holds the base velocity and acceleration.
BASE_PARTS = {"base_velocity": BASE["velocity"], "base_acceleration": BASE["acceleration"]}


class CasadiOps(ScalarOps):
    """SX scalars: sin/cos are CasADi's, checks are not representable, solves are symbolic LDL^T."""

    eps = EPS
    tiny = TINY

    @staticmethod
    def function(name, *args):
        return getattr(ca, name)(*args)

    @staticmethod
    def require_positive(x, error, message):
        """Nothing to record (a CasADi graph has no status), but a constant that fails ends the trace."""
        decided(_constant(x), error.status, message)

    @staticmethod
    def require_not_negative(x, error, message):
        decided(_constant(x), error.status, message, strict=False)

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

    solve_ltdl = staticmethod(NumpyOps.solve_ltdl)  # the same arithmetic on SX scalars


def _constant(x):
    """``x`` as a float where it is a constant (a Python number or a constant SX), else as it is."""
    return float(x) if isinstance(x, ca.SX) and x.is_constant() else x


def _propagate_nan(inputs: dict, outputs: dict) -> dict:
    """``outputs`` with NaN in every entry where an input is NaN or infinite (the C's status 1).

    The check ``|x| < inf`` is false for NaN and inf only; ``if_else`` adds 0 otherwise, so finite
    inputs give the same values."""
    every = ca.vertcat(*inputs.values())
    bad = ca.logic_not(ca.logic_all(ca.fabs(every) < ca.inf))
    nan = ca.if_else(bad, float("nan"), 0)
    return {name: ca.SX(value.sparsity(), ca.vertcat(*value.nonzeros()) + nan) if value.nnz() else value
            for name, value in outputs.items()}


def _world_rotation(base, dtheta):
    """The base vector with its quaternion turned by the world-frame rotation vector dtheta (first order)."""
    quat = base[BASE["quat"]]
    v, w = quat[0:3], quat[3]
    dq = 0.5 * ca.vertcat(w * dtheta + ca.cross(dtheta, v), -ca.dot(dtheta, v))
    return ca.vertcat(base[BASE["translation"]], quat + dq, base[BASE["quat"].stop:BASE_SIZE])


def _shaped(values, port, dims):
    """Flat scalars as an SX matrix of ``port``'s shape (column-major; a per-link table row by row)."""
    shape = port.dims(dims) + (1,) * (2 - len(port.shape))
    rows, cols = shape
    if not values:
        return ca.SX(rows, cols)
    if port.by_row:
        return ca.reshape(ca.vertcat(*values), cols, rows).T
    return ca.reshape(ca.vertcat(*values), rows, cols)


class SXInputs:
    """`rbdgen.ir.trace.trace`'s symbols on CasADi: an SX column symbol per input (``symbols``), its entries the
    scalars; with ``dtheta``, the scalars of ``base`` are those of the base turned by that world-frame rotation
    vector (`_world_rotation`)."""

    ops = CasadiOps()

    def __init__(self, dtheta=None):
        self.symbols: dict = {}
        self.dtheta = dtheta

    def input(self, name: str, size: int) -> list:
        symbol = self.symbols[name] = ca.SX.sym(name, size)
        if name == "base" and self.dtheta is not None:
            symbol = _world_rotation(symbol, self.dtheta)
        return [symbol[i] for i in range(size)]


def trace_operation(model, op: str, tree: Tree = None, link: int = None) -> tuple:
    """``(inputs, outputs)``: dicts of SX symbols (column vectors) and SX results, in signature order
    (``link``: the link id of an operation on a link)."""
    tree = tree or Tree.from_model(model)
    record = operation(op)
    dims = dimensions(tree, len(model.links))
    source = operation(record.of) if record.of else record
    dtheta = ca.SX.sym("dtheta", 3)
    inputs = SXInputs(dtheta if record.of and model.floating else None)
    reference = bool(tree.contacts and tree.contacts.kp)
    sizes = {p.name: p.size(dims) for p in source.input_ports(model.floating, reference)}
    if tree.parameters:  # the parametric bodies' inertias, the last input (`parametric`)
        sizes["params"] = dims["Q"]
    try:
        values = trace(inputs, tree, source.name, sizes, link)
    except StructuralFailure as failure:
        log.warning("%s: %s for every state; the CasADi function returns NaN", op, failure.guard.message)
        return inputs.symbols, {p.name: ca.SX.nan(*(p.dims(dims) + (1,) * (2 - len(p.shape))))
                                for p in record.output_ports(model.floating)}
    symbols = inputs.symbols
    if not record.of:
        return symbols, _propagate_nan(symbols, {p.name: _shaped(values[p.name], p, dims)
                                                 for p in record.output_ports(model.floating)})
    jacobians = {}
    for port in record.output_ports(model.floating):
        value = ca.vertcat(*values[port.name[1:-len(f"_d{port.wrt}")]])  # d<output>_d<wrt>
        if port.wrt == "base_rotation":
            jac = ca.jacobian(value, dtheta)
        elif port.wrt in BASE_PARTS:
            jac = ca.jacobian(value, symbols["base"])[:, BASE_PARTS[port.wrt]]
        else:
            jac = ca.jacobian(value, symbols[port.wrt])
        jacobians[port.name] = ca.substitute(jac, dtheta, ca.DM.zeros(3))
    return symbols, _propagate_nan(symbols, jacobians)
