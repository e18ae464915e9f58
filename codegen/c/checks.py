"""The conditions of an operation's checks in C: the inputs it refuses on entry, the outputs it checks before it
returns (`function.Check`) and why an output has no check (`function.Bound`)."""

from __future__ import annotations

from .printer import int_table


def _when_given(p, test: str) -> str:
    """``test`` of parameter ``p``, only where it is given (not NULL) if it may be NULL."""
    return f"({p.name} != NULL && {test})" if p.optional else test


def invalid_inputs(prefix: str, params: list) -> str:
    """The condition under which an operation refuses its inputs: one of them is not finite (an optional one
    only when given)."""
    return " || ".join(_when_given(p, f"!{prefix}_finite({p.name}, {p.size})") for p in params if not p.output)


def checked_table(check) -> str:
    """The entries of an output that its finiteness check reads (`Check.at`)."""
    return int_table(f"checked_{check.param.name}", check.at)


def nonfinite_outputs(prefix: str, checks: list) -> str:
    """The condition under which stored outputs fail their finiteness check (`Check`)."""
    tests = []
    for c in checks:
        name = c.param.name
        terms = [f"{name} != NULL"] if c.param.optional else []
        if c.given:
            given = " || ".join(f"{q.name} != NULL" for q in c.given)
            terms.append(f"({given})" if len(c.given) > 1 else given)
        terms.append(f"!{prefix}_finite_at({name}, checked_{name}, {len(c.at)})" if c.at
                     else f"!{prefix}_finite({name}, {c.param.size})")
        test = " && ".join(terms)
        tests.append(f"({test})" if len(terms) > 1 and len(checks) > 1 else test)
    return " || ".join(tests)


def bound_comment(b) -> str:
    """Why an output has no finiteness check (`function.Bound`)."""
    where = f"without {' and '.join(b.given)}, " if b.given else ""
    then = (f"checked only where {' or '.join(b.given)} is given (always with -ffast-math)" if b.given
            else "no check (but with -ffast-math)")
    return (f"{b.name}: {where}every entry is finite and within +-{b.bound:.3g} for every input the checks accept "
            f"(range analysis, rbdgen.ir.ranges): {then}")
