"""`generate`: one robot model in, specialised sources out (`Generated`)."""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from .. import __version__
from ..algorithms.kinematics import Tree
from ..algorithms.operations import (DERIVATIVE_SIGNATURES, SIGNATURES, derivative_outputs, describe,
                                     derivative_shapes, evaluate, input_names, sizes)
from ..build import DEFAULT_FLAGS
from ..model import RobotModel
from ..names import c_text, check_prefix, default_prefix
from ..solver import CompiledSolver
from ..urdf import load_urdf
from . import emit_c, packaging
from .trace import Graph, Kernel, StructuralFailure, SymbolicOps

log = logging.getLogger(__name__)

ALL_OPERATIONS = tuple(SIGNATURES)

#: Jacobians (C via CasADi's AD and the checked solve): generated when asked for by name.
DERIVATIVE_OPERATIONS = tuple(DERIVATIVE_SIGNATURES)
PRECISIONS = tuple(emit_c.PRECISIONS)


def trace(model: RobotModel, op: str, tree: Tree = None, prefix: str = None) -> Kernel:
    """Run ``op``'s algorithm on symbols for ``model``: a `Kernel` with every constant folded.

    An operation with a check that fails for every state (forward dynamics of a robot
    with a massless moving tip) becomes a kernel that returns that status at once.
    """
    tree = tree or Tree.from_model(model)
    size = sizes(tree, len(model.links))
    names = input_names(op, model.floating)
    try:
        graph = Graph()
        inputs = {name: graph.input(name, size[name]) for name in names}
        outputs = evaluate(tree, SymbolicOps(graph), op, inputs)
    except StructuralFailure as failure:
        log.warning("%s: %s for every state; the generated function always returns status %d",
                    op, failure.guard.message, failure.guard.status)
        graph = Graph()
        graph.guards.append(failure.guard)
        out_names = SIGNATURES[op][1] if op in SIGNATURES else tuple(derivative_outputs(op, model.floating))
        outputs = {name: [0] * size[name] for name in out_names}
    return Kernel(op, graph, {n: size[n] for n in names}, outputs, describe(tree, op))


def _cdef(prefix: str, kernels: list, real: str, size: dict) -> str:
    lines = []
    for k in kernels:
        params = [f"const {real} *{n}" for n in k.inputs] + [f"{real} *{n}" for n in k.outputs]
        lines.append(f"int {prefix}_{k.name}({', '.join(params)});")
        lines.append(f"int {prefix}_{k.name}_batch(int n, {', '.join(params)}, const unsigned char *mask, int *status);")
    return "\n".join(lines) + "\n"


@dataclass
class Generated:
    """Generated sources for one robot: ``files`` maps file names to text."""

    model: RobotModel
    prefix: str
    precision: str
    files: dict
    manifest: dict
    timings: dict = field(default_factory=dict)

    @property
    def c_sources(self) -> list:
        """The names of the C sources (one per operation) that a build compiles."""
        return [name for name in self.manifest["sources"] if name.endswith(".c")]

    @property
    def operation_counts(self) -> dict:
        return {op: dict(info["counts"]) for op, info in self.manifest["operations"].items()}

    def write(self, folder, overwrite: bool = False) -> Path:
        """Write the sources and the manifest into ``folder``.

        An existing file with different content is never replaced unless
        ``overwrite`` is true (FileExistsError names it); identical files are left as they are.
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        changed = [n for n, text in self.files.items() if (folder / n).exists() and (folder / n).read_text() != text]
        if changed and not overwrite:
            raise FileExistsError(f"{folder}: would overwrite {', '.join(changed)} (use overwrite=True / --force)")
        for name, text in self.files.items():
            path = folder / name
            if path.exists() and path.read_text() == text:
                continue
            tmp = path.with_name(f".{name}.tmp{os.getpid()}")
            tmp.write_text(text)
            os.replace(tmp, path)
        return folder

    def casadi(self, op: str):
        """``op`` as a ``casadi.Function`` traced from the same algorithms (SX, CSE).

        ``op`` is any operation of `ALL_OPERATIONS` or ``inverse_dynamics_derivatives`` /
        ``forward_dynamics_derivatives``; see `rbdgen.codegen.emit_casadi` for the signatures.
        """
        from . import emit_casadi

        return emit_casadi.function(self.model, op, self.prefix)

    def write_casadi(self, folder, ops=None, overwrite: bool = False) -> list:
        """Save ``casadi.Function`` files ``<prefix>_<op>.casadi`` (loadable by ``casadi.Function.load``)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for op in ops or self.manifest["options"]["ops"]:
            path = folder / f"{self.prefix}_{op}.casadi"
            if path.exists() and not overwrite:
                raise FileExistsError(f"{path} exists (use overwrite=True / --force)")
            self.casadi(op).save(str(path))
            written.append(path)
        return written

    def compile(self, flags=DEFAULT_FLAGS, cache=None, validate: bool = True, samples: int = 8) -> CompiledSolver:
        """Build (or reuse from the cache) the cffi extension and return a validated `CompiledSolver`."""
        start = time.perf_counter()
        sources = {n: t for n, t in self.files.items() if n.endswith((".c", ".h"))}
        solver = CompiledSolver(self.manifest, sources, flags, cache)
        self.timings["compile"] = time.perf_counter() - start
        if validate:
            solver.validate(samples=samples)
        return solver


def generate(model_or_urdf: Union[RobotModel, str, os.PathLike], ops=ALL_OPERATIONS, precision: str = "double",
             prefix: str = None, **load_options) -> Generated:
    """Trace, optimise and emit C for ``ops`` of one robot.

    ``model_or_urdf`` is a `RobotModel` or a URDF path (then ``load_options`` go
    to `load_urdf`: ``floating``, ``joint_order``, ``armature``, ``gravity``).
    """
    if isinstance(model_or_urdf, RobotModel):
        if load_options:
            raise TypeError(f"load options {sorted(load_options)} only apply to a URDF path")
        model, source = model_or_urdf, None
    else:
        model, source = load_urdf(model_or_urdf, **load_options), Path(model_or_urdf).name
    ops = tuple(ops)
    unknown = [op for op in ops if op not in SIGNATURES and op not in DERIVATIVE_SIGNATURES]
    if unknown or not ops:
        raise ValueError(f"unknown operations {unknown}; choose from {list(ALL_OPERATIONS + DERIVATIVE_OPERATIONS)}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if prefix is None:
        prefix = default_prefix(model.name)
        if prefix != model.name:
            log.info("robot name %r: symbol prefix %r (pass prefix= to choose another)", model.name, prefix)
    else:
        check_prefix(prefix)
    tree = Tree.from_model(model)
    size = sizes(tree, len(model.links))
    timings = {}
    start = time.perf_counter()
    kernels = [trace(model, op, tree, prefix) for op in ops]
    timings["trace"] = time.perf_counter() - start
    start = time.perf_counter()
    info = dict(
        banner=f"{prefix}: rigid-body dynamics specialised for one robot",
        version=__version__,
        source=c_text(f"the robot model {model.name}"),  # not the file: one model, one text, one build
        digest=model.digest,
        J=model.joint_count,
        G=model.generalized_count,
        L=len(model.links),
        floating=model.floating,
        gravity=[repr(g) for g in model.gravity],
        joints=[c_text(f"{j.name}, {j.kind}, parent {model.joints[j.parent].name if j.parent >= 0 else 'root'}")
                for j in model.joints if j.mimic is None],
        mimics=[c_text(f"{j.name}, {j.kind}, parent {model.joints[j.parent].name if j.parent >= 0 else 'root'}: "
                       f"{j.mimic.multiplier!r} * {j.mimic.joint} + {j.mimic.offset!r}") for j in model.joints if j.mimic],
        links=[c_text(f"{link.name}, body {model.joints[link.body].name if link.body >= 0 else 'root'}")
               for link in model.links],
    )
    files, functions = emit_c.render(kernels, prefix, precision, size, info)
    timings["emit"] = time.perf_counter() - start
    real = emit_c.PRECISIONS[precision][0]
    manifest = {
        "rbdgen": __version__,
        "prefix": prefix,
        "precision": precision,
        "digest": model.digest,
        "source": source,
        "options": {"ops": list(ops), "precision": precision, "prefix": prefix,
                    **{k: v for k, v in load_options.items() if v is not None}},
        "sizes": size,
        "shapes": {name: list(shape) for name, shape in derivative_shapes(tree).items()},
        "sources": [name for name in files],
        "operations": {fn.op: {"inputs": [p.name for p in fn.params if not p.output],
                               "outputs": [p.name for p in fn.params if p.output],
                               "counts": fn.counts, "stack_bytes": fn.stack} for fn in functions},
        "cdef": _cdef(prefix, kernels, real, size),
        "model": model.as_dict(),
    }
    files[f"{prefix}.json"] = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    files.update(packaging.files(manifest, files))
    log.info("generated %s: %s", prefix, {k: f"{v:.2f}s" for k, v in timings.items()})
    return Generated(model, prefix, precision, files, manifest, timings)
