"""The command line's options as `rbdgen.generate`'s and the loaders' arguments, and the errors of those
arguments as the option that caused them (`UsageError`, exit 2)."""

from __future__ import annotations

from ..builder import TRAVERSALS
from ..contacts import Contact
from ..mjcf import is_mjcf
from ..names import check_prefix


class UsageError(Exception):
    """A malformed command-line option (exit 2)."""


def _pairs(items, option: str, separator: str = "="):
    """{name: value} of ``NAME<separator>VALUE`` items (None when there are none)."""
    out = {}
    for item in items or ():
        name, sep, value = item.partition(separator)
        if not sep or not name:
            raise UsageError(f"{option} expects NAME{separator}VALUE, got {item!r}")
        out[name] = value
    return out or None


def _armature(items):
    pairs = _pairs(items, "--armature") or {}
    for name, value in pairs.items():
        try:
            pairs[name] = float(value)
        except ValueError:
            raise UsageError(f"--armature {name}={value}: the value is not a number") from None
    return pairs or None


def prefix_option(prefix):
    """``--prefix`` if it is valid (None: the robot's name, made valid by the generator)."""
    try:
        return None if prefix is None else check_prefix(prefix)
    except ValueError as exc:
        raise UsageError(f"--{exc}") from None


#: Options of URDF files only (an MJCF file says these itself), with what MJCF does instead.
URDF_ONLY = {"joint_order": "the joint order is MuJoCo's", "armature": "the armature is the file's",
             "xacro_arg": "no xacro", "package_path": "no xacro", "trust_xacro": "no xacro"}


def load_options(args) -> dict:
    """`load_robot`'s options for ``args.robot``: `load_mjcf`'s for MJCF (a ``<mujoco>`` root), else `load_urdf`'s."""
    if is_mjcf(args.robot):
        given = [name for name in URDF_ONLY if getattr(args, name) is not None]
        if given:
            raise UsageError(f"--{given[0].replace('_', '-')} applies to URDF files; {args.robot} is MJCF "
                             f"({URDF_ONLY[given[0]]})")
        return dict(floating=args.floating, gravity=args.gravity, **_inertia(args))
    order = args.joint_order
    if order is not None and len(order) == 1 and order[0] in TRAVERSALS:
        order = order[0]
    gravity = {} if args.gravity is None else {"gravity": tuple(args.gravity)}
    return dict(floating=bool(args.floating), joint_order=order, armature=_armature(args.armature),
                xacro_args=_pairs(args.xacro_arg, "--xacro-arg", ":="),
                package_paths=_pairs(args.package_path, "--package-path"), trust_xacro=args.trust_xacro,
                **gravity, **_inertia(args))


def _inertia(args) -> dict:
    """The ``inertia`` load option when ``--inertia`` is given (else the loader's default)."""
    return {} if args.inertia is None else {"inertia": args.inertia}


def contact_options(args) -> dict:
    """``generate``'s contact options from ``--contact``, ``--baumgarte``, ``--damping`` and ``--restitution``."""
    try:
        contacts = [Contact.parse(spec) for spec in args.contact or ()]
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--contact: {exc}") from None
    return {"contacts": contacts, "baumgarte": tuple(args.baumgarte), "damping": args.damping,
            "restitution": args.restitution, "actuated": tuple(args.actuated or ())}


def parameters_option(links):
    """``--parameters``: None, "all" or the link names."""
    return "all" if links == ["all"] else links


def generate_option_error(args, message: str):
    """``generate``'s ValueError as the option that caused it, or None where no option explains it."""
    if args.parameters is not None and message.startswith("parameters:"):
        return f"--{message}"
    if message.startswith("baumgarte, damping and restitution need"):
        return "--baumgarte, --damping and --restitution need --contact LINK (or a model with closed loops)"
    for option in ("baumgarte", "damping", "restitution", "actuated"):
        if message.startswith(option):
            return f"--{message}"
    if args.contact and ("link" in message or "contacts" in message):
        odd = [spec for spec in args.contact if ":" in spec.partition("@")[0]]
        hint = f" (a kind after ':' is point or frame: {odd})" if odd and "unknown link" in message else ""
        return f"--contact: {message}{hint}"
    if args.frames is not None and "link" in message:
        return f"--frames: {message}"
    return None
