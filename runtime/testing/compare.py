"""Comparing rbdgen's results with the references, state by state."""

from __future__ import annotations

import numpy as np

from ..algorithms.operations import operation
from ..states import ARGUMENTS, States

#: Denominator floor of `rel_error`: only guards exact zeros; the test robots'
#: quantities range from ~1e-3 (Allegro hand) to ~1e3 (Talos).
FLOOR = 1e-9


def rel_error(a, b, floor: float = FLOOR) -> float:
    """Normwise relative error ``||a - b|| / max(floor, ||b||)`` (Frobenius for matrices)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} != {b.shape}")
    return float(np.linalg.norm(a - b) / max(floor, np.linalg.norm(b)))


def call_reference(ref, op: str, st: States, i: int, loads: bool = False):
    """A reference's (`references`) result of ``op`` for state ``i``: its adapter named after the operation,
    with the batch's loads if asked (and the operation takes them)."""
    args = [getattr(st, name)[i] for name in ARGUMENTS[op]]
    if operation(op).loads:
        args.append(st.load_lists[i] if loads else ())
    return getattr(ref, op)(st.ref_base(i), *args)


def roundtrip_errors(solver, ref, st: States):
    """Worst relative errors of FD(ID(qdd)) with loads for ``solver`` (both FD paths) and for the
    reference ``ref``'s own round trip on the same states. Floating: the base acceleration
    round-trips too (forward dynamics ignores the base state's acceleration: it is the result).
    Returns ``({op: worst}, reference_worst)``."""
    tau = st.call(solver, "inverse_dynamics", loads=True)
    expected = np.concatenate([st.acceleration, st.qdd], axis=1) if st.floating else st.qdd
    worst = {}
    for op in ("forward_dynamics", "forward_dynamics_crba"):
        back = getattr(solver, op)(*st.head(), st.q, st.qd, tau, loads=st.loads)
        worst[op] = max(rel_error(back[k], expected[k]) for k in range(st.n))
    reference_worst = 0.0
    for k in range(st.n):
        b, ld = st.ref_base(k), st.load_lists[k]
        tau_ref = ref.inverse_dynamics(b, st.q[k], st.qd[k], st.qdd[k], ld)
        reference_worst = max(reference_worst, rel_error(ref.forward_dynamics(b, st.q[k], st.qd[k], tau_ref, ld),
                                                         expected[k]))
    return worst, reference_worst
