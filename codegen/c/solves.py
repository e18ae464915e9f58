"""The solves of the generated C: which copy of the checked Cholesky solve a call uses, and the tree-sparse
LTDL solve kernels, planned by a cost model (`ltdl_plan`) and described for templates/c/ltdl.c.j2
(`ltdl_kernel`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...algorithms.ltdl import ancestors
from ...ir.trace import Call, Expr
from .printer import ltdl_name, solve_tag

#: Checked solves of at most this many unknowns get a copy of the solver with the sizes fixed (`cholesky_copy`):
#: small solves run faster unrolled, larger ones no faster and compile longer (docs/benchmarks.md, "Decisions
#: of the C backend").
FIXED_SOLVE_MAX = 20


@dataclass(frozen=True)
class CholeskyCopy:
    """A copy of the checked solve (templates/c/cholesky.c.j2): with the sizes ``n`` x ``m`` fixed, whose loops
    the compiler unrolls completely, or (None) the generic solver, which takes the sizes as arguments."""

    n: Optional[int] = None
    m: Optional[int] = None

    @property
    def tag(self) -> str:
        """The suffix of its functions: ``<prefix>_cholesky_solve<tag>``."""
        return solve_tag(self.n, self.m)


def cholesky_copy(call: Call) -> CholeskyCopy:
    """The copy of the solver that ``call`` uses: its own sizes up to `FIXED_SOLVE_MAX` unknowns, else generic."""
    n, m = len(call.A), len(call.B)
    return CholeskyCopy(n, m) if n <= FIXED_SOLVE_MAX else CholeskyCopy()


#: Columns a `TreeSolve` kernel solves at a time (each row's in local accumulators) and the measured time (ns)
#: of one column in a block that wide (G1's pattern, GCC 12 -O3 -march=native; docs/benchmarks.md, "Decisions
#: of the C backend"): the cost model of `ltdl_plan`.
LTDL_WIDTHS = {32: 42, 16: 53, 8: 79}

#: The kernel of an inverse (`LtdlPlan.inverse`: M^-1, the task-space inertia's 6 x 6) whose sweeps take at
#: most this many terms ``x_k -= L_kj x_j`` (all its blocks), in blocks at most 16 wide, is written out with
#: its rows and entries as constants (`LtdlBlock.up`, `LtdlBlock.sweep`), without the tables and their loops:
#: GCC then loads no indices. Written out, a block wider than 16 ran slower, and so did the contact solves'
#: kernels; larger kernels keep the tables, as code written out grows with its terms (docs/benchmarks.md,
#: "Decisions of the C backend").
LTDL_UNROLL_MAX = 2000


@dataclass(frozen=True)
class LtdlPlan:
    """How a `TreeSolve` kernel lays out and sweeps its columns (`ltdl_plan`).

    ``order``: the solve's columns in array order (array column ``p`` holds column ``order[p]``);
    ``blocks``: ``(width, rows)`` from the first array column on, ``rows`` the ascending rows the L^T
    sweep visits for every column of the block (the array's columns past the last column are padding);
    ``down``: for each block, the ascending rows its D^-1 and L sweep visits (the rows of its columns'
    solutions that are read, with their ancestors; the others are left unsolved); ``entries``: for each row k,
    the ancestors j whose ``L_kj`` the sweeps use, nearest first (those not a structural zero)."""

    n: int
    lam: tuple
    order: tuple
    blocks: tuple
    down: tuple
    entries: tuple
    inverse: bool = False  # the columns are the identity's, in order: the solve inverts the matrix

    @property
    def columns(self) -> int:
        """The columns of the array, padding included."""
        return sum(width for width, _ in self.blocks)


def column_rows(lam, column) -> frozenset:
    """The rows of ``column`` that the L^T sweep (from the leaves) can make non-zero: its entries that are
    not structural zeros and their ancestors (``x_j -= L_kj x_k`` reaches only ancestors j of k)."""
    return read_rows(lam, [isinstance(value, Expr) or value != 0 for value in column])


def read_rows(lam, read) -> frozenset:
    """The rows the D^-1 and L sweep (from the root) visits for a column whose solution is ``read`` at the rows
    marked True: those rows and their ancestors (``x_k`` needs ``x_j`` of the ancestors j of k only)."""
    rows = set()
    for k, wanted in enumerate(read):
        if wanted:
            rows.add(k)
            rows.update(ancestors(lam, k))
    return frozenset(rows)


def _block_cost(width: int, rows, down, lam, dense: int) -> float:
    """The modelled time of one block: `LTDL_WIDTHS` (a block that sweeps every row twice) scaled by the terms
    and rows it sweeps: the L^T sweep visits ``rows`` and their terms among them, D^-1 and L the rows ``down``
    and all their terms (``dense``: the rows and terms of a whole sweep)."""
    inside = set(rows)
    upward = sum(1 + sum(1 for j in ancestors(lam, k) if j in inside) for k in rows)
    downward = sum(1 + sum(1 for _ in ancestors(lam, k)) for k in down)
    return width * LTDL_WIDTHS[width] * (downward + upward) / (2 * dense)


def ltdl_plan(lam, columns, read=None, L=None) -> LtdlPlan:
    """The columns of a `TreeSolve` in blocks of `LTDL_WIDTHS` at the least modelled cost (`_block_cost`).

    A column whose non-zero entries lie in one branch (a Jacobian column of a leg joint, the identity's
    column of a joint) stays zero outside those rows and their ancestors during the L^T sweep, so a block
    of such columns sweeps only the union of their rows (D^-1 and L fill every row). The columns are
    ordered by their sorted rows, descending (a branch's columns, whose rows follow their common ancestors',
    come together; a column that reaches every row comes before the columns whose rows are a prefix of its
    own), and cut into blocks by dynamic programming over that order.

    ``read``: for each column, whether each row of its solution is read (default: every row). A block's
    D^-1 and L sweep visits only the rows its columns' read rows need (`read_rows`); the columns are first
    ordered by those, the most rows first (M^-1's columns, read at the rows before them depth first,
    `minv.symmetric_inverse`: a column's rows hold those of the columns after it).

    ``L``: the factor's rows (``L[k][j]`` for the ancestors j of k); its structural zeros are left out of the
    sweeps (the contact rows of `contact_derivatives`' KKT factor are ancestors of every coordinate, but couple
    only with the coordinates on their paths). None: every entry.
    """
    n = len(lam)
    rows = [column_rows(lam, column) for column in columns]
    down = [read_rows(lam, wanted) for wanted in read] if read is not None else [frozenset(range(n))] * len(columns)
    dense = n + sum(len(list(ancestors(lam, k))) for k in range(n))
    order = sorted(range(len(columns)), key=lambda c: (len(down[c]), sorted(down[c]), sorted(rows[c])), reverse=True)
    m = len(order)
    best = [(float("inf"), None)] * m + [(0.0, None)]  # the least cost of columns i.. on, and its first block
    for i in reversed(range(m)):
        for width in sorted(LTDL_WIDTHS, reverse=True):  # on a tie the widest block first
            j = min(i + width, m)
            rows_ij = tuple(sorted(frozenset().union(*(rows[c] for c in order[i:j]))))
            down_ij = tuple(sorted(frozenset().union(*(down[c] for c in order[i:j]))))
            cost = _block_cost(width, rows_ij, down_ij, lam, dense) + best[j][0]
            if cost < best[i][0]:
                best[i] = (cost, (width, rows_ij, down_ij, j))
    blocks, swept, i = [], [], 0
    while i < m:
        width, rows_ij, down_ij, i = best[i][1]
        blocks.append((width, rows_ij))
        swept.append(down_ij)
    entries = tuple(tuple(j for j in ancestors(lam, k) if L is None or isinstance(L[k][j], Expr) or L[k][j] != 0)
                    for k in range(n))
    inverse = len(columns) == n and all(not isinstance(v, Expr) and v == (r == c)
                                        for c, column in enumerate(columns) for r, v in enumerate(column))
    return LtdlPlan(n, tuple(lam), tuple(order), tuple(blocks), tuple(swept), entries, inverse)


def ltdl_kernel_name(prefix: str, index: int, plan: LtdlPlan) -> str:
    """The C function of `ltdl_kernel`: one per `TreeSolve` of an operation (``index``), static in its source."""
    return ltdl_name(prefix, index, plan.n, plan.columns)


@dataclass
class LtdlBlock:
    """A run of ``count`` blocks of ``width`` columns from column ``first`` on, whose L^T sweeps visit the same
    rows: ``rows[row_first .. row_last)`` of the kernel's tables, and whose D^-1 and L sweeps the same rows:
    ``down[down_first .. down_last)``, or (``down_first`` None) every row."""

    first: int
    count: int
    width: int
    row_first: int
    row_last: int
    down_first: Optional[int] = None
    down_last: Optional[int] = None
    up: Optional[tuple] = None  # unrolled (`LTDL_UNROLL_MAX`): the L^T sweep, (k, ((L entry, i), ...)) a row
    sweep: Optional[tuple] = None  # ... and the D^-1 and L sweep, (k, ((L entry, j), ...)) a row

    @property
    def end(self) -> int:
        """The column after the run."""
        return self.first + self.count * self.width


@dataclass(frozen=True)
class LtdlTable:
    """A constant table of a kernel (an empty one holds a single unread 0: C has no empty arrays)."""

    name: str
    comment: str
    values: tuple


@dataclass(frozen=True)
class LtdlKernel:
    """The kernel of one `TreeSolve` for templates/c/ltdl.c.j2: ``n`` rows, ``m`` array columns."""

    name: str
    n: int
    m: int
    blocks: tuple  # `LtdlBlock`s
    tables: tuple  # `LtdlTable`s


def ltdl_kernel(prefix: str, index: int, plan: LtdlPlan) -> LtdlKernel:
    """The kernel of the `TreeSolve` ``index`` by ``plan``."""
    n, m = plan.n, plan.columns
    above, above_start, position = [], [], {}
    for k in range(n):
        above_start.append(len(above))
        for j in plan.entries[k]:
            position[k, j] = len(above)
            above.append(j)
    above_start.append(len(above))
    rows, below, below_entry, below_start, down, blocks, first = [], [], [], [], [], [], 0
    for (width, visited), swept in zip(plan.blocks, plan.down):
        last = blocks[-1] if blocks else None
        every = len(swept) == n
        if (last and last.width == width and tuple(rows[last.row_first:last.row_last]) == tuple(reversed(visited))
                and (last.down_first is None if every else tuple(down[last.down_first:last.down_last]) == swept)):
            last.count += 1
        else:
            start = len(rows)
            for k in reversed(visited):
                rows.append(k)
                below_start.append(len(below))
                for i in reversed(visited):
                    if (i, k) in position:
                        below.append(i)
                        below_entry.append(position[i, k])
            blocks.append(LtdlBlock(first, 1, width, start, len(rows)))
            if not every:
                blocks[-1].down_first = len(down)
                down.extend(swept)
                blocks[-1].down_last = len(down)
        first += width
    below_start.append(len(below))
    if plan.inverse and max(block.width for block in blocks) <= 16:  # written out where small (`LTDL_UNROLL_MAX`)
        written = []  # each block's sweeps: (up, sweep) as `LtdlBlock` holds them
        for block in blocks:
            swept = range(n) if block.down_first is None else down[block.down_first:block.down_last]
            written.append((tuple((rows[t], tuple((below_entry[p], below[p])
                                                  for p in range(below_start[t], below_start[t + 1])))
                                  for t in range(block.row_first, block.row_last) if below_start[t] < below_start[t + 1]),
                            tuple((k, tuple((p, above[p]) for p in range(above_start[k], above_start[k + 1])))
                                  for k in swept)))
        if sum(len(row) for sweeps in written for sweep in sweeps for _, row in sweep) <= LTDL_UNROLL_MAX:
            for block, (up, sweep) in zip(blocks, written):
                block.up, block.sweep = up, sweep
            return LtdlKernel(ltdl_kernel_name(prefix, index, plan), n, m, tuple(blocks), ())
    tables = [("above", "the ancestors j of each row k (L_kj not a structural zero), nearest first: L_kj is L[p]",
               above),
              ("above_start", "row k's entries: above_start[k] to above_start[k + 1]", above_start),
              ("rows", "the rows each block's L^T sweep visits, descending", rows),
              ("below", "the descendants i among them of each visited row rows[t], descending", below),
              ("below_entry", "L_ik is L[below_entry[p]]", below_entry),
              ("below_start", "rows[t]'s descendants: below_start[t] to below_start[t + 1]", below_start)]
    if down:
        tables.append(("down", "the rows each block's D^-1 and L sweep visits, ascending (the others: every row)", down))
    return LtdlKernel(ltdl_kernel_name(prefix, index, plan), n, m, tuple(blocks),
                      tuple(LtdlTable(name, comment, tuple(values or [0])) for name, comment, values in tables))

