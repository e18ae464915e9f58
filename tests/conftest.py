"""Session fixtures of the code-generation tests: generate and compile each robot once.

``generated(name, precision)`` gives the `Generated` sources of a test robot (prefix =
the robot's registry name), ``compiled(name, precision)`` the validated
`CompiledSolver` built with `TEST_FLAGS` into one cache folder per test session
(shared by the xdist workers of the session: the cache's builds are safe to run
in parallel), and ``build_model(model)`` generates and compiles an ad hoc
`RobotModel` (unvalidated: the error-case models are meant to fail).

Everything is built lazily, on first use, so a worker only compiles what the
test files it runs need (``--dist loadfile`` keeps a robot's tests together).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import rbdgen
from robots import ROBOTS

# RBDGEN_REQUIRE_REFERENCES=1 (set by .ci/run): a reference that cannot be imported fails the run
from require_references import pytest_make_collect_report, pytest_runtest_makereport  # noqa: E402,F401


#: Compiler flags of the tests' builds: fast to compile, still ISO C99 (no FP contraction).
TEST_FLAGS = ("-O1", "-g0", "-std=c99")

#: Random states `CompiledSolver.validate` uses per robot (Talos is large: few).
VALIDATION_SAMPLES = {"talos": 2, "g1": 4}


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory) -> Path:
    """The session's build cache (one folder for all xdist workers of this session)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # .../pytest-N/popen-gwK -> .../pytest-N: this session only
    folder = base / "rbdgen-build-cache"
    folder.mkdir(mode=0o700, exist_ok=True)  # private: a cache others can write is refused
    return folder


@pytest.fixture(scope="session")
def generated():
    """``generated(name, precision="double")`` -> `rbdgen.codegen.generator.Generated` (memoised)."""
    memo = {}

    def get(name: str, precision: str = "double"):
        key = (name, precision)
        if key not in memo:
            robot = ROBOTS[name]
            memo[key] = rbdgen.generate(robot.path, precision=precision, prefix=name, floating=robot.floating)
        return memo[key]

    return get


@pytest.fixture(scope="session")
def compiled(generated, build_cache):
    """``compiled(name, precision="double")`` -> validated `CompiledSolver` (built once per session)."""
    memo = {}

    def get(name: str, precision: str = "double"):
        key = (name, precision)
        if key not in memo:
            memo[key] = generated(name, precision).compile(
                flags=TEST_FLAGS, cache=build_cache, validate=True, samples=VALIDATION_SAMPLES.get(name, 8))
        return memo[key]

    return get


@pytest.fixture(scope="session")
def build_model(build_cache):
    """``build_model(model, prefix=None, ops=None, frames=None)`` -> unvalidated `CompiledSolver` of an ad hoc
    model (``frames``: the links of the operations on a link, default the leaf links)."""
    memo = {}

    def get(model: rbdgen.RobotModel, prefix: str = None, ops=None, frames=None):
        key = (model.digest, prefix, tuple(ops or ()), None if frames is None else tuple(frames))
        if key not in memo:
            memo[key] = rbdgen.generate(model, ops=ops, prefix=prefix, frames=frames).compile(
                flags=TEST_FLAGS, cache=build_cache, validate=False)
        return memo[key]

    return get
