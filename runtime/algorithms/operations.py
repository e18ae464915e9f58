"""The public operations as flat-array functions of the algorithms, for every backend.

Each operation maps named flat inputs to named flat outputs (lists of scalars).
`NumpySolver` evaluates them on arrays, code generation traces them on symbols,
and the C signatures follow the same names, sizes and order:

==========================  ======================================  ==================
operation                   inputs (floating base: ``base`` first)  outputs
==========================  ======================================  ==================
mass_matrix                 q                                       M (G*G, col-major)
velocity_product_forces     q, qd                                   c (G)
gravity                     q, loads                                g (G)
inverse_dynamics            q, qd, qdd, loads                       tau (G)
forward_dynamics            q, qd, tau, loads                       acc (G)
forward_dynamics_crba       q, qd, tau, loads                       acc (G)
passive_terms               q, qd                                   M, g, c
==========================  ======================================  ==================

``base`` holds `BASE_SIZE` values laid out by `BASE`: translation (3), quaternion
xyzw (4), velocity (6) and acceleration (6), world frame, angular first. ``loads``
holds L*6 values, one ``[torque, force]`` wrench per link in link order.

Mimic joints (`coordinates`): the joint inputs are the J independent coordinates;
``evaluate`` expands them to every body (``q_full = P q + offset``), runs the
algorithms on the whole tree and reduces the results (``P^T tau``,
``P^T M P``). Forward dynamics of a model with mimic joints is computed as
``forward_dynamics_crba`` (reduced mass matrix, one RNEA bias, one checked
Cholesky solve): ABA's one sweep eliminates each body's own coordinate, but a
mimic joint shares its master's coordinate, often across branches (a gripper's
two fingers), which no single tree sweep can eliminate.
"""

from __future__ import annotations

from .. import spatial as sp
from . import coordinates
from .aba import aba
from .crba import crba
from .fd_derivatives import fd_derivatives
from .kinematics import Tree
from .ltdl import dof_parents, solve_tree
from .rnea import rnea
from .rnea_derivatives import rnea_derivatives

#: The flat ``base`` input: each field's slice (the one statement of this layout).
BASE = {"translation": slice(0, 3), "quat": slice(3, 7), "velocity": slice(7, 13), "acceleration": slice(13, 19)}
BASE_SIZE = BASE["acceleration"].stop

SIGNATURES = {
    "mass_matrix": (("q",), ("M",)),
    "velocity_product_forces": (("q", "qd"), ("c",)),
    "gravity": (("q", "loads"), ("g",)),
    "inverse_dynamics": (("q", "qd", "qdd", "loads"), ("tau",)),
    "forward_dynamics": (("q", "qd", "tau", "loads"), ("acc",)),
    "forward_dynamics_crba": (("q", "qd", "tau", "loads"), ("acc",)),
    "passive_terms": (("q", "qd"), ("M", "g", "c")),
}

#: One line per operation, for generated documentation.
DOCS = {
    "mass_matrix": "M(q), the joint-space inertia matrix (CRBA).",
    "velocity_product_forces": "C(q, qd) qd, the Coriolis and centrifugal forces (RNEA, no gravity).",
    "gravity": "g(q) + J^T loads, the forces that hold the robot still (RNEA).",
    "inverse_dynamics": "tau = M qdd + C qd + g + J^T loads (RNEA).",
    "forward_dynamics": "qdd = M^-1 (tau - C qd - g - J^T loads) by the articulated-body algorithm.",
    "forward_dynamics_crba": "qdd from M (CRBA), the bias of one RNEA call and one checked tree-sparse LTDL solve.",
    "passive_terms": "M, g and C qd from one pass; pass NULL for an output that is not wanted.",
    "inverse_dynamics_derivatives": "Jacobians of inverse dynamics (analytic RNEA derivatives), column-major, G rows.",
    "forward_dynamics_derivatives": "Jacobians of forward dynamics: -M^-1 dID/dx and M^-1 (sparse LTDL of M), "
                                    "column-major, G rows.",
}


def describe(tree: Tree, op: str) -> str:
    """`DOCS` line of ``op`` for this tree (forward dynamics with mimic joints is not ABA, see above)."""
    if op == "forward_dynamics" and tree.nj < tree.nb:
        return "qdd = M^-1 (tau - C qd - g - J^T loads); with mimic joints by CRBA, one RNEA bias and one " \
               "checked Cholesky solve."
    return DOCS[op]


#: Jacobians (`rnea_derivatives`, `fd_derivatives`; CasADi: its own AD): inputs, then
#: (output, differentiated input) pairs; ``base_*`` pairs exist for a floating base only.
DERIVATIVE_SIGNATURES = {
    "inverse_dynamics_derivatives": (
        ("q", "qd", "qdd", "loads"),
        (("tau", "q"), ("tau", "qd"), ("tau", "qdd"),
         ("tau", "base_velocity"), ("tau", "base_acceleration"), ("tau", "base_rotation")),
    ),
    "forward_dynamics_derivatives": (
        ("q", "qd", "tau", "loads"),
        (("acc", "q"), ("acc", "qd"), ("acc", "tau"), ("acc", "base_velocity"), ("acc", "base_rotation")),
    ),
}


def derivative_outputs(op: str, floating: bool) -> dict:
    """``{name: (of, wrt)}`` of a derivative operation, e.g. ``{"dtau_dq": ("tau", "q"), ...}``."""
    return {f"d{of}_d{wrt}": (of, wrt) for of, wrt in DERIVATIVE_SIGNATURES[op][1]
            if floating or not wrt.startswith("base_")}


def derivative_shapes(tree: Tree) -> dict:
    """(rows, cols) of every Jacobian output: rows = G, cols = the differentiated input's size."""
    J = tree.nj
    G = J + (6 if tree.floating else 0)
    cols = {"q": J, "qd": J, "qdd": J, "tau": G, "base_velocity": 6, "base_acceleration": 6, "base_rotation": 3}
    return {f"d{of}_d{wrt}": (G, cols[wrt]) for op in DERIVATIVE_SIGNATURES
            for of, wrt in DERIVATIVE_SIGNATURES[op][1]}


def input_names(op: str, floating: bool) -> tuple:
    inputs = SIGNATURES[op][0] if op in SIGNATURES else DERIVATIVE_SIGNATURES[op][0]
    return (("base",) if floating else ()) + inputs


def sizes(tree: Tree, link_count: int) -> dict:
    """Length of every named input and output."""
    J = tree.nj
    G = J + (6 if tree.floating else 0)
    out = {"base": BASE_SIZE, "q": J, "qd": J, "qdd": J, "tau": G, "loads": 6 * link_count,
           "M": G * G, "c": G, "g": G, "acc": G}
    out.update({name: rows * cols for name, (rows, cols) in derivative_shapes(tree).items()})
    return out


def _links(loads):
    return None if loads is None else [loads[6 * k: 6 * k + 6] for k in range(len(loads) // 6)]


def _column_major(H):
    return [H[r][c] for c in range(len(H)) for r in range(len(H))]


def evaluate(tree: Tree, ops, op: str, inputs: dict) -> dict:
    """Run ``op`` on flat inputs (``loads`` may be absent or None); returns flat outputs."""
    zeros, still = [0] * tree.nb, [0] * 6
    q = coordinates.positions(tree, inputs["q"])
    qd = coordinates.rates(tree, inputs["qd"]) if "qd" in inputs else zeros
    loads = _links(inputs.get("loads"))
    base = inputs.get("base")
    quat, velocity, acceleration = (None, None, None)
    if tree.floating:
        quat, velocity, acceleration = (base[BASE[k]] for k in ("quat", "velocity", "acceleration"))

    def mass_matrix():
        return coordinates.matrix(tree, crba(tree, ops, q, quat))

    def forces(*args, **options):
        return coordinates.forces(tree, rnea(tree, ops, q, *args, **options))

    if op == "mass_matrix":
        return {"M": _column_major(mass_matrix())}
    if op == "velocity_product_forces":
        return {"c": forces(qd, zeros, (quat, velocity, still), None, gravity=False)}
    if op == "gravity":
        return {"g": forces(zeros, zeros, (quat, still, still), loads)}
    if op == "inverse_dynamics":
        qdd = coordinates.rates(tree, inputs["qdd"])
        return {"tau": forces(qd, qdd, (quat, velocity, acceleration), loads)}
    if op == "forward_dynamics" and tree.nj == tree.nb:
        return {"acc": aba(tree, ops, q, qd, inputs["tau"], (quat, velocity), loads)}
    if op in ("forward_dynamics", "forward_dynamics_crba"):
        # qdd = M^-1 (tau - b): b = ID(q, qd, 0) from one RNEA call, then one checked solve: the tree-sparse
        # LTDL, or the dense Cholesky where mimic joints couple coordinates outside the tree's pattern
        H = mass_matrix()
        bias = forces(qd, zeros, (quat, velocity, still), loads)
        rhs = [sp.sub(t, b) for t, b in zip(inputs["tau"], bias)]
        if tree.nj == tree.nb:
            return {"acc": solve_tree(H, rhs, dof_parents(tree.parent, tree.floating), ops, "mass matrix")}
        return {"acc": list(ops.solve_spd(H, rhs, "mass matrix"))}
    if op == "passive_terms":
        return {
            "M": _column_major(mass_matrix()),
            "g": forces(zeros, zeros, (quat, still, still), None),
            "c": forces(qd, zeros, (quat, velocity, still), None, gravity=False),
        }
    if op == "inverse_dynamics_derivatives":
        qdd = coordinates.rates(tree, inputs["qdd"])
        jac = rnea_derivatives(tree, ops, q, qd, qdd, (quat, velocity, acceleration), loads)
        return _jacobians(op, tree, coordinates.jacobians(tree, jac))
    if op == "forward_dynamics_derivatives":
        acc = evaluate(tree, ops, "forward_dynamics", inputs)["acc"]
        return _jacobians(op, tree, fd_derivatives(tree, ops, q, qd, acc, (quat, velocity), loads))
    raise ValueError(f"unknown operation {op!r}; expected one of {sorted(SIGNATURES) + sorted(DERIVATIVE_SIGNATURES)}")


def _jacobians(op, tree, columns):
    """Flat column-major Jacobians from ``{wrt: [columns]}``."""
    return {key: [x for column in columns[wrt] for x in column]
            for key, (_, wrt) in derivative_outputs(op, tree.floating).items()}
