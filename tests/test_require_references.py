"""``RBDGEN_REQUIRE_REFERENCES=1`` turns a skip for a missing reference into a failure (`require_references`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _run(folder: Path, required: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(TESTS), "RBDGEN_REQUIRE_REFERENCES": "1" if required else "0"}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "require_references", "-p", "no:cacheprovider",
                           "-q", "-rfEs", "--continue-on-collection-errors", str(folder)], cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_a_missing_reference_fails_only_when_required(tmp_path):
    (tmp_path / "test_module.py").write_text("import pytest\npytest.importorskip('rbdgen_no_such_reference')\n"
                                             "def test_a():\n    pass\n")
    (tmp_path / "test_function.py").write_text("import pytest\ndef test_b():\n"
                                               "    pytest.importorskip('rbdgen_no_such_reference')\n"
                                               "def test_c():\n    pytest.skip('no C compiler')\n")
    skipped = _run(tmp_path, required=False)
    assert skipped.returncode == 0 and "3 skipped" in skipped.stdout, skipped.stdout
    failed = _run(tmp_path, required=True)
    assert failed.returncode != 0, failed.stdout
    assert "ERROR test_module.py - RBDGEN_REQUIRE_REFERENCES=1" in failed.stdout, failed.stdout
    assert "FAILED test_function.py::test_b - RBDGEN_REQUIRE_REFERENCES=1" in failed.stdout, failed.stdout
    assert "1 skipped" in failed.stdout  # a skip for another reason stays a skip
