/* robrayc's Python entry points into a compiled checker: one configuration (NAME_check) or one
   straight-line motion (NAME_check_motion) per Python call, at about the cost of the C.

   A CPython extension built beside the checker's library (robrayc/analysis/collision/
   c_build.py: once per interpreter, when its headers are there; else robrayc calls the same
   C through ctypes, with the same answers). It knows no robot: a Caller holds the addresses
   of one loaded checker's functions, taken from ctypes. What ctypes costs and this does not
   (measured in docs/performance.md): converting the arguments through their argtypes, the
   copy of a configuration into a ctypes buffer, and the Python layers around them.

   Caller(check, motion, n, holder, env, library):
     check, motion  the addresses of NAME_check and NAME_check_motion;
     n              the doubles of one configuration (NAME_N_CONFIG);
     holder, env    the library's obstacles are env's while holder[0] is env; else
                    env.own() uploads them first (c_environment.py: two checkers of one
                    robot share one library);
     library        kept alive while the Caller is (the functions' code is in it).
   caller.decide(q) -> True (collides), False (free), or None: not decided (MAYBE, INVALID)
   or q is not one this reads: a list or tuple of n numbers, or a buffer of n doubles or
   floats in native byte order (a float64 or float32 numpy array, contiguous or not). The caller then answers by
   its slower path, which reads every other input and raises on bad ones.
   caller.decide_motion(a, b, resolution) -> the same for the motion a -> b (resolution an
   int or a float).
   caller.check_or(fallback, q) -> decide(q) where it decides, else fallback(q).
   The GIL is held while the C runs (a check takes about a microsecond); the library's
   obstacle tables are global, so the checkers of one robot are used from one thread at a
   time (docs/guides/compiled-checker.md). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

/* the kernel's answers (robrayc/c/checker_kernel.h: CHECKER_FREE, CHECKER_COLLIDES) */
enum { ANSWER_FREE = 0, ANSWER_COLLIDES = 1 };

typedef int (*check_fn)(const double *q);
typedef int (*motion_fn)(const double *a, const double *b, double resolution);

typedef struct {
    PyObject_HEAD
    check_fn check;
    motion_fn motion;
    Py_ssize_t n;
    PyObject *holder;
    PyObject *env;
    PyObject *library;
} Caller;

/* The size of a buffer's item when its format is one double or one float in native byte
   order, else 0. */
static Py_ssize_t native_real(const char *format)
{
    if (format == NULL)
        return 0;
    if (format[0] == '@' || format[0] == '=')
        format++;
#if PY_LITTLE_ENDIAN
    else if (format[0] == '<')
        format++;
#else
    else if (format[0] == '>' || format[0] == '!')
        format++;
#endif
    if (format[0] == '\0' || format[1] != '\0')
        return 0;
    return format[0] == 'd' ? (Py_ssize_t)sizeof(double)
           : format[0] == 'f' ? (Py_ssize_t)sizeof(float) : 0;
}

/* Reads q (a list or tuple of n numbers) into out: 1, or 0 when it is not one (no error
   set). An item's __float__ may change the list: its size is read again each item. */
static int read_items(PyObject *q, Py_ssize_t n, double *out)
{
    Py_ssize_t k;
    for (k = 0; k < n; k++) {
        PyObject *x;
        double v;
        if (PySequence_Fast_GET_SIZE(q) != n)
            return 0;
        x = PySequence_Fast_GET_ITEM(q, k);
        if (PyFloat_CheckExact(x)) {
            out[k] = PyFloat_AS_DOUBLE(x);
            continue;
        }
        Py_INCREF(x);
        v = PyFloat_AsDouble(x);
        Py_DECREF(x);
        if (v == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        out[k] = v;
    }
    return 1;
}

/* Reads q (a one-dimensional buffer of n native doubles or floats, any stride) into out:
   1, or 0 when it is not one (no error set). */
static int read_buffer(PyObject *q, Py_ssize_t n, double *out)
{
    Py_buffer view;
    Py_ssize_t k, size;
    int ok;
    if (PyObject_GetBuffer(q, &view, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    size = native_real(view.format);
    ok = view.ndim == 1 && view.shape[0] == n && size > 0 && view.itemsize == size;
    if (ok && size == (Py_ssize_t)sizeof(double) && view.strides[0] == size)
        memcpy(out, view.buf, (size_t)n * sizeof(double));
    else if (ok && size == (Py_ssize_t)sizeof(double))
        for (k = 0; k < n; k++) /* (memcpy: a buffer need not be aligned) */
            memcpy(out + k, (const char *)view.buf + k * view.strides[0], sizeof(double));
    else if (ok)
        for (k = 0; k < n; k++) {
            float x;
            memcpy(&x, (const char *)view.buf + k * view.strides[0], sizeof(float));
            out[k] = x;
        }
    PyBuffer_Release(&view);
    return ok;
}

/* Reads one configuration into out: 1, or 0 when q is not one this reads. */
static int read_config(PyObject *q, Py_ssize_t n, double *out)
{
    if (PyList_CheckExact(q) || PyTuple_CheckExact(q))
        return read_items(q, n, out);
    if (PyObject_CheckBuffer(q))
        return read_buffer(q, n, out);
    return 0;
}

/* Makes the library hold this checker's obstacles: 0, or -1 with the error env.own()
   raised. */
static int own(Caller *self)
{
    PyObject *done;
    if (PyList_GET_SIZE(self->holder) > 0 && PyList_GET_ITEM(self->holder, 0) == self->env)
        return 0;
    done = PyObject_CallMethod(self->env, "own", NULL);
    if (done == NULL)
        return -1;
    Py_DECREF(done);
    return 0;
}

/* The answer as Python reads it: True, False, or None (not decided). */
static PyObject *answer(int state)
{
    if (state == ANSWER_COLLIDES)
        Py_RETURN_TRUE;
    if (state == ANSWER_FREE)
        Py_RETURN_FALSE;
    Py_RETURN_NONE;
}

/* Room for the configurations one call reads: on the stack up to STACK_DOUBLES values, else
   allocated (NULL with MemoryError set). Not the Caller's own memory: Python code that an
   input's __float__ or env.own() runs may let another thread call the same Caller. (A test
   builds it with -DSTACK_DOUBLES=1, to try the allocated room on a small robot.) */
#ifndef STACK_DOUBLES
#define STACK_DOUBLES 64
#endif

static double *workspace(Py_ssize_t count, double *stack)
{
    double *heap;
    if (count <= STACK_DOUBLES)
        return stack;
    heap = PyMem_Malloc((size_t)count * sizeof(double));
    if (heap == NULL)
        PyErr_NoMemory();
    return heap;
}

static PyObject *decide(Caller *self, PyObject *q, double *a)
{
    if (!read_config(q, self->n, a))
        Py_RETURN_NONE;
    if (own(self) < 0)
        return NULL;
    return answer(self->check(a));
}

static PyObject *caller_decide(Caller *self, PyObject *const *args, Py_ssize_t nargs)
{
    double stack[STACK_DOUBLES], *a;
    PyObject *out;
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "decide(q) takes one configuration");
        return NULL;
    }
    a = workspace(self->n, stack);
    if (a == NULL)
        return NULL;
    out = decide(self, args[0], a);
    if (a != stack)
        PyMem_Free(a);
    return out;
}

static PyObject *decide_motion(Caller *self, PyObject *const *args, double *a)
{
    double resolution;
    if (!(PyFloat_Check(args[2]) || PyLong_Check(args[2])))
        Py_RETURN_NONE;
    resolution = PyFloat_AsDouble(args[2]);
    if (resolution == -1.0 && PyErr_Occurred()) { /* an int past a double's range */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!read_config(args[0], self->n, a) || !read_config(args[1], self->n, a + self->n))
        Py_RETURN_NONE;
    if (own(self) < 0)
        return NULL;
    return answer(self->motion(a, a + self->n, resolution));
}

static PyObject *caller_decide_motion(Caller *self, PyObject *const *args, Py_ssize_t nargs)
{
    double stack[STACK_DOUBLES], *a;
    PyObject *out;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "decide_motion(a, b, resolution) takes three");
        return NULL;
    }
    a = workspace(2 * self->n, stack);
    if (a == NULL)
        return NULL;
    out = decide_motion(self, args, a);
    if (a != stack)
        PyMem_Free(a);
    return out;
}

/* check_or(fallback, q): decide(q) where it decides, else fallback(q) (the slower path that
   answers every input): CollisionChecker.check is a functools.partial of it, so that a
   decided configuration costs one call with no Python frame in it */
static PyObject *caller_check_or(Caller *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *out;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "check_or(fallback, q) takes two");
        return NULL;
    }
    out = caller_decide(self, args + 1, 1);
    if (out != Py_None)  /* True, False, or NULL: an error */
        return out;
    Py_DECREF(out);
    return PyObject_CallFunctionObjArgs(args[0], args[1], NULL);
}

static PyObject *caller_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    unsigned long long check, motion;
    Py_ssize_t n;
    PyObject *holder, *env, *library;
    Caller *self;
    static char *names[] = { "check", "motion", "n", "holder", "env", "library", NULL };
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KKnO!OO", names, &check, &motion, &n,
                                     &PyList_Type, &holder, &env, &library))
        return NULL;
    if (check == 0 || motion == 0 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "Caller: null function or negative size");
        return NULL;
    }
    self = (Caller *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    /* (through an integer: ISO C has no conversion from an object pointer to a function) */
    self->check = (check_fn)(uintptr_t)check;
    self->motion = (motion_fn)(uintptr_t)motion;
    self->n = n;
    Py_INCREF(holder);
    self->holder = holder;
    Py_INCREF(env);
    self->env = env;
    Py_INCREF(library);
    self->library = library;
    return (PyObject *)self;
}

static void caller_dealloc(Caller *self)
{
    Py_XDECREF(self->holder);
    Py_XDECREF(self->env);
    Py_XDECREF(self->library);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef caller_methods[] = {
    { "decide", (PyCFunction)(void (*)(void))caller_decide, METH_FASTCALL,
      "decide(q): True (collides), False (free) or None (not decided, or not read)" },
    { "decide_motion", (PyCFunction)(void (*)(void))caller_decide_motion, METH_FASTCALL,
      "decide_motion(a, b, resolution): decide for the straight-line motion a -> b" },
    { "check_or", (PyCFunction)(void (*)(void))caller_check_or, METH_FASTCALL,
      "check_or(fallback, q): decide(q), or fallback(q) where it does not decide" },
    { NULL, NULL, 0, NULL }
};

static PyTypeObject caller_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "robrayc_pycall.Caller",
    .tp_basicsize = sizeof(Caller),
    .tp_dealloc = (destructor)caller_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One compiled checker's check and check_motion, called from Python.",
    .tp_methods = caller_methods,
    .tp_new = caller_new,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "robrayc_pycall",
    "robrayc's Python entry points into a compiled checker (robrayc/c/pycall.c).", -1,
    NULL, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit_robrayc_pycall(void)
{
    PyObject *m;
    if (PyType_Ready(&caller_type) < 0)
        return NULL;
    m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&caller_type);
    if (PyModule_AddObject(m, "Caller", (PyObject *)&caller_type) < 0) {
        Py_DECREF(&caller_type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
