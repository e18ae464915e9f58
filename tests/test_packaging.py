"""Packaging: the wheel holds the package `rbdgen` and nothing else; the installed package imports anywhere."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{result.stdout}\n{result.stderr}")
    (path,) = out.glob("rbdgen-*.whl")
    return zipfile.ZipFile(path)


def test_wheel_installs_only_rbdgen(wheel):
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert tops == {"rbdgen", next(t for t in tops if t.endswith(".dist-info"))}
    names = set(wheel.namelist())
    for required in ("rbdgen/__init__.py", "rbdgen/algorithms/rnea.py", "rbdgen/codegen/generator.py",
                     "rbdgen/templates/c/operation.c.j2", "rbdgen/templates/c/cholesky.c.j2",
                     "rbdgen/templates/c/checks.c.j2", "rbdgen/states.py", "rbdgen/ir/trace.py",
                     "rbdgen/codegen/casadi/sx.py",
                     "rbdgen/templates/cmake/CMakeLists.txt.j2", "rbdgen/templates/cmake/README.md.j2",
                     "rbdgen/templates/cmake/pkgconfig.pc.in.j2", "rbdgen/generated/panda/CMakeLists.txt",
                     "rbdgen/generated/panda/panda.pc.in", "rbdgen/generated/panda/README.md",
                     "rbdgen/generated/panda/panda_gravity.c", "rbdgen/generated/solo/solo.h", "rbdgen/__main__.py"):
        assert required in names, required
    modules = {f"rbdgen/{inside}{path.relative_to(ROOT / folder).as_posix()}"
               for folder, inside in (("runtime", ""), ("codegen", "codegen/")) for path in (ROOT / folder).rglob("*.py")}
    assert modules <= names, f"modules missing from the wheel (pyproject.toml's packages): {sorted(modules - names)}"
    assert not any(n.startswith(("codegen/", "runtime/", "tests/", "templates/")) for n in names)


def test_wheel_metadata_keeps_the_runtime_light(wheel):
    (meta,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    text = wheel.read(meta).decode()
    required = [line.split(":", 1)[1].strip() for line in text.splitlines()
                if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert sorted(r.split(">")[0].split("=")[0].strip() for r in required) == ["cffi", "defusedxml", "numpy",
                                                                            "platformdirs"]
    assert "Provides-Extra: codegen" in text and "Provides-Extra: test" in text


def test_import_from_another_folder_needs_no_codegen(tmp_path):
    """`import rbdgen` (and the NumPy engine, with its straight-line path for single states: rbdgen.ir) from
    elsewhere, with jinja2, casadi and rbdgen.codegen blocked."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('jinja2', 'casadi') or name.startswith('rbdgen.codegen'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import numpy as np, rbdgen, importlib.resources as r\n"
        "m = rbdgen.load_urdf(str(r.files('rbdgen.generated') / 'panda' / 'panda.urdf'))\n"
        "s = rbdgen.NumpySolver(m)\n"
        "M = [s.mass_matrix(np.zeros(7)) for _ in range(s.trace_after + 1)]\n"
        "print(M[-1].shape, [k is not None for k in s._kernels.values()], abs(M[-1] - M[0]).max())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(7, 7) [True] 0.0"  # traced, and the same values as the NumPy pass
