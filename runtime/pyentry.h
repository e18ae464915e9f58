/* CPython entry points of a compiled rbdgen solver: every call of an operation.
 *
 * The general path of `CompiledSolver` (Python argument checks, one cffi call of a
 * `*_batch` function) costs tens of microseconds per call, more than the dynamics
 * of a small robot. These entry points take the arguments from Python to the
 * generated single-state function directly, for every usual call:
 *
 *   solver.inverse_dynamics(q, qd, qdd, *, loads=None, out=None, mask=None)        fixed base
 *   solver.inverse_dynamics(base, q, qd, qdd, *, loads=None, out=None, mask=None)  floating base
 *
 * (and `threads=`), positional or keyword arguments; one state or a batch of N (any argument, base
 * fields included, may be batched; unbatched ones are shared by every state);
 * arrays of float64, float32 or integers, or lists of numbers (converted once,
 * as NumPy converts them); `loads` empty, None, a dense (L, 6) or (N, L, 6)
 * array, or a list of `Load` objects; `out` a writeable, aligned float64 array of
 * the result's shape (written in place when it is C-contiguous and overlaps no
 * input); `mask` a boolean (N,) array (unselected states' results are zero).
 *
 * Each is a builtin installed as an attribute of the solver, with the class's
 * Python method (the general path) as its fallback. Anything the entry point does
 * not recognise as valid (a wrong type, dtype or shape, an unknown keyword, a
 * quaternion whose squared norm is outside (1e-100, 1e100), an empty batch) and
 * any non-zero status of the C (a non-finite input, a singular matrix...) is
 * handed unchanged to the fallback, which validates it and raises the precise
 * error (or computes what the entry point declined). Both paths run the same C on
 * the same numbers, so their results are bit-identical.
 *
 * The GIL is released around batches of at least RBDGEN_NOGIL_STATES states. A batch
 * that `threads=` (or its default) may split over threads (RBDGEN_THREAD_STATES states
 * or more, from rbdgen.threads) goes to the general path, which splits it.
 *
 * Use: a per-robot source defines one `rbdgen_entry` per operation (with a
 * `rbdgen_kernel` adapter calling the generated function) and exports a function
 * that returns `rbdgen_bind(entry, fallback, context)`; Python calls it once per
 * operation through ctypes (which holds the GIL and takes the new reference).
 */
#ifndef RBDGEN_PYENTRY_H
#define RBDGEN_PYENTRY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <string.h>

/* The generated function for one operation: inputs in signature order (NULL loads
 * mean none), one output. Returns the generated function's status. */
typedef int (*rbdgen_kernel)(const double *const *in, double *out);

typedef struct {
    PyMethodDef def;       /* RBDGEN_METHOD(name, doc) */
    rbdgen_kernel kernel;
    int floating;          /* 1: the first argument is a BaseState (RBDGEN_PYENTRY_BASE_LENGTH reals to the C) */
    int arrays;            /* joint-space arrays after the base: 1 to 3 */
    Py_ssize_t size[3];    /* their lengths */
    Py_ssize_t links;      /* > 0: takes `loads`, (links, 6) per state */
    int ndim;              /* the result's shape per state: (shape[0],) or (shape[0], shape[1]) */
    npy_intp shape[2];
} rbdgen_entry;

/* Batches of at least this many states run without the GIL. */
#define RBDGEN_NOGIL_STATES 16

/* Indices into the bound context tuple (built by rbdgen.fastpath.install). */
enum { RBDGEN_CTX_BASE_TYPE, RBDGEN_CTX_LOAD_TYPE, RBDGEN_CTX_NAMES, RBDGEN_CTX_LINK_IDS, RBDGEN_CTX_FIELDS,
       RBDGEN_CTX_SELF_TYPE };

/* Unbatched vectors up to this length are converted into the argument's own `local` storage. */
#define RBDGEN_LOCAL 64

/* One converted array argument: `data` holds `n` (batched) or 1 (unbatched) rows of
 * `size` doubles; `stride` is 0 for an unbatched one; `owner` a new reference to a
 * converted copy, or NULL when `data` points into the caller's array or `local`. */
typedef struct {
    const double *data;
    Py_ssize_t n;          /* -1: unbatched */
    Py_ssize_t stride;
    Py_ssize_t bytes;
    PyObject *owner;
    double local[RBDGEN_LOCAL];
} rbdgen_arg;

static void rbdgen_release(rbdgen_arg *a, Py_ssize_t count)
{
    Py_ssize_t i;
    for (i = 0; i < count; ++i)
        Py_CLEAR(a[i].owner);
}

/* Real numbers the general path accepts as they are: floating point and integers. */
static int rbdgen_real_kind(PyArrayObject *a)
{
    const char kind = PyArray_DESCR(a)->kind;
    return kind == 'f' || kind == 'i' || kind == 'u';
}

/* An unbatched vector of `size` numbers from a flat list or tuple of Python floats
 * and ints, or a 1-d float32, float64 or integer array of any stride, alignment
 * and byte order, converted into `dst` without a temporary array (the common
 * small inputs). Returns 1 when converted, -1 when the general path must decide
 * (a bool, an integer of 2**53 or more), 0 when `value` is none of these. */
static int rbdgen_small(PyObject *value, Py_ssize_t size, double *dst)
{
    Py_ssize_t i;
    if (PyList_CheckExact(value) || PyTuple_CheckExact(value)) {
        PyObject **items = PySequence_Fast_ITEMS(value);
        if (PySequence_Fast_GET_SIZE(value) != size)
            return 0;
        for (i = 0; i < size; ++i) {
            if (PyFloat_CheckExact(items[i])) {
                dst[i] = PyFloat_AS_DOUBLE(items[i]);
            } else if (PyLong_CheckExact(items[i])) {
                dst[i] = PyLong_AsDouble(items[i]);
                if (dst[i] == -1.0 && PyErr_Occurred()) {
                    PyErr_Clear();
                    return -1;
                }
                if (dst[i] >= 9007199254740992.0 || dst[i] <= -9007199254740992.0)
                    return -1;
            } else {
                return 0; /* numpy scalars, nested lists...: NumPy's conversion */
            }
        }
        return 1;
    }
    if (PyArray_Check(value) && PyArray_NDIM((PyArrayObject *)value) == 1
        && PyArray_DIM((PyArrayObject *)value, 0) == size && PyArray_ISNOTSWAPPED((PyArrayObject *)value)) {
        PyArrayObject *arr = (PyArrayObject *)value;
        const char *p = (const char *)PyArray_DATA(arr);
        const npy_intp step = PyArray_STRIDE(arr, 0);
        switch (PyArray_TYPE(arr)) {
#define RBDGEN_CONVERT(ctype, exact) \
        for (i = 0; i < size; ++i) { \
            ctype x; \
            memcpy(&x, p + i * step, sizeof x); \
            dst[i] = (double)x; \
            if (!(exact) && (dst[i] >= 9007199254740992.0 || dst[i] <= -9007199254740992.0)) \
                return -1; \
        } \
        return 1;
        case NPY_DOUBLE: RBDGEN_CONVERT(npy_double, 1)
        case NPY_FLOAT: RBDGEN_CONVERT(npy_float, 1)
        case NPY_INT: RBDGEN_CONVERT(npy_int, 1)
        case NPY_LONG: RBDGEN_CONVERT(npy_long, 0)
        case NPY_LONGLONG: RBDGEN_CONVERT(npy_longlong, 0)
#undef RBDGEN_CONVERT
        default:
            return 0;
        }
    }
    return 0;
}

/* `value` as `rows` x `cols` doubles per state (cols 0: a vector of rows) into `a`:
 * shape (rows[, cols]) unbatched or (N, rows[, cols]) batched. Returns 1 on success,
 * 0 when the general path must decide (wrong type, dtype or shape, an integer too
 * large for an exact double), -1 with an exception set (out of memory). */
static int rbdgen_input(PyObject *value, Py_ssize_t rows, Py_ssize_t cols, rbdgen_arg *a)
{
    PyArrayObject *arr;
    PyObject *owner = NULL;
    const int per_state = cols ? 2 : 1;
    int ndim, batched, small;
    a->owner = NULL;
    if (!cols && rows <= RBDGEN_LOCAL && (small = rbdgen_small(value, rows, a->local)) != 0) {
        if (small < 0)
            return 0;
        a->data = a->local;
        a->n = -1;
        a->stride = 0;
        a->bytes = rows * (Py_ssize_t)sizeof(double);
        return 1;
    }
    if (PyArray_Check(value)) {
        arr = (PyArrayObject *)value;
        if (!rbdgen_real_kind(arr))
            return 0;
    } else if (PyList_Check(value) || PyTuple_Check(value)) {
        /* the dtype NumPy finds first: strings, bools and objects go to the general path */
        owner = PyArray_FROM_O(value);
        if (owner == NULL) {
            PyErr_Clear();
            return 0;
        }
        arr = (PyArrayObject *)owner;
        if (!rbdgen_real_kind(arr)) {
            Py_DECREF(owner);
            return 0;
        }
    } else {
        return 0;
    }
    ndim = PyArray_NDIM(arr);
    batched = ndim == per_state + 1;
    if ((ndim != per_state && !batched) || PyArray_DIM(arr, ndim - per_state) != rows
        || (cols && PyArray_DIM(arr, ndim - 1) != cols)) {
        Py_XDECREF(owner);
        return 0;
    }
    if (PyArray_TYPE(arr) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(arr) || !PyArray_ISNOTSWAPPED(arr)) {
        const int integer = PyArray_DESCR(arr)->kind != 'f';
        PyObject *copy = PyArray_FromAny((PyObject *)arr, PyArray_DescrFromType(NPY_DOUBLE), 0, 0,
                                         NPY_ARRAY_CARRAY | NPY_ARRAY_FORCECAST, NULL);
        Py_XDECREF(owner);
        if (copy == NULL)
            return -1;
        owner = copy;
        arr = (PyArrayObject *)copy;
        if (integer) { /* beyond 2**53 the general path explains why no double is exact */
            const double *x = (const double *)PyArray_DATA(arr);
            npy_intp i, count = PyArray_SIZE(arr);
            for (i = 0; i < count; ++i)
                if (x[i] >= 9007199254740992.0 || x[i] <= -9007199254740992.0) {
                    Py_DECREF(owner);
                    return 0;
                }
        }
    }
    a->data = (const double *)PyArray_DATA(arr);
    a->n = batched ? PyArray_DIM(arr, 0) : -1;
    a->stride = batched ? rows * (cols ? cols : 1) : 0;
    a->bytes = PyArray_NBYTES(arr);
    a->owner = owner;
    return 1;
}

/* The batch size of the arguments so far: `*n` (-1: none batched yet) merged with
 * `a`'s. 0 when two batch sizes differ (the general path names them). */
static int rbdgen_batch(Py_ssize_t *n, const rbdgen_arg *a)
{
    if (a->n < 0)
        return 1;
    if (*n >= 0 && *n != a->n)
        return 0;
    *n = a->n;
    return 1;
}

/* The base's four fields: translation, rotation_xyzw, velocity, acceleration, their
 * sizes from the including file (RBDGEN_PYENTRY_BASE_FIELDS, written by rbdgen.fastpath
 * from the one layout in Python); velocity and acceleration may be the default scalar 0. */
static const Py_ssize_t rbdgen_base_sizes[4] = RBDGEN_PYENTRY_BASE_FIELDS;
static const double rbdgen_zeros[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};

/* Convert the BaseState `base` into `a[0..4)`; the return value as rbdgen_input's. */
static int rbdgen_base(PyObject *base, PyObject *fields, rbdgen_arg *a)
{
    int k, ok = 1;
    for (k = 0; k < 4 && ok == 1; ++k) {
        PyObject *value = PyObject_GetAttr(base, PyTuple_GET_ITEM(fields, k));
        if (value == NULL) {
            PyErr_Clear();
            ok = 0;
        } else if (k >= 2 && (PyFloat_CheckExact(value) || PyLong_CheckExact(value))) {
            ok = PyObject_Not(value) == 1; /* the default 0 */
            a[k].data = rbdgen_zeros;
            a[k].n = -1;
            a[k].stride = 0;
            a[k].bytes = 0;
            a[k].owner = NULL;
        } else {
            ok = rbdgen_input(value, rbdgen_base_sizes[k], 0, &a[k]);
        }
        Py_XDECREF(value);
        if (ok != 1)
            rbdgen_release(a, k);
    }
    return ok;
}

/* A list or tuple of Load objects as dense (links, 6) loads, summed in list order,
 * into a new array `*dense`; the return value as rbdgen_input's. */
static int rbdgen_load_objects(PyObject *loads, PyObject *context, Py_ssize_t links, PyObject **dense)
{
    static const char *const parts[2] = {"torque", "force"};
    PyObject *load_type = PyTuple_GET_ITEM(context, RBDGEN_CTX_LOAD_TYPE);
    PyObject *link_ids = PyTuple_GET_ITEM(context, RBDGEN_CTX_LINK_IDS);
    npy_intp shape[2] = {links, 6};
    Py_ssize_t i, count = PySequence_Fast_GET_SIZE(loads);
    double *w;
    *dense = PyArray_ZEROS(2, shape, NPY_DOUBLE, 0);
    if (*dense == NULL)
        return -1;
    w = (double *)PyArray_DATA((PyArrayObject *)*dense);
    for (i = 0; i < count; ++i) {
        PyObject *load = PySequence_Fast_GET_ITEM(loads, i), *link, *id;
        Py_ssize_t row;
        int p, j, ok;
        if (Py_TYPE(load) != (PyTypeObject *)load_type || (link = PyObject_GetAttrString(load, "link")) == NULL)
            goto general;
        id = PyUnicode_CheckExact(link) ? PyDict_GetItemWithError(link_ids, link) : (PyLong_CheckExact(link) ? link : NULL);
        row = id == NULL ? -1 : PyLong_AsSsize_t(id);
        Py_DECREF(link);
        if (row < 0 || row >= links) {
            PyErr_Clear();
            goto general;
        }
        for (p = 0; p < 2; ++p) {
            rbdgen_arg v;
            PyObject *value = PyObject_GetAttrString(load, parts[p]);
            if (value == NULL)
                goto general;
            ok = rbdgen_input(value, 3, 0, &v);
            Py_DECREF(value);
            if (ok != 1 || v.n >= 0) {
                rbdgen_release(&v, ok == 1);
                if (ok < 0) {
                    Py_CLEAR(*dense);
                    return -1;
                }
                goto general;
            }
            for (j = 0; j < 3; ++j)
                w[6 * row + 3 * p + j] += v.data[j];
            rbdgen_release(&v, 1);
        }
    }
    return 1;
general:
    PyErr_Clear();
    Py_CLEAR(*dense);
    return 0;
}

/* `loads=`: none (NULL data), a dense array or Load objects; the return value as rbdgen_input's. */
static int rbdgen_loads(PyObject *value, PyObject *context, Py_ssize_t links, rbdgen_arg *a)
{
    PyObject *seq;
    int ok;
    memset(a, 0, sizeof *a);
    a->n = -1;
    if (value == NULL || value == Py_None)
        return 1;
    if (PyArray_Check(value))
        return rbdgen_input(value, links, 6, a);
    if (!PyList_Check(value) && !PyTuple_Check(value))
        return 0;
    seq = value; /* a list or a tuple is its own fast sequence */
    if (PySequence_Fast_GET_SIZE(seq) == 0)
        return 1;
    ok = rbdgen_load_objects(seq, context, links, &a->owner);
    if (ok == 1) {
        a->data = (const double *)PyArray_DATA((PyArrayObject *)a->owner);
        a->bytes = PyArray_NBYTES((PyArrayObject *)a->owner);
    }
    return ok;
}

/* Whether the `bytes` / 8 doubles at `x` are all finite (by their exponent bits:
 * -ffast-math cannot remove the test). */
static int rbdgen_all_finite(const double *x, Py_ssize_t bytes)
{
    const Py_ssize_t count = bytes / (Py_ssize_t)sizeof(double);
    Py_ssize_t i;
    for (i = 0; i < count; ++i) {
        npy_uint64 bits;
        memcpy(&bits, x + i, sizeof bits);
        if ((bits & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL)
            return 0;
    }
    return 1;
}

/* Whether [p, p + bytes) and [q, q + qbytes) overlap. */
static int rbdgen_overlap(const void *p, Py_ssize_t bytes, const void *q, Py_ssize_t qbytes)
{
    const char *a = (const char *)p, *b = (const char *)q;
    return bytes > 0 && qbytes > 0 && a < b + qbytes && b < a + bytes;
}

/* The most arguments of an operation: base (its 4 fields), 3 arrays, loads. */
#define RBDGEN_ARGS 8

/* The entry point; self = (capsule of the rbdgen_entry, fallback, context). */
static PyObject *rbdgen_call(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    const rbdgen_entry *e = (const rbdgen_entry *)PyCapsule_GetPointer(PyTuple_GET_ITEM(self, 0), NULL);
    PyObject *context = PyTuple_GET_ITEM(self, 2);
    PyObject *names = PyTuple_GET_ITEM(context, RBDGEN_CTX_NAMES);
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), nnames = PyTuple_GET_SIZE(names);
    const Py_ssize_t npos = e->floating + e->arrays;
    PyObject *slot[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *loads_arg, *out_arg, *mask_arg, *threads_arg, *result, *target = NULL;
    rbdgen_arg a[RBDGEN_ARGS];
    const double *in[6];
    double base[RBDGEN_PYENTRY_BASE_LENGTH], *dst;
    const npy_bool *mask = NULL;
    Py_ssize_t n = -1, i, k, j, count = 0, per_state, nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    npy_intp shape[3];
    int ok = 1, status = 0, direct;
    if (e == NULL)
        return NULL;
    /* the arguments by name: positional first, then keywords (an unknown or repeated one: general path) */
    if (nargs > npos || nnames > 8)
        goto general;
    for (k = 0; k < nargs; ++k)
        slot[k] = args[k];
    for (j = 0; j < nkw; ++j) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, j);
        for (k = 0; k < nnames; ++k)
            if (PyTuple_GET_ITEM(names, k) == key || PyUnicode_Compare(PyTuple_GET_ITEM(names, k), key) == 0)
                break;
        if (k == nnames || slot[k] != NULL)
            goto general;
        slot[k] = args[nargs + j];
    }
    for (k = 0; k < npos; ++k)
        if (slot[k] == NULL)
            goto general;
    loads_arg = e->links > 0 ? slot[npos] : NULL;
    out_arg = slot[npos + (e->links > 0)];
    mask_arg = slot[npos + (e->links > 0) + 1];
    threads_arg = slot[npos + (e->links > 0) + 2];
    if (out_arg == Py_None)
        out_arg = NULL;
    if (mask_arg == Py_None)
        mask_arg = NULL;

    /* the inputs: base fields, joint-space arrays, loads */
    if (e->floating) {
        if (Py_TYPE(slot[0]) != (PyTypeObject *)PyTuple_GET_ITEM(context, RBDGEN_CTX_BASE_TYPE))
            goto general;
        if ((ok = rbdgen_base(slot[0], PyTuple_GET_ITEM(context, RBDGEN_CTX_FIELDS), a)) != 1)
            goto failed;
        count = 4;
    }
    for (k = 0; k < e->arrays; ++k) {
        if ((ok = rbdgen_input(slot[e->floating + k], e->size[k], 0, &a[count])) != 1)
            goto failed;
        ++count;
    }
    if (e->links > 0) {
        if ((ok = rbdgen_loads(loads_arg, context, e->links, &a[count])) != 1)
            goto failed;
        ++count;
    }
    for (k = 0; k < count; ++k)
        if (!rbdgen_batch(&n, &a[k]))
            goto decline;
    if (n == 0)
        goto decline; /* an empty batch: the general path's zeros */
    if (threads_arg != NULL && threads_arg != Py_None) { /* a valid count; more than one: the general path */
        const long threads = PyLong_CheckExact(threads_arg) ? PyLong_AsLong(threads_arg) : 0;
        if (threads < 1 || (threads > 1 && n >= RBDGEN_THREAD_STATES)) {
            PyErr_Clear();
            goto decline;
        }
    } else if (n >= RBDGEN_THREAD_STATES) {
        goto decline; /* the default may be several threads */
    }
    if (mask_arg != NULL) {
        PyArrayObject *m = (PyArrayObject *)mask_arg;
        if (n < 0 || !PyArray_Check(mask_arg) || PyArray_TYPE(m) != NPY_BOOL || PyArray_NDIM(m) != 1
            || PyArray_DIM(m, 0) != n || !PyArray_ISCARRAY_RO(m))
            goto decline;
        mask = (const npy_bool *)PyArray_DATA(m);
        for (k = 0; k < count; ++k) /* the C checks selected states only, the general path all */
            if (!rbdgen_all_finite(a[k].data, a[k].bytes))
                goto decline;
    }

    /* the result: `out` itself where it can be written in place, else a new array */
    shape[0] = n;
    shape[1] = e->shape[0];
    shape[2] = e->shape[1];
    per_state = e->ndim == 2 ? e->shape[0] * e->shape[1] : e->shape[0];
    if (out_arg != NULL) {
        PyArrayObject *o = (PyArrayObject *)out_arg;
        const int ndim = e->ndim + (n >= 0);
        if (!PyArray_Check(out_arg) || PyArray_TYPE(o) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(o)
            || !PyArray_ISALIGNED(o) || !PyArray_ISWRITEABLE(o) || PyArray_NDIM(o) != ndim
            || !PyArray_CompareLists(PyArray_DIMS(o), n >= 0 ? shape : shape + 1, ndim))
            goto decline;
        direct = PyArray_IS_C_CONTIGUOUS(o);
        for (k = 0; k < count && direct; ++k)
            direct = !rbdgen_overlap(PyArray_DATA(o), PyArray_NBYTES(o), a[k].data, a[k].bytes);
        if (direct) {
            Py_INCREF(out_arg);
            target = out_arg;
        }
    }
    if (target == NULL) {
        target = PyArray_SimpleNew(e->ndim + (n >= 0), n >= 0 ? shape : shape + 1, NPY_DOUBLE);
        if (target == NULL)
            goto error;
    }
    dst = (double *)PyArray_DATA((PyArrayObject *)target);

    /* the states */
    {
        PyThreadState *save = n >= RBDGEN_NOGIL_STATES ? PyEval_SaveThread() : NULL;
        const Py_ssize_t states = n < 0 ? 1 : n;
        const int first = e->floating ? 4 : 0;
        for (i = 0; i < states && status == 0; ++i) {
            double *y = dst + i * per_state;
            if (e->floating) { /* every state's quaternion, as the general path checks them all */
                const double *quat = base + RBDGEN_PYENTRY_QUAT;
                double n2;
                for (k = 0, j = 0; k < 4; j += rbdgen_base_sizes[k], ++k)
                    memcpy(base + j, a[k].data + i * a[k].stride, sizeof(double) * (size_t)rbdgen_base_sizes[k]);
                n2 = quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3];
                if (!(n2 > 1e-100 && n2 < 1e100)) {
                    status = -1; /* the general path scales this quaternion (or rejects it) */
                    break;
                }
                in[0] = base;
            }
            if (mask != NULL && !mask[i]) {
                for (j = 0; j < per_state; ++j)
                    y[j] = 0.0;
                continue;
            }
            for (k = first; k < count; ++k)
                in[k - first + e->floating] = a[k].data == NULL ? NULL : a[k].data + i * a[k].stride;
            status = e->kernel(in, y);
        }
        if (save != NULL)
            PyEval_RestoreThread(save);
    }
    if (status != 0) {
        Py_DECREF(target);
        goto decline;
    }
    rbdgen_release(a, count);
    if (out_arg == NULL || target == out_arg)
        return target;
    result = PyArray_CopyInto((PyArrayObject *)out_arg, (PyArrayObject *)target) < 0 ? NULL : out_arg;
    Py_XINCREF(result);
    Py_DECREF(target);
    return result;

failed: /* a conversion declined (ok == 0) or failed (ok < 0): `count` arguments are held */
    if (ok < 0)
        goto error;
decline:
    rbdgen_release(a, count);
general:
    return PyObject_Vectorcall(PyTuple_GET_ITEM(self, 1), args, nargsf, kwnames);
error:
    rbdgen_release(a, count);
    return NULL;
}

/* An entry's PyMethodDef: the method `name` with doc string `doc`. */
#define RBDGEN_METHOD(name, doc) {name, (PyCFunction)(void (*)(void))rbdgen_call, METH_FASTCALL | METH_KEYWORDS, doc}

/* A new builtin for `e` falling back to `fallback`, with `context` = (BaseState,
 * Load, parameter names, {link name: id}, base field names, self type) (borrowed
 * references); NULL with an exception set on failure. Its `__self__` is the tuple
 * (capsule, fallback, context) as an instance of the self type (a tuple subclass
 * named after the solver's class, which `help` shows). */
static PyObject *rbdgen_bind(rbdgen_entry *e, PyObject *fallback, PyObject *context)
{
    PyObject *capsule, *packed, *self, *fn;
    if (PyArray_API == NULL && _import_array() < 0)
        return NULL;
    capsule = PyCapsule_New(e, NULL, NULL);
    packed = capsule == NULL ? NULL : PyTuple_Pack(3, capsule, fallback, context);
    Py_XDECREF(capsule);
    if (packed == NULL)
        return NULL;
    self = PyObject_CallOneArg(PyTuple_GET_ITEM(context, RBDGEN_CTX_SELF_TYPE), packed);
    Py_DECREF(packed);
    if (self == NULL)
        return NULL;
    fn = PyCFunction_New(&e->def, self);
    Py_DECREF(self);
    return fn;
}

#endif /* RBDGEN_PYENTRY_H */
