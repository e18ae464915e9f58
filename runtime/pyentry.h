/* CPython entry points for single-state calls of a compiled rbdgen solver.
 *
 * The general path of `CompiledSolver` (Python argument checks, one cffi call of a
 * `*_batch` function) costs microseconds per call, more than the dynamics of a
 * small robot. For the common call, one state of plain arrays, these entry points
 * go from Python arguments to the generated single-state function directly:
 *
 *   solver.inverse_dynamics(q, qd, qdd)                   fixed base
 *   solver.inverse_dynamics(base, q, qd, qdd, loads=L)    floating base, dense loads
 *
 * Each is a builtin installed as an attribute of the solver, with the class's
 * Python method (the general path) as its fallback. The fast path takes a call
 * only when every argument is exactly what the C expects:
 *   - joint-space arrays: exact numpy.ndarray, float64, native byte order,
 *     aligned, C-contiguous, shape (size,);
 *   - a floating base: an exact BaseState whose translation (3,), rotation_xyzw
 *     (4,) and velocity / acceleration (6,) are such arrays (velocity and
 *     acceleration may also be the default 0), and whose quaternion's squared norm
 *     lies in (1e-100, 1e100) (the range the general path passes unchanged);
 *   - no keyword but `loads`, which must be empty (a tuple or list) or a dense
 *     (L, 6) array as above.
 * Anything else (batches, lists, `out=`, `mask=`, Load objects), and any non-zero
 * status of the C (a non-finite input, a singular matrix...), is handed unchanged
 * to the fallback, which validates it and raises the precise error. Both paths
 * run the same C on the same numbers, so their results are bit-identical.
 *
 * The GIL stays held: a single state takes microseconds (batches, through cffi,
 * release it).
 *
 * Use: a per-robot source defines one `rbdgen_entry` per operation (with a
 * `rbdgen_kernel` adapter calling the generated function) and exports a function
 * that returns `rbdgen_bind(entry, fallback, base_type)`; Python calls it once per
 * operation through ctypes (which holds the GIL and takes the new reference).
 */
#ifndef RBDGEN_PYENTRY_H
#define RBDGEN_PYENTRY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

/* The generated function for one operation: inputs in signature order (NULL loads
 * mean none), one output. Returns the generated function's status. */
typedef int (*rbdgen_kernel)(const double *const *in, double *out);

typedef struct {
    PyMethodDef def;       /* RBDGEN_METHOD(name, doc) */
    rbdgen_kernel kernel;
    int floating;          /* 1: the first argument is a BaseState (19 reals to the C) */
    int arrays;            /* joint-space arrays after the base: 1 to 3 */
    Py_ssize_t size[3];    /* their lengths */
    Py_ssize_t links;      /* > 0: takes `loads`, a (links, 6) array */
    int ndim;              /* the result's shape: (shape[0],) or (shape[0], shape[1]) */
    npy_intp shape[2];
} rbdgen_entry;

/* `value` as a pointer to `size` doubles when it is a plain float64 ndarray of
 * shape (size,) (or (size, 6) for loads: cols 6), else NULL. */
static const double *rbdgen_plain(PyObject *value, Py_ssize_t size, Py_ssize_t cols)
{
    PyArrayObject *a = (PyArrayObject *)value;
    if (!PyArray_CheckExact(value) || PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(a)
        || !PyArray_ISNOTSWAPPED(a) || PyArray_NDIM(a) != (cols ? 2 : 1) || PyArray_DIM(a, 0) != size
        || (cols && PyArray_DIM(a, 1) != cols))
        return NULL;
    return (const double *)PyArray_DATA(a);
}

/* The BaseState fields, in the order of the generated code's base vector. */
static const char *const rbdgen_base_fields[4] = {"translation", "rotation_xyzw", "velocity", "acceleration"};

/* Copy the base attribute `name` (`size` reals) into `dst`; a scalar 0 means zeros
 * where `zero_default`. Returns 0 when the attribute is not plain (the general
 * path then decides). */
static int rbdgen_base_part(PyObject *base, PyObject *name, double *dst, Py_ssize_t size, int zero_default)
{
    PyObject *value = PyObject_GetAttr(base, name);
    const double *p;
    Py_ssize_t i;
    int ok = 0;
    if (value == NULL) {
        PyErr_Clear();
        return 0;
    }
    if ((p = rbdgen_plain(value, size, 0)) != NULL) {
        for (i = 0; i < size; ++i) dst[i] = p[i];
        ok = 1;
    } else if (zero_default && (PyFloat_CheckExact(value) || PyLong_CheckExact(value))
               && PyObject_Not(value) == 1) {
        for (i = 0; i < size; ++i) dst[i] = 0.0;
        ok = 1;
    }
    Py_DECREF(value);
    return ok;
}

/* The base as the generated code's 19 reals [translation, quaternion xyzw,
 * velocity, acceleration]; 0 when the general path must take the call.
 * `names`: the interned field names (rbdgen_base_fields). */
static int rbdgen_base(PyObject *base, PyObject *names, double *x)
{
    double n2;
    if (!rbdgen_base_part(base, PyTuple_GET_ITEM(names, 0), x, 3, 0)
        || !rbdgen_base_part(base, PyTuple_GET_ITEM(names, 1), x + 3, 4, 0)
        || !rbdgen_base_part(base, PyTuple_GET_ITEM(names, 2), x + 7, 6, 1)
        || !rbdgen_base_part(base, PyTuple_GET_ITEM(names, 3), x + 13, 6, 1))
        return 0;
    n2 = x[3] * x[3] + x[4] * x[4] + x[5] * x[5] + x[6] * x[6];
    return n2 > 1e-100 && n2 < 1e100;
}

/* `loads=` as a pointer (NULL: none); 0 when the general path must take it. */
static int rbdgen_loads(PyObject *value, Py_ssize_t links, const double **loads)
{
    if ((PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) == 0)
        || (PyList_CheckExact(value) && PyList_GET_SIZE(value) == 0)) {
        *loads = NULL;
        return 1;
    }
    *loads = rbdgen_plain(value, links, 6);
    return *loads != NULL;
}

/* The entry point; self = (capsule of the rbdgen_entry, fallback, BaseState, field names). */
static PyObject *rbdgen_call(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    const rbdgen_entry *e = (const rbdgen_entry *)PyCapsule_GetPointer(PyTuple_GET_ITEM(self, 0), NULL);
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    const double *in[6];
    double base[19];
    PyObject *out;
    int k = 0, i;
    if (e == NULL)
        return NULL;
    if (nargs != e->floating + e->arrays)
        goto general;
    if (e->floating) {
        if (Py_TYPE(args[0]) != (PyTypeObject *)PyTuple_GET_ITEM(self, 2) || !rbdgen_base(args[0], PyTuple_GET_ITEM(self, 3), base))
            goto general;
        in[k++] = base;
    }
    for (i = 0; i < e->arrays; ++i)
        if ((in[k++] = rbdgen_plain(args[e->floating + i], e->size[i], 0)) == NULL)
            goto general;
    if (e->links > 0) {
        in[k] = NULL;
        if (kwnames != NULL) {
            if (PyTuple_GET_SIZE(kwnames) != 1
                || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "loads") != 0
                || !rbdgen_loads(args[nargs], e->links, &in[k]))
                goto general;
        }
        ++k;
    } else if (kwnames != NULL) {
        goto general;
    }
    out = PyArray_SimpleNew(e->ndim, (npy_intp *)e->shape, NPY_DOUBLE);
    if (out == NULL)
        return NULL;
    if (e->kernel(in, (double *)PyArray_DATA((PyArrayObject *)out)) == 0)
        return out;
    Py_DECREF(out);
general:
    return PyObject_Vectorcall(PyTuple_GET_ITEM(self, 1), args, nargsf, kwnames);
}

/* An entry's PyMethodDef: the method `name` with doc string `doc`. */
#define RBDGEN_METHOD(name, doc) {name, (PyCFunction)(void (*)(void))rbdgen_call, METH_FASTCALL | METH_KEYWORDS, doc}

/* A new builtin for `e` falling back to `fallback` (borrowed references); NULL with
 * an exception set on failure. */
static PyObject *rbdgen_bind(rbdgen_entry *e, PyObject *fallback, PyObject *base_type)
{
    PyObject *capsule, *names, *self, *fn;
    int i;
    if (PyArray_API == NULL && _import_array() < 0)
        return NULL;
    if ((names = PyTuple_New(4)) == NULL)
        return NULL;
    for (i = 0; i < 4; ++i) {
        PyObject *name = PyUnicode_InternFromString(rbdgen_base_fields[i]);
        if (name == NULL) {
            Py_DECREF(names);
            return NULL;
        }
        PyTuple_SET_ITEM(names, i, name);
    }
    capsule = PyCapsule_New(e, NULL, NULL);
    self = capsule == NULL ? NULL : PyTuple_Pack(4, capsule, fallback, base_type, names);
    Py_XDECREF(capsule);
    Py_DECREF(names);
    if (self == NULL)
        return NULL;
    fn = PyCFunction_New(&e->def, self);
    Py_DECREF(self);
    return fn;
}

#endif /* RBDGEN_PYENTRY_H */
