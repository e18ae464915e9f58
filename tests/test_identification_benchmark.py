"""`python -m benchmarks.identification --quick`: the regressor benchmark runs and every result it times
agrees with Pinocchio (and the parametric build with the folded one).

The quick run (Panda, two rounds, -O1, no Pinocchio C++ build) is a harness check, never a speed
measurement: nothing here looks at the times beyond their being positive.
"""

from __future__ import annotations

from benchmarks.identification import ROWS
from quick_benchmarks import run_quick, table_cells


def test_every_row_reported_and_checked(tmp_path):
    quick = run_quick("identification", tmp_path)
    assert "every rbdgen result agrees with Pinocchio" in quick
    for _, _, label in ROWS:
        cells = table_cells(quick, "panda", label + (" (43 of 70 columns)" if label == "Y_base" else " (70 columns)"))
        assert float(cells[0]) > 0 and cells[1:4] == ["n/a"] * 3  # no Pinocchio C++ build in quick mode
        assert float(cells[-1]) <= 1e-9
    cells = table_cells(quick, "panda", "70 parameters")
    assert float(cells[0]) > 0 and float(cells[1]) > 0 and float(cells[-1]) == 0.0  # bit for bit
