"""JAX output: every generated operation as a pure ``jax.numpy`` function, from the same traced graph.

`module` writes one Python module (``<prefix>_jax.py``) that needs only ``jax``: one
function per generated C function, with its name after the prefix (``forward_dynamics``,
``jacobian_panda_hand``), the C function's inputs in order (``base`` first for a floating
base; a build's ``params``, ``active``, ``reference`` as in the C; ``loads`` last and optional,
``None`` for none, of shape ``(L, 6)``) and a dict of the
registry's outputs in their shapes (``M`` a G x G matrix) plus ``status``, the C's status
code (int32: 0 ok, 1 a non-finite input, 2 singular, 3 ill-conditioned, 4 a non-finite
result, 5 constraints that cannot be solved: `rbdgen.ConstraintError`). Where ``status`` is not 0 every output is 0, as the C leaves them.

Each function is straight-line code over scalars, one traced statement a line: it takes
one state, and ``jax.vmap`` makes it a batch. Nothing branches on a traced value: a check
that fails sets ``status`` (``jnp.where``) and the computation goes on, so ``jax.jit``,
``jax.vmap``, ``jax.jacfwd``/``grad`` and sharding accept every function; only the Python
test ``loads is None`` chooses, at trace time, whether the terms of the loads are computed.
The real type is the one ``jax.numpy`` gives a Python float: float64 under
``jax_enable_x64``, float32 otherwise (the epsilon of the checks follows it).

Sine and cosine are the prelude's ``_sin`` and ``_cos``: the generated C's algorithm in elementwise operations
(XLA's float64 ``sin`` and ``cos`` are a call an element).

The tree-sparse LTDL solve of forward dynamics is traced as its statements
(`InlineOps`, the NumPy engine's arithmetic); the dense checked Cholesky solve (the floating
base's articulated inertia in ABA, a mimic robot's mass matrix) is ``_cholesky_solve`` of the
module's prelude (`templates/jax/prelude.py`), the algorithm of `rbdgen.algorithms.cholesky`
with the same status.

How the statements are grouped is the ``structure`` (`STRUCTURES`, chosen by measuring jit and
run time: docs/benchmarks.md, "JAX"):

* ``"flat"``: one function of all statements;
* ``"parts"``: the statements in consecutive parts of at most `PART_STEPS`, each a nested
  ``jax.jit`` function that takes and returns the values later parts read.
"""

from __future__ import annotations

import types
from importlib import resources

from ..algorithms.kinematics import Tree
from ..algorithms.operations import dimensions, operation
from ..backends import NumpyOps
from ..ir.emit_python import LEAVES, reference
from ..ir.optimize import schedule
from ..ir.trace import Call, Expr, Graph, Guard, Kernel, SymbolicOps, operands
from ..names import check_prefix
from ..version import __version__
from . import sincos
from .c import optional_inputs

#: How a function's statements are grouped (see the module docstring).
STRUCTURES = ("flat", "parts")

#: The statements of one part of the ``"parts"`` structure, at most.
PART_STEPS = 2000

#: Each node operator as a ``jax.numpy`` expression of its operands.
FORMATS = {"add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "div": "{} / {}", "neg": "-{}",
           "sin": "_sin({})", "cos": "_cos({})", "sqrt": "jnp.sqrt({})",
           "atan2": "jnp.arctan2({}, {})", "copysign": "jnp.copysign({}, {})"}


class InlineOps(SymbolicOps):
    """The tracer's backend with the tree-sparse LTDL solve traced as its statements (no `TreeSolve`)."""

    def solve_ltdl(self, L, Dinv, lam, columns):
        return NumpyOps.solve_ltdl(L, Dinv, lam, columns)


class InlineGraph(Graph):
    """A `Graph` traced with `InlineOps`."""

    @property
    def ops(self) -> InlineOps:
        return InlineOps(self)


#: The leaves by name: those of the real type jax.numpy computes in (bound in the function's prelude).
_LEAVES = {leaf: leaf for leaf in LEAVES}


def _ref(x) -> str:
    return reference(x, _LEAVES)


def _line(step) -> list:
    """The lines of one scheduled step."""
    if isinstance(step, Expr):
        return [f"{_ref(step)} = " + FORMATS[step.op].format(*(_ref(a) for a in step.args))]
    if isinstance(step, Guard):
        if not isinstance(step.value, Expr):  # fails for every state
            return [f"status = jnp.where(status == 0, {step.status}, status)"]
        test = f"~({_ref(step.value)} > 0)" if step.strict else f"{_ref(step.value)} < 0"
        return [f"status = jnp.where((status == 0) & ({test}), {step.status}, status)"]
    assert isinstance(step, Call), step  # `InlineOps` traces no TreeSolve
    A = ", ".join("[" + ", ".join(_ref(a) for a in row) + "]" for row in step.A)
    B = ", ".join("[" + ", ".join(_ref(v) for v in column) + "]" for column in step.B)
    return [f"x{step.index}, solved = _cholesky_solve(_stack([{A}]), _stack([{B}]))",
            "status = jnp.where(status == 0, solved, status)"]


def _stored(step) -> list:
    """The names a step defines."""
    if isinstance(step, Expr):
        return [_ref(step)]
    if isinstance(step, Call):
        return [f"x{step.index}"]
    return ["status"]


def _names(nodes) -> set:
    """The variables that hold ``nodes`` (a solve's result: its whole vector)."""
    return {f"x{x.args[0]}" if x.op == "ret" else _ref(x) for x in nodes if isinstance(x, Expr) and x.op not in LEAVES}


def _read(step) -> set:
    """The variables a step reads."""
    return _names(operands(step)) | ({"status"} if isinstance(step, (Guard, Call)) else set())


def _shaped(name: str, values: list, port, dims: dict) -> str:
    flat = f"_stack([{', '.join(_ref(v) for v in values)}])"
    shape = port.dims(dims)
    if len(shape) < 2:
        return flat if shape else f"{flat}[0]"
    rows, cols = shape
    return f"{flat}.reshape({rows}, {cols})" if port.by_row else f"{flat}.reshape({cols}, {rows}).T"


def function(kernel: Kernel, floating: bool, dims: dict, structure: str = "flat") -> str:
    """The text of ``def <kernel name>(<inputs>)`` (see the module docstring)."""
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {STRUCTURES}, got {structure!r}")
    record = operation(kernel.operation)
    optional = optional_inputs(kernel)
    plan = schedule(kernel, optional=optional)
    required = [n for n in kernel.inputs if n not in optional]
    params = required + [f"{n}=None" for n in kernel.inputs if n in optional]
    lines = [f"def {kernel.name}({', '.join(params)}):", f'    r"""{kernel.doc}"""']
    lines += [f"    {n} = _real({n}, {kernel.inputs[n]}, {n!r})" for n in required]
    finite = " & ".join(f"_finite({n})" for n in required) or "True"
    leaves = {(x.args[0], x.args[1]): x for x in kernel.graph.nodes if x.op == "in"}

    def unpack(name, size, pad):
        targets = [_ref(leaves[name, k]) if (name, k) in leaves else "_" for k in range(size)]
        return [f"{pad}{', '.join(targets)}, = {name}.reshape({size})"] if size else []

    for name in required:
        lines += unpack(name, kernel.inputs[name], "    ")
    lines.append(f"    status = jnp.where({finite}, OK, INVALID_INPUT).astype(jnp.int32)")
    lines += [f"    {leaf} = jnp.finfo(jnp.result_type(float)).{leaf}" for leaf in LEAVES]
    for opt in plan.optional:
        zero = [_ref(n) for n in opt.variables]
        lines.append(f"    if {opt.name} is None:")
        lines.append(f"        {' = '.join(zero + ['0.0']) if zero else 'pass'}")
        lines.append("    else:")
        lines.append(f"        {opt.name} = _real({opt.name}, {kernel.inputs[opt.name]}, {opt.name!r})")
        lines.append(f"        status = jnp.where(_finite({opt.name}), status, INVALID_INPUT)")
        lines += unpack(opt.name, kernel.inputs[opt.name], "        ")
        lines += [f"        {line}" for index in opt.blocks for n in opt.blocks[index] if n.op != "in"
                  for line in _line(n)]
    steps = plan.steps
    if structure == "parts" and len(steps) > PART_STEPS:
        lines += _parts(steps, kernel)
    else:
        lines += [f"    {line}" for step in steps for line in _line(step)]
    ports = {p.name: p for p in record.output_ports(floating)}
    out = ", ".join(f"{name!r}: {_shaped(name, values, ports[name], dims)}" for name, values in kernel.outputs.items())
    lines.append(f"    return _result({{{out}}}, status)")
    return "\n".join(lines) + "\n"


def _parts(steps: list, kernel: Kernel) -> list:
    """The ``"parts"`` structure: each run of `PART_STEPS` statements a nested jitted function; the values it
    defines that a later part or the outputs read are handed on."""
    chunks = [steps[k:k + PART_STEPS] for k in range(0, len(steps), PART_STEPS)]
    later = [set() for _ in chunks]  # the names each part's successors and the outputs read
    need = _names(v for values in kernel.outputs.values() for v in values) | {"status"}
    for k in reversed(range(len(chunks))):
        later[k] = set(need)
        need |= {name for step in chunks[k] for name in _read(step)}
    lines = []
    for k, chunk in enumerate(chunks):
        defined = [name for step in chunk for name in _stored(step)]
        reads = sorted(({name for step in chunk for name in _read(step)} - set(defined)) | {"status"}, key=_order)
        handed = sorted((set(defined) & later[k]) | {"status"}, key=_order)
        lines.append("    @jax.jit")
        lines.append(f"    def part{k}({', '.join(reads + list(LEAVES))}):")
        lines += [f"        {line}" for step in chunk for line in _line(step)]
        lines.append(f"        return {', '.join(handed)},")
        lines.append(f"    {', '.join(handed)}, = part{k}({', '.join(reads + list(LEAVES))})")
    return lines


def _order(name: str):
    return (0, 0) if name == "status" else (1, int(name[1:]))


def module(model, tree: Tree, manifest: dict, traced: list, structure: str = "flat") -> str:
    """The text of the JAX module of a generated folder (``manifest``: its `Generated.manifest`) whose functions
    are ``traced``, kernels traced on ``tree`` (the build's: its parameters and contacts) into an `InlineGraph`
    (`Generated.jax_module`)."""
    dims = dimensions(tree, len(model.links))
    prelude = resources.files("rbdgen.templates").joinpath("jax/prelude.py").read_text()
    head = [f'"""{check_prefix(manifest["prefix"])}: rigid-body dynamics specialised for one robot, as JAX functions.',
            "",
            f"DO NOT EDIT: generated by rbdgen {__version__}; model digest {manifest['digest']}.",
            "Each function takes one state (jax.vmap for a batch) and returns a dict of its outputs and",
            "'status' (0 ok; any other: every output 0). See rbdgen's docs/scaling-out.md.",
            '"""', ""]
    body = [function(k, model.floating, dims, structure) for k in traced]
    names = ", ".join(f"{k.name!r}: {k.name}" for k in traced)
    constants = (f"#: The generated C's sine and cosine constants (rbdgen.codegen.sincos).\n"
                 f"_TWO_OVER_PI = {sincos.TWO_OVER_PI!r}\n_PI_2 = {sincos.PI_2!r}\n_LIMIT = {sincos.LIMIT!r}\n"
                 f"_SIN = {sincos.SIN!r}\n_COS = {sincos.COS!r}\n")
    return ("\n".join(head) + prelude + "\n\n" + constants + "\n\n" + "\n\n".join(body)
            + f"\n\nFUNCTIONS = {{{names}}}\n")


def file_name(prefix: str) -> str:
    """The module's file name in a generated folder."""
    return f"{check_prefix(prefix)}_jax.py"


def load(text: str, prefix: str):
    """The module of ``text`` (`module`'s) as a Python module object named ``<prefix>_jax``."""
    namespace = types.ModuleType(f"{check_prefix(prefix)}_jax")
    exec(compile(text, f"<rbdgen {file_name(prefix)}>", "exec"), namespace.__dict__)
    return namespace
