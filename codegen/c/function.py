"""What the C templates receive: one generated operation (`CFunction`), its parts, parameters and checks."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Param:
    name: str
    size: int
    output: bool
    optional: bool
    doc: str
    restrict: bool = False  # no other parameter reaches its memory (C99 ``restrict``)


@dataclass
class Line:
    """One line of a part's body: a statement, a comment (`names.c_text`) after it, or both."""

    code: str
    comment: str = ""


@dataclass
class Store:
    """The statements that store an output's entries (within ``if (output != NULL)`` where ``optional``)."""

    output: str
    optional: bool
    lines: list


@dataclass
class OptionalBlock:
    """The variables of the terms linear in an optional input, zero when it is NULL."""

    input: str
    declarations: list


@dataclass
class Part:
    """Statements of an operation, in one function: the operation itself, or one of the parts it calls."""

    name: str = ""  # the part's function after the prefix (`printer.part_name`); empty: the operation itself
    params: list = field(default_factory=list)  # the operation's parameters that it reads or writes
    body: list = field(default_factory=list)  # `Line`s
    stores: list = field(default_factory=list)  # `Store`s
    optional_blocks: list = field(default_factory=list)  # `OptionalBlock`s
    solves: set = field(default_factory=set)  # the `solves.CholeskyCopy` of each checked solve it calls
    tree_solves: dict = field(default_factory=dict)  # index of each `TreeSolve` it runs -> its `LtdlPlan`
    checks: bool = False  # it has checks (guards, solves): ``status`` keeps the first failing one's, to its end
    hands: bool = False  # it writes values to ``w``, through ``hand``: volatile, so that GCC's SLP vectoriser does not
    # pair stores to neighbouring slots (a pair's values, computed far apart, would both stay live until the store)


@dataclass
class Check:
    """An output's finiteness check after storing: of every entry, or only of the entries ``at`` (one per
    distinct computed value) where the others are constants, inputs (checked on entry) or repeats, and are at
    least as many (a Jacobian's columns off the link's path are zero), in an operation of one part. A split
    operation's check reads every entry, contiguous memory four values at a time: its parts stored them long
    before, while wide loads of values just stored one by one wait for the stores (docs/generated-c.md, "Compiler
    flags and the checks")."""

    param: Param
    at: tuple = ()
    given: tuple = ()  # `Param`s of optional inputs: checked only where one of them is given (without them the
    # entries are bounded, `ranges.bounded_outputs`)


@dataclass
class Bound:
    """An output the range analysis (`rbdgen.ir.ranges`) proves finite, every entry within ``bound`` in
    magnitude: no finiteness check (``given``: only where these optional inputs are not given)."""

    name: str
    bound: float
    given: tuple = ()


@dataclass
class CFunction:
    """One generated operation, ready for the templates: its statements in one `Part`, or split into several
    (each in a source of its own, `layout.PART_STEPS`) that hand values over in the array ``w``."""

    op: str
    params: list
    parts: list = field(default_factory=list)
    checked: list = field(default_factory=list)  # `Check` of each output whose finiteness is checked after storing
    bounded: list = field(default_factory=list)  # `Bound` of each output proven finite, with no check (or fewer)
    invalid: str = ""  # the condition under which the inputs are refused
    nonfinite: str = ""  # the condition under which the checked outputs fail
    fail: str = ""  # statement that zeroes the outputs on a failed check
    counts: dict = field(default_factory=dict)
    handover: int = 0  # reals in ``w``: the values a part computes for a later one
    stack: int = 0  # bytes, see `stack.stack_bound`
    summary: str = ""
    doc: str = ""
    calls: str = ""  # the operation whose function computes this one's results, called as it is (`render`)
    statuses: tuple = ()  # the names of the statuses it can return (`render.returned_statuses`)

    @property
    def split(self) -> bool:
        return len(self.parts) > 1
