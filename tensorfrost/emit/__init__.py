"""Code emission shared by the backends: the C-family body emitter (C++, GLSL, HLSL). It
imports no backend; the codegen device that combines them is ``backend_codegen``."""
