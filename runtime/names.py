"""Strings from robot files in generated text: one rendering rule, and the rule for symbol prefixes.

A robot file is untrusted input, and its joint and link names end up in the
generated C (comments that list the joints, the comment of a check). `c_text` is
the one function that turns such a string into text for C: printable ASCII is
kept, except a backslash, a double quote and the characters that would start
or end a comment (``/*``, ``*/``) or a trigraph (``??``); every other byte of
the UTF-8 encoding is written as a three-digit octal escape (``\\ooo``). The
result is inert in a C comment (it cannot close it, splice a line or hold a
control character) and is a valid C string literal body that spells the same
bytes. It is a `CText`; `checked` is the test the C templates apply to every
value they print, so a raw name can never reach the generated C.

`check_prefix` is the rule for the symbol prefix (``prefix=``, or the robot's
name by default): it names every C symbol, macro, file and CasADi function of a
robot, so it must be a C identifier that no C or C++ rule reserves.
`default_prefix` makes any robot name into one.
`kernel_name` names a generated function (and its files and CasADi function) after
its operation and, for an operation on a link, the link.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .model import RobotModel

#: Longest prefix: long enough for any real robot name, short enough for file names
#: (``<prefix>_forward_dynamics_derivatives.c``) and linkers.
MAX_PREFIX = 48

#: Longest link name used in a generated function or file name (longer ones use the link id).
MAX_LINK_NAME = 64

#: Reserved words of C (C99 to C23) and C++ (to C++23): a prefix may not be one.
KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if inline int long
    register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
    alignas alignof bool constexpr false nullptr static_assert thread_local true typeof typeof_unqual
    asm catch char8_t char16_t char32_t class concept consteval constinit const_cast co_await co_return co_yield
    decltype delete dynamic_cast explicit export friend mutable namespace new noexcept operator private protected
    public reinterpret_cast requires static_cast template this throw try typeid typename using virtual wchar_t
    and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq
""".split())

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
#: Character pairs that may not appear next to each other in rendered text.
_PAIRS = ("/*", "*/", "??")


class CText(str):
    """Text that is inert in a C comment or string literal (made by `c_text` only)."""


def c_text(raw: str) -> CText:
    """``raw`` (any string, e.g. a name from a robot file) as inert C text; see the module docstring."""
    out = []
    for byte in str(raw).encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        last = out[-1][-1] if out else ""
        if 32 <= byte < 127 and ch not in '\\"' and last + ch not in _PAIRS:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return CText("".join(out))


def is_inert(text: str) -> bool:
    """True when ``text`` can be printed as it is into a C comment or string literal.

    Printable ASCII and newlines only, without a backslash, a double quote or any of ``/*``, ``*/``, ``??``.
    """
    return (all(32 <= ord(ch) < 127 or ch == "\n" for ch in text) and '"' not in text and "\\" not in text
            and not any(pair in text for pair in _PAIRS))


def checked(value):
    """What a C template prints for ``value``: a `CText` or a number as it is, any other string only if it is
    inert (`is_inert`); otherwise a ValueError: the caller forgot to render a name through `c_text`."""
    if isinstance(value, CText) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    if isinstance(value, str) and is_inert(value):
        return value
    raise ValueError(f"refusing to print {value!r} into generated C: render strings from robot files with "
                     "rbdgen.names.c_text")


def check_prefix(prefix, what: str = "prefix") -> str:
    """``prefix`` if it can name a robot's C symbols, files and CasADi functions; otherwise a ValueError
    that says what is allowed (``what`` names the value: ``prefix`` or the robot name)."""
    problem = None
    if not isinstance(prefix, str):
        problem = f"must be a string, not {type(prefix).__name__}"
    elif not _IDENTIFIER.match(prefix):
        problem = "must be a C identifier: an ASCII letter, then ASCII letters, digits and '_'"
    elif len(prefix) > MAX_PREFIX:
        problem = f"must have at most {MAX_PREFIX} characters (it has {len(prefix)})"
    elif "__" in prefix or prefix.endswith("_"):
        problem = "may not contain '__' or end with '_' (such C++ symbols are reserved)"
    elif prefix in KEYWORDS:
        problem = "is a C or C++ keyword"
    if problem:
        raise ValueError(f"{what} {prefix!r} {problem}; e.g. 'my_robot'")
    return prefix


def default_prefix(name: str) -> str:
    """A valid prefix (`check_prefix`) made from any robot name: every run of other characters becomes one
    '_', a name that starts with a digit or is a keyword gets ``robot`` added, and a long one is cut and
    ends in a short hash of the whole name. A valid name is its own prefix."""
    text = re.sub(r"[^A-Za-z0-9]+", "_", str(name)).strip("_") or "robot"
    if text[0].isdigit():
        text = "robot_" + text
    if text in KEYWORDS:
        text += "_robot"
    if len(text) > MAX_PREFIX:
        text = text[:MAX_PREFIX - 9].rstrip("_") + "_" + hashlib.sha256(str(name).encode()).hexdigest()[:8]
    return check_prefix(text)


def check_file_name(name, folder) -> str:
    """``name`` if it is a plain generated file name (``<identifier>.c`` or ``.h``), to be read from ``folder``;
    otherwise a ValueError: a manifest may not point outside its folder."""
    if not (isinstance(name, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*\.[ch]", name)):
        raise ValueError(f"{folder}: the manifest lists {name!r} as a source; sources are plain names "
                         "'<identifier>.c' or '.h' inside the folder")
    return name


def kernel_name(model: RobotModel, op: str, link: Optional[int] = None) -> str:
    """The generated function's name after the prefix: ``op``, or ``<op>_<link name>`` for a link.

    ``<op>_link<id>`` instead where the name is not ASCII letters and digits in words joined by single
    '_', is longer than `MAX_LINK_NAME`, or is itself ``link<number>`` in any case (so no name can equal
    another link's ``link<id>``, even but for case): names from a robot file become identifiers and file
    names only this way.
    """
    if link is None:
        return op
    name = model.links[link].name
    plain = (len(name) <= MAX_LINK_NAME and re.fullmatch(r"[A-Za-z0-9]+(_[A-Za-z0-9]+)*", name)
             and not re.fullmatch(r"link[0-9]+", name, re.IGNORECASE))
    return f"{op}_{name if plain else f'link{link}'}"


#: Longest robot-file name kept in a SymPy symbol name (`sympy_names`); longer ones use their index.
MAX_SYMBOL_NAME = 32


def sympy_names(raw_names, what: str) -> list:
    """Names from a robot file (joints, links) as the parts of SymPy symbol names (``q_<part>``): ASCII letters,
    digits and single '_' only (every run of other characters becomes one '_'), at most `MAX_SYMBOL_NAME`
    characters. A name that keeps nothing, is too long or would equal another one but for case becomes
    ``<what><index>`` (``joint3``; ``joint3_1``... where a kept name is that already)."""
    parts = [re.sub(r"[^A-Za-z0-9]+", "_", str(raw)).strip("_") for raw in raw_names]
    lowered = [p.lower() for p in parts]
    kept = [bool(p) and len(p) <= MAX_SYMBOL_NAME and lowered.count(p.lower()) == 1 for p in parts]
    taken = {p.lower() for p, keep in zip(parts, kept) if keep}
    names = []
    for k, (part, keep) in enumerate(zip(parts, kept)):
        name, n = part if keep else f"{what}{k}", 0
        while not keep and name.lower() in taken:
            n += 1
            name = f"{what}{k}_{n}"
        taken.add(name.lower())
        names.append(name)
    return names
