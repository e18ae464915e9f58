"""The solver API shared by `NumpySolver` and `CompiledSolver` (dynibo 0.5.2 semantics).

Shapes (J joints, G = J or J + 6 generalized coordinates, L links, N states):

* ``q, qd, qdd``: ``(J,)`` or ``(N, J)``; ``tau`` for forward dynamics: ``(G,)`` or ``(N, G)``;
* results: ``mass_matrix`` ``(G, G)``, every other operation ``(G,)``; batches add a leading ``N``;
* floating base: every method takes a `BaseState` first (its arrays may be batched too):
  `rbdgen.signatures` has the public methods of each kind of base;
* ``mask``: an optional boolean ``(N,)`` array: only the selected states of a batch
  are evaluated, the others' results are zero;
* ``loads``: `Load` objects, or a dense ``(L, 6)`` / ``(N, L, 6)`` array of link wrenches
  ``[torque, force]`` at each link's origin in the link's frame, indexed by `link_id`.

Subclasses implement ``_evaluate(op, inputs, mask, outputs, target, link, threads)`` on validated, batched,
contiguous float64 arrays; everything about argument checking lives here, once.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from . import dask_arrays, parameters
from .contacts import REFERENCE_SIZE
from .algorithms.kinematics import Tree
from .algorithms.operations import BASE, INPUTS, NUMBER_KINDS, OPERATIONS as RECORDS, dimensions, operation
from .model import RobotModel

#: The single-result dynamics operations (dynibo's); ``passive_terms`` adds the combined one.
DYNAMICS = tuple(name for name, op in RECORDS.items() if op.group == "dynamics" and len(op.outputs) == 1)

#: The kinematics operations (dynibo's names; `link` is their last argument where they take one).
KINEMATICS = tuple(name for name, op in RECORDS.items() if op.group == "kinematics")

#: Every output by name (an output name means the same shape in every operation).
OUTPUTS = {p.name: p for op in RECORDS.values() for p in op.outputs}


@dataclasses.dataclass(frozen=True)
class BaseState:
    """Floating-base state: pose and world-frame velocity/acceleration of the base origin.

    ``velocity = [omega_W, pdot_W]`` and ``acceleration = [omegadot_W, pddot_W]``
    (classical), angular first, world axes: each ``(6,)`` or ``(N, 6)``, and the
    default scalar 0 means zero. A non-unit quaternion ``rotation_xyzw`` is
    normalised (however large or small its norm); a zero or non-finite one is a
    ValueError.
    """

    translation: object
    rotation_xyzw: object
    velocity: object = 0.0
    acceleration: object = 0.0


@dataclasses.dataclass(frozen=True)
class Pose:
    """A frame: ``translation`` (3,) and quaternion ``rotation_xyzw`` (4,) (dynibo's ``Pose``)."""

    translation: object
    rotation_xyzw: object = (0.0, 0.0, 0.0, 1.0)


@dataclasses.dataclass(frozen=True)
class Load:
    """A wrench ``[torque, force]`` on a link, at the link origin, in the link frame."""

    link: Union[str, int]
    torque: object = (0.0, 0.0, 0.0)
    force: object = (0.0, 0.0, 0.0)



def _numbers(value, name: str) -> np.ndarray:
    """``value`` as an aligned, native float64 array (a copy only where needed).

    A TypeError naming ``name`` for anything that is not real numbers (bool,
    complex, strings, objects); a ValueError for a ragged sequence.
    """
    try:
        arr = np.asarray(value)
    except ValueError as exc:  # a ragged nested sequence
        raise ValueError(f"{name}: expected an array of numbers ({exc})") from None
    if arr.dtype.kind not in NUMBER_KINDS:
        raise TypeError(f"{name}: expected real numbers (float or integer), got an array of {arr.dtype}")
    if arr.dtype.kind in "iu" and arr.size and (arr.max() > 2**53 or arr.min() < -(2**53)):
        raise ValueError(f"{name}: integer beyond 2**53 has no exact float64 value")
    if arr.dtype == np.float64 and arr.flags.aligned:  # native byte order: the common case, as it is
        return arr
    # a misaligned or byte-swapped float64 array is copied before it reaches the C
    return np.require(arr, np.float64, "A")


def _array(value, name: str, size: int, batched: bool = True, zero_scalar: bool = False):
    """``value`` as float64 of shape (size,) or, where ``batched``, (N, size).

    With ``zero_scalar``, a scalar 0 (a field's default) means ``zeros(size)``.
    Non-numbers are a TypeError and anything else wrong a ValueError, naming ``name``.
    """
    arr = _numbers(value, name)
    if zero_scalar and arr.ndim == 0 and arr == 0:
        return np.zeros(size)
    if arr.ndim not in ((1, 2) if batched else (1,)) or arr.shape[-1] != size:
        expected = f"({size},) or (N, {size})" if batched else f"({size},)"
        raise ValueError(f"{name}: expected shape {expected}, got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name}: contains a non-finite value")
    return arr


def _scalars(value, name: str):
    """A number, or one per state (shape (N,)), as float64 of shape (1,) or (N, 1); errors as `_array`'s."""
    arr = _numbers(value, name)
    if arr.ndim > 1:
        raise ValueError(f"{name}: expected a number or shape (N,), got {arr.shape}")
    return _array(arr[..., None], name, 1)


def _check_out(out, shape: tuple) -> None:
    """A ValueError naming ``out`` unless it is a writeable, aligned, native float64 array of ``shape``."""
    if (not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != np.float64
            or not out.flags.writeable or not out.flags.aligned):
        got = (f"a {type(out).__name__}" if not isinstance(out, np.ndarray) else
               f"{out.dtype.str} of shape {out.shape}, writeable={out.flags.writeable}, aligned={out.flags.aligned}")
        raise ValueError(f"out: expected a writeable, aligned float64 array of shape {shape}, got {got}")


def _scaled_quaternion(value, name: str):
    """``value`` (shape (4,) or (N, 4)) ready for the algorithms, which accept any non-zero scale.

    The rotation of a quaternion does not depend on its norm, and every backend
    evaluates it as ``R(q) = I + (2 / |q|^2) (...)``. Quaternions whose squared norm
    is far from overflow and underflow pass unchanged (so a single state and a batch
    give bit-identical results); others are divided by their largest absolute
    component first, so no finite non-zero quaternion overflows or underflows.
    """
    quat = _array(value, name, 4)
    x, y, z, w = np.moveaxis(quat, -1, 0)
    with np.errstate(over="ignore", under="ignore"):
        n2 = x * x + y * y + z * z + w * w  # the order of the C entry point's range check
    unsafe = ~((n2 > 1e-100) & (n2 < 1e100))
    if np.any(unsafe):  # rare: only then the (slow, per-row) largest component
        scale = np.max(np.abs(quat), axis=-1, keepdims=True)
        if np.any(scale == 0):
            raise ValueError(f"{name}: zero quaternion")
        quat = np.where(unsafe[..., None], quat / scale, quat)
    return quat


def flat_inputs(inputs: dict) -> dict:
    """Validated inputs as the flat (N, size) arrays of the operations' inputs (`operations.INPUTS`)."""
    flat = {k: v for k, v in inputs.items() if k in INPUTS and k not in ("base", "loads")}
    if "quat" in inputs:
        flat["base"] = np.concatenate([inputs[field] for field in BASE], axis=1)
    if "loads" in inputs:
        N, L, six = inputs["loads"].shape
        flat["loads"] = inputs["loads"].reshape(N, L * six)
    return flat


def _rotate(quat, v):
    """``v`` rotated by unit quaternions ``quat`` (..., 4) xyzw: v + 2 w (u x v) + 2 u x (u x v)."""
    u, w = quat[..., :3], quat[..., 3:]
    uv = np.cross(u, v)
    return v + 2 * w * uv + 2 * np.cross(u, uv)


class SolverBase(abc.ABC):
    """Argument handling for every solver; see the module docstring for shapes."""

    #: The operations this solver evaluates (a compiled solver: those it was built with).
    operations: tuple = tuple(RECORDS)

    #: Floating-point type of the computation ("double" or "float").
    precision: str = "double"

    def __init__(self, model: RobotModel, tree: Tree):
        """``tree``: the model's `Tree` as the solver evaluates it (its declared contacts, its parametric bodies)."""
        self.model = model
        #: The contacts declared for the constrained operations (`rbdgen.contacts.ContactModel`), or None.
        self.contacts: Any = tree.contacts
        #: The sizes shapes are written in (J, G, L, P; K, C, R with contacts; LC, A with loops; Pb on first
        #: use), computed once: every call reads them.
        self._dimensions = dimensions(tree, len(model.links))
        self._input_sizes = {name: port.size(self._dimensions) for name, port in INPUTS.items()
                             if all(d in self._dimensions or not isinstance(d, str) for d in port.shape)}
        self._output_shapes = {name: port.dims(self._dimensions) for name, port in OUTPUTS.items()
                               if not port.numerical}
        self._parametric(tree.parameters)  # the bodies of a build with parameters= (none: a folded build)

    def _parametric(self, bodies):
        """A build with ``parameters=``: its bodies, their parameters' names and the URDF's values."""
        self._input_sizes["params"] = self._dimensions["Q"]
        names = parameters.parameter_names(self.model)
        #: The names of `params`' entries (``"<link>.<parameter>"``; empty for a folded build).
        self.parameter_names = tuple(names[10 * b + k] for b in bodies for k in range(10))
        self._params = parameters.parameter_vector(self.model).reshape(-1, 10)[list(bodies)].reshape(-1)

    @property
    def params(self) -> np.ndarray:
        """The inertial parameters a parametric build (``parameters=``) passes as every function's ``params``:
        10 per body of `parameter_names` (`rbdgen.parameters`), the model's own until set; a copy."""
        return self._params.copy()

    @params.setter
    def params(self, values) -> None:
        values = np.asarray(values, dtype=np.float64)
        if not self.parameter_names:
            raise ValueError("this build has no run-time parameters: generate it with parameters='all' or link names")
        if values.shape != self._params.shape or not np.all(np.isfinite(values)):
            raise ValueError(f"params: expected {self._params.size} finite values ({', '.join(self.parameter_names[:3])}"
                             f", ...), got shape {values.shape}")
        self._params = values.copy()

    def __getstate__(self) -> dict:
        """What a pickle carries beside the solver's recipe: the run-time `params` (empty for a folded build)."""
        return {"params": self._params.copy()}

    def __setstate__(self, state: dict) -> None:
        """Set a pickle's `params` on the solver its recipe made again, through the setter's checks."""
        if self.parameter_names:
            self.params = state["params"]

    def _flat(self, inputs: dict) -> dict:
        """`flat_inputs`, with a parametric solver's ``params`` for every state."""
        flat = flat_inputs(inputs)
        if self.parameter_names:
            flat["params"] = np.broadcast_to(self._params, (flat["q"].shape[0], self._params.size))
        return flat

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.model.name}: J={self.joint_count}, G={self.generalized_count}, "
                f"{len(self.operations)} ops, {self.precision}>")

    # -- sizes and names ----------------------------------------------------
    @property
    def joint_count(self) -> int:
        return self._dimensions["J"]

    @property
    def generalized_count(self) -> int:
        return self._dimensions["G"]

    @property
    def link_count(self) -> int:
        return self._dimensions["L"]

    @property
    def joint_names(self) -> tuple:
        return self.model.joint_names

    @property
    def link_names(self) -> tuple:
        return self.model.link_names

    @property
    def floating(self) -> bool:
        return self.model.floating

    def link_id(self, name: str) -> int:
        return self.model.link_id(name)

    # -- operations (their public signatures: `rbdgen.signatures`) ----------------
    def _selected(self, op: str, args: tuple, flags: dict, mask: Optional[ArrayLike],
                  threads: Optional[int]) -> Dict[str, np.ndarray]:
        """The outputs of ``op`` whose flags (`Port.flag`) are set, from one pass, by key (`Port.key`)."""
        ports = [p for p in operation(op).outputs if flags[p.flag]]
        if not ports:
            raise ValueError(f"{op}: request at least one of {', '.join(flags)}")
        results = self._results(op, args, None, tuple(p.name for p in ports), mask, threads)
        return {p.key: results[p.name] for p in ports}

    def _state(self, op: str, args: tuple, mask: Optional[ArrayLike],
               threads: Optional[int]) -> Tuple[BaseState, np.ndarray]:
        """A floating base's ``(base_next, q_next)`` of ``op`` (``integrate``), the base as a `BaseState`."""
        base, joints = (p.name for p in operation(op).output_ports(self.floating))
        results = self._results(op, args, None, (base, joints), mask, threads)
        b = results[base]
        return BaseState(*(b[..., BASE[k]] for k in BASE)), results[joints]

    def _constrained(self, op: str, args: tuple, reference, loads, mask: Optional[ArrayLike],
                     threads: Optional[int]) -> Any:
        """A constrained operation's outputs as a tuple, its derivatives' as a dict by name (``reference``:
        required where kp is not zero, else None)."""
        record = operation(op)
        takes_reference = "reference" in self._input_names(record)
        if reference is not None or takes_reference:
            if not takes_reference:
                raise ValueError(f"{op}: reference is an input only of contact_dynamics and its derivatives, where "
                                 f"the Baumgarte kp is not zero (baumgarte=(kp, kd) at generation)")
            if reference is None:
                raise ValueError(f"{op}: pass reference= (each contact's target; kp = {self.contacts.kp:g})")
            if not dask_arrays.is_lazy((reference,), None, None):
                _check_reference_rotations(op, self.contacts, reference)
            args = args + (reference,)
        inputs = record.input_names(self.floating)
        if "active" in inputs and not dask_arrays.is_lazy(args, None, None):
            _check_active(op, args[inputs.index("active")])
        names = tuple(p.name for p in record.output_ports(self.floating))
        results = self._results(op, args, loads, names, mask, threads)
        return results if record.of else tuple(results[n] for n in names)

    def _jacobians(self, op: str, args: tuple, loads, mask: Optional[ArrayLike],
                   threads: Optional[int]) -> Dict[str, np.ndarray]:
        """Every Jacobian output of derivative operation ``op``, by name (``dtau_dq``, ...)."""
        names = tuple(p.name for p in operation(op).output_ports(self.floating))
        return self._results(op, args, loads, names, mask, threads)

    def _results(self, op: str, args: tuple, loads, names: tuple, mask: Optional[ArrayLike],
                 threads: Optional[int]) -> Dict[str, np.ndarray]:
        """Outputs ``names`` of ``op`` (several from one pass) by name; unbatched where the arguments are."""
        if dask_arrays.is_lazy(args, loads, mask):
            return dask_arrays.evaluate(self, op, args, loads, mask, threads, names)
        inputs, batch = self._inputs(op, args, loads)
        link = inputs.pop("link", None)
        checked = self._mask(mask, inputs, batch)
        if inputs["q"].shape[0] == 0 and op in self.operations:  # an empty batch: nothing to evaluate
            results = {n: np.zeros((0,) + self._output_shape(n)) for n in names}
        else:
            results = self._evaluate(op, inputs, checked, names, link=link, threads=threads)
        return {n: (r if batch else r[0]) for n, r in results.items()}

    def _link_function(self, op: str, link: int):
        """``f(q) -> result`` of ``op`` on ``link`` at one fixed-base state, ``q`` a float64 (J,) array the
        caller has checked, for iterations that call it many times (`rbdgen.ik`): the public method
        here; a compiled solver calls its generated C directly."""
        method = getattr(self, op)
        return lambda q: method(q, link)

    def _twist(self, op: str, args: tuple, pose_op: str, tool, out: Optional[np.ndarray],
               mask: Optional[ArrayLike], threads: Optional[int]) -> np.ndarray:
        """The twist of a link origin, ``op`` on ``args`` = ``(base,) q, qd, link``; with ``tool`` (a point on
        the link in its frame, or a `Pose` whose translation it is) the twist of that point:
        ``pdot + omega x (R tool)``, R the link's rotation from ``pose_op`` (`Operation.tool`)."""
        if tool is None:
            return self._run(op, args, None, out, mask, threads)
        offset = _array(getattr(tool, "translation", tool), "tool translation", 3, batched=False)
        twist = self._run(op, args, None, None, mask, threads)
        if out is not None:
            _check_out(out, twist.shape)
        pose = self._run(pose_op, args[:-2] + args[-1:], None, None, mask, threads)
        arm = _rotate(pose[..., 3:], offset)                                  # the point, from the origin
        twist[..., 3:] += np.cross(twist[..., :3], arm)
        if out is None:
            return twist
        out[...] = twist
        return out

    # -- argument handling --------------------------------------------------------
    def _output_shape(self, name: str) -> tuple:
        if name not in self._output_shapes:  # a `Port.numerical` size: computed on first use
            self._output_shapes[name] = OUTPUTS[name].dims(self._dimensions)
        return self._output_shapes[name]

    def _shaped(self, name: str, flat: np.ndarray) -> np.ndarray:
        """Flat (N, size) values of output ``name`` as a contiguous (N, *shape) array.

        Matrices are column-major, except that a symmetric one (the mass matrix: both
        triangles are written from the same scalars) needs no transposition;
        per-link tables are stored row by row.
        """
        port, shape, N = OUTPUTS[name], self._output_shape(name), flat.shape[0]
        if port.c_ordered:
            return np.ascontiguousarray(flat).reshape((N,) + shape)
        rows, cols = shape
        return np.ascontiguousarray(flat.reshape(N, cols, rows).transpose(0, 2, 1))

    def _mask(self, mask: Optional[ArrayLike], inputs: dict, batch: bool) -> Optional[np.ndarray]:
        if mask is None:
            return None
        mask = np.asarray(mask)
        N = inputs["q"].shape[0]
        if mask.dtype != np.bool_:
            raise TypeError(f"mask: expected a boolean array, got an array of {mask.dtype}")
        if not batch or mask.shape != (N,):
            raise ValueError(f"mask: expected a boolean array of shape ({N},) for a batch of {N} states")
        return np.ascontiguousarray(mask)

    def _run(self, op: str, args: tuple, loads, out: Optional[np.ndarray], mask: Optional[ArrayLike],
             threads: Optional[int] = None) -> np.ndarray:
        """Validate the arguments of ``op`` (positional ones in ``args``), evaluate, return or fill ``out``."""
        (name,) = (p.name for p in operation(op).output_ports(self.floating))
        if dask_arrays.is_lazy(args, loads, mask):
            if out is not None:
                raise TypeError(f"{op}: out= cannot receive a lazy result of dask arrays: store the result "
                                f"(dask.array.store) or compute it instead")
            return dask_arrays.evaluate(self, op, args, loads, mask, threads, (name,))[name]
        inputs, batch = self._inputs(op, args, loads)
        link = inputs.pop("link", None)
        checked = self._mask(mask, inputs, batch)
        N = inputs["q"].shape[0]
        shape = ((N,) if batch else ()) + self._output_shape(name)
        if out is not None:
            _check_out(out, shape)
        if N == 0 and op in self.operations:
            result = np.zeros(shape)  # an empty batch: nothing to evaluate
        else:
            # a contiguous ``out`` that no input overlaps may be written in place (a compiled solver does so)
            target = None
            if out is not None and out.flags.c_contiguous and not any(np.may_share_memory(out, a)
                                                                      for a in inputs.values()):
                target = out.reshape((N,) + self._output_shape(name))
            result = self._evaluate(op, inputs, checked, (name,), target, link, threads)[name]
        if not batch:
            result = result[0]
        if out is None:
            return result
        if not np.shares_memory(result, out):
            out[...] = result
        return out

    def _inputs(self, op: str, args: tuple, loads) -> Tuple[Dict[str, Any], bool]:
        """Validate and broadcast the arguments to one batch size N; returns (dict, batched).

        An operation on a link takes it last (a name or an id): the dict's ``"link"`` holds its id.
        """
        record = operation(op)
        if record.group == "contacts" and not self.contacts:
            raise ValueError(f"{op}: no contacts declared; pass contacts=[rbdgen.Contact(link), ...] to "
                             f"rbdgen.generate or rbdgen.NumpySolver")
        if record.group == "loops" and not (self.contacts is not None and self.contacts.actuated):
            raise ValueError(f"{op}: no actuated joints declared; pass actuated=[joint, ...] to rbdgen.generate or "
                             f"rbdgen.NumpySolver (a model with closed loops)")
        names = [n for n in self._input_names(record) if n != "loads"] + (["link"] if record.link else [])
        if len(args) != len(names):
            raise TypeError(f"{op}({', '.join(names)}) takes {len(names)} positional arguments, got {len(args)}")
        arrays: Dict[str, Any] = {"link": self._link(args[-1], "link", "the link")} if record.link else {}
        if self.floating:
            arrays.update(self._base_arrays(args[0]))
            names, args = names[1:], args[1:]
        for name, value in zip(names, args):
            if name == "link":
                continue
            if name == "base1":
                arrays[name] = self._base_vector(value, name)
            elif INPUTS[name].shape == ():
                arrays[name] = _scalars(value, name)
            else:
                arrays[name] = _array(value, name, self._input_sizes[name])
        if loads is not None and not (isinstance(loads, (list, tuple)) and len(loads) == 0):
            arrays["loads"] = self._load_array(loads)
        batched = [a.shape[0] for k, a in arrays.items() if k != "link" and a.ndim == (3 if k == "loads" else 2)]
        if len(set(batched)) > 1:
            raise ValueError(f"arguments have different batch sizes: {sorted(set(batched))}")
        N = batched[0] if batched else 1
        out: Dict[str, Any] = {}
        for key, a in arrays.items():
            if key == "link":
                out[key] = a
                continue
            single = 2 if key == "loads" else 1
            if a.ndim == single:  # one state for the whole batch
                a = a[None] if N == 1 else np.broadcast_to(a, (N,) + a.shape)
            out[key] = np.ascontiguousarray(a)
        return out, bool(batched)

    def _input_names(self, record) -> tuple:
        """``record``'s inputs for this solver (``reference`` where the contacts' kp is not zero)."""
        return record.input_names(self.floating, bool(self.contacts and self.contacts.kp))

    def _base_vector(self, base, name: str) -> np.ndarray:
        """A second `BaseState` (``base1``) as one `BASE`-layout array, (19,) or (N, 19)."""
        if not isinstance(base, BaseState):
            raise TypeError(f"{name}: expected a rbdgen.BaseState, got {type(base).__name__}")
        fields = list(self._base_arrays(base, name).values())
        batched = {a.shape[0] for a in fields if a.ndim == 2}
        if len(batched) > 1:
            raise ValueError(f"{name}: fields have different batch sizes: {sorted(batched)}")
        if not batched:
            return np.concatenate(fields)
        (N,) = batched
        return np.concatenate([np.broadcast_to(a, (N, a.shape[-1])) for a in fields], axis=1)

    def _base_arrays(self, base: BaseState, name: str = "base"):
        """The fields of ``base`` (a `BaseState`: `rbdgen.signatures` checks it is one) as arrays; errors name
        the argument ``name``."""
        return {
            "translation": _array(base.translation, f"{name} translation", 3),
            "quat": _scaled_quaternion(base.rotation_xyzw, f"{name} rotation_xyzw"),
            "velocity": _array(base.velocity, f"{name} velocity", 6, zero_scalar=True),
            "acceleration": _array(base.acceleration, f"{name} acceleration", 6, zero_scalar=True),
        }

    def _link(self, link, where: str, what: str) -> int:
        """A link's id from its name or id: a TypeError or ValueError naming ``where`` otherwise."""
        if isinstance(link, str):
            return self.link_id(link)
        if not isinstance(link, (int, np.integer)) or isinstance(link, bool):
            raise TypeError(f"{where}: {what} is a link name or an integer id, got {link!r}")
        if not 0 <= link < self.link_count:
            raise ValueError(f"{where}: unknown link id {link!r} (the robot has {self.link_count} links)")
        return int(link)

    def _load_array(self, loads):
        L = self.link_count
        if isinstance(loads, np.ndarray):
            arr = _numbers(loads, "loads")
            if arr.ndim not in (2, 3) or arr.shape[-2:] != (L, 6):
                raise ValueError(f"loads: expected shape ({L}, 6) or (N, {L}, 6), got {arr.shape}")
            if not np.all(np.isfinite(arr)):
                raise ValueError("loads: contains a non-finite value")
            return arr
        dense = np.zeros((L, 6))
        for load in loads:
            if not isinstance(load, Load):
                raise TypeError(f"loads: expected Load objects or an array, got {type(load).__name__}")
            link = self._link(load.link, "loads", "a Load's link")
            dense[link, :3] += _array(load.torque, f"load torque on link {load.link!r}", 3, batched=False)
            dense[link, 3:] += _array(load.force, f"load force on link {load.link!r}", 3, batched=False)
        return dense

    @abc.abstractmethod
    def _evaluate(self, op: str, inputs: dict, mask: Optional[np.ndarray], outputs: tuple,
                  target: Optional[np.ndarray] = None, link: Optional[int] = None,
                  threads: Optional[int] = None) -> dict:
        """Run ``op`` on validated inputs of batch size N, N > 0 (on link ``link`` where it takes one).

        Returns the requested ``outputs`` (names from `operations.OPERATIONS`) as
        arrays of shape ``(N, G)`` or ``(N, G, G)``. Where ``mask`` (bool, (N,)) is
        given, only the selected states are evaluated and the others' results are zero.
        ``target`` (float64, C-contiguous, the single output's shape) may receive the
        result in place. ``threads`` is the caller's ``threads=`` (see `rbdgen.threads`).
        """


def _check_active(op: str, active) -> None:
    """``active`` holds 1.0 or 0.0 per contact (the C masks rows with it and returns status 1 for other values;
    this names them)."""
    try:
        values = np.asarray(active, dtype=float)
    except (TypeError, ValueError):
        return  # not numbers: the inputs' own check names it
    if not np.all((values == 0.0) | (values == 1.0)):
        raise ValueError(f"{op}: active must hold 1.0 (active) or 0.0 (inactive) per contact, got "
                         f"{np.unique(values[(values != 0.0) & (values != 1.0)])[:4]}")


def _check_reference_rotations(op: str, contacts, reference) -> None:
    """A frame contact's target quaternion in ``reference`` is normalised (any finite non-zero scale, as
    `BaseState`'s): a zero or non-finite one is refused, naming the contact (``contacts``: the `ContactModel`)."""
    try:
        values = np.asarray(reference, dtype=float)
    except (TypeError, ValueError):
        return  # not numbers: the inputs' own check names it
    if values.shape[-1:] != (contacts.reference_size,):
        return  # the inputs' own check names the shape
    at = 0
    for contact in contacts.contacts:
        if contact.kind == "frame":
            quat = values[..., at + 3: at + 7]
            n2 = np.sum(quat * quat, axis=-1)
            if not np.all(np.isfinite(n2) & (n2 > 1e-100)):
                raise ValueError(f"{op}: reference: the target quaternion (xyzw) of the frame contact on "
                                 f"{contact.link!r} is zero, too small or not finite")
        at += REFERENCE_SIZE[contact.kind]
