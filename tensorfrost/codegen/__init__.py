"""Code generation shared by the backends: the C-family body emitter (C++, GLSL, HLSL)."""
