"""The C the runtime writes itself, spelled without jinja2 (the runtime does not need the code-generation
extra): the CPython entry points (`fastpath` decides what each entry holds), the function that reports a
compiled header's interface key (`manifest.key_source`) and the cffi wrapper's source (`build`)."""

from __future__ import annotations

from string import Template

from .names import c_text

_SOURCE = Template("""\
/* CPython entry points of ${prefix} (rbdgen.fastpath). */
#include "${prefix}.h"
/* the base vector's layout (rbdgen.algorithms.operations.BASE), in BASE_FIELDS' order */
#define RBDGEN_PYENTRY_BASE_FIELDS {${base_fields}}
#define RBDGEN_PYENTRY_BASE_LENGTH ${base_length}
#define RBDGEN_PYENTRY_QUAT ${quat}
/* batches that may be split over threads (rbdgen.threads): the general path's */
#define RBDGEN_THREAD_STATES ${thread_states}
#include "pyentry.h"

${adapters}static rbdgen_entry entries[] = {
${entries}};

void *${function}(int index, void *fallback, void *context)
{
    return rbdgen_bind(&entries[index], (PyObject *)fallback, (PyObject *)context);
}
""")

#: The adapter of one operation: its generated function called with the entry's arrays.
_ADAPTER = Template("""\
static int ${prefix}_${op}_entry(const double *const *in, double *out)
{
    return ${prefix}_${op}(${args}, out);
}

""")

#: One row of ``entries[]`` (``rbdgen_entry`` of pyentry.h).
_ENTRY = Template("""\
    {RBDGEN_METHOD("${op}", ${doc}), ${prefix}_${op}_entry, ${base}, ${arrays}, {${sizes}}, ${links}, ${shape}},
""")


def function_name(prefix: str) -> str:
    """The exported binder of a robot's entry points."""
    return f"{prefix}_python_function"


def cdef(prefix: str) -> str:
    """The cffi declaration of the exported binder (only its address is used)."""
    return f"void *{function_name(prefix)}(int index, void *fallback, void *context);\n"




def _list(values) -> str:
    return ", ".join(map(str, values))


def entry(prefix: str, op: str, doc: str, inputs: int, base: bool, sizes: list, links: int, dims: tuple) -> tuple:
    """(adapter, row of ``entries[]``) of operation ``op``: ``inputs`` arrays in, ``doc`` its Python doc string,
    ``base``: whether it takes the base vector, ``sizes``: those of its other arrays but the loads, ``links``:
    the links of its loads (0: none), ``dims``: its output's shape (one or two dimensions)."""
    adapter = _ADAPTER.substitute(prefix=prefix, op=op, args=_list(f"in[{k}]" for k in range(inputs)))
    shape = f"{len(dims)}, {{{_list((*dims, 0)[:2])}}}"
    row = _ENTRY.substitute(prefix=prefix, op=op, doc=f'"{c_text(doc)}"', base=int(base), arrays=len(sizes),
                            sizes=_list(sizes), links=links, shape=shape)
    return adapter, row


def entry_source(prefix: str, base_fields: list, base_length: int, quat: int, thread_states: int, entries: list) -> str:
    """The entry source of a robot: its ``entries`` (`entry`) after the layout macros pyentry.h reads."""
    return _SOURCE.substitute(prefix=prefix, base_fields=_list(base_fields), base_length=base_length, quat=quat,
                              thread_states=thread_states, adapters="".join(a for a, _ in entries),
                              entries="".join(row for _, row in entries), function=function_name(prefix))


#: A function that reports an interface macro of a robot's header (`key_function`).
_KEY = Template("""\
#include "${prefix}.h"
unsigned long long ${function}(void)
{
#ifdef ${macro}
    return ${macro};
#else
    return 0;
#endif
}
""")


def interface_macro(prefix: str) -> str:
    """The macro of ``<prefix>.h`` that holds its interface key (templates/c/robot.h.j2)."""
    return f"RBDGEN_{prefix}_INTERFACE"


def key_function(prefix: str, function: str) -> tuple:
    """(source, cdef) of ``function``, which returns `interface_macro` of ``<prefix>.h``, or 0 where the header
    does not define it."""
    text = _KEY.substitute(prefix=prefix, function=function, macro=interface_macro(prefix))
    return text, f"unsigned long long {function}(void);\n"


def wrapper(prefix: str, cdef: str) -> str:
    """The source cffi compiles around ``cdef`` (prototypes, some defined outside the header)."""
    return f'#include "{prefix}.h"\n{cdef}'
