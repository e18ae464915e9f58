"""Single-state CPython entry points of a compiled solver (see ``pyentry.h``).

`entry_files` writes the per-robot C that `build.load_extension` compiles into the
same extension as the generated code: one `rbdgen_kernel` adapter and one
`rbdgen_entry` per single-output operation, and an exported
``<prefix>_python_function(index, fallback, context)``. `install` binds them
(through ctypes, which holds the GIL) as attributes of a `CompiledSolver` that
shadow its Python methods, which remain the fallback for every call an entry
point declines (and raise the errors).
"""

from __future__ import annotations

import ctypes
import inspect
from pathlib import Path

from . import c_sources
from .algorithms.operations import BASE, BASE_SIZE, operation
from .c_sources import cdef  # noqa: F401 (the binder's declaration, for solver.py)
from .interface import DYNAMICS, BaseState, Load
from .signatures import FixedBaseSolver, FloatingBaseSolver
from .threads import MIN_STATES

#: The header every entry source includes (shipped with the package).
HEADER = Path(__file__).with_name("pyentry.h")

_BIND = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_int, ctypes.py_object, ctypes.py_object)

#: `BaseState`'s fields in the order of the generated code's base vector (``RBDGEN_CTX_FIELDS``).
BASE_FIELDS = ("translation", "rotation_xyzw", "velocity", "acceleration")


def operations(manifest: dict) -> list:
    """The operations with an entry point (double precision, not parametric, the single-output dynamics whose output is the
    array in C order), sorted: a manifest read back from JSON gives the same source, so the same build key."""
    if manifest["precision"] != "double" or manifest["options"].get("parameters"):
        return []  # float, or a parametric build (its functions take params last: `SolverBase.params`)
    return sorted(op for op in manifest["operations"] if op in DYNAMICS and operation(op).outputs[0].c_ordered)


def _method(op: str, floating: bool):
    return getattr(FloatingBaseSolver if floating else FixedBaseSolver, op)


def _parameters(op: str, floating: bool) -> list:
    """The method's parameters without ``self``: positional ones, then ``loads`` (where taken), ``out``,
    ``mask`` and ``threads``."""
    return list(inspect.signature(_method(op, floating)).parameters.values())[1:]


def _doc(op: str, floating: bool) -> str:
    """The Python method's doc string, with its signature for `inspect`."""
    signature = inspect.Signature(_parameters(op, floating)).replace(return_annotation=inspect.Signature.empty)
    plain = signature.replace(parameters=[p.replace(annotation=inspect.Parameter.empty)
                                          for p in signature.parameters.values()])
    return f"{op}{plain}\n--\n\n{inspect.getdoc(_method(op, floating))}"


def entry_files(manifest: dict) -> dict:
    """``{file name: text}`` of the entry source and the header it includes."""
    prefix, sizes, floating = manifest["prefix"], manifest["sizes"], manifest["model"]["floating"]
    entries = []
    for op in operations(manifest):
        inputs = manifest["operations"][op]["inputs"]
        (output,) = manifest["operations"][op]["outputs"]
        arrays = [n for n in inputs if n not in ("base", "loads")]
        links = sizes["loads"] // 6 if "loads" in inputs else 0
        dims = manifest["shapes"].get(output, [sizes[output]])  # a matrix's (rows, columns), in C order
        entries.append(c_sources.entry(prefix, op, _doc(op, floating), len(inputs), "base" in inputs,
                                       [sizes[n] for n in arrays], links, dims))
    text = c_sources.entry_source(prefix, [s.stop - s.start for s in BASE.values()], BASE_SIZE, BASE["quat"].start,
                                   2 * MIN_STATES, entries)
    return {f"{prefix}_python.c": text, HEADER.name: HEADER.read_text()}


#: `_self_type` by solver class.
_SELF_TYPES: dict = {}


def _self_type(solver_class: type) -> type:
    """The class of an entry point's ``__self__`` (its entry, fallback and context): a tuple named after
    ``solver_class``, so that ``help(solver.mass_matrix)`` says "method of rbdgen.<solver class> instance"."""
    if solver_class not in _SELF_TYPES:
        _SELF_TYPES[solver_class] = type(solver_class.__name__, (tuple,), {
            "__slots__": (), "__module__": "rbdgen", "__qualname__": solver_class.__qualname__})
    return _SELF_TYPES[solver_class]


def install(solver, ffi, lib) -> None:
    """Shadow the solver's single-output methods with the entry points, falling back to the methods."""
    address = int(ffi.cast("uintptr_t", ffi.addressof(lib, c_sources.function_name(solver.prefix))))
    bind = _BIND(address)
    link_ids = {name: k for k, name in enumerate(solver.link_names)}
    for index, op in enumerate(operations(solver.manifest)):
        names = tuple(p.name for p in _parameters(op, solver.floating))
        assert names[-3:] == ("out", "mask", "threads"), names  # the order pyentry.h reads them in
        fallback = getattr(type(solver), op).__get__(solver)
        context = (BaseState, Load, names, link_ids, BASE_FIELDS, _self_type(type(solver)))
        setattr(solver, op, bind(index, fallback, context))
