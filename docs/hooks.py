"""MkDocs hooks of the rbdgen site.

* The package's folders are mapped (``runtime/`` is ``rbdgen``, ``codegen/`` is
  ``rbdgen.codegen``, ...; ``[tool.setuptools.package-dir]`` in pyproject.toml), so the
  API reference reads a copy of the sources laid out as the installed package,
  ``build/docs-src/rbdgen`` (``paths`` of mkdocstrings in mkdocs.yml). Copies, not links:
  the reader resolves links, and a resolved path under the repository root would let an
  editable install's mapping (``rbdgen`` -> ``runtime/``) decide which module it is.
* The benchmark chart is served from where the benchmark writes it (one copy).
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "benchmarks" / "results" / "results.png"
PACKAGE_TREE = ROOT / "build" / "docs-src"


def on_config(config):
    package_dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    shutil.rmtree(PACKAGE_TREE, ignore_errors=True)
    for package, folder in sorted(package_dirs.items()):  # parents first
        target = PACKAGE_TREE.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for module in (ROOT / folder).glob("*.py"):  # subpackages are entries of their own
            shutil.copyfile(module, target / module.name)
    return config


def on_files(files, config):
    files.append(File.generated(config, "results.png", abs_src_path=str(CHART)))  # where results.md links it
    return files
