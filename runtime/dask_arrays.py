"""Dask arrays through a solver's batched methods: one ``map_blocks`` a call, the results lazy (`evaluate`).

A method given a ``dask.array.Array`` anywhere among its state arguments (a joint array, a `BaseState`
field, ``loads``, ``mask``, ``dt``) returns dask arrays of the results instead of NumPy arrays, in the
chunks of the state axis of the first such argument: each block is the method itself on the NumPy blocks
of the arguments (the other dask arguments rechunked to the same rows, NumPy batches cut alike, single
states passed to every block as they are). The results of one call come from one ``map_blocks``
(several outputs side by side in one block, then sliced), so a block is computed once. A block's errors
(a failed state, a non-finite input) are raised by ``compute()``, naming the block's states.

Under Dask a block runs on one thread unless ``threads=`` says otherwise: Dask's workers already run
blocks side by side. On a `dask.distributed` cluster the solver travels to the workers pickled: a
`CompiledSolver` pickles its sources, not its library, and a worker builds it again or takes it from its
build cache (docs/scaling-out.md). Dask is needed only where dask arrays are passed.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from typing import Optional

import numpy as np

from .algorithms.operations import INPUTS, NUMBER_KINDS, operation
from .errors import SolverError


def is_lazy(args: tuple, loads, mask) -> bool:
    """Whether any state argument of a call is a dask array (Dask is not imported to find out)."""
    module = sys.modules.get("dask.array")
    return module is not None and any(isinstance(value, module.Array) for _, value in _leaves(args, loads, mask))


def _leaves(args: tuple, loads, mask):
    """``(where, value)`` of every array-like argument: ``where`` is ``(position, BaseState field or None)``
    (a `BaseState`: the only dataclass among the arguments), with ``loads`` and ``mask`` at positions
    ``"loads"`` and ``"mask"``."""
    for position, value in enumerate(args):
        if dataclasses.is_dataclass(value):
            for field in dataclasses.fields(value):
                yield (position, field.name), getattr(value, field.name)
        else:
            yield (position, None), value
    yield ("loads", None), loads
    yield ("mask", None), mask


def _positional(solver, op: str) -> list:
    """The names of ``op``'s positional arguments for ``solver`` (``reference`` where its kp is not zero)."""
    return [n for n in solver._input_names(operation(op)) if n != "loads"]


def _batch_ndim(solver, op: str, where: tuple) -> Optional[int]:
    """The dimensions of argument ``where`` as a batch (its state axis first); None for a link."""
    position, field = where
    if position == "loads":
        return 3
    if position == "mask" or field is not None:
        return 1 if position == "mask" else 2
    names = _positional(solver, op)
    if position >= len(names):
        return None  # the link, last
    return len(INPUTS[names[position]].shape) + 1


def evaluate(solver, op: str, args: tuple, loads, mask, threads: Optional[int], names: tuple) -> dict:
    """Outputs ``names`` of ``op`` on arguments of which at least one is a dask array, as dask arrays of
    shape ``(N, *shape)`` by name (see the module)."""
    import dask.array as da

    batched = {}
    for where, value in _leaves(args, loads, mask):
        ndim = _batch_ndim(solver, op, where)
        if isinstance(value, da.Array):
            if value.ndim != ndim:
                raise ValueError(f"{op}: {_label(solver, op, where)}: a dask array must be a batch of "
                                 f"{ndim} dimensions, the states first; got shape {value.shape}")
            if any(np.isnan(n) for n in value.shape):
                raise ValueError(f"{op}: {_label(solver, op, where)}: a dask array of unknown chunk sizes (shape "
                                 f"{value.shape}, as boolean indexing makes): call its compute_chunk_sizes() first")
            if where != ("mask", None) and value.dtype.kind not in NUMBER_KINDS:  # refused now, not at compute()
                raise TypeError(f"{op}: {_label(solver, op, where)}: expected real numbers (float or integer), got a "
                                f"dask array of {value.dtype}")
            batched[where] = value
        elif value is not None and ndim is not None and (where[0] != "loads" or isinstance(value, np.ndarray)):
            array = np.asarray(value)  # a NumPy batch beside the dask ones (not a list of `Load`s)
            if array.ndim == ndim:
                batched[where] = array
    sizes = {int(value.shape[0]) for value in batched.values()}
    if len(sizes) > 1:
        raise ValueError(f"{op}: arguments have different batch sizes: {sorted(sizes)}")
    first = next(value for value in batched.values() if isinstance(value, da.Array))
    rows = first.chunks[0]
    if ("mask", None) in batched and batched["mask", None].dtype != np.bool_:
        raise TypeError(f"mask: expected a boolean array, got an array of {batched['mask', None].dtype}")
    columns = []
    for value in batched.values():
        if not isinstance(value, da.Array):  # cut into the same rows as the dask ones
            value = da.from_array(value, chunks=(rows,) + value.shape[1:])
        columns.append(value.reshape(value.shape[0], -1).rechunk((rows, -1)))
    # what every block gets as it is: the arguments without the batched ones (each block puts its rows there)
    args, loads, mask = _placed(args, loads, mask, dict.fromkeys(batched))
    shapes = [solver._output_shape(name) for name in names]
    widths = [int(np.prod(shape, dtype=int)) for shape in shapes]
    block = functools.partial(_block, solver, op, args, loads, mask, threads, names, tuple(batched),
                              tuple(value.shape[1:] for value in batched.values()))
    packed = da.map_blocks(block, *columns, dtype=np.float64, chunks=(rows, (sum(widths),)),
                           meta=np.empty((0, 0)), token=f"rbdgen-{op}")
    ends = np.cumsum([0] + widths)
    N = first.shape[0]
    return {name: packed[:, int(a):int(b)].reshape((N,) + shape)
            for name, shape, a, b in zip(names, shapes, ends[:-1], ends[1:])}


def _label(solver, op: str, where: tuple) -> str:
    """The name of argument ``where`` in messages."""
    position, field = where
    if isinstance(position, str):
        return position
    names = _positional(solver, op)
    name = names[position] if position < len(names) else "link"
    return f"{name} {field}" if field else name


def _placed(args: tuple, loads, mask, values: dict) -> tuple:
    """``(args, loads, mask)`` with the argument at each place ``where`` of ``values`` (see `_leaves`) replaced
    by its value."""
    args = list(args)
    for (position, field), value in values.items():
        if position == "loads":
            loads = value
        elif position == "mask":
            mask = value
        elif field is not None:
            args[position] = dataclasses.replace(args[position], **{field: value})
        else:
            args[position] = value
    return tuple(args), loads, mask


def _block(solver, op, args, loads, mask, threads, names, places, tails, *blocks, block_info=None):
    """One block: ``op`` on the rows of the batched arguments (``places``, their trailing shapes ``tails``),
    the other arguments as given; the outputs flattened side by side."""
    values = dict(zip(places, (b.reshape((b.shape[0],) + tail) for b, tail in zip(blocks, tails))))
    args, loads, mask = _placed(args, loads, mask, values)
    try:
        results = solver._results(op, args, loads, names, mask, 1 if threads is None else threads)
    except (ValueError, SolverError) as exc:
        start, stop = block_info[0]["array-location"][0] if block_info else (0, len(blocks[0]))
        raise type(exc)(f"states {start} to {stop - 1} of the batch: {exc}") from exc
    rows = blocks[0].shape[0]
    return np.concatenate([results[name].reshape(rows, -1) for name in names], axis=1)
