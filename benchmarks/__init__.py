"""rbdgen's benchmarks, run from the repository root as modules: ``python -m benchmarks.bench``.

`bench` is the harness (every tool, every operation, every result checked against the
NumPy engine and Pinocchio); `case` one robot's states and reference results; `peers`
one module per tool; `builds` the one build cache; `c_loop` C loop programs; the
other modules are single-purpose scripts (see README.md).
"""
