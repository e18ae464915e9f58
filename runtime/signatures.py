"""The public operations with their real signatures: `FixedBaseSolver` and `FloatingBaseSolver`.

A fixed-base robot's operations take the joint state, ``inverse_dynamics(q, qd, qdd,
*, loads=None, out=None, mask=None)``; a floating-base robot's take a `BaseState`
first, ``inverse_dynamics(base, q, qd, qdd, *, ...)``. Every engine (`NumpySolver`,
`CompiledSolver`) has one class of each kind, picked from the model when it is
made. The methods are built from the operation records
(`rbdgen.algorithms.operations.OPERATIONS`) when this module is imported: each names its
arguments and hands them to `SolverBase`'s handler of its kind of result (`Operation.result`),
and its doc string is assembled from the record and the argument table below, so each
argument is described once. Their signatures, for type checkers and editors, are in the
generated stub ``operation_methods.pyi`` (`stub`; a test keeps it in step). The kinematics
operations take a link last (a name or an id from `link_id`); ``inverse_kinematics`` (fixed
base only) is `rbdgen.ik`.
"""

from __future__ import annotations

import __future__
import functools
import inspect
import linecache
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from . import ik
from .algorithms.operations import OPERATIONS, Operation, operation
from .interface import BaseState, Load, Pose, SolverBase

#: A link: its name or its id from `link_id`.
LinkRef = Union[str, int]

#: ``tool=``: a point on the link, in the link frame ((3,) array or a `Pose`'s translation).
Tool = Union[Pose, ArrayLike, None]

#: ``loads=``: `Load` objects, or a dense (L, 6) / (N, L, 6) array.
Loads = Union[Sequence[Load], ArrayLike, None]

#: ``out=``: a float64 array of the result's shape that receives it.
Out = Optional[np.ndarray]

#: ``mask=``: booleans, one per state of a batch.
Mask = Optional[ArrayLike]

#: ``threads=``: the threads a batch is split over (None: `rbdgen.threads.default_threads`).
Threads = Optional[int]

#: Every argument's description (J joints, G = J (+ 6 with a floating base), L links, N states).
PARAMETERS = {
    "base": "base : BaseState\n    The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),\n"
            "    velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,\n"
            "    world axes, angular first, default 0); each field unbatched or with a leading N.",
    "q": "q : array_like, shape (J,) or (N, J)\n    Joint positions [rad, m] in `joint_names` order.",
    "qd": "qd : array_like, shape (J,) or (N, J)\n    Joint velocities [rad/s, m/s].",
    "qdd": "qdd : array_like, shape (J,) or (N, J)\n    Joint accelerations [rad/s^2, m/s^2].",
    "tau": "tau : array_like, shape (G,) or (N, G)\n    Generalized forces [N m, N]; floating base: the base wrench\n"
           "    [torque, force] (world axes, about the base origin) first.",
    "qd_ref": "qd_ref : array_like, shape (G,) or (N, G)\n    Reference velocity; floating base: the base's "
              "[omega_W, pdot_W] first.",
    "qdd_ref": "qdd_ref : array_like, shape (G,) or (N, G)\n    Reference acceleration; floating base: the base's "
               "classical [omegadot_W, pddot_W] first.",
    "v": "v : array_like, shape (G,) or (N, G)\n    Velocity held for dt; floating base: the base's [omega_W, pdot_W] "
         "first\n    [rad/s, m/s].",
    "dt": "dt : float or array_like, shape (N,)\n    Time step [s].",
    "base1": "base1 : BaseState\n    The second state's base (its velocity and acceleration are not used).",
    "q1": "q1 : array_like, shape (J,) or (N, J)\n    The second state's joint positions [rad, m].",
    "loads": "loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional\n"
             "    Wrenches [torque, force] the links apply to their environment, at each link's origin\n"
             "    in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.",
    "link": "link : str or int\n    The link (its frame's origin): a name or an id from `link_id`.",
    "tool": "tool : array_like, shape (3,), or Pose, optional\n    A point on the link, in the link frame (a "
            "`Pose`: its translation; the\n    rotation does not change the twist): the twist of that point instead.",
    "out": "out : ndarray, optional\n    A writeable, aligned float64 array of the result's shape that receives it\n"
           "    (and is returned).",
    "mask": "mask : array_like of bool, shape (N,), optional\n    Batches only: evaluate the selected states; "
            "the others' results are zero.",
    "threads": "threads : int, optional\n    Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that\n"
               "    many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):\n"
               "    results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the\n"
               "    ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.",
}

CONVENTIONS = """Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
float64 once); an unbatched argument is shared by every state of a batch."""

RAISES = """ValueError
    An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
    (each message names the argument); batch sizes that differ.
TypeError
    An argument that is not real numbers (bool, complex, strings, objects), a mask that is
    not boolean, a wrong call.
SolverError
    A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
    the message says which state."""


IK_DOC = """Joint positions that put a link's frame at a target pose (damped least squares, from ``q0``).

Same semantics as dynibo 0.5.2's ``inverse_kinematics``: iterates on this solver's own
`forward_kinematics` and `jacobian` (a compiled solver: its generated C, built with both
for ``link``); the steps are ``J^T (J J^T + damping^2 I)^-1 e`` with ``e`` the rotation
vector (world axes) and the position error of the link frame, at most ``max_step_norm``
long, until both errors are within their tolerances. See `rbdgen.ik`.

Parameters
----------
q0 : array_like, shape (J,)
    The start, within the joint limits [rad, m]; the solution is usually the one nearest it.
{link}
target_pose : Pose or array_like, shape (7,)
    The link frame's target ``[x, y, z, qx, qy, qz, qw]`` in the world (a `forward_kinematics`
    result); a non-unit quaternion is normalised.
options : IkOptions, optional
    Iterations, tolerances, damping and step length (dynibo's ``IkOptions`` fields and defaults;
    its own objects are accepted too).
out : ndarray, optional
    A writeable, aligned float64 array of shape (J,) that receives the result (and is returned).

Returns
-------
q : ndarray, shape (J,)
    Joint positions within the model's joint limits.

Raises
------
IkNotConvergedError
    No convergence within ``max_iterations`` steps (a SolverError; the message and the
    error's attributes give the iterations and both residuals).
IkJointLimitError
    Converged outside a joint's limits (a SolverError naming the joint, its value and limits).
ValueError
    ``q0`` of the wrong shape, non-finite or outside the limits; a bad ``target_pose`` (shape,
    non-finite, zero quaternion); an invalid option; a build without forward_kinematics and jacobian.
TypeError
    Non-numbers, a link that is neither a name nor an id, options that are not an `IkOptions`.
NotImplementedError
    A floating-base robot (see `FloatingBaseSolver.inverse_kinematics`).
"""

#: The meaning of each Jacobian by the input it differentiates by (its name: ``d<result>_d<input>``).
JACOBIAN_DOCS = {
    "q": "By the joint positions.",
    "qd": "By the joint velocities.",
    "qdd": "By the joint accelerations (the mass matrix's columns of the joints).",
    "tau": "By the generalized forces: M^-1.",
    "base_velocity": "By the base velocity [omega_W, pdot_W].",
    "base_acceleration": "By the base's classical acceleration [omegadot_W, pddot_W].",
    "base_rotation": "By a world-frame rotation vector of the base, R -> exp(dtheta x) R.",
}


def _shape(port, batch: str = "N") -> str:
    """A port's shape as the docs write it, ``(J,)`` or ``(6, G)``, with ``batch`` rows first where given."""
    dims = ([batch] if batch else []) + [str(d) for d in port.shape]
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


def _returns(record: Operation, floating: bool) -> str:
    """The Returns section's body: the result's name, type and shape, then its meaning."""
    ports = record.output_ports(floating)
    if record.result == "jacobians":
        if record.of is None:  # the configuration Jacobians, on tangent vectors
            keys = "\n".join(f'    ``"{p.name}"``: shape ({", ".join(str(d) for d in p.shape)}) or (N, ...). '
                             f"{p.meaning}" for p in ports)
            return f"dict of ndarray\n    By name, G rows (tangent vectors of the result):\n{keys}"
        keys = "\n".join(f'    ``"{p.name}"``: shape {_shape(p, "")} or {_shape(p)}. '
                         f"{p.meaning or JACOBIAN_DOCS[p.wrt]}" for p in ports)
        height = record.outputs[0].shape[0]
        layout = "G rows (floating base: the base's six first)" if height == "G" else f"{height} rows"
        result = operation(record.of).outputs[0].name
        return f"dict of ndarray\n    d{result}/dx by name, {layout}:\n{keys}"
    if record.result == "selected":
        chosen = [f'``"{p.key}"`` {_shape(p, "")}' for p in ports]
        return (f"dict\n    The requested keys among {', '.join(chosen[:-1])} and\n    {chosen[-1]}, batches with a "
                "leading N.")
    meaning = record.floating_returns if floating and record.floating_returns else record.returns
    if len(ports) > 1:  # "state": a floating base's (BaseState, array)
        return f"({', '.join(p.name for p in ports)}) : (BaseState, ndarray)\n    {meaning}"
    (port,) = ports
    kind = "float or ndarray, shape (N,)" if not port.shape else f"ndarray, shape {_shape(port, '')} or {_shape(port)}"
    return f"{port.name} : {kind}\n    {meaning}"


def _parameters(record: Operation, floating: bool) -> list:
    """``(name, annotation, keyword-only, default)`` of the method's parameters after ``self``."""
    params = [(n, "BaseState" if n.startswith("base") else "ArrayLike", False, "")
              for n in record.input_names(floating) if n != "loads"]
    params += [("link", "LinkRef", False, "")] if record.link else []
    params += [("loads", "Loads", True, "None")] if record.loads else []
    params += [("tool", "Tool", True, "None")] if record.tool else []
    params += [(p.flag, "bool", True, "True") for p in record.outputs if p.flag]
    returns_array = record.result == "array" or (record.result == "state" and not floating)
    params += [("out", "Out", True, "None")] if returns_array else []
    return params + [("mask", "Mask", True, "None"), ("threads", "Threads", True, "None")]


def _docstring(record: Operation, floating: bool) -> str:
    """The NumPy-style doc string of ``record``'s method for a fixed or floating base."""
    flags = [p.flag for p in record.outputs if p.flag]
    params = []
    for name, _, _, _ in _parameters(record, floating):
        if name in PARAMETERS:
            params.append(PARAMETERS[name])
        elif name == flags[0]:  # the outputs' flags, one entry
            params.append(f"{', '.join(flags)} : bool\n    Which results to compute (at least one).")
    return (f"{record.summary or record.doc}\n\n{CONVENTIONS}\n\nParameters\n----------\n" + "\n".join(params)
            + f"\n\nReturns\n-------\n{_returns(record, floating)}\n\nRaises\n------\n{RAISES}\n")


#: The return annotation of each kind of result (`Operation.result`; "state": for a floating base).
_RESULTS = {"array": "np.ndarray", "jacobians": "Dict[str, np.ndarray]", "selected": "Dict[str, np.ndarray]",
            "state": "Tuple[BaseState, np.ndarray]"}


def _source(record: Operation, floating: bool) -> str:
    """The method's source: its signature, then one call of `SolverBase`'s handler of its kind of result."""
    params = _parameters(record, floating)
    head, star = [], False
    for name, annotation, keyword, default in params:
        if keyword and not star:
            head.append("*")
            star = True
        head.append(f"{name}: {annotation}" + (f" = {default}" if default else ""))
    positional = ", ".join(n for n, _, keyword, _ in params if not keyword)
    state = f"{record.name!r}, ({positional},)"
    loads = "loads" if record.loads else "None"
    flags = ", ".join(f"{p.flag!r}: {p.flag}" for p in record.outputs if p.flag)
    kind = "array" if record.result == "state" and not floating else record.result
    call = {"array": f"self._run({state}, {loads}, out, mask, threads)",
            "jacobians": f"self._jacobians({state}, {loads}, mask, threads)",
            "selected": f"self._selected({state}, {{{flags}}}, mask, threads)",
            "state": f"self._state({state}, mask, threads)"}[kind]
    if record.tool:
        call = f"self._twist({state}, {record.tool!r}, tool, out, mask, threads)"
    return f"def {record.name}(self, {', '.join(head)}) -> {_RESULTS[kind]}:\n    return {call}\n"


def _method(record: Operation, floating: bool) -> Callable:
    """``record``'s method, compiled from `_source` (annotations kept as text, as this module's are)."""
    namespace: Dict[str, Any] = {}
    source = _source(record, floating)
    filename = f"<rbdgen.signatures: {'floating' if floating else 'fixed'} {record.name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks, getsource
    code = compile(source, filename, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)
    exec(code, namespace)  # the source is built from the records only, never from a robot file
    method = namespace[record.name]
    method.__module__, method.__doc__ = __name__, _docstring(record, floating)
    method.__qualname__ = f"{'FloatingBaseSolver' if floating else 'FixedBaseSolver'}.{record.name}"
    return _base_first(method) if floating else method


if TYPE_CHECKING:  # the generated stub declares the methods `_attach` adds (`stub`)
    from .operation_methods import FixedBaseMethods, FloatingBaseMethods
else:
    FixedBaseMethods = FloatingBaseMethods = SolverBase


class FixedBaseSolver(FixedBaseMethods):
    """A fixed-base robot's operations: joint positions, velocities and accelerations only."""

    def inverse_kinematics(self, q0: ArrayLike, link: LinkRef, target_pose: Union[Pose, ArrayLike],
                           options: Optional[ik.IkOptions] = None, *, out: Out = None) -> np.ndarray:
        return ik.inverse_kinematics(self, q0, link, target_pose, options, out)


class FloatingBaseSolver(FloatingBaseMethods):
    """A floating-base robot's operations: a `BaseState` first, then the joint state."""

    def inverse_kinematics(self, base: BaseState, q0: ArrayLike, link: LinkRef, target_pose: Union[Pose, ArrayLike],
                           options: Optional[ik.IkOptions] = None, *, out: Out = None) -> np.ndarray:
        """Not supported for a floating base: a NotImplementedError that says what to do instead.

        The base pose would be six more unknowns. Load the robot with ``floating=False`` and give
        the target relative to the base, or step with `jacobian`, whose first six columns are the base's.
        """
        return ik.inverse_kinematics(self, q0, link, target_pose, options, out)


def _base_first(method: Callable) -> Callable:
    """``method`` of `FloatingBaseSolver`, first checking that a `BaseState` was given (by position or as
    ``base=``): without one, Python's own message ("missing 1 required positional argument: 'q'") would
    blame the last argument. The signature and doc string stay the method's (``__wrapped__``)."""
    positional = [p.name for p in inspect.signature(method).parameters.values()
                  if p.kind is p.POSITIONAL_OR_KEYWORD][1:]
    usage = f"solver.{method.__name__}({', '.join(positional)})"

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        given = args[0] if args else kwargs.get("base")
        if not isinstance(given, BaseState):
            got = "no arguments" if not args and "base" not in kwargs else f"{type(given).__name__} for base"
            raise TypeError(f"{method.__name__}: floating-base solver: pass a rbdgen.BaseState first: {usage} "
                            f"(got {got})")
        return method(self, *args, **kwargs)

    return checked


def _unsupported(method: Callable) -> Callable:
    """A floating base's ``inverse_kinematics``, whatever its arguments: its NotImplementedError (what to do
    instead) rather than Python's complaint about a missing argument. The signature and doc stay the method's."""

    @functools.wraps(method)
    def unsupported(self, *args, **kwargs):
        return ik.inverse_kinematics(self, None, None, None)

    return unsupported


#: The generated stub that declares the methods for type checkers and editors (`stub`).
STUB = Path(__file__).with_name("operation_methods.pyi")

#: The command that writes `STUB` again.
STUB_COMMAND = 'python -c "from rbdgen import signatures; signatures.write_stub()"'


def stub() -> str:
    """The text of `STUB`: each kind of base's methods with their signatures and doc strings."""
    lines = [f"# Generated from the operation records by `{STUB_COMMAND}`: do not edit.",
             '"""The solver methods `rbdgen.signatures` builds from the operation records, for type checkers."""',
             "", "import abc", "from typing import Dict, Tuple", "", "import numpy as np",
             "from numpy.typing import ArrayLike", "",
             "from .interface import BaseState, SolverBase", "from .signatures import LinkRef, Loads, Mask, Out, "
             "Threads, Tool"]
    for cls, floating in (("FixedBaseMethods", False), ("FloatingBaseMethods", True)):
        lines += ["", "", f"class {cls}(SolverBase, metaclass=abc.ABCMeta):"]
        for record in OPERATIONS.values():
            head = _source(record, floating).splitlines()[0]
            doc = textwrap.indent(_docstring(record, floating), " " * 8).lstrip()
            lines += [f"    {head}", f'        """{doc}', '        """', "        ...", ""]
        lines.pop()
    return "\n".join(lines) + "\n"


def write_stub() -> None:
    """Write `STUB` from the records."""
    STUB.write_text(stub())


def _attach(cls: Any, floating: bool) -> None:
    """Give ``cls`` a method per operation record."""
    for record in OPERATIONS.values():
        setattr(cls, record.name, _method(record, floating))


_attach(FixedBaseSolver, False)
FixedBaseSolver.inverse_kinematics.__doc__ = IK_DOC.format(link=PARAMETERS["link"])
_attach(FloatingBaseSolver, True)
FloatingBaseSolver.inverse_kinematics = _unsupported(FloatingBaseSolver.inverse_kinematics)  # type: ignore[method-assign]
