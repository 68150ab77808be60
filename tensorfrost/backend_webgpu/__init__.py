"""The WebGPU backend (``tf.webgpu``): WGSL kernels through wgpu-py."""
