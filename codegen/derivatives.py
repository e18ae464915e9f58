"""Derivative kernels for the C output.

* Inverse dynamics: CasADi differentiates the SX trace of RNEA
  (the front end `sx.trace`); its instructions are replayed into a `trace.Graph`,
  so the Jacobians go through the same folding, scheduling and templates as
  every other kernel.
* Forward dynamics, as in Pinocchio's ``computeABADerivatives``: with
  ``acc = FD(q, qd, tau)`` from ABA (its guards and checked base solve
  included) and ``ID(q, qd, acc) = tau``,
  ``dacc/dx = -M^-1 dID/dx`` for x in q, qd and the base motion, and
  ``dacc/dtau = M^-1``, with M from CRBA and one checked Cholesky solve for all
  right-hand sides.
"""

from __future__ import annotations

import casadi as ca

from ..algorithms.kinematics import Tree
from ..algorithms.operations import BASE, dimensions, evaluate, operation
from .sx import trace
from .trace import Graph, Kernel, SymbolicOps

BINARY = {ca.OP_ADD: "add", ca.OP_SUB: "sub", ca.OP_MUL: "mul", ca.OP_DIV: "div"}
UNARY = {ca.OP_NEG: "neg", ca.OP_SIN: "sin", ca.OP_COS: "cos", ca.OP_SQRT: "sqrt"}


def replay(f: ca.Function, graph: Graph, inputs: list) -> list:
    """Evaluate an SX function's instructions on ``graph`` scalars.

    ``inputs`` holds one list of scalars per function input; returns one dense
    column-major list per output (structural zeros as int 0).
    """
    work = {}
    outputs = [[0] * f.numel_out(i) for i in range(f.n_out())]
    positions = []
    for i in range(f.n_out()):
        sp = f.sparsity_out(i)
        rows, cols = sp.get_triplet()
        positions.append([c * sp.size1() + r for r, c in zip(rows, cols)])
    for k in range(f.n_instructions()):
        op, out, arg = f.instruction_id(k), f.instruction_output(k), f.instruction_input(k)
        if op == ca.OP_INPUT:
            work[out[0]] = inputs[arg[0]][arg[1]]
        elif op == ca.OP_OUTPUT:
            outputs[out[0]][positions[out[0]][out[1]]] = work[arg[0]]
        elif op == ca.OP_CONST:
            work[out[0]] = f.instruction_constant(k)
        elif op in BINARY:
            work[out[0]] = getattr(graph, BINARY[op])(work[arg[0]], work[arg[1]])
        elif op in UNARY:
            x = work[arg[0]]
            work[out[0]] = graph.neg(x) if op == ca.OP_NEG else graph.unary(UNARY[op], x, _number_fn(op))
        elif op == ca.OP_SQ:
            work[out[0]] = graph.mul(work[arg[0]], work[arg[0]])
        elif op == ca.OP_TWICE:
            work[out[0]] = graph.add(work[arg[0]], work[arg[0]])
        elif op == ca.OP_INV:
            work[out[0]] = graph.div(1.0, work[arg[0]])
        else:
            raise NotImplementedError(f"CasADi operation {op} has no C equivalent in rbdgen")
    return outputs


def _number_fn(op):
    import math

    return {ca.OP_SIN: math.sin, ca.OP_COS: math.cos, ca.OP_SQRT: math.sqrt}[op]


def _sx_jacobians(model, tree: Tree) -> ca.Function:
    """The Jacobians of inverse dynamics as an SX function to replay (outputs named as the operation's)."""
    inputs, jacobians = trace(model, "inverse_dynamics_derivatives", tree)
    return ca.Function("jacobians", list(inputs.values()), list(jacobians.values()), list(inputs), list(jacobians))


def trace_derivatives(model, op: str, tree: Tree = None) -> Kernel:
    """The Jacobians of inverse or forward dynamics as a `Kernel` (outputs column-major, G rows)."""
    tree = tree or Tree.from_model(model)
    record = operation(op)
    graph = Graph()
    dims = dimensions(tree, len(model.links))
    ports = record.input_ports(model.floating)
    inputs = {p.name: graph.input(p.name, p.size(dims)) for p in ports}
    sizes = {p.name: p.size(dims) for p in ports}
    wanted = record.output_ports(model.floating)
    id_jacobians = _sx_jacobians(model, tree)
    id_names = id_jacobians.name_in()
    if op == "inverse_dynamics_derivatives":
        columns = replay(id_jacobians, graph, [inputs[n] for n in id_names])
        outputs = dict(zip(id_jacobians.name_out(), columns))
        return Kernel(op, graph, sizes, {p.name: outputs[p.name] for p in wanted}, record.doc, op)
    ops = SymbolicOps(graph)
    acc = evaluate(tree, ops, "forward_dynamics", inputs)["acc"]
    G, J = model.generalized_count, model.joint_count
    at = {"q": inputs["q"], "qd": inputs["qd"], "qdd": acc[G - J:], "loads": inputs["loads"]}
    if model.floating:  # the base acceleration is the result: ID sees it in the base vector
        at["base"] = inputs["base"][:BASE["acceleration"].start] + acc[:6]
    dID = dict(zip(id_jacobians.name_out(), replay(id_jacobians, graph, [at[n] for n in id_names])))
    M = evaluate(tree, ops, "mass_matrix", {"q": inputs["q"], "base": inputs.get("base")})["M"]
    rows = [[M[c * G + r] for c in range(G)] for r in range(G)]
    rhs, spans = [], {}
    for port in wanted:
        ncols = port.dims(dims)[1]
        start = len(rhs)
        if port.wrt == "tau":
            rhs += [[1 if r == c else 0 for r in range(G)] for c in range(G)]  # dacc/dtau = M^-1
        else:
            jac = dID[f"dtau_d{port.wrt}"]
            rhs += [[graph.neg(jac[c * G + r]) for r in range(G)] for c in range(ncols)]  # -dID/dx
        spans[port.name] = (start, len(rhs))
    X = graph.call(rows, rhs, "mass matrix (forward-dynamics derivatives)")
    outputs = {key: [x for col in X[a:b] for x in col] for key, (a, b) in spans.items()}
    return Kernel(op, graph, sizes, outputs, record.doc, op)
