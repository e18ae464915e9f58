"""Closed-form equations: an operation's traced graph rewritten as SymPy matrices (`symbolic`).

The same trace the C is emitted from (`rbdgen.ir.trace`'s graph: constants folded, common
subexpressions shared) is converted node by node into SymPy: each input scalar becomes a real
symbol named after its joint or link (`rbdgen.names.sympy_names`), each number the simplest
rational within a few units in the last place of it (else a float), each operator its SymPy
function. With ``parameters=``, the inertial parameters of the chosen bodies are symbols too
(`parameter_symbols`), so the result is the equations with those masses and inertias left open.

A trace whose outputs are not plain arithmetic of the inputs is refused (`_refusal`): one that calls a
checked solve (``mass_matrix_inverse``, ``forward_dynamics_derivatives``, the task-space inertias, a
floating base's forward dynamics) and one that compares with the machine epsilon (a floating base's
configuration-space operations). The guards of the others (forward dynamics on a fixed base checks each
articulated inertia or pivot is positive) are conditions the formulas hold under, not part of them.

Simplification (trigonometric, per entry) grows much faster than the expression: `expression_size`
is the size the outputs have written out as trees, and where it times 2 to the number of joint angles
they depend on exceeds `MAX_SIMPLIFY_COST`, `symbolic` raises `ExpressionTooLarge` instead of starting
(the measurements are in docs/benchmarks.md).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Union

import sympy

from ..algorithms import parametric
from ..algorithms.kinematics import Tree
from ..algorithms.operations import dimensions, operation
from ..model import RobotModel
from ..parameters import BODY_PARAMETERS
from ..names import sympy_names
from ..ir.trace import LEAVES, Expr, Graph, StructuralFailure, trace

log = logging.getLogger(__name__)

#: The largest simplification cost `symbolic` starts: `expression_size` times 2 to the number of joint angles
#: the outputs depend on (SymPy's trigonometric simplification multiplies out their sines and cosines). A
#: 3-joint spatial arm's inverse dynamics (10626 x 2^3) takes 7 s, the UR5's mass matrix (7039 x 2^5) 7 minutes
#: (docs/benchmarks.md, "SymPy").
MAX_SIMPLIFY_COST = 100_000

#: The inertial parameters of one body, in Pinocchio's order and frame (`rbdgen.parameters`).
PARAMETER_NAMES = BODY_PARAMETERS

#: Where each of `PARAMETER_NAMES` sits in a rigid inertia ``(m, h, Ib)`` of the tree (the upper triangle of
#: Ib): the one statement of the layout.
LAYOUT = ((0,), (1, 0), (1, 1), (1, 2), (2, 0, 0), (2, 0, 1), (2, 1, 1), (2, 0, 2), (2, 1, 2), (2, 2, 2))

#: Names of the base state's scalars (`operations.BASE`'s layout) and of a floating base's 6 coordinates.
BASE_NAMES = ("x", "y", "z", "qx", "qy", "qz", "qw", "wx", "wy", "wz", "vx", "vy", "vz",
              "dwx", "dwy", "dwz", "dvx", "dvy", "dvz")
BASE_COORDINATES = ("wx", "wy", "wz", "vx", "vy", "vz")
LOAD_NAMES = ("tx", "ty", "tz", "fx", "fy", "fz")

#: The SymPy function of each node operator.
FUNCTIONS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "sqrt": sympy.sqrt,
    "atan2": sympy.atan2,
    "copysign": lambda x, y: sympy.Piecewise((sympy.Abs(x), y >= 0), (-sympy.Abs(x), True)),
}

#: Largest denominator of the rational a number is written as (`number`).
MAX_DENOMINATOR = 10**6


class ExpressionTooLarge(ValueError):
    """The outputs are too large for SymPy to simplify in reasonable time (`MAX_SIMPLIFY_COST`)."""


@dataclass
class Equations:
    """An operation as SymPy matrices: ``outputs`` (name -> Matrix, shaped as the operation's output),
    ``inputs`` (name -> column Matrix of the input's symbols, in the flat order of the C), ``parameters``
    (the inertial parameter symbols, 10 per chosen body in `PARAMETER_NAMES`' order, or None) and
    ``values`` (each parameter symbol -> the model's own value)."""

    operation: str
    outputs: dict
    inputs: dict
    parameters: Optional[sympy.Matrix] = None
    values: dict = dataclasses.field(default_factory=dict)
    size: int = 0  # `expression_size` of the traced outputs
    angles: int = 0  # how many joint angles (``q`` entries) they depend on

    def __getitem__(self, name: str) -> sympy.Matrix:
        return self.outputs[name]

    def folded(self) -> dict:
        """The outputs with the model's own parameter values put back (the equations without ``parameters=``):
        ``xreplace``, as ``subs`` takes minutes on large unsimplified equations (it walks them as trees)."""
        return {name: value.xreplace(self.values) for name, value in self.outputs.items()}

    def simplified(self) -> "Equations":
        """The same equations with every entry simplified (`simplify_entry`), without the size guard."""
        outputs = {name: value.applyfunc(simplify_entry) for name, value in self.outputs.items()}
        return dataclasses.replace(self, outputs=outputs)

    def latex(self) -> str:
        """Every output as ``name = <matrix>`` in LaTeX, one line each."""
        return "\n".join(f"{name} = {sympy.latex(value)}" for name, value in self.outputs.items())


def number(x: float) -> sympy.Expr:
    """``x`` as the rational of smallest denominator (at most `MAX_DENOMINATOR`) within 4 units in the last
    place of it (the constants a URDF writes in decimals, after the tracer's folding), else as a float."""
    exact = Fraction(x)
    near = exact.limit_denominator(MAX_DENOMINATOR)
    if abs(near - exact) <= 4 * abs(exact) * Fraction(2) ** -52:
        return sympy.Rational(near.numerator, near.denominator)
    return sympy.Float(x)


def parameter_symbols(model: RobotModel, tree: Tree, parameters) -> tuple:
    """The bodies whose inertial parameters become symbols: ``(bodies, symbols, values)``.

    ``parameters`` is ``"all"`` (every moving body, and a floating base first) or link names (each names
    the body it is welded to, fixed links merged as everywhere). ``bodies`` lists body ids (-1 for the
    floating base); ``symbols`` their `PARAMETER_NAMES` each, named after the body's first link;
    ``values`` the model's values of those symbols (Pinocchio's order: m, m c, inertia about the origin).
    """
    if parameters == "all":
        bodies = ([-1] if tree.floating else []) + list(range(tree.nb))
    elif isinstance(parameters, (list, tuple)) and parameters and all(isinstance(n, str) for n in parameters):
        bodies = []
        for name in parameters:
            body = model.links[model.link_id(name)].body
            if body < 0 and not tree.floating:
                raise ValueError(f"parameters: link {name!r} is welded to the fixed base; its inertia moves "
                                 "nothing (name links of moving bodies)")
            if body not in bodies:
                bodies.append(body)
        bodies.sort()
    else:
        raise ValueError(f"parameters must be 'all' or a list of link names, got {parameters!r}")
    first_link = {}
    for link in model.links:
        first_link.setdefault(link.body, link.name)
    names = sympy_names([first_link[b] for b in bodies], "body")
    symbols, values = [], []
    for body, name in zip(bodies, names):
        symbols.append([sympy.Symbol(f"{p}_{name}", real=True) for p in PARAMETER_NAMES])
        rigid = tree.I_base if body < 0 else tree.I[body]
        values.append([_entry(rigid, path) for path in LAYOUT])
    return bodies, symbols, values


def _entry(rigid, path):
    """The scalar at ``path`` (`LAYOUT`) of a rigid inertia."""
    for k in path:
        rigid = rigid[k]
    return rigid


def _with_parameters(tree: Tree, graph: Graph, bodies: list) -> Tree:
    """``tree`` with the rigid inertias of ``bodies`` read from the input ``params`` (10 per body,
    `rbdgen.algorithms.parametric`)."""
    flat = graph.input("params", 10 * len(bodies))
    base = 1 if tree.floating else 0
    chosen = parametric.substitute(dataclasses.replace(tree, parameters=tuple(b + base for b in bodies)), flat)
    return dataclasses.replace(chosen, parameters=())  # put in here: the trace's own inputs hold no params


def input_symbols(model: RobotModel, name: str, size: int) -> list:
    """The real symbols of input ``name`` (``size`` scalars): ``<name>_<joint>`` for the joint coordinates
    (a floating base's 6 first: ``<name>_wx``...), ``base_<part>``, ``loads_<link>_<component>``, ``dt``."""
    joints = sympy_names(model.joint_names, "joint")
    if name == "base" or name == "base1":
        labels = [f"{name}_{b}" for b in BASE_NAMES]
    elif name == "loads":
        labels = [f"loads_{link}_{c}" for link in sympy_names(model.link_names, "link") for c in LOAD_NAMES]
    elif name == "dt":
        labels = ["dt"]
    else:
        labels = [f"{name}_base_{b}" for b in BASE_COORDINATES][: size - len(joints)] + [f"{name}_{j}" for j in joints]
    assert len(labels) == size, (name, size)
    return [sympy.Symbol(label, real=True) for label in labels]


def expression_size(outputs: dict) -> int:
    """The number of operators and leaves the outputs (lists of graph nodes and numbers) have when written out
    as trees, without shared subexpressions: what SymPy's simplification works on."""
    size = {}
    for node in _reachable(outputs):
        size[node.id] = 1 + sum(size[a.id] if isinstance(a, Expr) else 1 for a in _operands(node))
    return sum(size[v.id] if isinstance(v, Expr) else 1 for values in outputs.values() for v in values)


def _operands(node: Expr) -> tuple:
    return () if node.op in LEAVES else node.args


def _reachable(outputs: dict) -> list:
    """The nodes the outputs depend on, in creation (topological) order."""
    seen, stack = {}, [v for values in outputs.values() for v in values if isinstance(v, Expr)]
    while stack:
        node = stack.pop()
        if node.id not in seen:
            seen[node.id] = node
            stack.extend(a for a in _operands(node) if isinstance(a, Expr))
    return [seen[k] for k in sorted(seen)]


def _refusal(op: str, graph: Graph, nodes: list) -> Optional[str]:
    if graph.calls:
        return (f"{op} calls a checked solve ({len(graph.calls)} of them): its outputs are not plain arithmetic of "
                "the inputs; take the symbolic mass_matrix and solve with SymPy (e.g. M.LUsolve)")
    if any(node.op == "eps" for node in nodes):
        return f"{op} compares with the machine epsilon (a small-value branch); it has no closed form here"
    return None


def simplify_entry(value: sympy.Expr) -> sympy.Expr:
    """One entry simplified: SymPy's trigonometric simplification of its expanded form; a quotient (forward
    dynamics by ABA) is put over one denominator with common factors cancelled instead (trigonometric
    simplification of its numerator and denominator takes 20 s for the double pendulum)."""
    if any(power.exp.is_negative for power in value.atoms(sympy.Pow)):
        return sympy.cancel(sympy.together(value))
    return sympy.trigsimp(sympy.expand(value))


def symbolic(model: Union[RobotModel, str], op: str, parameters=None, simplify: bool = True, link=None,
             loads: bool = False, **load_options) -> Equations:
    """``op`` of ``model`` as SymPy matrices (`Equations`), converted from the graph the C is emitted from.

    ``model`` is a `RobotModel` or a robot file (then ``load_options`` as for `rbdgen.generate`). Inputs are
    real symbols named after the joints (``q_<joint>``, ``qd_<joint>``, ``qdd_<joint>``, ``tau_<joint>``;
    a floating base's ``base_<part>`` and ``<input>_base_<coordinate>``), ``link`` the link of an operation
    on a link (a name or an id). ``parameters``: ``"all"`` or link names whose bodies' inertial parameters
    become symbols (`parameter_symbols`). ``loads``: the link wrenches as symbols too (default: none).
    ``simplify``: trigonometric simplification of every entry; an `ExpressionTooLarge` error beyond
    `MAX_SIMPLIFY_COST` (``simplify=False`` converts any size). Operations that solve or compare with the
    machine epsilon raise a ValueError (see the module docstring).
    """
    from .generator import _link_id, load_robot

    if not isinstance(model, RobotModel):
        model = load_robot(model, **load_options)
    elif load_options:
        raise TypeError(f"load options {sorted(load_options)} only apply to a robot file")
    record = operation(op)
    if record.group in ("contacts", "loops") or (model.loops and record.solves):  # a loop model's solves: the KKT
        raise ValueError(f"{op}{' of a model with closed loops' if model.loops else ''} solves constraints (contacts "
                         f"or loops), which has no closed form here: take the symbolic mass_matrix, inverse_dynamics "
                         f"and jacobian and write the constraint system with SymPy")
    link = _link_id(model, op, link)
    tree = Tree.from_model(model)
    graph = Graph()
    bodies, symbols, values = parameter_symbols(model, tree, parameters) if parameters is not None else ([], [], [])
    if bodies:
        tree = _with_parameters(tree, graph, bodies)
    dims = dimensions(tree, len(model.links))
    ports = [p for p in record.input_ports(model.floating) if loads or p.name != "loads"]
    try:
        outputs = trace(graph, tree, op, {p.name: p.size(dims) for p in ports}, link)
    except StructuralFailure as failure:
        raise ValueError(f"{op} of {model.name} fails for every state: {failure.guard.message}") from None
    nodes = _reachable(outputs)
    refusal = _refusal(op, graph, nodes)
    if refusal:
        raise ValueError(refusal)
    size = expression_size(outputs)
    angles = sum(1 for node in nodes if node.op == "in" and node.args[0] == "q")
    if simplify and size * 2**angles > MAX_SIMPLIFY_COST:
        raise ExpressionTooLarge(
            f"{op} of {model.name} has expression size {size} (operators and leaves written out as trees) in "
            f"{angles} joint angles: a simplification cost of {size} x 2^{angles} = {size * 2**angles}, over "
            f"{MAX_SIMPLIFY_COST} (about 10 s of SymPy; minutes beyond: docs/benchmarks.md, \"SymPy\"); pass "
            "simplify=False (--no-simplify) for the unsimplified equations")
    inputs = {p.name: input_symbols(model, p.name, p.size(dims)) for p in ports}
    flat_symbols = [s for body in symbols for s in body]
    leaf_value = dict(inputs, params=flat_symbols)
    value = {}
    for node in nodes:
        if node.op == "in":
            value[node.id] = leaf_value[node.args[0]][node.args[1]]
        else:
            value[node.id] = FUNCTIONS[node.op](*(value[a.id] if isinstance(a, Expr) else number(a) for a in node.args))
    log.info("%s of %s: expression size %d%s", op, model.name, size, ", simplifying" if simplify else "")
    result = {}
    for port in record.output_ports(model.floating):
        flat = [value[v.id] if isinstance(v, Expr) else number(v) for v in outputs[port.name]]
        shape = port.dims(dims)
        rows, cols = (shape + (1, 1))[:2] if len(shape) < 2 else shape
        result[port.name] = (sympy.Matrix(rows, cols, flat) if port.c_ordered
                             else sympy.Matrix(cols, rows, flat).T)
    equations = Equations(op, result, {name: sympy.Matrix(s) for name, s in inputs.items()},
                          sympy.Matrix(flat_symbols) if bodies else None,
                          {s: number(v) for body_s, body_v in zip(symbols, values) for s, v in zip(body_s, body_v)},
                          size, angles)
    return equations.simplified() if simplify else equations
