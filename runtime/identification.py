"""Identification: the identifiable (base) inertial parameters of a model, named.

`identifiable` gives which combinations of the 10 B parameters (`rbdgen.parameters`) inverse dynamics
depends on, from the numerical factorisation of `rbdgen.algorithms.base_parameters`:
``Y pi = Y_base pi_base`` with ``Y_base`` the kept columns and ``pi_base = map @ pi``.
"""

from __future__ import annotations

import dataclasses
import logging

import numpy as np

from . import parameters
from .algorithms.base_parameters import factor
from .algorithms.kinematics import Tree
from .model import RobotModel

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Identifiable:
    """The base parameters of a model.

    ``columns``: the kept columns of the full regressor (ascending), ``Y_base = Y[:, columns]``;
    ``map``: (rank, 10 B) with ``pi_base = map @ pi`` (identity on the kept columns);
    ``rank`` and ``tolerance`` of the factorisation; ``names``: the full parameters' names and
    ``base_names`` each base parameter as the combination it is.
    """

    columns: tuple
    map: np.ndarray
    rank: int
    tolerance: float
    states: int
    names: tuple
    base_names: tuple

    def base_parameters(self, pi) -> np.ndarray:
        """``pi_base = map @ pi`` of full parameters ``pi`` (10 B,)."""
        pi = np.asarray(pi, dtype=float)
        if pi.shape[-1:] != (self.map.shape[1],):
            raise ValueError(f"pi: expected {self.map.shape[1]} values (10 per body), got shape {pi.shape}")
        return pi @ self.map.T

    def __repr__(self) -> str:
        return (f"<Identifiable: {self.rank} of {self.map.shape[1]} parameters, tolerance {self.tolerance:.1e}, "
                f"{self.states} states>")


def _combination(row, names) -> str:
    terms = [(c, n) for c, n in zip(row, names) if c != 0]
    text = " ".join(f"{'+' if c > 0 else '-'} {'' if f'{abs(c):.6g}' == '1' else f'{abs(c):.6g} '}{n}"
                    for c, n in terms)
    return text[2:] if text.startswith("+ ") else text


def identifiable(model: RobotModel, states: int = None) -> Identifiable:
    """The base parameters of ``model`` (see the module docstring); ``states``: random states stacked
    (default: `base_parameters.ROWS_PER_PARAMETER` rows per parameter, at least `base_parameters.MIN_STATES`)."""
    if model.loops:
        log.warning("%s: its %d closed loops are left out: the identifiable parameters are the open tree's (the "
                    "loops' constraint forces are not in the regressor)", model.name, len(model.loops))
    kept, mapping, tolerance, states = factor(Tree.from_model(model), states)
    names = parameters.parameter_names(model)
    result = Identifiable(kept, mapping, len(kept), tolerance, states, names,
                          tuple(_combination(row, names) for row in mapping))
    log.info("%s: %d identifiable parameters of %d (tolerance %.1e, %d states)", model.name, result.rank, mapping.shape[1],
             tolerance, states)
    return result
