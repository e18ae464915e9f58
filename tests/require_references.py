"""A pytest plugin (its hooks are imported by ``tests/conftest.py``): with ``RBDGEN_REQUIRE_REFERENCES=1``
(set by ``.ci/run``), a test or a module skipped by `pytest.importorskip` because a module (a reference:
Pinocchio, dynibo, MuJoCo, adam, CasADi ...) cannot be imported fails instead of skipping.
"""

from __future__ import annotations

import os

import pytest


def _required(report) -> None:
    """A report skipped by `pytest.importorskip` ("could not import ...") failed, where references are required."""
    if os.environ.get("RBDGEN_REQUIRE_REFERENCES") == "1" and report.skipped \
            and "could not import" in str(report.longrepr):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome, report.longrepr = "failed", f"RBDGEN_REQUIRE_REFERENCES=1: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    _required((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    _required((yield).get_result())
