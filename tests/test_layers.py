"""The package's layers point one way (docs/design.md, "Layers"), read from the sources.

The import graph is built with `ast` from every module of ``rbdgen`` (runtime/) and
``rbdgen.codegen`` (codegen/): an import anywhere in a module counts, at the top, inside a
function (lazy) or under ``if TYPE_CHECKING``; ``from . import x`` is an edge to module ``x``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Each top-level package and its folder (pyproject.toml's package-dir).
FOLDERS = {"rbdgen": ROOT / "runtime", "rbdgen.codegen": ROOT / "codegen"}

#: The runtime's only imports of rbdgen.codegen, and why: none runs when rbdgen is imported (rbdgen.__main__
#: is run by ``python -m rbdgen``, never imported; the other is inside a function).
RUNTIME_TO_CODEGEN = {
    ("rbdgen.__main__", "rbdgen.codegen.cli"): "`python -m rbdgen` runs the rbdgen command",
    ("rbdgen", "rbdgen.codegen.generator"): "`rbdgen.generate`, imported when it is called",
    ("rbdgen", "rbdgen.codegen.symbolic"): "`rbdgen.symbolic`, imported when it is called",
}

#: What the modules of a core package may import beyond the package (modules, or packages and all they hold):
#: the algorithms the model layer, the IR the algorithms (the model through them).
CORE_IMPORTS = {"rbdgen.algorithms": ("rbdgen.spatial", "rbdgen.model", "rbdgen.errors"),
                "rbdgen.ir": ("rbdgen.algorithms",)}

#: The most lines a module of codegen/ has.
MAX_CODEGEN_LINES = 450


def _modules() -> dict:
    """Module name -> its file, for every module of the packages in `FOLDERS`."""
    modules = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if not all((folder.joinpath(*parts[:k]) / "__init__.py").is_file() for k in range(len(parts))):
                continue  # not in a package
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


MODULES = _modules()


def _imports(name: str, path: Path) -> list:
    """``(imported module, lazy)`` for each import of module ``name`` (``lazy``: inside a function)."""
    tree = ast.parse(path.read_text(), str(path))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    lazy = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]) if node.level else node.module
            base = base.rstrip(".")
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        found += [(t, id(node) in lazy) for t in targets if t in MODULES and t != name]
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _edges(name: str) -> set:
    return {target for target, _ in GRAPH[name]}


def _is_in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_graph_is_read():
    """The walk finds the layers and the edges everyone knows of (a test of the test)."""
    for module in ("rbdgen", "rbdgen.ir.trace", "rbdgen.algorithms.rnea", "rbdgen.codegen.casadi.sx",
                   "rbdgen.codegen.generator", "rbdgen.testing.references", "rbdgen.states"):
        assert module in MODULES, module
    assert "rbdgen.spatial" in _edges("rbdgen.algorithms.rnea")  # from .. import spatial as sp
    assert "rbdgen.algorithms.coordinates" in _edges("rbdgen.algorithms.minv")  # from . import coordinates
    assert {"rbdgen.ir.optimize", "rbdgen.ir.trace"} <= _edges("rbdgen.codegen.generator")
    assert ("rbdgen.codegen.generator", True) in GRAPH["rbdgen"]  # lazy


def test_no_import_cycles():
    """No module imports itself through others (Tarjan's strongly connected components)."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):  # depth is bounded by the longest import chain
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(_edges(v)):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in sorted(MODULES):
        if name not in index:
            visit(name)
    assert cycles == []


def test_runtime_never_imports_codegen():
    """The runtime (rbdgen, rbdgen.algorithms, rbdgen.ir...) imports rbdgen.codegen only where
    `RUNTIME_TO_CODEGEN` lists it, never when rbdgen is imported."""
    found = {(name, target): lazy for name in MODULES if not _is_in(name, "rbdgen.codegen")
             for target, lazy in GRAPH[name] if _is_in(target, "rbdgen.codegen")}
    assert set(found) == set(RUNTIME_TO_CODEGEN)
    assert [edge for edge, lazy in found.items() if not lazy] == [("rbdgen.__main__", "rbdgen.codegen.cli")]
    assert [name for name in MODULES if "rbdgen.__main__" in _edges(name)] == []


def test_production_never_imports_testing():
    """rbdgen.testing (references, comparisons) supports the tests and the benchmarks; nothing else imports it."""
    found = [(name, target) for name in MODULES if not _is_in(name, "rbdgen.testing")
             for target in _edges(name) if _is_in(target, "rbdgen.testing")]
    assert found == []


@pytest.mark.parametrize("package", sorted(CORE_IMPORTS))
def test_core_imports_only_the_layers_above(package):
    """The algorithms are written over `ScalarOps` and the IR over the algorithms: neither imports a
    backend, a solver or the build."""
    allowed = (package, *CORE_IMPORTS[package])
    found = [(name, target) for name in MODULES if _is_in(name, package)
             for target in _edges(name) if not any(_is_in(target, a) for a in allowed)]
    assert found == []


def test_codegen_modules_are_small():
    sizes = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()
             if _is_in(name, "rbdgen.codegen")}
    assert {name: n for name, n in sizes.items() if n > MAX_CODEGEN_LINES} == {}
