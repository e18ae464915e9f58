"""The build integration written beside the generated C (`rbdgen.codegen.packaging`).

The bundled Panda folder (byte-checked against the generator elsewhere) is used as a user
would: a C program and a C++ program are built against ``panda::dynamics`` with CMake,
through ``add_subdirectory`` and through ``cmake --install`` + ``find_package``, and with
pkg-config (when installed); they run, and their numbers are checked against Pinocchio
and against the physical identity forward_dynamics(inverse_dynamics(qdd)) = qdd. The
README's own C and C++ examples are built and run too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from helpers import TIGHT, assert_close, pinocchio

ROOT = Path(__file__).resolve().parents[1]
PANDA = ROOT / "generated" / "panda"

#: Reads q, qd, qdd (7 each) from argv; prints tau then M (column-major), one number a line.
C_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include "panda.h"

int main(int argc, char **argv)
{
    double x[21], tau[7], M[49];
    int i;
    if (argc != 22) return 2;
    for (i = 0; i < 21; ++i) x[i] = strtod(argv[i + 1], NULL);
    if (panda_inverse_dynamics(x, x + 7, x + 14, NULL, tau) != 0) return 3;
    if (panda_mass_matrix(x, M) != 0) return 3;
    for (i = 0; i < 7; ++i) printf("%.17g\n", tau[i]);
    for (i = 0; i < 49; ++i) printf("%.17g\n", M[i]);
    return 0;
}
"""

#: Same arguments; prints forward_dynamics(q, qd, inverse_dynamics(q, qd, qdd)) then g(q).
CPP_PROGRAM = r"""
#include <array>
#include <cstdio>
#include <cstdlib>
#include "panda.h"

int main(int argc, char **argv)
{
    if (argc != 22) return 2;
    std::array<double, 7> q{}, qd{}, qdd{}, tau{}, acc{}, g{};
    for (int i = 0; i < 7; ++i) {
        q[i] = std::strtod(argv[1 + i], nullptr);
        qd[i] = std::strtod(argv[8 + i], nullptr);
        qdd[i] = std::strtod(argv[15 + i], nullptr);
    }
    if (panda_inverse_dynamics(q.data(), qd.data(), qdd.data(), nullptr, tau.data())) return 3;
    if (panda_forward_dynamics(q.data(), qd.data(), tau.data(), nullptr, acc.data())) return 3;
    if (panda_gravity(q.data(), nullptr, g.data())) return 3;
    for (double a : acc) std::printf("%.17g\n", a);
    for (double v : g) std::printf("%.17g\n", v);
}
"""

CONSUMER = """
cmake_minimum_required(VERSION 3.16)
project(consumer LANGUAGES C CXX)
if(USE_INSTALLED)
    find_package(panda REQUIRED)
else()
    add_subdirectory(${ROBOT_DIR} panda)
endif()
foreach(name app_c readme_c)
    add_executable(${name} ${name}.c)
    target_link_libraries(${name} PRIVATE panda::dynamics)
endforeach()
foreach(name app_cpp readme_cpp)
    add_executable(${name} ${name}.cpp)
    target_link_libraries(${name} PRIVATE panda::dynamics)
    set_target_properties(${name} PROPERTIES CXX_STANDARD 17)
endforeach()
"""


def _cmake() -> str:
    try:
        import cmake  # the PyPI package of the test extra

        return str(Path(cmake.CMAKE_BIN_DIR) / "cmake")
    except ImportError:
        found = shutil.which("cmake")
        if not found:
            pytest.skip("cmake is not installed (pip install cmake)")
        return found


def _run(*argv, **kw) -> str:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{' '.join(map(str, argv))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


#: The flags the tests compile with (fast; the generated C is still ISO C99).
CONFIGURE = ["-DCMAKE_BUILD_TYPE=", "-DCMAKE_C_FLAGS=-O1", "-DCMAKE_CXX_FLAGS=-O1"]


def _readme_blocks(language: str) -> str:
    text = (PANDA / "README.md").read_text()
    (block,) = re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)
    return block


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of the bundled Panda folder and a consumer project using it."""
    root = tmp_path_factory.mktemp("cmake")
    robot = root / "panda"
    shutil.copytree(PANDA, robot)
    app = root / "app"
    app.mkdir()
    (app / "CMakeLists.txt").write_text(CONSUMER)
    (app / "app_c.c").write_text(C_PROGRAM)
    (app / "app_cpp.cpp").write_text(CPP_PROGRAM)
    (app / "readme_c.c").write_text(_readme_blocks("c"))
    (app / "readme_cpp.cpp").write_text(_readme_blocks("cpp"))
    return root


@pytest.fixture(scope="module")
def installed(project):
    """The Panda library configured, built and installed into a prefix on its own."""
    cmake, prefix = _cmake(), project / "prefix"
    _run(cmake, "-S", project / "panda", "-B", project / "build-lib", *CONFIGURE)
    _run(cmake, "--build", project / "build-lib")
    _run(cmake, "--install", project / "build-lib", "--prefix", prefix)
    return prefix


def _state(seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.5, 1.5, 7), rng.normal(size=7), rng.normal(size=7)


def _check_programs(build: Path):
    q, qd, qdd = _state()
    argv = [repr(float(x)) for x in np.concatenate([q, qd, qdd])]
    ref = pinocchio("panda")
    out = np.array(_run(build / "app_c", *argv).split(), dtype=float)
    assert_close(out[:7], ref.inverse_dynamics(None, q, qd, qdd), TIGHT, "C inverse dynamics vs Pinocchio")
    assert_close(out[7:].reshape(7, 7).T, ref.mass_matrix(None, q), TIGHT, "C mass matrix vs Pinocchio")
    out = np.array(_run(build / "app_cpp", *argv).split(), dtype=float)
    assert_close(out[:7], qdd, 1e-10, "C++ forward_dynamics(inverse_dynamics(qdd))")
    assert_close(out[7:], ref.gravity(None, q), TIGHT, "C++ gravity vs Pinocchio")
    zero = np.zeros(7)
    for name in ("readme_c", "readme_cpp"):  # inverse dynamics at rest in the zero pose: gravity, 6 digits
        out = np.array(_run(build / name).split(), dtype=float)
        np.testing.assert_allclose(out, ref.gravity(None, zero), rtol=1e-5, atol=1e-12, err_msg=name)


def test_add_subdirectory(project):
    cmake, build = _cmake(), project / "build-sub"
    _run(cmake, "-S", project / "app", "-B", build, f"-DROBOT_DIR={project / 'panda'}", *CONFIGURE)
    _run(cmake, "--build", build)
    _check_programs(build)


def test_install_and_find_package(project, installed):
    assert (installed / "include" / "panda.h").is_file()
    assert list(installed.glob("lib*/libpanda_dynamics.a"))
    cmake, build = _cmake(), project / "build-installed"
    _run(cmake, "-S", project / "app", "-B", build, "-DUSE_INSTALLED=ON", f"-DCMAKE_PREFIX_PATH={installed}",
         *CONFIGURE)
    _run(cmake, "--build", build)
    _check_programs(build)


def test_pkg_config(project, installed):
    pkg_config, cc = shutil.which("pkg-config"), shutil.which("cc")
    if not pkg_config or not cc:
        pytest.skip("pkg-config or cc is not installed")
    (pc_dir,) = installed.glob("lib*/pkgconfig")
    env = {**os.environ, "PKG_CONFIG_PATH": str(pc_dir)}
    flags = _run(pkg_config, "--cflags", "--libs", "panda", env=env).split()
    assert "-lpanda_dynamics" in flags and "-lm" in flags
    includes = [Path(f[2:]).resolve() for f in flags if f.startswith("-I")]
    assert includes == [(installed / "include").resolve()]
    exe = project / "app_pkg_config"
    _run(cc, "-std=c99", "-O1", project / "app" / "app_c.c", "-o", exe, *flags)
    q, qd, qdd = _state(1)
    out = np.array(_run(exe, *[repr(float(x)) for x in np.concatenate([q, qd, qdd])]).split(), dtype=float)
    assert_close(out[:7], pinocchio("panda").inverse_dynamics(None, q, qd, qdd), TIGHT, "pkg-config build vs Pinocchio")
