"""The intermediate representation: an operation traced on symbols (`trace`), scheduled (`optimize`)
and, for the NumPy engine's single states, emitted as straight-line Python (`emit_python`); `ranges` bounds its
values (the outputs that need no finiteness check).

It is part of the runtime (NumPy only): the C and CasADi backends (`rbdgen.codegen`) read it,
it never imports them.
"""
