"""rbdgen: specialised rigid-body dynamics for one robot.

The runtime (this package without ``rbdgen.codegen``) needs numpy and cffi only.
"""

from .errors import (
    IllConditionedError,
    InvalidInputError,
    ModelError,
    NonFiniteError,
    SingularError,
    SolverError,
    ValidationError,
)
from .fallback import NumpySolver
from .interface import OPERATIONS, BaseState, Load
from .model import Inertia, Joint, Limits, Link, RobotModel, Transform
from .urdf import load_urdf, load_urdf_string

__version__ = "0.1.0"

__all__ = [
    "BaseState",
    "Load",
    "NumpySolver",
    "OPERATIONS",
    "IllConditionedError",
    "Inertia",
    "InvalidInputError",
    "Joint",
    "Limits",
    "Link",
    "ModelError",
    "NonFiniteError",
    "RobotModel",
    "SingularError",
    "SolverError",
    "Transform",
    "ValidationError",
    "load_urdf",
    "load_urdf_string",
]
