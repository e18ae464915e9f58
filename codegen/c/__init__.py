"""The C99 backend: a robot's kernels as C sources, laid out by the jinja2 templates of `templates/c/`.

`printer` spells every piece of C (expressions, declarations, statements, names), `checks` the conditions of
the checks on entry and exit; `layout` splits a long operation into parts by a model of their register
pressure; `parts` writes the statements of one part;
`solves` plans the checked and the tree-sparse solves; `stack` bounds each function's stack; `render` builds
what the templates receive (`function`'s dataclasses) and renders a robot's files.
"""

from .printer import PRECISIONS, cdef, part_name
from .render import cholesky_source, optional_inputs, render, sincos_source

__all__ = ["PRECISIONS", "cdef", "cholesky_source", "optional_inputs", "part_name", "render", "sincos_source"]
