"""tensorfrost: tensor programs in Python, fused into native kernels.

    import tensorfrost as tf
    tf.initialize(tf.cpu)

    def wave():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        return u[i - 1, j] + u[i + 1, j] - 2.0 * u

    step = tf.compile(wave)
    out = step(np.zeros((64, 64), np.float32))
"""

from . import eager_programs, imgui, optimizations, window  # noqa: F401 (eager_programs connects eager tensors)
from .ast_frontend import kernel_program, static_range
from .backend import (
    BackendType,
    CodeGenLang,
    codegen,
    cpp_lang,
    cpu,
    current_backend,
    glsl_lang,
    hlsl_lang,
    initialize,
    interpreter,
    opengl,
    webgpu,
    wgsl_lang,
)
from .backend_codegen.mode import (
    get_all_generated_kernels,
    get_all_generated_main_functions,
    get_cpp_header,
    get_cpp_implementation,
)
from .backend_cpu.compiler import clear_cache
from .backend_gl.renderdoc import renderdoc_end_capture, renderdoc_start_capture
from .imgui import begin as imgui_begin
from .imgui import button as imgui_button
from .imgui import checkbox as imgui_checkbox
from .imgui import end as imgui_end
from .imgui import plotlines as imgui_plotlines
from .imgui import slider as imgui_slider
from .imgui import text as imgui_text
from .ir.dtypes import (
    DType,
    TFType,
    bfloat16,
    bool1,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .ir.errors import (
    ArgumentError,
    CheckpointError,
    CompileError,
    CompilerSetupError,
    DebugIndexError,
    DebugNanError,
    DTypeError,
    GlThreadError,
    InternalError,
    RuntimeCheckError,
    ShapeError,
    TensorFrostError,
    TraceError,
)
from .lib import fft, linalg, random, sort
from .lib.atomics import scatterAddPrev
from .lib.scan import cummax, cummin, cumprod, cumsum, prefix_sum, segmented_prefix_sum
from .nn import Module, Parameter, ParameterArray, clipping, optimizers, regularizers
from .profiler import Profile, profile
from .program import TensorProgram, compile
from .runtime import TensorMemory, allocated_memory, from_dlpack, tensor, unused_allocated_memory
from .tracing.algorithms import (
    all,
    any,
    dot,
    matmul,
    mean,
    merge_dim,
    norm,
    prod,
    repeat,
    reshape,
    reverse,
    split_dim,
    squeeze,
    sum,
    transpose,
    unsqueeze,
)
from .tracing.api import (
    assert_tensor,
    break_loop,
    buffer,
    checkpointed,
    const,
    continue_loop,
    grad,
    if_cond,
    index,
    index_grid,
    indices,
    input,
    loop,
    ones,
    region_begin,
    region_end,
    scatterAdd,
    scatterAnd,
    scatterMax,
    scatterMin,
    scatterOr,
    scatterXor,
    zeros,
)
from .tracing.custom import custom, register_custom_operation
from .tracing.derivatives import hvp, jacfwd, jacrev, jvp
from .tracing.helpers import (
    assert_value,
    element_index,
    eye,
    eye_like,
    flat_index,
    get_copy,
    hash,
    indices_from_flat_index,
    modf,
    ones_like,
    print_value,
    random_value,
    zeros_like,
)
from .tracing.kernel import group_barrier, group_buffer, kernel, local_buffer
from .tracing.mathfn import (
    abs,
    acos,
    asfloat,
    asin,
    asint,
    asuint,
    atan,
    atan2,
    bool,
    cast,
    ceil,
    clamp,
    copy,
    cos,
    cosh,
    exp,
    exp2,
    float,
    floor,
    fma,
    frac,
    int,
    lerp,
    log,
    log2,
    max,
    min,
    pcg,
    pcgf,
    pow,
    rcp,
    reversebits,
    round,
    rsqrt,
    select,
    sign,
    sin,
    sinh,
    smoothstep,
    sqr,
    sqrt,
    tan,
    tanh,
    trunc,
    uint,
)
from .tracing.tensor import Tensor
from .tracing.trace import Arg
from .tracing.vec import vec
from .window import (
    KEYS,
    MOUSE_BUTTON_0,
    MOUSE_BUTTON_1,
    MOUSE_BUTTON_2,
    get_mouse_position,
    is_key_pressed,
    is_mouse_button_pressed,
    render_frame,
)
from .window import get_size as get_window_size
from .window import hide as hide_window
from .window import should_close as window_should_close
from .window import show as show_window

globals().update(KEYS)  # tf.KEY_A, tf.KEY_SPACE, ... (GLFW's key codes)
__version__ = "0.1.0"

__all__ = [
    "optimizations",
    # upstream TensorFrost's names beside ours (README: "Coming from TensorFrost")
    "TFType", "BackendType", "CodeGenLang", "current_backend", "zeros_like", "ones_like", "eye", "eye_like",
    "hash", "random_value", "element_index", "flat_index", "indices_from_flat_index", "get_copy", "modf",
    "assert_value", "from_dlpack", "clipping", "regularizers", "custom", "register_custom_operation", "vec",
    "allocated_memory", "unused_allocated_memory", "get_cpp_implementation",
    "kernel", "group_buffer", "local_buffer", "group_barrier", "scatterAddPrev", "print_value",
    "initialize", "cpu", "opengl", "webgpu", "codegen", "interpreter", "cpp_lang", "glsl_lang", "hlsl_lang",
    "wgsl_lang", "clear_cache",
    "profile", "Profile",
    "compile", "TensorProgram", "kernel_program", "static_range", "Arg", "tensor", "TensorMemory", "Tensor",
    "DType", "float32", "int32", "uint32", "bool1", "float16", "bfloat16", "float64", "int8", "int16", "int64",
    "uint8", "uint16", "uint64",
    "TensorFrostError", "TraceError", "ShapeError", "DTypeError", "ArgumentError", "CompileError",
    "RuntimeCheckError", "InternalError", "CompilerSetupError", "CheckpointError", "GlThreadError",
    "DebugIndexError", "DebugNanError",
    "input", "const", "zeros", "ones", "buffer", "indices", "index", "index_grid",
    "loop", "checkpointed", "if_cond", "break_loop", "continue_loop", "assert_tensor", "region_begin", "region_end",
    "grad", "jvp", "hvp", "jacfwd", "jacrev",
    "renderdoc_start_capture", "renderdoc_end_capture",
    "get_cpp_header", "get_all_generated_main_functions", "get_all_generated_kernels",
    "scatterAdd", "scatterMin", "scatterMax", "scatterAnd", "scatterOr", "scatterXor",
    "sum", "mean", "prod", "norm", "any", "all", "prefix_sum", "dot", "matmul",
    "reshape", "transpose", "unsqueeze", "squeeze", "split_dim", "merge_dim", "repeat", "reverse",
    "abs", "sign", "floor", "ceil", "round", "trunc", "frac", "exp", "exp2", "log", "log2", "sqrt",
    "rsqrt", "rcp", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "pow", "sqr", "min", "max", "clamp", "lerp", "fma", "smoothstep", "select", "copy",
    "float", "int", "uint", "bool", "cast", "asfloat", "asint", "asuint", "pcg", "pcgf", "reversebits",
    "Module", "Parameter", "ParameterArray", "optimizers",
    "window", "show_window", "hide_window", "window_should_close", "get_window_size", "get_mouse_position",
    "is_mouse_button_pressed", "is_key_pressed", "render_frame", "MOUSE_BUTTON_0", "MOUSE_BUTTON_1",
    "MOUSE_BUTTON_2", *KEYS, "imgui", "imgui_begin", "imgui_end", "imgui_text", "imgui_slider", "imgui_button",
    "imgui_checkbox", "imgui_plotlines", "linalg", "random", "sort", "nn", "fft",
    "cumsum", "cumprod", "cummax", "cummin", "segmented_prefix_sum",
]
