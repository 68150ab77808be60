"""2-D convolution and pooling on NCHW tensors (``tf.nn.conv2d``, ``tf.nn.max_pool2d``,
``tf.nn.avg_pool2d``), with torch's arguments and output sizes::

    out = (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1

The convolution gathers the receptive fields of each image into a column matrix
[N, groups, C / groups * KH * KW, HO * WO] (im2col; padding reads as 0) and multiplies
the weights [groups, O / groups, C / groups * KH * KW] by it with one batched
``tf.matmul``, whose result [N, groups, O / groups, HO * WO] is already NCHW (a reshape,
no transposes: views with a run-time batch size cost integer divisions per element). The
backward pass is two matmuls (the weight gradient summed over the batch) and one scatter
of the column gradient into the input. Sizes may be known only at run time (``tf.input([-1, -1, -1,
-1])``), weights included; stride, padding, dilation and groups are Python ints.
"""

from __future__ import annotations

from ...ir.errors import ArgumentError, ShapeError, user_location
from ...tracing.algorithms import matmul, reshape, unsqueeze
from ...tracing.algorithms import sum as reduce_sum
from ...tracing.api import indices
from ...tracing.mathfn import max as reduce_max
from ...tracing.mathfn import min as reduce_min
from ...tracing.mathfn import select
from ...tracing.tensor import Tensor
from ._args import float_arg, int_pair, positive_int, static_dim, tensor_arg

IntPair = int | tuple[int, int]  # a size for both axes, or (rows, columns)

__all__ = ["conv2d", "max_pool2d", "avg_pool2d"]


def _out_size(size, kernel, stride: int, padding: int, dilation: int):
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _check_output(x, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, fn: str) -> None:
    """A ShapeError when the known input sizes leave no output pixel."""
    for axis, name in ((2, "height"), (3, "width")):
        size, k = static_dim(x, axis), kernel[axis - 2]
        if size is None or not isinstance(k, int):
            continue
        if _out_size(size, k, stride[axis - 2], padding[axis - 2], dilation[axis - 2]) < 1:
            raise ShapeError(f"{fn}: the input {name} {size} with padding {padding[axis - 2]} is smaller than the "
                             f"(dilated) kernel {dilation[axis - 2] * (k - 1) + 1}", user_location())


def _check_channels(x, weight, groups: int, fn: str) -> None:
    channels, per_group, out = static_dim(x, 1), static_dim(weight, 1), static_dim(weight, 0)
    if channels is not None and per_group is not None and channels != per_group * groups:
        raise ShapeError(f"{fn}: x has {channels} channels, but weight expects {per_group} per group x {groups} "
                         f"group(s) = {per_group * groups} (weight is [out, in / groups, kh, kw])", user_location())
    if out is not None and out % groups:
        raise ShapeError(f"{fn}: weight.shape[0] (out channels) {out} is not divisible by groups={groups}",
                         user_location())


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntPair = 1, padding: IntPair = 0,
           dilation: IntPair = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation, as ``torch.nn.functional.conv2d``.

    Parameters
    ----------
    x : float32 [N, C, H, W]
    weight : float32 [O, C / groups, KH, KW]
    bias : float32 [O], optional
    stride, padding, dilation : int or (int, int)
        Zero padding on both sides; dilation spaces the kernel taps.
    groups : int
        Input and output channels split into ``groups`` independent convolutions.

    Returns
    -------
    float32 [N, O, HO, WO], with ``HO = (H + 2 padding - dilation (KH - 1) - 1) // stride + 1``.

    Example
    -------
    >>> def box(x: tf.Arg([-1, 1, -1, -1], tf.float32), w: tf.Arg([1, 1, 2, 2], tf.float32)):
    ...     return tf.nn.conv2d(x, w, padding=1)        # [N, 1, H + 1, W + 1]
    >>> y = tf.compile(box)(np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32))
    >>> y.numpy[0, 0]                                   # how many of the 4 taps fall inside
    array([[1., 2., 2., 1.],
           [2., 4., 4., 2.],
           [2., 4., 4., 2.],
           [1., 2., 2., 1.]], dtype=float32)
    """
    fn = "tf.nn.conv2d"
    x = float_arg(tensor_arg(x, fn, "x", ranks=(4,)), fn, "x")
    weight = float_arg(tensor_arg(weight, fn, "weight", ranks=(4,)), fn, "weight")
    stride, padding = int_pair(stride, fn, "stride", 1), int_pair(padding, fn, "padding", 0)
    dilation, groups = int_pair(dilation, fn, "dilation", 1), positive_int(groups, fn, "groups")
    _check_channels(x, weight, groups, fn)
    batch, _, height, width = x.shape
    out_channels, per_group, kh, kw = weight.shape
    _check_output(x, (static_dim(weight, 2), static_dim(weight, 3)), stride, padding, dilation, fn)
    out_h = _out_size(height, kh, stride[0], padding[0], dilation[0])
    out_w = _out_size(width, kw, stride[1], padding[1], dilation[1])
    taps, pixels = per_group * kh * kw, out_h * out_w
    n, group, tap, pixel = indices([batch, groups, taps, pixels])
    i, j = pixel // out_w, pixel % out_w
    y = i * stride[0] - padding[0] + (tap // kw) % kh * dilation[0]
    xx = j * stride[1] - padding[1] + tap % kw * dilation[1]
    inside = (y >= 0) & (y < height) & (xx >= 0) & (xx < width)
    columns = select(inside, x[n, group * per_group + tap // (kh * kw), y, xx], 0.0)  # [N, G, taps, pixels]
    kernels = reshape(weight, [1, groups, out_channels // groups, taps])
    out = reshape(matmul(kernels, columns), [batch, out_channels, out_h, out_w])
    if bias is None:
        return out
    bias = float_arg(tensor_arg(bias, fn, "bias", ranks=(1,)), fn, "bias")
    return out + reshape(bias, [1, out_channels, 1, 1])


def _windows(x, fn: str, kernel_size, stride, padding, dilation):
    """Per output pixel and window tap: ``(n, c, row, col, inside, tap, geometry)``."""
    x = float_arg(tensor_arg(x, fn, "x", ranks=(4,)), fn, "x")
    kernel = int_pair(kernel_size, fn, "kernel_size", 1)
    stride = kernel if stride is None else int_pair(stride, fn, "stride", 1)
    padding, dilation = int_pair(padding, fn, "padding", 0), int_pair(dilation, fn, "dilation", 1)
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        raise ArgumentError(f"{fn}: padding {padding} must be at most half the kernel size {kernel} (as in torch)",
                            user_location())
    _check_output(x, kernel, stride, padding, dilation, fn)
    batch, channels, height, width = x.shape
    out_h = _out_size(height, kernel[0], stride[0], padding[0], dilation[0])
    out_w = _out_size(width, kernel[1], stride[1], padding[1], dilation[1])
    geometry = (kernel, stride, padding, dilation, [batch, channels, out_h, out_w])
    n, c, i, j, tap = indices([batch, channels, out_h, out_w, kernel[0] * kernel[1]])
    row = i * stride[0] - padding[0] + tap // kernel[1] * dilation[0]
    col = j * stride[1] - padding[1] + tap % kernel[1] * dilation[1]
    inside = (row >= 0) & (row < height) & (col >= 0) & (col < width)
    return x, (n, c, row, col, inside, tap, geometry)


def max_pool2d(x: Tensor, kernel_size: IntPair, stride: IntPair | None = None, padding: IntPair = 0,
               dilation: IntPair = 1) -> Tensor:
    """The largest value of each window, as ``torch.nn.functional.max_pool2d``.

    ``x`` float32 [N, C, H, W]; ``kernel_size``, ``stride`` (default: the kernel size),
    ``padding`` (at most half the kernel; padding never wins) and ``dilation`` are ints or
    pairs. Returns float32 [N, C, HO, WO] (sizes as for ``conv2d``). The gradient goes to
    the first largest element of each window in row-major order, as in torch.

    >>> pool = tf.compile(lambda: tf.nn.max_pool2d(tf.input([-1, -1, -1, -1], tf.float32), 2))
    >>> pool(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)).numpy   # [N, C, H // 2, W // 2]
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    """
    x, (n, c, row, col, inside, tap, geometry) = _windows(x, "tf.nn.max_pool2d", kernel_size, stride, padding,
                                                           dilation)
    kernel, stride, padding, dilation, out_shape = geometry
    values = select(inside, x[n, c, row, col], float("-inf"))
    largest = unsqueeze(reduce_max(values, axis=-1), -1)
    first = reduce_min(select(values == largest, tap, kernel[0] * kernel[1]), axis=-1)
    n, c, i, j = indices(out_shape)
    return x[n, c, i * stride[0] - padding[0] + first // kernel[1] * dilation[0],
             j * stride[1] - padding[1] + first % kernel[1] * dilation[1]]


def avg_pool2d(x: Tensor, kernel_size: IntPair, stride: IntPair | None = None, padding: IntPair = 0,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window, as ``torch.nn.functional.avg_pool2d``.

    ``x`` float32 [N, C, H, W]; ``kernel_size``, ``stride`` (default: the kernel size) and
    ``padding`` (zeros, at most half the kernel) are ints or pairs. With
    ``count_include_pad=False`` a window at the border divides by its pixels inside the
    image only. Returns float32 [N, C, HO, WO].

    >>> pool = tf.compile(lambda: tf.nn.avg_pool2d(tf.input([-1, -1, -1, -1], tf.float32), 2))
    >>> pool(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)).numpy
    array([[[[ 2.5,  4.5],
             [10.5, 12.5]]]], dtype=float32)
    """
    x, (n, c, row, col, inside, _, geometry) = _windows(x, "tf.nn.avg_pool2d", kernel_size, stride, padding, 1)
    kernel = geometry[0]
    total = reduce_sum(select(inside, x[n, c, row, col], 0.0), axis=-1)
    if count_include_pad:
        return total * (1.0 / (kernel[0] * kernel[1]))
    return total / reduce_sum(select(inside, 1.0, 0.0), axis=-1)
