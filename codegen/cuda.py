"""CUDA for a generated folder: ``<prefix>.cu`` and its host API ``<prefix>_cuda.h`` (`files`).

The ``.cu`` writes no statement of its own: it includes the folder's C sources with ``RBDGEN_HOST_DEVICE``
(templates/c/host_device.c.j2) defined as ``__host__ __device__``, so a GPU thread runs the statements of
the C. Each source goes into a namespace of its own (an operation's parts before it), where its static
helpers (the copies of the checked solve, the tree-sparse solves) cannot meet another source's. Then
one kernel per operation, a thread a state over a grid-stride loop with a status per state, and the host
functions that launch it on device pointers (templates/cuda/). Everything comes from the manifest: the
functions, their arrays and sizes, the parts and which function calls another.
"""

from __future__ import annotations

import jinja2

from ..manifest import interface_key
from ..names import check_prefix, c_text
from .c.render import environment as c_environment
from .c.printer import PRECISIONS, STATUS_NAMES, macro_prefix, part_name, status_macros


def environment() -> jinja2.Environment:
    """The CUDA templates, in the C templates' environment (every value printed through `names.checked`)."""
    env = c_environment()
    env.loader = jinja2.PackageLoader("rbdgen.templates", "cuda")
    return env


def _functions(manifest: dict) -> list:
    """Per generated function, in an order where a function another calls comes first: its name, its parts
    (`c.printer.part_name`), the function it calls (none or one), its parameters and ``(array, size, output)``."""
    prefix, real = manifest["prefix"], PRECISIONS[manifest["precision"]][0]
    sources = set(manifest["sources"])
    functions = []
    for name, info in manifest["operations"].items():
        parts = [part_name(name, k) for k in range(1, len(sources) + 1)]
        arrays = [(a, manifest["sizes"][a], False) for a in info["inputs"]]
        arrays += [(a, manifest["sizes"][a], True) for a in info["outputs"]]
        functions.append(dict(
            name=name, calls=[info["calls"]] if "calls" in info else [],
            parts=[part for part in parts if f"{prefix}_{part}.c" in sources],
            params=[f"{real} *{a}" if output else f"const {real} *{a}" for a, _, output in arrays],
            arrays=arrays))
    return sorted(functions, key=lambda fn: bool(fn["calls"]))


def files(manifest: dict, version: str) -> dict:
    """``{"<prefix>.cu": text, "<prefix>_cuda.h": text}`` for the generated folder of ``manifest``."""
    prefix = check_prefix(manifest["prefix"])
    context = dict(prefix=prefix, M=macro_prefix(prefix), S=status_macros(prefix), status=STATUS_NAMES,
                   banner=c_text(f"{prefix}: rigid-body dynamics specialised for one robot, on a GPU"),
                   version=version, digest=manifest["digest"], interface=interface_key(manifest),
                   functions=_functions(manifest))
    env = environment()
    return {f"{prefix}.cu": env.get_template("robot.cu.j2").render(context),
            f"{prefix}_cuda.h": env.get_template("robot_cuda.h.j2").render(context)}
