"""Code emission shared by the backends: the C-family body emitter (C++, GLSL, HLSL), the
C++ host functions of the codegen mode, and the codegen mode itself (tf.codegen)."""
