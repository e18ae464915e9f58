"""Stack accounting of the generated C: the bound each function states (``<PREFIX>_STACK_<OP>``), which a test
measures (-fstack-usage)."""

from __future__ import annotations

from ...ir.trace import Call

#: Bytes allowed per call level for what a function does not name (saved registers, the return address, loop
#: counters, pointers), and the call levels below an operation (the checked solve and its helpers, or the
#: checks; at -O0 none of them is inlined).
FRAME, LEVELS = 256, 3
#: Bytes for the sine and cosine kernels (templates/c/sincos.c.j2) in double precision: their frames together,
#: GCC -O0, are 1,480 bytes in each source (the deepest chain 904: four angles, two, one, its out-of-line rare
#: case, which every source holds, and its end), and a split operation's own source holds them beside its part's.
SINCOS_FRAMES = 2304
#: Bytes for the pair helpers (templates/c/twins.c.j2) where a function computes twins' pairs: their frames
#: together, GCC -O0, are 144 bytes in vector registers, 408 in the struct (RBDGEN_SCALAR_PAIRS), in each source
#: computing pairs (a split operation's parts, not its own source).
PAIR_FRAMES = 512


def tree_solve_arrays(plan) -> int:
    """Reals in the arrays of one `TreeSolve` laid out by ``plan`` (`Printer.tree_solve`): L, Dinv, the
    columns."""
    return max(sum(len(above) for above in plan.entries), 1) + plan.n + plan.n * plan.columns


def call_arrays(call: Call) -> int:
    """Reals in the arrays of one checked solve (`Printer.cholesky_solve`): A, b, x and the work space."""
    n, m = len(call.A), len(call.B)
    return n * n + 2 * n * m + n * n + 4 * n


def part_frame(printer, arrays: int, checks: bool) -> int:
    """Reals in the frame of one part: the scalars and pairs (two each) its ``printer`` named, its solves'
    ``arrays`` and, with ``checks``, ``status`` (an int, padded to 16 bytes at -O0)."""
    return len(printer.names) + 2 * len(printer.vectors) + printer.checked + arrays + 2 * checks


def stack_bound(fn, frame: int, size: int, trig: bool = False, pairs: bool = False) -> int:
    """Bytes of stack ``fn`` (a `CFunction`) needs at most: the reals of its largest part's ``frame``
    (`part_frame`: one slot each, what an unoptimised build gives them; an optimising compiler keeps most in
    registers) and of the array ``w`` that hands values from part to part, plus `FRAME` bytes for each of
    1 + `LEVELS` call levels (one more for split functions, which call their parts) and, in double precision
    (``trig``: the sources hold the sine and cosine kernels), `SINCOS_FRAMES`; with ``pairs`` (it computes
    twins' pairs), `PAIR_FRAMES`."""
    return (size * (frame + fn.handover) + FRAME * (1 + LEVELS + fn.split) + (SINCOS_FRAMES if trig else 0)
            + (PAIR_FRAMES if pairs else 0))
