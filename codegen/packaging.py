"""Build integration written beside the generated C: a CMake project, a pkg-config file, a README.

The CMake project defines the static library target ``<prefix>::dynamics`` (for
``add_subdirectory`` and, once installed, ``find_package(<prefix>)``) and installs a
pkg-config file; the README gives the flags, the status codes, the stack each function
needs (where the manifest records it) and a call from C and from C++.
"""

from __future__ import annotations

import jinja2

from ..algorithms.operations import BASE, OPERATIONS
from ..build import DEFAULT_FLAGS
from ..errors import OK, STATUS

#: The flags the README recommends: the build's, without the optimisation level and debug options.
FLAGS = " ".join(f for f in DEFAULT_FLAGS if not f.startswith(("-O", "-g")))


def files(manifest: dict, sources: dict) -> dict:
    """``{file name: text}`` of the CMake project, pkg-config template and README for ``sources``.

    ``sources`` are the generated files: every ``.c`` goes into the library, every ``.h`` is installed.
    """
    prefix = manifest["prefix"]
    model = manifest["model"]
    operations = manifest["operations"]
    stack = {op: info["stack_bytes"] for op, info in operations.items() if "stack_bytes" in info}
    table = [["function", "inputs", "outputs"] + (["stack (bytes)"] if stack else [])]
    for op, info in operations.items():
        row = [f"`{prefix}_{op}`", ", ".join(info["inputs"]), ", ".join(info["outputs"])]
        table.append(row + ([str(stack.get(op, "?"))] if stack else []))
    env = jinja2.Environment(loader=jinja2.PackageLoader("rbdgen.templates", "cmake"), keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    context = dict(
        prefix=prefix,
        version=manifest["rbdgen"],
        real=manifest["precision"],
        J=manifest["sizes"]["q"],
        G=manifest["sizes"]["tau"],
        L=len(model["links"]),
        floating=model["floating"],
        sources=sorted(n for n in sources if n.endswith(".c")),
        headers=[f"{prefix}.h"],  # the public one; the sources' own header stays beside them
        flags=FLAGS,
        table=table,
        stack=stack,
        statuses=[(OK, "success", "—")] + [(code, error.reason, f"`{error.__name__}`")
                                            for code, error in STATUS.items() if error],
        example=_example(prefix, manifest),
    )
    return {
        "CMakeLists.txt": env.get_template("CMakeLists.txt.j2").render(context),
        f"{prefix}.pc.in": env.get_template("pkgconfig.pc.in.j2").render(context),
        "README.md": env.get_template("README.md.j2").render(context),
    }


def _example(prefix: str, manifest: dict) -> dict:
    """One call (the record marked `Operation.example`, inverse dynamics, where generated) with zero inputs,
    written for C and for C++."""
    shown = [op for op in manifest["operations"] if op in OPERATIONS and OPERATIONS[op].example]
    op = shown[0] if shown else next(iter(manifest["operations"]))
    info, size = manifest["operations"][op], manifest["sizes"]
    real = manifest["precision"]
    arrays = [n for n in info["inputs"] + info["outputs"] if n != "loads"]
    c = [f"{real} {name}[{size[name]}] = {{0}};" for name in arrays]
    cpp = [f"std::array<{real}, {size[name]}> {name}{{}};" for name in arrays]
    if "base" in arrays:  # identity orientation: w, the last of the quaternion (x, y, z, w), is 1
        w = BASE["quat"].stop - 1
        c.append(f"base[{w}] = 1;  /* base: translation, rotation (x, y, z, w), velocity, acceleration */")
        cpp.append(f"base[{w}] = 1;  // base: translation, rotation (x, y, z, w), velocity, acceleration")
    names = info["inputs"] + info["outputs"]
    return dict(
        op=op,
        result=info["outputs"][0],
        result_size=size[info["outputs"][0]],
        c_declarations=c,
        cpp_declarations=cpp,
        c_args=["NULL" if n == "loads" else n for n in names],
        cpp_args=["nullptr" if n == "loads" else f"{n}.data()" for n in names],
    )
