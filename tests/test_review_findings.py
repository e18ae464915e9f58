"""Regressions from the review of 2026-12-02 (ranges on main, mimic ABA on branch `mimic`). A test marked
``xfail(strict=True)`` reproduces a bug not fixed yet: its reason says the fix; remove the mark with the fix."""

from __future__ import annotations

import pytest

import rbdgen
from rbdgen.errors import ModelError


def _chain(mass: float) -> str:
    """Two revolute joints, every link of ``mass``."""
    inertial = (f'<inertial><mass value="{mass!r}"/><origin xyz="0.1 0 0"/>'
                '<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>')
    links = "".join(f'<link name="l{i}">{inertial}</link>' for i in range(3))
    joints = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
                     f'<origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
                     f'</joint>' for i in (1, 2))
    return f'<robot name="r">{links}{joints}</robot>'


@pytest.mark.xfail(strict=True, reason="review: 1 / total mass folds to inf and the printer writes `inf.0` into "
                   "the C (a compile error); fix: refuse it with a ModelError naming the mass (centroidal."
                   "_require_mass: 1 / m not finite), and let printer.literal refuse any non-finite constant")
def test_a_subnormal_total_mass_is_refused_not_printed_as_inf():
    """Masses of 1e-320 (the loader accepts them): the centre of mass' 1 / m overflows while tracing."""
    model = rbdgen.load_urdf_string(_chain(1e-320))
    with pytest.raises(ModelError, match="mass"):
        generated = rbdgen.generate(model, ops=["center_of_mass_jacobian"], prefix="tiny")
        source = "".join(generated.files.values())
        assert "inf" not in source.replace("sinf", "").replace("info", "")
