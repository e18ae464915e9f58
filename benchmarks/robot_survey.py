"""Load every URDF shipped in example-robot-data; print one table row per file.

Each file either loads with the default inertia policy, ``"warn"`` (fixed base;
joints, mimic joints, and the largest difference of the mass matrix and inverse
dynamics from Pinocchio's at a few random states, relative to their largest
entry, reduced by the mimic map where there are mimic joints; the links whose
inertia no rigid body has, which ``inertia="strict"`` refuses) or is rejected
with a `ModelError`, whose message is printed.

    python -m benchmarks.robot_survey [--markdown]
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import numpy as np

import rbdgen

from rbdgen.testing import MimicReference
from tests.robots import example_robot_data_dir


def survey_one(path: Path, rng) -> tuple[str, str]:
    """(outcome, detail) of one file."""
    try:
        model = rbdgen.load_urdf(path)
    except rbdgen.ModelError as exc:
        return "ModelError", str(exc).splitlines()[0]
    odd = [note.link for note in model.inertia_report.links]
    strict = f"; strict refuses {len(odd)} link inertias ({', '.join(odd[:3])}{', ...' if len(odd) > 3 else ''})" if odd else ""
    mimics = len(model.joints) - model.joint_count
    if model.joint_count == 0:
        return "loads", f"J = 0 (no moving joint){strict}"
    try:
        reference = MimicReference(path, False, joint_names=list(model.joint_names))
    except Exception as exc:  # Pinocchio refuses the file or names joints otherwise: report it
        return "loads", f"J = {model.joint_count}, {mimics} mimic; Pinocchio: {type(exc).__name__}: {exc}{strict}"
    solver = rbdgen.NumpySolver(model)
    error = 0.0
    for _ in range(3):
        q, qd, qdd = (rng.uniform(-1, 1, model.joint_count) for _ in range(3))
        M, tau = reference.mass_matrix(None, q), reference.inverse_dynamics(None, q, qd, qdd)
        error = max(error, np.abs(solver.mass_matrix(q) - M).max() / max(1.0, np.abs(M).max()),
                    np.abs(solver.inverse_dynamics(q, qd, qdd) - tau).max() / max(1.0, np.abs(tau).max()))
    return "loads", f"J = {model.joint_count}, {mimics} mimic, vs Pinocchio {error:.1e}{strict}"


def main(argv=None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--markdown", action="store_true", help="a Markdown table")
    options = args.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    root = example_robot_data_dir()
    rng = np.random.default_rng(0)
    rows = []
    for path in sorted(root.rglob("*.urdf")):
        outcome, detail = survey_one(path, rng)
        rows.append((str(path.relative_to(root)), outcome, detail))
    width = max(len(r[0]) for r in rows)
    for name, outcome, detail in rows:
        if options.markdown:
            print(f"| `{name}` | {outcome} | {detail.replace('|', '/')} |")
        else:
            print(f"{name:{width}s}  {outcome:10s}  {detail}")
    loaded = sum(r[1] == "loads" for r in rows)
    print(f"\n{loaded} of {len(rows)} files load; {len(rows) - loaded} raise a ModelError")
    return 0


if __name__ == "__main__":
    sys.exit(main())
