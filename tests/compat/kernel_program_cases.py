"""A kernel program (AST front end) with an explicit kernel: kernel programs must be defined
in a file, so the test imports this one."""

import tensorfrost as tf


@tf.kernel_program
def group_sums(A: tf.Arg([-1], tf.float32)):
    out = tf.buffer(A.shape, tf.float32)
    with tf.kernel(A.shape, group_size=[4]) as i:
        tile = tf.group_buffer(4, tf.float32)
        tile[i.block_thread_index(0)] = A[i]
        tf.group_barrier()
        s = 0.0
        for k in range(4):
            s += tile[k]
        if s > 10.0:
            s = 10.0
        out[i] = s
    return out
