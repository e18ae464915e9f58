"""What rbdgen's tests and benchmarks share: random states and the reference dynamics.

The random states are the runtime's (`rbdgen.states`, where `CompiledSolver.validate` draws
its states), re-exported here; no production module imports this package (tests/test_layers.py).
`references` wraps Pinocchio and dynibo 0.5.2 (the ``test`` extra) in rbdgen's
conventions (for URDFs with mimic joints, either of them reduced by the mimic map: `load_reference`).
"""

from .references import (GRAVITY, DyniboReference, MimicReference, PinocchioReference, PinocchioState,
                         dynibo_joint_order, load_reference, rotation_matrix)
from ..states import ARGUMENTS, States, random_states

__all__ = ["ARGUMENTS", "GRAVITY", "DyniboReference", "MimicReference", "PinocchioReference", "PinocchioState",
           "States", "dynibo_joint_order", "load_reference", "random_states", "rotation_matrix"]
