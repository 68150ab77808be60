/* A CPython extension with one job: call pool.c's tf_invoke(frame) with the GIL released.
 *
 * A call through cffi's ABI mode goes through libffi and costs ~0.25 us, most of what a
 * one-kernel program spends in native code; a METH_O function costs a tenth of that.
 * runtime.py builds it (cached like every library) where Python's headers exist and calls
 * tf_invoke through cffi otherwise. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef int (*tf_invoke_fn)(void* frame);
static tf_invoke_fn tf_invoke = NULL;

/* bind(address): tf_invoke's address in the loaded pool library, given once. */
static PyObject* bind(PyObject* module, PyObject* address) {
    void* function = PyLong_AsVoidPtr(address);
    if (!function) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bind: a null address");
        return NULL;
    }
    tf_invoke = (tf_invoke_fn)function;
    Py_RETURN_NONE;
}

/* invoke(frame_address): tf_invoke's status. */
static PyObject* invoke(PyObject* module, PyObject* frame_address) {
    void* frame = PyLong_AsVoidPtr(frame_address);
    if (!frame || !tf_invoke) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "invoke: a null frame, or bind was not called");
        return NULL;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = tf_invoke(frame);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(status);
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_O, "bind(address): the address of pool.c's tf_invoke"},
    {"invoke", invoke, METH_O, "invoke(frame_address): tf_invoke(frame) without the GIL; its status"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tf_invoke", NULL, -1, methods};

PyMODINIT_FUNC PyInit__tf_invoke(void) { return PyModule_Create(&module); }
