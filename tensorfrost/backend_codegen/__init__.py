"""The codegen device (``tf.initialize(tf.codegen, kernel_lang=...)``): programs compiled to
C++ main functions and kernels in C++, GLSL or HLSL, for use outside tensorfrost. It sits
above the cpu and OpenGL backends, whose kernel emitters it reuses."""
