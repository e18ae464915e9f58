"""The comments of the scopes: one visible block per body and pass in the statements of a part."""

from __future__ import annotations

from ...names import c_text
from ...ir.trace import Expr, Graph
from .function import Line


class Scopes:
    """Writes a comment where the scope of the statements changes (`trace.Graph.scopes`: ``body 3 panda_link4: v, a,
    f``), its text through `c_text` (a link name comes from the robot file)."""

    def __init__(self, graph: Graph, body: list):
        self.graph, self.body, self.current = graph, body, None

    def enter(self, node: Expr, twin=None) -> None:
        """Before ``node``'s statement: the comment of its scope, if it is not the one of the statement before
        (with its ``twin``, a `rbdgen.ir.twins.Twin`: both scopes, ``body 3 ...: v, a, f | body 4 ...: v, a, f``)."""
        scope = self.graph.scopes[node.id]
        if twin is not None and scope is not None:
            scope = f"{scope} | {self.graph.scopes[twin.node.id]}"
        if scope is not None and scope != self.current:
            self.body.append(Line("", c_text(scope)))
            self.current = scope
