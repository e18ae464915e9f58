"""`CompiledSolver`: the generated C, called through cffi with the `NumpySolver` API.

Every usual call (one state or a batch, keywords, ``out=``, ``mask=``, loads,
float32/integer/list inputs) goes straight to the generated single-state function
through a CPython entry point (`rbdgen.fastpath`, ``pyentry.h``). What an entry
point declines (unusual inputs, anything invalid, a failed state) is validated
here and is one cffi call of a ``*_batch`` function, which loops over the states
with the GIL released. A failed state's status maps to the same exception
`NumpySolver` raises.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any, Dict, List, Optional, Type

import numpy as np

from . import fastpath, manifest as manifests
from . import threads as batch_threads
from .algorithms.operations import MASS_MATRIX, operation
from .build import DEFAULT_FLAGS, load_extension
from .errors import STATUS, IllConditionedError, ManifestError, SingularError, SolverError, ValidationError
from .interface import OUTPUTS, SolverBase
from .names import check_file_name, check_prefix
from .signatures import FixedBaseSolver, FloatingBaseSolver

log = logging.getLogger(__name__)



class CompiledSolver(SolverBase):
    """Generated, compiled dynamics for one robot (see `rbdgen.signatures` for the API).

    ``CompiledSolver(manifest, files)`` is a `FixedCompiledSolver` or a
    `FloatingCompiledSolver`, as the manifest's model.
    """

    def __new__(cls, manifest: dict, *args, **kwargs):
        if cls is CompiledSolver:
            cls = FloatingCompiledSolver if manifest["model"]["floating"] else FixedCompiledSolver
        return super().__new__(cls)

    def __init__(self, manifest: dict, files: dict, flags=DEFAULT_FLAGS, cache=None):
        # the same checks as `load`'s, here where every path (a folder, a pickle) builds one: what is compiled is
        # named by a valid prefix and plain file names, and the manifest's model is the one it describes
        _check_names(manifest, files, "CompiledSolver: the manifest")
        model, tree = manifests.check_model(manifest, "CompiledSolver: the manifest")
        super().__init__(model, tree)
        self.manifest = manifest
        # the base regressor's columns as generated (not refactored here)
        self._output_shapes.update({name: tuple(shape) for name, shape in manifest["shapes"].items()
                                    if name in OUTPUTS and OUTPUTS[name].numerical})
        self.prefix = manifest["prefix"]
        self.precision = manifest["precision"]
        self.dtype = np.float64 if self.precision == "double" else np.float32
        #: The operations it was built with; `frames` maps an operation on a link to its links'
        #: functions, ``{op: {link id: function name after the prefix}}``.
        self.operations = tuple(dict.fromkeys(info.get("operation", name)
                                              for name, info in manifest["operations"].items()))
        self.frames: Dict[str, Any] = {}
        for name, info in manifest["operations"].items():
            if "link" in info:
                self.frames.setdefault(info["operation"], {})[info["link"]] = name
        # what a pickle holds (`__reduce__`): the sources, not the library
        self._recipe = (manifest, dict(files), tuple(flags), cache)
        key_files, key_cdef = manifests.key_source(self.prefix)
        files, cdef = {**files, **key_files}, manifest["cdef"] + key_cdef
        entry_points = bool(fastpath.operations(manifest))
        if entry_points:
            files, cdef = {**files, **fastpath.entry_files(manifest)}, cdef + fastpath.cdef(self.prefix)
        self._module = load_extension(files, self.prefix, cdef, flags, cache)
        self._ffi, self._lib = self._module.ffi, self._module.lib
        # the compiled header's own key, before any generated function is called with the manifest's sizes
        reported = getattr(self._lib, manifests.key_function(self.prefix))()
        manifests.check_key(manifest, reported, f"{self.prefix}.json")
        self._real = "double" if self.precision == "double" else "float"
        if entry_points:
            fastpath.install(self, self._ffi, self._lib)

    def __reduce__(self):
        """Pickled as its manifest, its C sources, flags and cache folder, never its shared library: unpickling
        builds the solver again where it is unpickled (a Dask worker), or loads it from that machine's build
        cache, with the cache's checks (`rbdgen.build`); ``cache=None`` is the unpickling process's cache. A
        parametric build's `params` travel with it (`SolverBase.__setstate__`)."""
        return CompiledSolver, self._recipe, self.__getstate__()

    def c_function(self, name: str):
        """``(ffi, function)``: the generated C function ``<prefix>_<name>`` (e.g. ``"gravity_batch"``)
        through cffi, and the ``cffi.FFI`` that makes its arguments (``ffi.from_buffer``, ``ffi.NULL``)."""
        return self._ffi, getattr(self._lib, f"{self.prefix}_{name}")

    @property
    def operation_counts(self) -> dict:
        """Per operation: multiplications, additions, divisions, sin, cos, sqrt and solver calls."""
        return {op: dict(info["counts"]) for op, info in self.manifest["operations"].items()}

    def _function(self, op, link) -> str:
        """The generated function of ``op`` (on ``link``), after the prefix."""
        if op not in self.operations:
            raise ValueError(f"operation {op!r} was not generated; this build has {list(self.operations)}. Generate "
                             f"it: rbdgen.generate(..., ops=[..., {op!r}]) in Python, or rbdgen generate ... --ops "
                             f"... {op} on the command line")
        if link is None:
            return op
        if link not in self.frames[op]:
            built = [self.link_names[k] for k in self.frames[op]]
            raise ValueError(f"{op}: link {self.link_names[link]!r} was not generated; this build has {built} "
                             f"(generate with frames=[..., {self.link_names[link]!r}] in Python or --frames ... "
                             f"{self.link_names[link]} on the command line to add it)")
        return self.frames[op][link]

    def _evaluate(self, op, inputs, mask, outputs, target=None, link=None, threads=None):
        function = self._function(op, link)
        flat = self._flat(inputs)
        N = flat["q"].shape[0]
        arrays = [np.ascontiguousarray(flat[name], self.dtype) if name in flat else None
                  for name in self.manifest["operations"][function]["inputs"]]
        results = {}
        for name in self.manifest["operations"][function]["outputs"]:
            if name in outputs:
                size = self.manifest["sizes"][name]
                # written in place where the flat layout is the array's (M: exactly symmetric)
                direct = target is not None and self.dtype == np.float64 and OUTPUTS[name].c_ordered
                results[name] = target.reshape(N, size) if direct else np.empty((N, size), self.dtype)
                arrays.append(results[name])
            else:
                arrays.append(None)
        status = np.zeros(N, np.intc)
        selected = None if mask is None else mask.view(np.uint8)
        batch, ffi, real = getattr(self._lib, f"{self.prefix}_{function}_batch"), self._ffi, f"{self._real}[]"

        def states(start, stop):  # the batch function on states [start, stop): returns its first status
            args = [ffi.NULL if a is None else ffi.from_buffer(real, a[start:stop], require_writable=a.flags.writeable)
                    for a in arrays]
            marks = ffi.NULL if selected is None else ffi.from_buffer("unsigned char[]", selected[start:stop])
            return batch(stop - start, *args, marks, ffi.from_buffer("int[]", status[start:stop]))

        first = batch_threads.run(states, N, threads)
        if first:
            bad = int(np.flatnonzero(status)[0])
            raise STATUS[first](f"{op}: {STATUS[first].reason} (state {bad})")
        return {name: self._shaped(name, flat_out.astype(np.float64, copy=False)) for name, flat_out in results.items()}

    def _link_function(self, op, link):
        """The generated single-state C function of ``op`` on ``link``, called on buffers made once here."""
        if self.precision != "double" or self.manifest["operations"][self._function(op, link)]["inputs"] != ["q"]:
            return super()._link_function(op, link)
        function = self._function(op, link)
        ffi, c = self.c_function(function)
        (name,) = self.manifest["operations"][function]["outputs"]
        size = self.manifest["sizes"][name]
        q, flat = np.empty(self.joint_count), np.empty(size)
        args = ffi.from_buffer("double[]", q), ffi.from_buffer("double[]", flat, require_writable=True)
        layout = self._shaped(name, np.arange(size, dtype=float)[None])[0].astype(np.intp)  # flat index per entry

        def call(x):
            q[...] = x
            status = c(*args)
            if status:
                raise STATUS[status](f"{op}: {STATUS[status].reason}")
            return flat[layout]

        return call

    def validate(self, samples: int = 16, seed: int = 0) -> dict:
        """Compare every operation with `NumpySolver` at random states (`rbdgen.states.random_states`,
        a load on every link).

        Each result is compared with the NumPy engine's (for a Jacobian: its analytic
        derivatives, the same algorithms on NumPy arrays), and each Jacobian also with central
        differences of the NumPy engine's operation (a sanity check of the algorithms
        themselves). The tolerances follow the problem's conditioning: the operation's
        tolerance (`Operation.tolerance`), plus, for one that solves with M, ``G eps`` times
        the condition number of the equilibrated M at the state; central differences also
        allow the rounding of the value they differentiate over the step; an output that is zero (its
        norm at most 64 G eps times the inputs' scale) may be off by as much, and a damped constraint
        solve's relative error may be four times the NumPy engine's own relative change when q, qd, qdd
        and tau move by 64 eps. Where an operation reports a status, both engines must report it at the same states
        (`_same_statuses`). Returns the worst normwise relative error per operation, but those that
        fail for every state (`_check_always_fails`, and those that report a status at every
        validation state in both engines: a warning says so); raises `ValidationError` naming the operation, the
        reference, the worst absolute and relative errors and the tolerance when one exceeds it.
        """
        from .fallback import NumpySolver
        from .states import contact_inputs, random_states

        log.info("validating %s: %d operations against the NumPy engine at %d random states", self.prefix,
                 len(self.operations), samples)
        reference = NumpySolver(self.model, **(self.contacts.options() if self.contacts is not None else {}))
        st = random_states(self.model, samples, seed, load_links=self.link_names)
        other = random_states(self.model, samples, seed + 1)  # the second state of `difference`
        state: Dict[str, Any] = {"base": st.base, "q": st.q, "qd": st.qd, "qdd": st.qdd, "tau": st.tau, "loads": st.loads,
                                 "v": st.velocities(), "dt": 0.05, "base1": other.base, "q1": other.q,
                                 "qd_ref": other.velocities(), "qdd_ref": other.accelerations()}
        if self.contacts:
            state.update(contact_inputs(self.contacts, samples, seed))
        M = getattr(reference, MASS_MATRIX)(*st.head(), st.q)
        conditioning = _equilibrated_condition(M)
        worst = {}
        for op in self.operations:
            record = operation(op)
            if "always_fails" in self.manifest["operations"].get(op, {}):
                self._check_always_fails(op, reference, state)
                continue
            tol = record.tolerance[0 if self.precision == "double" else 1]
            kappa = conditioning if record.solves else np.ones(samples)
            # a backward-stable solve of an SPD M: normwise error <= c G eps cond(equilibrated M) (van der Sluis),
            # never above `CONDITIONED_CEILING`: the solves' own checks report a worse-conditioned M as a status
            ceiling = max(tol, CONDITIONED_CEILING[self.precision])
            allowed = np.minimum(tol + self.generalized_count * float(np.finfo(self.dtype).eps) * kappa, ceiling)
            bound = f"tolerance {tol:g}" + (f" + G eps cond(equilibrated M), cond {kappa.max():.3g}" if record.solves else "")
            what = "the NumPy engine"
            constrained = record.group == "contacts" or (self.model.loops and record.solves)
            if record.of is None:
                mask = None
                try:
                    pairs = self._value_pairs(op, record, reference, state, mask)
                except SolverError as exc:  # a status at some states: the same from both engines, values elsewhere
                    if isinstance(exc, SingularError) and not np.all(np.linalg.eigvalsh(M)[..., 0] > 0):
                        raise  # an indefinite mass matrix (link inertias no rigid body has): the robot, not the op
                    mask = self._same_statuses(op, record, reference, state)
                    if not mask.any():
                        continue
                    pairs = self._value_pairs(op, record, reference, state, mask)
                # an output that is ~ 0 (a velocity an impact stops): its rounding, G eps times the inputs' scale
                scale = max([1.0] + [float(np.abs(state[n]).max(initial=0.0)) for n in ("q", "qd", "qdd", "tau")
                                     if n in self._input_names(record)])
                floor = 64 * float(np.finfo(self.dtype).eps) * self.generalized_count * scale
                floors = [floor] * len(pairs)
                if constrained:
                    values = [r for _, r in pairs]
                    changes = self._sensitivity(op, record, reference, state, mask, values)
                    # an output the constraints hold at ~ 0 (the velocity an impact stops on a mechanism the contacts
                    # fix): its rounding grows with cond(J M^-1 J^T); allow 16 x its measured change
                    floors = [np.maximum(floor, 16 * change) for change in changes]
                    if self.contacts is not None and self.contacts.mu > 0:
                        # a damped constraint solve (proximal iterations) amplifies rounding by cond(D + mu I) per
                        # iteration: allow what the problem does to inputs moved by 64 eps, measured
                        relative = np.max([c / _norms(v) for c, v in zip(changes, values)], axis=0) if changes else 0.0
                        allowed = np.minimum(allowed + 4 * relative, ceiling)
                        bound += ", + 4 x the damped solve's measured change for inputs moved by 64 eps"
                worst[op] = _check(op, pairs, allowed, f"{what} ({bound})", floors)
                continue
            worst[op] = 0.0
            for link in [(k,) for k in self.frames[op]] if record.link else [()]:  # each generated link
                got, analytic, differences, h = self._validation_jacobians(op, reference, state, link)
                ports = [p.name for p in record.output_ports(self.floating)]
                jacobian_floors: Optional[list] = None
                rounded: Dict[str, np.ndarray] = {}
                if constrained:  # Jacobians and values the constraints hold at ~ 0 (a mechanism the contacts fix)
                    jacobian_floors = [16 * c for c in self._sensitivity(op, record, reference, state, None,
                                                                         [analytic[k] for k in ports])]
                    of_values = {of: value for _, value, of in differences.values()}
                    of_ports = [p.name for p in operation(record.of).output_ports(self.floating)]
                    rounded = dict(zip(of_ports, self._sensitivity(record.of, operation(record.of), reference, state,
                                                                   None, [of_values[n] for n in of_ports])))
                worst[op] = max(worst[op], _check(op, [(got[k], analytic[k]) for k in ports], allowed,
                                f"{what}'s analytic derivatives (the same algorithms in NumPy; {bound})",
                                jacobian_floors))
                # central differences: truncation O(h^2) (in tol) plus the rounding of the NumPy engine's value,
                # ~ eps64 cond(equilibrated M) ||f|| (Talos: 500 times what it is), over h, in each column; a value
                # the constraints hold at ~ 0: 16 x its measured change over h, in each column
                for k in ports:
                    difference, value, of = differences[k]
                    f_norm = np.linalg.norm(value.reshape(samples, -1), axis=1)
                    j_norm = np.maximum(np.linalg.norm(difference.reshape(samples, -1), axis=1),
                                        np.finfo(float).tiny)
                    rounding = (np.finfo(float).eps * kappa * f_norm
                                * np.sqrt(difference.shape[-1]) / (h * j_norm))
                    held = [16 * rounded[of] * np.sqrt(difference.shape[-1]) / h] if of in rounded else None
                    worst[op] = max(worst[op], _check(op, [(got[k], difference)], allowed + rounding,
                                    f"central differences (h = {h:g}) of {what}'s {record.of} ({bound} + eps "
                                    f"cond(equilibrated M) ||{record.of}|| sqrt(columns) / (h ||Jacobian||))", held))
        log.info("validated %s: %s", self.prefix, worst)
        return worst

    def _value_pairs(self, op, record, reference, state, mask) -> list:
        """``[(compiled, NumPy engine)]`` of ``op``'s outputs at the validation states (``mask``: those only,
        zeros elsewhere)."""
        links = [(k,) for k in self.frames[op]] if record.link else [()]
        return list(zip(*(_outputs(engine, op, record, state, mask, links) for engine in (self, reference))))

    def _sensitivity(self, op, record, reference, state, mask, values) -> list:
        """Per output of ``op`` (`_outputs`' order), per state: the largest norm of the NumPy engine's change from
        its ``values`` at ``state`` when q, qd, qdd and tau move by 64 eps relative (random signs, `SENSITIVITY_DRAWS`
        draws), how much the problem itself amplifies rounding; zeros where a moved state reports a status. An
        output the constraints hold at zero changes only by rounding, which one draw can leave unchanged: the
        largest of a few draws is its rounding's size."""
        rng = np.random.default_rng(7)
        eps = float(np.finfo(self.dtype).eps)
        links = [(k,) for k in self.frames[op]] if record.link else [()]
        samples = state["q"].shape[0]
        changes = [np.zeros(samples) for _ in values]
        for _ in range(SENSITIVITY_DRAWS):
            moved = {k: (v * (1 + 64 * eps * rng.choice([-1.0, 1.0], v.shape)) if k in ("q", "qd", "qdd", "tau")
                         else v) for k, v in state.items()}
            try:
                others = _outputs(reference, op, record, moved, mask, links)
            except SolverError:
                return [np.zeros(samples) for _ in values]
            changes = [np.maximum(c, np.linalg.norm((a - b).reshape(samples, -1), axis=1))
                       for c, a, b in zip(changes, values, others)]
        return changes

    def _same_statuses(self, op, record, reference, state) -> np.ndarray:
        """The states where both engines compute ``op`` (a mask); `ValidationError` where one reports a status
        the other does not; at states where both report one (an under-actuated mechanism, a singular task) it
        is the same error, logged. Each state is computed alone (a batch stops at its first status)."""
        samples = state["q"].shape[0]
        links = [(k,) for k in self.frames[op]] if record.link else [()]
        outcomes = []
        for k in range(samples):
            one = np.arange(samples) == k
            outcome: List[Optional[Type[SolverError]]] = []
            for engine in (self, reference):
                try:
                    _outputs(engine, op, record, state, one, links)
                    outcome.append(None)
                except SolverError as exc:
                    outcome.append(type(exc))
            outcomes.append(outcome)
        for k, (got, ref) in enumerate(outcomes):
            if _unsolvable(got) is not _unsolvable(ref):  # rounding decides which of the two a singular matrix gets
                raise ValidationError(f"{op}: at state {k} the compiled solver gives "
                                      f"{got.__name__ if got else 'a result'} but the NumPy engine "
                                      f"{ref.__name__ if ref else 'a result'}")
        failing = [got.__name__ for got, _ in outcomes if got]
        if not failing:  # the batch's status did not come back state by state: compare them all
            return np.ones(samples, dtype=bool)
        log.warning("%s: %s at %d of %d validation states in both engines (%s)", op, failing[0], len(failing), samples,
                    "not compared" if len(failing) == samples else "compared at the others")
        return np.array([got is None for got, _ in outcomes])

    def _check_always_fails(self, op, reference, state) -> None:
        """An operation the generator found to fail for every state (a massless moving tip, its manifest's
        ``always_fails``): the generated C and the NumPy engine both raise that status's error (a
        `ValidationError` otherwise); it is left out of `validate`'s result, with a warning."""
        fails = self.manifest["operations"][op]["always_fails"]
        error = STATUS[fails["status"]]
        assert error is not None, fails  # a failure's status is not 0
        names = operation(op).input_names(self.floating)
        args = tuple(state[n] for n in names if n != "loads")
        kwargs = {"loads": state["loads"]} if "loads" in names else {}
        for engine in (self, reference):
            try:
                getattr(engine, op)(*args, **kwargs)
            except error:
                continue
            raise ValidationError(f"{op}: the generator found that it fails for every state ({fails['message']}), "
                                  f"but {type(engine).__name__} did not raise {error.__name__}")
        log.warning("%s: not compared: %s for every state (the generated C returns status %d, both engines raise "
                    "%s); give the link mass or an armature to use it", op, fails["message"], fails["status"],
                    error.__name__)

    def _validation_jacobians(self, op, reference, state, link=(), h=1e-5):
        """``op``'s Jacobians of the compiled solver and of the NumPy engine (analytic), and per Jacobian the
        central differences of the NumPy engine's operation differentiated with that output's value and name:
        ``(got, analytic, {name: (differences, value, output)}, h)``, the Jacobians as ``{output: (N, rows,
        columns)}`` (no columns where J = 0); ``link``: ``(link id,)`` for an operation on a link."""
        record = operation(op)
        names = [n for n in self._input_names(record) if n != "loads"]
        args = {n: state[n] for n in names}
        kwargs = {"loads": state["loads"]} if record.loads else {}
        got = getattr(self, op)(*args.values(), *link, **kwargs)
        analytic = getattr(reference, op)(*args.values(), *link, **kwargs)
        outputs = [p.name for p in operation(record.of).output_ports(self.floating)]

        def f(**changed):  # {output: value} of the operation differentiated
            value = getattr(reference, record.of)(*{**args, **changed}.values(), *link, **kwargs)
            return dict(zip(outputs, value if isinstance(value, tuple) else (value,)))

        differences, values = {}, f()
        for port in record.output_ports(self.floating):
            of = port.name[1:-len(f"_d{port.wrt}")] if len(outputs) > 1 else outputs[0]
            expected = np.empty_like(got[port.name])
            for k in range(expected.shape[-1]):
                plus, minus = _perturbed(args, port.wrt, k, h), _perturbed(args, port.wrt, k, -h)
                expected[..., k] = (f(**plus)[of] - f(**minus)[of]) / (2 * h)
            differences[port.name] = (expected, values[of], of)
        return got, analytic, differences, h


#: The most `validate` allows an operation that solves with M, however ill-conditioned M is: where the
#: equilibrated M is too ill-conditioned for this, the generated solve's conditioning check (pivots over
#: sqrt(eps)) already returns IllConditionedError (double: G eps 6.7e7 stays under 1e-5 up to G = 500).
CONDITIONED_CEILING = {"double": 1e-5, "float": 5e-2}

#: Draws of `CompiledSolver._sensitivity`'s moved inputs (rounding's size: the largest change of a few).
SENSITIVITY_DRAWS = 4


def _equilibrated_condition(M) -> np.ndarray:
    """Per state, the 2-norm condition number of ``D^-1/2 M D^-1/2``, D = diag(M), for the mass matrices
    ``M`` (N, G, G): what bounds the error of an LTDL or Cholesky solve, which that scaling leaves as
    it is (van der Sluis); inf where M is not invertible."""
    d = np.sqrt(np.abs(np.einsum("nii->ni", M)))
    d = np.where(d > 0, d, 1.0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return np.nan_to_num(np.linalg.cond(M / d[:, :, None] / d[:, None, :]), nan=np.inf)


def _unsolvable(error):
    """``error`` (a `SolverError` class or None), a singular and an ill-conditioned matrix taken as one."""
    return SingularError if error is IllConditionedError else error


def _outputs(engine, op, record, state, mask, links) -> list:
    """``engine``'s outputs of ``op`` at the validation ``state`` (``mask``: those states only), in a fixed
    order: by output name, or per link of ``links`` (an operation on a link)."""
    names = engine._input_names(record)
    args = tuple(state[n] for n in names if n != "loads")
    loads = state["loads"] if "loads" in names else None
    if record.result == "selected" or record.group == "contacts" or len(record.output_ports(engine.floating)) > 1:
        outs = tuple(p.name for p in record.output_ports(engine.floating))
        results = engine._results(op, args, loads, outs, mask, None)
        return [results[n] for n in outs]
    kwargs = {"loads": loads} if loads is not None else {}
    return [getattr(engine, op)(*args, *k, mask=mask, **kwargs) for k in links]


def _norms(values) -> np.ndarray:
    """The norm of each state's ``values`` (the first axis the states), at least the smallest normal float."""
    return np.maximum(np.linalg.norm(values.reshape(values.shape[0], -1), axis=1), np.finfo(float).tiny)


def _check(op, pairs, allowed, reference: str, floors=None) -> float:
    """The worst normwise relative error of ``pairs`` (got, expected) of N states; `ValidationError`
    where a state's exceeds ``allowed`` (per state), but for an expected value of norm at most its pair's floor
    (``floors``, one per pair, per state or for all: the rounding of an output that is zero) whose absolute
    error is at most that floor too, naming ``reference``."""
    worst = 0.0
    for (got, ref), floor in zip(pairs, floors if floors is not None else [0.0] * len(pairs)):
        n = got.shape[0]
        got, ref = got.reshape(n, -1), ref.reshape(n, -1)
        err = np.linalg.norm(got - ref, axis=1)
        size = np.linalg.norm(ref, axis=1)
        rel = err / np.maximum(size, np.finfo(float).tiny)
        over = ~((rel <= allowed) | ((err <= floor) & (size <= floor)))
        if over.any():
            k = int(np.argmax(np.where(over, rel / allowed, -np.inf)))
            raise ValidationError(f"{op}: relative error {rel[k]:.3g} (absolute {err[k]:.3g}, state {k}) exceeds "
                                  f"{np.broadcast_to(allowed, rel.shape)[k]:.3g} against {reference}")
        worst = max(worst, float(rel.max()))
    return worst


def _perturbed(args: dict, wrt: str, k: int, h: float) -> dict:
    """``args`` with coordinate k of ``wrt`` moved by h (base rotation: exp(h e_k / 2) * quaternion, world frame)."""
    if not wrt.startswith("base_"):
        x = args[wrt].copy()
        x[..., k] += h
        return {wrt: x}
    base = args["base"]
    if wrt == "base_rotation":
        half = np.zeros(4)
        half[k], half[3] = np.sin(h / 2), np.cos(h / 2)
        x, y, z, w = np.moveaxis(np.asarray(base.rotation_xyzw, dtype=float), -1, 0)
        px, py, pz, pw = half
        quat = np.stack([pw * x + px * w + py * z - pz * y, pw * y - px * z + py * w + pz * x,
                         pw * z + px * y - py * x + pz * w, pw * w - px * x - py * y - pz * z], axis=-1)
        return {"base": dataclasses.replace(base, rotation_xyzw=quat)}
    field = "velocity" if wrt == "base_velocity" else "acceleration"
    x = np.array(getattr(base, field), dtype=float)
    x[..., k] += h
    return {"base": dataclasses.replace(base, **{field: x})}


class FixedCompiledSolver(FixedBaseSolver, CompiledSolver):
    """`CompiledSolver` of a fixed-base robot."""


class FloatingCompiledSolver(FloatingBaseSolver, CompiledSolver):
    """`CompiledSolver` of a floating-base robot."""


def _check_names(manifest: dict, files, where) -> list:
    """The names of ``files`` (None: the manifest's ``sources``) if the manifest's prefix is valid
    (`names.check_prefix`), its interface key can be made and every name is a plain source name
    (`names.check_file_name`); otherwise a `ManifestError` (``where``: the manifest's path, or what built it)."""
    try:
        check_prefix(manifest["prefix"], f"{where}: prefix")
        manifests.interface_key(manifest)
        return [check_file_name(name, where) for name in (manifest["sources"] if files is None else files)]
    except (AttributeError, KeyError, TypeError) as exc:
        raise ManifestError(f"{where}: not an rbdgen manifest ({type(exc).__name__}: {exc}); "
                            f"{manifests.REGENERATE}") from None
    except ValueError as exc:
        raise ManifestError(f"{exc}; {manifests.REGENERATE}") from None


def load(folder, flags=DEFAULT_FLAGS, cache=None) -> CompiledSolver:
    """Load a solver written by ``Generated.write`` (compiling it if the cache lacks it).

    The folder is untrusted (`rbdgen.manifest`): its files are read only if they are regular files, the
    manifest's model must have its digest and sizes, and the compiled header's interface key must be the
    manifest's (a `ManifestError` naming the folder otherwise). Needs numpy and cffi only, not the
    code-generation extra.
    """
    folder = Path(folder)
    path, manifest = manifests.read(folder)
    sources = _check_names(manifest, None, path)
    manifests.check_model(manifest, str(path))
    files = {name: manifests.read_text(folder / name) for name in sources}
    try:
        return CompiledSolver(manifest, files, flags, cache)
    except ManifestError as exc:
        raise ManifestError(f"{folder}: {exc}") from None
