/* The steady-state call of a compiled program, as a small CPython extension.
 *
 * A one-kernel program spends well under 0.2 us in its native code; a call through cffi's ABI
 * mode (libffi) costs ~0.25 us more, and checking the arguments, offering spare outputs and
 * wrapping the results in Python another ~1 us. Here the same steps run in C, with the same
 * rules as runtime.py's Python path (CpuExecutable._call_python), which stays for everything
 * this declines: it returns None, having run nothing, for any argument that is not a tensor of
 * the program's backend with its input's dtype and rank, nor a C-contiguous, aligned, non-empty
 * numpy array of its storage dtype. fast_call.py builds it (cached like every library) where
 * Python's headers exist. Calls of one program take turns on its frame through the caller's
 * lock, which the Python path takes too (acquire/release).
 *
 * A tensor's storage is a cffi pointer object, whose address cffi does not export to C: it is
 * read at the offset cffi's CDataObject keeps it, for the storage types make() was shown with
 * samples of known addresses (any other type, or a layout that reads differently, declines). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>

typedef struct { void* data; int32_t shape[8]; int32_t rank; } tf_arg; /* as prelude.hpp's */
typedef int (*tf_invoke_fn)(void* frame);
typedef struct { PyObject_HEAD void* c_type; char* c_data; } cdata_layout; /* cffi's CDataObject */

#define MAX_RANK 8
#define MAX_INPUTS 64
#define MAX_OFFERS 64         /* as in pool.c */
#define OFFERS_PER_OUTPUT 2   /* as in runtime.py */
#define MAX_ELEMENTS 2147483647LL
#define STORAGE_TYPES 4
#define STOPPED_BY_CTRL_C 2   /* tf_main's status when the Ctrl-C flag stopped it */

static tf_invoke_fn tf_invoke = NULL;
static PyObject *name_shape, *name_dtype, *name_storage, *name_backend;
/* Calls this path ran, and outputs it placed in an offered spare (tensorfrost/optimizations.py's
 * "fast_call" and "spare_outputs"): changed only under the GIL. */
static long long served_calls = 0, reused_spares = 0;
static unsigned long forks = 0; /* fork()s this process is a child of */

typedef struct { PyObject* dtype; int rank; PyObject* array_dtype; } input_spec; /* array_dtype: None if not read in place */
typedef struct { PyObject* dtype; PyObject* spares; int out_index; PyObject* last_shape; } output_spec;
typedef struct { int kind; int index; } result_spec; /* kind: FRESH output, INPUT or earlier RESULT */
enum { FRESH, INPUT, RESULT };

typedef struct {
    void* frame; tf_arg* in; tf_arg* out; void** offers; int* offer_count; char* error; int error_size;
    PyObject *tensor_type, *single_type, *array_type, *shape_type, *backend, *error_type, *new_output;
    PyTypeObject* storage_types[STORAGE_TYPES];
    int input_count, output_count, result_count;
    input_spec inputs[MAX_INPUTS];
    output_spec* outputs;
    result_spec* results;
    PyThread_type_lock lock;
    unsigned long lock_forks; /* the value of forks when the lock was made */
    PyObject* held; /* make()'s arguments: every borrowed object above lives in them, and the
                       memory of the frame and its arrays */
} caller;

static void* address_of(PyObject* number) {
    void* address = PyLong_AsVoidPtr(number);
    if (!address && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a null address");
    return address;
}

/* The attribute's identity: whether it is ``expected`` (no reference kept). */
static int attribute_is(PyObject* object, PyObject* name, PyObject* expected) {
    PyObject* value = PyObject_GetAttr(object, name);
    if (!value) return -1;
    Py_DECREF(value);
    return value == expected;
}

/* The address a tensor's storage points at, or NULL (error set, or not a storage we can read). */
static void* storage_address(caller* c, PyObject* tensor) {
    PyObject* storage = PyObject_GetAttr(tensor, name_storage);
    if (!storage) return NULL;
    void* address = NULL;
    for (int k = 0; k < STORAGE_TYPES && c->storage_types[k]; k++)
        if (Py_TYPE(storage) == c->storage_types[k]) address = ((cdata_layout*)storage)->c_data;
    Py_DECREF(storage);
    return address;
}

static int write_dim(tf_arg* slot, int axis, long long size) {
    if (size < 0 || size > MAX_ELEMENTS) return 0;
    slot->shape[axis] = (int32_t)size;
    return 1;
}

/* 1: the tensor's storage and shape are in the slot; 0: declined; -1: error. */
static int take_tensor(caller* c, input_spec* spec, tf_arg* slot, PyObject* value) {
    int same = attribute_is(value, name_backend, c->backend);
    if (same != 1) return same;
    if ((same = attribute_is(value, name_dtype, spec->dtype)) != 1) return same;
    PyObject* shape = PyObject_GetAttr(value, name_shape);
    if (!shape) return -1;
    int ok = PyTuple_Check(shape) && PyTuple_GET_SIZE(shape) == spec->rank;
    for (int axis = 0; ok && axis < spec->rank; axis++) {
        long long size = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, axis));
        ok = !PyErr_Occurred() && write_dim(slot, axis, size);
    }
    Py_DECREF(shape);
    if (PyErr_Occurred()) return -1;
    slot->data = ok ? storage_address(c, value) : NULL;
    if (PyErr_Occurred()) return -1;
    slot->rank = spec->rank;
    return slot->data != NULL;
}

/* As take_tensor for a numpy array read in place; ``view`` is released by the caller when 1. */
static int take_array(input_spec* spec, tf_arg* slot, PyObject* value, Py_buffer* view) {
    int same = attribute_is(value, name_dtype, spec->array_dtype);
    if (same != 1) return same;
    if (PyObject_GetBuffer(value, view, PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear(); /* not C-contiguous: the checked path copies it */
        return 0;
    }
    int ok = view->ndim == spec->rank && view->itemsize == 4 && (uintptr_t)view->buf % 4 == 0
             && view->len > 0 && view->len / 4 <= MAX_ELEMENTS;
    for (int axis = 0; ok && axis < spec->rank; axis++) ok = write_dim(slot, axis, view->shape[axis]);
    if (!ok) {
        PyBuffer_Release(view);
        return 0;
    }
    slot->data = view->buf;
    slot->rank = spec->rank;
    return 1;
}

/* No one but the spare's tuple holds the tensor: no other reference, weak reference, or
 * reference to its storage (a numpy view of it holds that). */
static int unheld(PyObject* tensor) {
    Py_ssize_t offset = Py_TYPE(tensor)->tp_weaklistoffset;
    if (Py_REFCNT(tensor) != 1 || offset <= 0 || *(PyObject**)((char*)tensor + offset) != NULL) return 0;
    PyObject* storage = PyObject_GetAttr(tensor, name_storage);
    if (!storage) return -1;
    int alone = Py_REFCNT(storage) == 2; /* the tensor's and ours */
    Py_DECREF(storage);
    return alone;
}

/* Offer the call the storage of spares no one holds, two per output; ``offered`` gets new
 * references to their tensors. The count, or -1 on error. */
static int offer(caller* c, PyObject** offered) {
    int count = 0;
    for (int j = 0; j < c->output_count && count < MAX_OFFERS; j++) {
        PyObject* spares = c->outputs[j].spares;
        int first = count;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(spares) && count - first < OFFERS_PER_OUTPUT; i++) {
            PyObject* spare = PyList_GET_ITEM(spares, i); /* (tensor, address) */
            PyObject* tensor = PyTuple_GET_ITEM(spare, 0);
            int available = unheld(tensor);
            void* address = available == 1 ? address_of(PyTuple_GET_ITEM(spare, 1)) : NULL;
            if (available == 0) continue;
            if (!address) {
                while (count) Py_DECREF(offered[--count]);
                return -1;
            }
            c->offers[count] = address;
            Py_INCREF(tensor);
            offered[count++] = tensor;
        }
    }
    *c->offer_count = count;
    return count;
}

/* A new reference to the Shape of an output slot: the last one when the dims are the same. */
static PyObject* output_shape(caller* c, output_spec* spec, tf_arg* slot) {
    PyObject* last = spec->last_shape;
    int same = last && PyTuple_GET_SIZE(last) == slot->rank;
    for (int axis = 0; same && axis < slot->rank; axis++)
        same = PyLong_AsLongLong(PyTuple_GET_ITEM(last, axis)) == slot->shape[axis];
    if (same) {
        Py_INCREF(last);
        return last;
    }
    PyObject* dims = PyTuple_New(slot->rank);
    if (!dims) return NULL;
    for (int axis = 0; axis < slot->rank; axis++) {
        PyObject* size = PyLong_FromLong(slot->shape[axis]);
        if (!size) {
            Py_DECREF(dims);
            return NULL;
        }
        PyTuple_SET_ITEM(dims, axis, size);
    }
    PyObject* shape = PyObject_CallOneArg(c->shape_type, dims);
    Py_DECREF(dims);
    if (!shape) return NULL;
    Py_XSETREF(spec->last_shape, shape);
    Py_INCREF(shape);
    return shape;
}

/* Output j: the offered spare it was placed in, given its new shape and dtype, or a new
 * tensor from new_output(j). A new reference. */
static PyObject* output(caller* c, int j, PyObject** offered, int count) {
    output_spec* spec = &c->outputs[j];
    tf_arg* slot = &c->out[spec->out_index];
    PyObject* tensor = NULL;
    for (int k = 0; k < count && !tensor; k++) /* (tf_invoke resets the frame's count, not its offers) */
        if (c->offers[k] == slot->data) tensor = offered[k];
    if (!tensor) return PyObject_CallFunction(c->new_output, "i", j);
    reused_spares++;
    PyObject* shape = output_shape(c, spec, slot);
    if (!shape) return NULL;
    int failed = PyObject_SetAttr(tensor, name_shape, shape) || PyObject_SetAttr(tensor, name_dtype, spec->dtype);
    Py_DECREF(shape);
    if (failed) return NULL;
    Py_INCREF(tensor);
    return tensor;
}

/* The program's outputs in order: fresh ones, and those that are an input or an earlier output. */
static PyObject* results(caller* c, PyObject* args, PyObject** offered, int count) {
    PyObject* list = PyList_New(c->result_count);
    for (int i = 0; list && i < c->result_count; i++) {
        result_spec* spec = &c->results[i];
        PyObject* tensor = spec->kind == FRESH ? output(c, spec->index, offered, count)
                           : Py_NewRef(spec->kind == INPUT ? PyTuple_GET_ITEM(args, spec->index)
                                                           : PyList_GET_ITEM(list, spec->index));
        if (!tensor) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, tensor);
    }
    return list;
}

/* Raise what a failed run's status says: tf_main's message, or KeyboardInterrupt after Python's
 * handler ran (it raises it itself unless a handler of the user's replaced it). */
static PyObject* failed(caller* c, int status) {
    if (status == STOPPED_BY_CTRL_C) {
        if (PyErr_CheckSignals() == 0) PyErr_SetNone(PyExc_KeyboardInterrupt);
        return NULL;
    }
    size_t length = strnlen(c->error, (size_t)c->error_size);
    PyObject* message = PyUnicode_DecodeUTF8(c->error, (Py_ssize_t)length, "replace");
    PyObject* error = message ? PyObject_CallOneArg(c->error_type, message) : NULL;  /* (error_type: a factory) */
    Py_XDECREF(message);
    if (error) {
        PyErr_SetObject((PyObject*)Py_TYPE(error), error);
        Py_DECREF(error);
    }
    return NULL;
}

static caller* get_caller(PyObject* capsule) {
    return PyCapsule_GetPointer(capsule, "tf_caller");
}

/* Take the caller's lock, waiting without the GIL if another thread holds it. A forked child
 * has only the thread that forked: a lock another thread held then is never released there,
 * so the child's first call makes a new one (the old one is left: freeing a held lock is not
 * allowed). */
static void lock(caller* c) {
    if (c->lock_forks != forks) {
        PyThread_type_lock fresh = PyThread_allocate_lock();
        if (fresh) c->lock = fresh;
        c->lock_forks = forks;
    }
    if (!PyThread_acquire_lock(c->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(c->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
}

static PyObject* run_locked(caller* c, PyObject* args) {
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != c->input_count) Py_RETURN_NONE;
    Py_buffer views[MAX_INPUTS];
    int viewed[MAX_INPUTS], taken = 1;
    for (int k = 0; k < c->input_count; k++) {
        PyObject* value = PyTuple_GET_ITEM(args, k);
        PyTypeObject* type = Py_TYPE(value);
        viewed[k] = 0;
        if (taken == 1 && ((PyObject*)type == c->tensor_type || (PyObject*)type == c->single_type))
            taken = take_tensor(c, &c->inputs[k], &c->in[k], value);
        else if (taken == 1 && (PyObject*)type == c->array_type && c->inputs[k].array_dtype != Py_None)
            taken = viewed[k] = take_array(&c->inputs[k], &c->in[k], value, &views[k]);
        else
            taken = taken == 1 ? 0 : taken;
    }
    PyObject* offered[MAX_OFFERS];
    int count = taken == 1 ? offer(c, offered) : 0;
    PyObject* result = NULL;
    if (taken == 1 && count >= 0) {
        int status;
        Py_BEGIN_ALLOW_THREADS
        status = tf_invoke(c->frame);
        Py_END_ALLOW_THREADS
        result = status ? failed(c, status) : results(c, args, offered, count);
        served_calls++;
    } else if (taken == 0) {
        result = Py_NewRef(Py_None);
    }
    for (int k = 0; k < c->input_count; k++)
        if (viewed[k] == 1) PyBuffer_Release(&views[k]);
    for (int k = 0; k < count; k++) Py_DECREF(offered[k]);
    return result;
}

/* run(caller, args): the program's outputs (a list), or None when an argument is not one this
 * path takes (nothing run); a failed run raises its error. */
static PyObject* run(PyObject* module, PyObject* const* argv, Py_ssize_t argc) {
    caller* c = argc == 2 ? get_caller(argv[0]) : NULL;
    if (!c) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "run(caller, args)");
        return NULL;
    }
    lock(c);
    PyObject* result = run_locked(c, argv[1]);
    PyThread_release_lock(c->lock);
    return result;
}

/* acquire(caller) and release(caller): the caller's lock, for the Python path. */
static PyObject* acquire(PyObject* module, PyObject* capsule) {
    caller* c = get_caller(capsule);
    if (!c) return NULL;
    lock(c);
    Py_RETURN_NONE;
}

static PyObject* release(PyObject* module, PyObject* capsule) {
    caller* c = get_caller(capsule);
    if (!c) return NULL;
    PyThread_release_lock(c->lock);
    Py_RETURN_NONE;
}

static void free_parts(caller* c) {
    if (c->outputs)
        for (int j = 0; j < c->output_count; j++) Py_XDECREF(c->outputs[j].last_shape);
    PyMem_Free(c->outputs);
    PyMem_Free(c->results);
    if (c->lock) PyThread_free_lock(c->lock);
    Py_XDECREF(c->held);
    PyMem_Free(c);
}

static void free_caller(PyObject* capsule) {
    caller* c = get_caller(capsule);
    if (c) free_parts(c);
}

/* Whether each storage type reads at cffi's offset as the address Python says it holds. */
static int check_storages(caller* c, PyObject* samples) {
    if (!PyTuple_Check(samples) || PyTuple_GET_SIZE(samples) > STORAGE_TYPES) return 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(samples); k++) {
        PyObject *sample, *expected;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(samples, k), "OO", &sample, &expected)) return -1;
        void* address = address_of(expected);
        if (!address) return -1;
        if (Py_TYPE(sample)->tp_basicsize < (Py_ssize_t)sizeof(cdata_layout)
            || ((cdata_layout*)sample)->c_data != address)
            return 0;
        c->storage_types[k] = Py_TYPE(sample);
    }
    return 1;
}

static int read_specs(caller* c, PyObject* inputs, PyObject* outputs, PyObject* results) {
    c->input_count = (int)PyTuple_GET_SIZE(inputs);
    for (int k = 0; k < c->input_count; k++) {
        input_spec* spec = &c->inputs[k];
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(inputs, k), "OiO", &spec->dtype, &spec->rank, &spec->array_dtype))
            return -1;
        if (spec->rank < 0 || spec->rank > MAX_RANK) return 0;
    }
    c->output_count = (int)PyTuple_GET_SIZE(outputs);
    c->outputs = PyMem_Calloc((size_t)c->output_count + 1, sizeof(output_spec));
    if (!c->outputs) return -1;
    for (int j = 0; j < c->output_count; j++) {
        output_spec* spec = &c->outputs[j];
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(outputs, j), "OO!i", &spec->dtype, &PyList_Type, &spec->spares,
                              &spec->out_index))
            return -1;
    }
    c->result_count = (int)PyTuple_GET_SIZE(results);
    c->results = PyMem_Calloc((size_t)c->result_count + 1, sizeof(result_spec));
    if (!c->results) return -1;
    for (int i = 0; i < c->result_count; i++) {
        result_spec* spec = &c->results[i];
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(results, i), "ii", &spec->kind, &spec->index)) return -1;
        int limit = spec->kind == FRESH ? c->output_count : spec->kind == INPUT ? c->input_count : i;
        if (spec->kind < FRESH || spec->kind > RESULT || spec->index < 0 || spec->index >= limit) return 0;
    }
    return 1;
}

/* make(addresses, types, inputs, outputs, results, storage_samples, new_output, keep): a caller,
 * or None where this path cannot serve the program (too many inputs or outputs, a storage
 * layout it cannot read). addresses: (frame, in, out, offers, offer_count, error, error_size,
 * sizeof(tf_arg)); types: (TensorMemory, SingleOutput, numpy.ndarray, Shape, the backend,
 * the function making the error a failed check raises); inputs: per input (dtype, rank, numpy dtype or None);
 * outputs: per fresh output (dtype, its spares list, its index in out); results: per output
 * of the program (FRESH, j), (INPUT, k) or (RESULT, i); keep: what must live as long as the
 * caller (the frame's memory, the program's library). */
static PyObject* make(PyObject* module, PyObject* args) {
    PyObject *addresses, *types, *inputs, *outputs, *results, *samples, *new_output, *keep;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!OOO", &PyTuple_Type, &addresses, &PyTuple_Type, &types, &PyTuple_Type,
                          &inputs, &PyTuple_Type, &outputs, &PyTuple_Type, &results, &samples, &new_output, &keep))
        return NULL;
    if (PyTuple_GET_SIZE(inputs) > MAX_INPUTS || PyTuple_GET_SIZE(outputs) > MAX_OFFERS / OFFERS_PER_OUTPUT || !tf_invoke)
        Py_RETURN_NONE;
    caller* c = PyMem_Calloc(1, sizeof(caller));
    if (!c) return PyErr_NoMemory();
    PyObject *frame, *in, *out, *offers, *offer_count, *error;
    long long arg_size;
    int ok = PyArg_ParseTuple(addresses, "OOOOOOiL", &frame, &in, &out, &offers, &offer_count, &error,
                              &c->error_size, &arg_size)
             && PyArg_ParseTuple(types, "OOOOOO", &c->tensor_type, &c->single_type, &c->array_type, &c->shape_type,
                                 &c->backend, &c->error_type);
    ok = ok && (c->frame = address_of(frame)) && (c->in = address_of(in)) && (c->out = address_of(out))
         && (c->offers = address_of(offers)) && (c->offer_count = address_of(offer_count))
         && (c->error = address_of(error)) ? 1 : -1;
    if (ok == 1 && (arg_size != (long long)sizeof(tf_arg) || c->error_size <= 0)) ok = 0;
    if (ok == 1) ok = read_specs(c, inputs, outputs, results);
    if (ok == 1) ok = check_storages(c, samples);
    if (ok == 1 && !(c->lock = PyThread_allocate_lock())) ok = -1;
    c->lock_forks = forks;
    PyObject* capsule = NULL;
    if (ok == 1) {
        c->new_output = new_output;
        c->held = Py_BuildValue("(OOOOOOOO)", addresses, types, inputs, outputs, results, samples, new_output, keep);
        capsule = c->held ? PyCapsule_New(c, "tf_caller", free_caller) : NULL;
        if (capsule) return capsule;
    }
    free_parts(c);
    if (ok < 0 || PyErr_Occurred()) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return NULL;
    }
    Py_RETURN_NONE;
}

/* bind(address): tf_invoke's address in the loaded pool library, given once. */
static PyObject* bind(PyObject* module, PyObject* address) {
    void* function = address_of(address);
    if (!function) return NULL;
    tf_invoke = (tf_invoke_fn)function;
    Py_RETURN_NONE;
}

/* counts(): (calls run, spares reused); counts(0) sets both back to 0 first. */
static PyObject* counts(PyObject* module, PyObject* const* argv, Py_ssize_t argc) {
    if (argc == 1) served_calls = reused_spares = 0;
    return Py_BuildValue("(LL)", served_calls, reused_spares);
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_O, "bind(address): the address of pool.c's tf_invoke"},
    {"make", make, METH_VARARGS, "make(...): a caller for one program (see fast_call.c)"},
    {"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, "run(caller, args): the outputs, or None"},
    {"acquire", acquire, METH_O, "acquire(caller): take the caller's lock (the Python path's turn)"},
    {"release", release, METH_O, "release(caller): give the caller's lock back"},
    {"counts", (PyCFunction)(void (*)(void))counts, METH_FASTCALL, "counts([reset]): (calls run, spares reused)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tf_fast_call", NULL, -1, methods};

static void after_fork_in_child(void) { forks++; }

PyMODINIT_FUNC PyInit__tf_fast_call(void) {
    static int registered = 0;
    if (!registered) registered = pthread_atfork(NULL, NULL, after_fork_in_child) == 0;
    name_shape = PyUnicode_InternFromString("shape");
    name_dtype = PyUnicode_InternFromString("dtype");
    name_storage = PyUnicode_InternFromString("storage");
    name_backend = PyUnicode_InternFromString("backend");
    if (!name_shape || !name_dtype || !name_storage || !name_backend) return NULL;
    return PyModule_Create(&module);
}
