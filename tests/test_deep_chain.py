"""A 1,000-joint chain: tracing, scheduling and emitting C recurse over nothing as deep as the tree."""

from __future__ import annotations

import re
import sys

import rbdgen
from rbdgen.model import Inertia, Joint, Link, RobotModel, Transform

N = 1000


def _chain(n: int) -> RobotModel:
    """n revolute joints in a line, 0.1 m apart, axes alternating x and y, 1 kg each."""
    inertia = Inertia(1.0, (0.0, 0.0, 0.05), ((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.01)))
    joints = [Joint(f"j{i}", "revolute", i - 1, Transform(translation=(0, 0, 0.1 if i else 0.0)),
                    (0, 1, 0) if i % 2 else (1, 0, 0), inertia) for i in range(n)]
    links = [Link("base", -1)] + [Link(f"l{i}", i) for i in range(n)]
    return RobotModel("chain", joints, links)


def test_generate_a_1000_joint_chain():
    model = _chain(N)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)  # far less than the tree's depth: any recursion over it fails
    try:
        g = rbdgen.generate(model, ops=["gravity"])
    finally:
        sys.setrecursionlimit(limit)
    counts = g.operation_counts["gravity"]
    # every axis is horizontal: gravity needs every angle
    assert counts["sin"] == counts["cos"] == N
    source = "".join(g.files[n] for n in g.c_sources if re.fullmatch(r"chain_(_\d+_)?gravity\.c", n))  # and its parts
    assert source.count("g[") >= N and f"g[{N - 1}] = " in source
    assert f"  {N - 1}: j{N - 1}, revolute, parent j{N - 2}" in g.files["chain.h"]
