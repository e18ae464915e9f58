"""An operation's name is spelled in at most two code files: its record (`rbdgen.algorithms.operations`) and
its algorithm; every other module reads the record's fields (issue 23: the registry drives the API edge).

Spelled means a string constant equal to the name or a ``def`` of it, in the package's production code
(``runtime/`` and ``codegen/``). Not counted, on principle:

* ``runtime/testing/``: test support (random states, comparisons, and the reference adapters, named after
  the operation they check on purpose so that the tests find them by that name), as are the tests;
* prose: a name inside a longer string (an error message, a doc string) is not a use;
* generated files: the stub ``runtime/operation_methods.pyi`` (a ``.pyi``, not read here) and ``generated/``;
* `HOMONYMS`: a word that is an operation's name and also, there, the name of something else.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from rbdgen.algorithms.operations import OPERATIONS

ROOT = Path(__file__).resolve().parents[1]

#: Files where an operation's name means something else: ``gravity`` is also the model's gravity vector
#: (`RobotModel.gravity`, the URDF/MJCF attribute and the ``--gravity`` option, `cli_options`).
HOMONYMS = {"gravity": {"runtime/model.py", "runtime/urdf_schema.py", "codegen/cli_options.py"}}



def _production_files() -> list:
    files = [p for top in ("runtime", "codegen") for p in (ROOT / top).rglob("*.py")]
    return [p for p in files if "testing" not in p.relative_to(ROOT).parts]


def _spellings() -> dict:
    """``{operation: {file, ...}}`` of the files that spell it."""
    names, found = set(OPERATIONS), defaultdict(set)
    for path in _production_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and node.value in names:
                found[node.value].add(path.relative_to(ROOT).as_posix())
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
                found[node.name].add(path.relative_to(ROOT).as_posix())
    return found


def test_an_operation_name_is_spelled_in_its_record_and_its_algorithm_only():
    found = _spellings()
    record = "runtime/algorithms/operations.py"
    wrong = {}
    for name in OPERATIONS:
        files = found[name] - HOMONYMS.get(name, set())
        assert record in files, f"{name}: its record does not spell it (the test reads the wrong files)"
        algorithm = files - {record}
        if len(algorithm) > 1 or not all(f.startswith("runtime/algorithms/") for f in algorithm):
            wrong[name] = sorted(files)
    assert not wrong, ("operation names spelled outside their record and algorithm (read a record field "
                       f"instead): {wrong}")


def test_the_exceptions_are_still_needed():
    """An exception listed above that no longer applies is removed from the list."""
    found = _spellings()
    for name, files in HOMONYMS.items():
        assert files <= found[name], f"{name}: no longer spelled in {sorted(files - found[name])}"
