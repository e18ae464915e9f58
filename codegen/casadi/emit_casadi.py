"""CasADi output: every operation as a ``casadi.Function``, traced from the same algorithms (`sx`).

Functions take the C functions' inputs, in order and with their names (``base``
first for a floating base), each a column vector, and return the registry's
outputs with their shapes (``M`` a G x G matrix, vectors as columns). The
derivative functions return Jacobians, one output per differentiated input:

* ``inverse_dynamics_derivatives(base, q, qd, qdd, loads)`` ->
  ``dtau_dq, dtau_dqd, dtau_dqdd`` (G x J) and, floating, ``dtau_dbase_velocity``,
  ``dtau_dbase_acceleration`` (G x 6) and ``dtau_dbase_rotation`` (G x 3);
* ``forward_dynamics_derivatives(base, q, qd, tau, loads)`` ->
  ``dacc_dq, dacc_dqd`` (G x J), ``dacc_dtau`` (G x G) and, floating,
  ``dacc_dbase_velocity`` (G x 6) and ``dacc_dbase_rotation`` (G x 3);
* ``forward_velocity_kinematics_derivatives(base, q, qd)``, ``forward_acceleration_kinematics_derivatives(base,
  q, qd, qdd)`` (one function per link) and ``center_of_mass_derivatives(base, q, qd)``: ``dtwist_d*``,
  ``dacceleration_d*`` (6 rows) and ``dvcom_d*`` (3 rows), a column per input coordinate as above.

An operation on a link (``forward_kinematics``, ``jacobian``...) is one function per
link, ``<prefix>_<op>_<link>``; its matrices keep their shapes (a Jacobian 6 x G).
A base rotation derivative is taken along a world-frame rotation vector
``dtheta``: ``R -> exp(dtheta x) R`` (the quaternion ``q -> q + [dtheta, 0] q / 2``).
Where the C returns a status, a CasADi function evaluates to inf or NaN.
"""

from __future__ import annotations

import casadi as ca

from ...names import check_prefix, kernel_name
from ...parameters import parametric_tree
from .sx import trace_operation


def function(model, op: str, prefix: str, link: int = None, contacts=None, parameters=None) -> ca.Function:
    """``op`` (any operation of `operations.OPERATIONS`; ``link``: a link id for one on a link) as a
    casadi.Function named like the C function, ``<prefix>_<op>`` or ``<prefix>_<op>_<link>``
    (``prefix``: see `rbdgen.names.check_prefix`; ``contacts``: the declared `ContactModel`;
    ``parameters``: as `generate`'s, the input ``params`` last)."""
    check_prefix(prefix)
    inputs, outputs = trace_operation(model, op, parametric_tree(model, parameters, contacts), link=link)
    return ca.Function(f"{prefix}_{kernel_name(model, op, link)}", list(inputs.values()), list(outputs.values()),
                       list(inputs), list(outputs), {"cse": True})
