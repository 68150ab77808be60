// ---- tensorfrost codegen API --------------------------------------------------------------
// The generated main functions call a TFContext. Implement a TFRuntime for your engine
// (allocate buffers of 32-bit words, dispatch kernel N of tf.get_all_generated_kernels(),
// read words back) and call a main function with TFContext{&runtime} and its inputs.
//
// Kernel interface (GLSL / HLSL / C++ alike): buffers are bound written ones first, then
// read-only ones, in the order the dispatch lists them; `uniforms` are the kernel's
// tf_u[] words; the kernel runs one thread per element of `shape`, `group` threads per
// group along one axis (ceil(product(shape) / group) groups, folded into rows of groups
// when one dimension would exceed the API's limit).
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

// Generated main functions report failed checks by throwing a tf_error.
struct tf_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

typedef uint32_t uint;

enum class TFType { Float, Int, Uint, Bool };

// An exact size (a double: host arithmetic on sizes computed without wrapping) as the
// long long an error message prints, saturated where it does not fit.
#ifndef TF_EXACT_VALUE  // (the runtime of codegen's C++ may include the cpu prelude too)
#define TF_EXACT_VALUE
static inline long long tf_exact_value(double v) {
    return v >= 9.2e18 ? 9223372036854775807LL : v <= -9.2e18 ? (-9223372036854775807LL - 1) : (long long)v;
}
#endif
static inline uint asuint(float x) { uint r; memcpy(&r, &x, 4); return r; }
static inline uint asuint(int32_t x) { return (uint)x; }
static inline uint asuint(uint x) { return x; }
static inline uint asuint(bool x) { return x ? 1u : 0u; }
static inline float asfloat(uint x) { float r; memcpy(&r, &x, 4); return r; }
static inline int32_t asint(uint x) { return (int32_t)x; }

// A tensor: a buffer of the runtime (freed when the last TFTensor referring to it goes),
// its shape and its element type.
struct TFTensor {
    std::shared_ptr<void> buffer;
    std::vector<uint> shape;
    TFType type = TFType::Float;
    size_t size() const {
        size_t n = 1;
        for (uint s : shape) n *= s;
        return n;
    }
};

struct TFDispatch {
    int kernel;  // index into tf.get_all_generated_kernels()
    std::vector<TFTensor> read_write;
    std::vector<TFTensor> read_only;
    std::vector<uint> uniforms;
    std::vector<uint> shape;
    std::vector<uint> group;
};

// What an application provides.
class TFRuntime {
public:
    virtual ~TFRuntime() = default;
    virtual void* allocate(size_t words, TFType type, const char* name) = 0;
    virtual void deallocate(void* buffer) = 0;
    virtual uint read_word(void* buffer, size_t index) = 0;
    virtual void dispatch(const TFDispatch& dispatch) = 0;
    virtual void region_begin(const char* name) { (void)name; }
    virtual void region_end(const char* name) { (void)name; }
};

// The handle generated code receives (cheap to copy).
struct TFContext {
    TFRuntime* runtime;

    TFTensor allocate(const char* name, std::initializer_list<uint> shape, TFType type) const {
        TFTensor t;
        t.shape = shape;
        t.type = type;
        TFRuntime* rt = runtime;
        t.buffer = std::shared_ptr<void>(rt->allocate(t.size(), type, name), [rt](void* b) { rt->deallocate(b); });
        return t;
    }
    void deallocate(TFTensor& t) const { t.buffer.reset(); }
    void check_tensor(const TFTensor& t, const char* name, size_t rank, TFType type) const {
        if (t.shape.size() != rank || t.type != type || !t.buffer)
            throw tf_error(std::string("input ") + name + " has the wrong rank or type");
    }
    void check(bool ok, const char* message, std::initializer_list<long long> values) const {
        if (ok) return;
        long long length = tf_format(nullptr, 0, message, values.begin(), (int)values.size());
        std::vector<char> text((size_t)length + 1);  // the whole message, however long
        tf_format(text.data(), length + 1, message, values.begin(), (int)values.size());
        throw tf_error(std::string(text.data(), (size_t)length));
    }
    uint read_word(const TFTensor& t, size_t index) const { return runtime->read_word(t.buffer.get(), index); }
    void dispatch(int kernel, std::initializer_list<TFTensor> read_write, std::initializer_list<TFTensor> read_only,
                  std::initializer_list<uint> uniforms, std::initializer_list<uint> shape,
                  std::initializer_list<uint> group) const {
        runtime->dispatch(TFDispatch{kernel, read_write, read_only, uniforms, shape, group});
    }
    void region_begin(const char* name) const { runtime->region_begin(name); }
    void region_end(const char* name) const { runtime->region_end(name); }
};
