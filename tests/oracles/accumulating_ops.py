"""Oracles of the accumulating operators (test-only): Conv2D, DepthwiseConv2D,
FullyConnected, MaxPool, AveragePool and Mean, each from its definition as a
sum over windows or axes; see kernels.py for the contract."""
import numpy as np

from tensor_spec import clamp_float, scale_of, zero_point_of
from tflite_integer import (activation_range, check_int32, multiply_by_quantized_multiplier,
                            quantize_multiplier, round_half_away)


# --- Helpers -----------------------------------------------------------------

def requantize_per_channel(spec, acc, multipliers):
    """acc (int64, channels last) -> output integers: TFLite's double-rounding
    MultiplyByQuantizedMultiplier per channel, plus the zero point, clamped."""
    out = spec["outputs"][0]
    check_int32("accumulator", acc)
    m = np.array([mm for mm, _ in multipliers], dtype=np.int64)
    s = np.array([ss for _, ss in multipliers], dtype=np.int64)
    y = multiply_by_quantized_multiplier(acc, m, s) + zero_point_of(out)
    lo, hi = activation_range(spec["activation"], out["dtype"], scale_of(out), zero_point_of(out))
    return np.clip(y, lo, hi)


def conv_multipliers(spec, channels):
    """in_scale * w_scale / out_scale per channel. TFLite forms the product in
    double for per-channel int8 conv/depthwise and in float32 for fully
    connected and legacy uint8 (GetQuantizedConvolutionMultipler)."""
    x, w, y = spec["inputs"][0], spec["inputs"][1], spec["outputs"][0]
    float_product = spec["op"] == "FullyConnected" or x["dtype"] == "u8"
    result = []
    for c in range(channels):
        if float_product:
            product = float(scale_of(x) * scale_of(w, c))  # float32 * float32 -> float32
        else:
            product = float(scale_of(x)) * float(scale_of(w, c))
        result.append(quantize_multiplier(product / float(scale_of(y))))
    return result


def weight_zero_points(w, channels):
    return np.array([zero_point_of(w, c) for c in range(channels)], dtype=np.int64)


def real_weights(t, w):
    """Float weights; a hybrid model's int8 weights dequantized per channel along
    their axis (float32 values, like the float kernels load them)."""
    if t["dtype"] == "f32":
        return w.astype(np.float64)
    channels = w.shape[t["axis"]]
    shape = [1] * w.ndim
    shape[t["axis"]] = channels
    scale = np.array([float(scale_of(t, c)) for c in range(channels)]).reshape(shape)
    zero_point = np.array([zero_point_of(t, c) for c in range(channels)]).reshape(shape)
    return (scale * (w.astype(np.float64) - zero_point)).astype(np.float32).astype(np.float64)


def window_slices(attrs, out_rows, out_cols, ky, kx, dilation=(1, 1)):
    """The [rows, cols] slice of the padded input that tap (ky, kx) reads for
    every output position."""
    sh, sw = attrs["stride"]
    r0, c0 = ky * dilation[0], kx * dilation[1]
    return (slice(None), slice(r0, r0 + sh * (out_rows - 1) + 1, sh),
            slice(c0, c0 + sw * (out_cols - 1) + 1, sw))


def pad_rows_cols(x, pad, value=0):
    top, left, bottom, right = pad
    return np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=value)


# --- Convolutions ------------------------------------------------------------

def conv_like(spec, x, w, bias, depthwise):
    """Sum over taps of shifted-window slices of the zero-padded input: the
    convolution's definition, vectorised over output positions. For quantized
    ops x and w are already offset by their zero points, so padding with 0 is
    TFLite's 'padded taps contribute nothing'."""
    a = spec["attrs"]
    out_shape = spec["outputs"][0]["shape"]
    _, out_rows, out_cols, out_channels = out_shape
    xp = pad_rows_cols(x, a["pad"])
    acc = np.zeros(out_shape, dtype=x.dtype)
    kh, kw = a["kernel"]
    if depthwise:
        multiplier = out_channels // x.shape[3]
        xp = np.repeat(xp, multiplier, axis=3)  # output channel c reads input c // multiplier
        for ky in range(kh):
            for kx in range(kw):
                acc += xp[window_slices(a, out_rows, out_cols, ky, kx, a["dilation"])] * w[0, ky, kx, :]
    else:
        groups = a["groups"]
        cin_g, cout_g = w.shape[3], out_channels // groups
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[window_slices(a, out_rows, out_cols, ky, kx, a["dilation"])]
                for g in range(groups):
                    acc[..., g * cout_g:(g + 1) * cout_g] += np.einsum(
                        "nhwc,oc->nhwo", patch[..., g * cin_g:(g + 1) * cin_g],
                        w[g * cout_g:(g + 1) * cout_g, ky, kx, :])
    return acc + bias


def conv_op(spec, ins, depthwise=False):
    x_spec, w_spec, y_spec = spec["inputs"][0], spec["inputs"][1], spec["outputs"][0]
    channels = y_spec["shape"][3]
    has_bias = len(ins) > 2 and ins[2] is not None
    if y_spec["dtype"] == "f32":
        bias = ins[2].astype(np.float64) if has_bias else np.zeros(channels)
        y = conv_like(spec, ins[0].astype(np.float64), real_weights(w_spec, ins[1]), bias, depthwise)
        return [clamp_float(spec, y)]
    x = ins[0].astype(np.int64) - zero_point_of(x_spec)
    w_zero_points = weight_zero_points(w_spec, channels)  # per output channel
    w = ins[1].astype(np.int64) - (w_zero_points if depthwise else w_zero_points[:, None, None, None])
    bias = ins[2].astype(np.int64) if has_bias else np.zeros(channels, dtype=np.int64)
    acc = conv_like(spec, x, w, bias, depthwise)
    return [requantize_per_channel(spec, acc, conv_multipliers(spec, channels))]


def fully_connected_op(spec, ins):
    w_spec, y_spec = spec["inputs"][1], spec["outputs"][0]
    out_features, in_features = ins[1].shape
    has_bias = len(ins) > 2 and ins[2] is not None
    if y_spec["dtype"] == "f32":
        x = ins[0].astype(np.float64).reshape(-1, in_features)
        bias = ins[2].astype(np.float64) if has_bias else 0.0
        return [clamp_float(spec, x @ real_weights(w_spec, ins[1]).T + bias)]
    x = ins[0].astype(np.int64).reshape(-1, in_features) - zero_point_of(spec["inputs"][0])
    w = ins[1].astype(np.int64) - weight_zero_points(w_spec, out_features)[:, None]
    bias = ins[2].astype(np.int64) if has_bias else 0
    acc = x @ w.T + bias
    return [requantize_per_channel(spec, acc, conv_multipliers(spec, out_features))]


# --- Pooling and reductions --------------------------------------------------

def pool_op(spec, ins, is_max):
    a = spec["attrs"]
    x_spec, y_spec = spec["inputs"][0], spec["outputs"][0]
    _, out_rows, out_cols, _ = y_spec["shape"]
    x = ins[0]
    # In-bounds mask, padded the same way: counts the taps that exist.
    inside = pad_rows_cols(np.ones(x.shape[:3] + (1,)), a["pad"])
    if is_max:
        xp = pad_rows_cols(x.astype(np.float64), a["pad"], -np.inf)
        result = np.full(y_spec["shape"], -np.inf)
    elif y_spec["dtype"] == "f32":
        xp = pad_rows_cols(x.astype(np.float64), a["pad"])
    else:
        # A padded tap is real 0, i.e. the zero point; it only enters the sum
        # when the divisor counts it (count_include_pad).
        pad_value = zero_point_of(x_spec) if a["count_include_pad"] else 0
        xp = pad_rows_cols(x.astype(np.int64), a["pad"], pad_value)
    if not is_max:
        result = np.zeros(y_spec["shape"], dtype=xp.dtype)
    count = np.zeros((x.shape[0], out_rows, out_cols, 1), dtype=np.int64)
    kh, kw = a["kernel"]
    for ky in range(kh):
        for kx in range(kw):
            window = window_slices(a, out_rows, out_cols, ky, kx)
            result = np.maximum(result, xp[window]) if is_max else result + xp[window]
            count += inside[window].astype(np.int64)
    divisor = np.full_like(count, kh * kw) if a["count_include_pad"] else count
    if y_spec["dtype"] == "f32":
        return [clamp_float(spec, result if is_max else result / divisor)]
    same = scale_of(x_spec) == scale_of(y_spec) and zero_point_of(x_spec) == zero_point_of(y_spec)
    if same:
        if is_max:
            y = result.astype(np.int64)
        else:
            # sum / divisor rounded half away from zero: floor((2|s| + d) / 2d).
            y = np.sign(result) * ((2 * np.abs(result) + divisor) // (2 * divisor))
    else:
        # Differing parameters (ONNX QDQ): the value in the input's domain
        # dequantized in double, divided by the output scale, rounded as float32.
        v = result.astype(np.float64) if is_max else result / divisor
        real = float(scale_of(x_spec)) * (v - zero_point_of(x_spec))
        y = round_half_away((real / float(scale_of(y_spec))).astype(np.float32)) + zero_point_of(y_spec)
    lo, hi = activation_range(spec["activation"], y_spec["dtype"], scale_of(y_spec), zero_point_of(y_spec))
    return [np.clip(y, lo, hi)]


def mean_op(spec, ins):
    axes = tuple(spec["attrs"]["axes"])
    x_spec, y_spec = spec["inputs"][0], spec["outputs"][0]
    if y_spec["dtype"] == "f32":
        return [clamp_float(spec, ins[0].astype(np.float64).mean(axis=axes))]
    count = int(np.prod([ins[0].shape[i] for i in axes]))
    sums = ins[0].astype(np.int64).sum(axis=axes) - zero_point_of(x_spec) * count
    # TFLite Micro int8 MEAN (QuantizedMeanOrSum): 1/count folded into the Q31
    # multiplier of in_scale/out_scale by a truncating division after a left
    # shift of floor(log2 count), capped at 32 and at 31 + shift.
    m, shift = quantize_multiplier(float(scale_of(x_spec)) / float(scale_of(y_spec)))
    fold = min(count.bit_length() - 1, 32, 31 + shift)
    m = (m << fold) // count if m >= 0 else -((-m << fold) // count)  # C++ division truncates
    y = multiply_by_quantized_multiplier(sums, m, shift - fold) + zero_point_of(y_spec)
    lo, hi = activation_range(spec["activation"], y_spec["dtype"], scale_of(y_spec), zero_point_of(y_spec))
    return [np.clip(y, lo, hi)]
