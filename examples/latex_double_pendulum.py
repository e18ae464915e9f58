"""The double pendulum's mass matrix M(q) in closed form, printed in LaTeX (`rbdgen.symbolic`).

Two unit point masses on massless 1 m rods hang from a pivot (joints about z, relative angles
from the downward vertical). `rbdgen.symbolic` converts the graph rbdgen's C is emitted from
into SymPy and simplifies it: M(q) = [[3 + 2 cos q2, 1 + cos q2], [1 + cos q2, 1]]. The second
line is the same matrix with every inertial parameter a symbol (``parameters="all"``: mass, first
moment m c and inertia about the body origin of each body, Pinocchio's order).

    python examples/latex_double_pendulum.py

tests/test_symbolic.py checks the matrix against the textbook's.
"""

from __future__ import annotations

import sympy

import rbdgen


def double_pendulum() -> rbdgen.RobotModel:
    """Unit point masses on 1 m rods, hanging along -y at q = 0."""
    return (rbdgen.RobotBuilder("double_pendulum")
            .add_link("pivot")
            .add_link("rod1", 1.0, (0, -1.0, 0))
            .add_link("rod2", 1.0, (0, -1.0, 0))
            .add_joint("hinge1", "revolute", "pivot", "rod1", axis=(0, 0, 1))
            .add_joint("hinge2", "revolute", "rod1", "rod2", xyz=(0, -1.0, 0), axis=(0, 0, 1))
            .build(gravity=(0, -9.81, 0)))


def mass_matrix(parameters=None) -> sympy.Matrix:
    """M(q), simplified; ``parameters="all"``: with the inertial parameters as symbols."""
    return rbdgen.symbolic(double_pendulum(), "mass_matrix", parameters=parameters)["M"]


if __name__ == "__main__":
    print(f"M(q) = {sympy.latex(mass_matrix())}")
    print(f"M(q, pi) = {sympy.latex(mass_matrix('all'))}")
