"""rbdgen: specialised rigid-body dynamics for one robot.

The runtime (this package without ``rbdgen.codegen``) needs numpy, cffi, platformdirs and defusedxml;
xacro and MuJoCo are imported only to read those formats.
"""

import warnings

from .errors import (
    BuildError,
    CacheError,
    CompilerNotFoundError,
    IkJointLimitError,
    IkNotConvergedError,
    IllConditionedError,
    InvalidInputError,
    ManifestError,
    ModelError,
    NonFiniteError,
    SettingError,
    SingularError,
    SolverError,
    ValidationError,
)
from .fallback import FixedNumpySolver, FloatingNumpySolver, NumpySolver
from .ik import IkOptions
from .interface import DYNAMICS, KINEMATICS, BaseState, Load, Pose
from .builder import RobotBuilder
from .mjcf import load_mjcf
from .model import Inertia, Joint, Limits, Link, Mimic, RobotModel, Transform
from .signatures import FixedBaseSolver, FloatingBaseSolver
from .solver import CompiledSolver, FixedCompiledSolver, FloatingCompiledSolver, load
from .urdf import load_urdf, load_urdf_string
from .version import __version__


def generate(model_or_urdf, ops=None, **options):
    """Generate specialised C for a robot; see `rbdgen.codegen.generator.generate`.

    Imported lazily: the runtime never imports the code generator (jinja2, casadi) at import time.
    """
    from .codegen.generator import ALL_OPERATIONS, generate as _generate

    return _generate(model_or_urdf, ops or ALL_OPERATIONS, **options)

def __getattr__(name: str):
    """``rbdgen.OPERATIONS``: the deprecated name of `DYNAMICS` (it read as the operation records'
    `rbdgen.algorithms.operations.OPERATIONS`)."""
    if name == "OPERATIONS":
        warnings.warn("rbdgen.OPERATIONS is deprecated: use rbdgen.DYNAMICS (the same tuple)", DeprecationWarning,
                      stacklevel=2)
        return DYNAMICS
    raise AttributeError(f"module 'rbdgen' has no attribute {name!r}")


def symbolic(model_or_urdf, op, parameters=None, simplify=True, **options):
    """An operation as SymPy matrices (closed-form equations); see `rbdgen.codegen.symbolic.symbolic`.

    Imported lazily: needs SymPy (the ``symbolic`` extra) and the code generator.
    """
    from .codegen.symbolic import symbolic as _symbolic

    return _symbolic(model_or_urdf, op, parameters=parameters, simplify=simplify, **options)


__all__ = [
    "BaseState",
    "BuildError",
    "CacheError",
    "CompiledSolver",
    "CompilerNotFoundError",
    "FixedBaseSolver",
    "FixedCompiledSolver",
    "FixedNumpySolver",
    "FloatingBaseSolver",
    "FloatingCompiledSolver",
    "FloatingNumpySolver",
    "generate",
    "load",
    "Load",
    "NumpySolver",
    "DYNAMICS",
    "KINEMATICS",
    "Pose",
    "IkJointLimitError",
    "IkNotConvergedError",
    "IkOptions",
    "IllConditionedError",
    "Inertia",
    "InvalidInputError",
    "Joint",
    "Limits",
    "Link",
    "Mimic",
    "ManifestError",
    "ModelError",
    "NonFiniteError",
    "RobotBuilder",
    "RobotModel",
    "SettingError",
    "SingularError",
    "SolverError",
    "symbolic",
    "Transform",
    "ValidationError",
    "load_mjcf",
    "load_urdf",
    "load_urdf_string",
]
