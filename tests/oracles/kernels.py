#!/usr/bin/python3
"""Independent numpy oracle for the reference interpreter's kernels (test-only).

Usage: kernels.py BATCH_DIR. Every subdirectory of BATCH_DIR holds one case:
spec.json (op, attributes, fused activation, and per input/output its file,
dtype, shape and quantization) plus the input .npy files. The oracle writes
each output's expected .npy next to them; tests/property/kernel_oracle_test.cc
compares. One process per batch keeps the test fast.

Straightforward on purpose, and written from the operators' definitions rather
than from the C++ kernels: float ops in float64 then cast to float32 once;
integer ops with TFLite's integer formulas (tflite_integer.py) on exact
integers. Where TFLite's int8 result comes from fixed-point approximations of a
transcendental function (Sigmoid, Softmax, HardSwish's 16-bit pipeline), an
independent bit-exact re-implementation would be a transcription of gemmlowp,
not a check; those write the real-valued function rounded to the output grid,
and the test allows 1 quantum for them.
"""
import json
import os
import sys
import traceback

import numpy as np

from tflite_integer import (DTYPE_RANGE, activation_range, check_int32, f32,
                            multiply_by_quantized_multiplier, quantize_multiplier,
                            round_half_away)

NUMPY_DTYPE = {"f32": np.float32, "i8": np.int8, "u8": np.uint8, "i32": np.int32}


# --- Helpers -----------------------------------------------------------------

def scale_of(t, channel=0):
    return f32(t["scale"][channel if len(t["scale"]) > 1 else 0])


def zero_point_of(t, channel=0):
    return int(t["zero_point"][channel if len(t["zero_point"]) > 1 else 0])


def clamp_float(spec, y):
    """A fused activation on float output: clamp of the float32 result."""
    act = spec["activation"]
    lo = -np.inf if act.get("min") is None else f32(act["min"])
    hi = np.inf if act.get("max") is None else f32(act["max"])
    return np.clip(y.astype(np.float32), lo, hi)


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


def is_quantized(t):
    return t["dtype"] in ("i8", "u8")


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


# --- Elementwise -------------------------------------------------------------

def binary_op(spec, ins, op):
    a_spec, b_spec, y_spec = spec["inputs"][0], spec["inputs"][1], spec["outputs"][0]
    if y_spec["dtype"] == "f32":
        a, b = ins[0].astype(np.float64), ins[1].astype(np.float64)
        return [clamp_float(spec, {"Add": a + b, "Sub": a - b, "Mul": a * b}[op])]
    a = ins[0].astype(np.int64) - zero_point_of(a_spec)
    b = ins[1].astype(np.int64) - zero_point_of(b_spec)
    sa, sb, sy = float(scale_of(a_spec)), float(scale_of(b_spec)), float(scale_of(y_spec))
    if op == "Mul":
        y = multiply_by_quantized_multiplier(a * b, *quantize_multiplier(sa * sb / sy))
    else:
        # TFLite ADD/SUB (int8 and uint8): both inputs shifted left by 20 bits and
        # rescaled to twice the larger input scale, combined, then to the output.
        left_shift = 20
        twice_max = 2.0 * max(sa, sb)
        ua = multiply_by_quantized_multiplier(a << left_shift, *quantize_multiplier(sa / twice_max))
        ub = multiply_by_quantized_multiplier(b << left_shift, *quantize_multiplier(sb / twice_max))
        raw = ua + ub if op == "Add" else ua - ub
        y = multiply_by_quantized_multiplier(raw, *quantize_multiplier(twice_max / (2 ** left_shift * sy)))
    y = y + zero_point_of(y_spec)
    lo, hi = activation_range(spec["activation"], y_spec["dtype"], scale_of(y_spec), zero_point_of(y_spec))
    return [np.clip(y, lo, hi)]


def clip_op(spec, ins):
    a = spec["attrs"]
    act = dict(spec["activation"])
    # Clip and a fused activation are both clamps: intersect them.
    for key, pick in (("min", max), ("max", min)):
        values = [v for v in (act.get(key), a.get(key)) if v is not None]
        act[key] = pick(values) if values else None
    spec = dict(spec, activation=act)
    x_spec, y_spec = spec["inputs"][0], spec["outputs"][0]
    if y_spec["dtype"] == "f32":
        return [clamp_float(spec, ins[0])]
    # TFLite quantized RELU/RELU6: rescale to the output, then clamp.
    m = quantize_multiplier(float(scale_of(x_spec)) / float(scale_of(y_spec)))
    y = multiply_by_quantized_multiplier(ins[0].astype(np.int64) - zero_point_of(x_spec), *m) + zero_point_of(y_spec)
    lo, hi = activation_range(act, y_spec["dtype"], scale_of(y_spec), zero_point_of(y_spec))
    return [np.clip(y, lo, hi)]


def dequantized(t, x):
    return float(scale_of(t)) * (x.astype(np.float64) - zero_point_of(t))


def to_output_grid(y_spec, real):
    """Nearest quantized value of a real result (for the 1-quantum comparisons)."""
    lo, hi = DTYPE_RANGE[y_spec["dtype"]]
    q = round_half_away(real / float(scale_of(y_spec))) + zero_point_of(y_spec)
    return np.clip(q, lo, hi)


def sigmoid_op(spec, ins):
    y_spec = spec["outputs"][0]
    if y_spec["dtype"] == "f32":
        return [clamp_float(spec, 1.0 / (1.0 + np.exp(-ins[0].astype(np.float64))))]
    # Real-valued: TFLite's gemmlowp logistic is compared within 1 quantum.
    x = dequantized(spec["inputs"][0], ins[0])
    return [to_output_grid(y_spec, 1.0 / (1.0 + np.exp(-x)))]


def hard_swish_real(x):
    return x * np.clip(x + 3.0, 0.0, 6.0) / 6.0


def hard_swish_op(spec, ins):
    y_spec = spec["outputs"][0]
    if y_spec["dtype"] == "f32":
        return [clamp_float(spec, hard_swish_real(ins[0].astype(np.float64)))]
    # Real-valued: TFLite's 16-bit fixed-point pipeline is compared within 1 quantum.
    return [to_output_grid(y_spec, hard_swish_real(dequantized(spec["inputs"][0], ins[0])))]


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


def softmax_op(spec, ins):
    a = spec["attrs"]
    axis, beta = a["axis"], float(f32(a["beta"]))
    y_spec = spec["outputs"][0]
    if y_spec["dtype"] == "f32":
        x = ins[0].astype(np.float64)
    else:
        # Real-valued: TFLite's fixed-point softmax is compared within 1 quantum.
        x = dequantized(spec["inputs"][0], ins[0])
    e = np.exp(beta * (x - x.max(axis=axis, keepdims=True)))
    y = e / e.sum(axis=axis, keepdims=True)
    return [y.astype(np.float32) if y_spec["dtype"] == "f32" else to_output_grid(y_spec, y)]


def lrn_op(spec, ins):
    a = spec["attrs"]
    size = a["size"]
    alpha, beta, bias = (float(f32(a[k])) for k in ("alpha", "beta", "bias"))
    x = ins[0].astype(np.float64)
    channels = x.shape[-1]
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    squares = np.pad(x * x, [(0, 0)] * (x.ndim - 1) + [(before, after)])
    square_sum = sum(squares[..., k:k + channels] for k in range(size))
    return [clamp_float(spec, x / (bias + alpha / size * square_sum) ** beta)]


# --- Data movement and quantization ------------------------------------------

def concat_op(spec, ins):
    y_spec = spec["outputs"][0]
    parts = []
    for t, x in zip(spec["inputs"], ins):
        same = not is_quantized(y_spec) or (
            scale_of(t) == scale_of(y_spec) and zero_point_of(t) == zero_point_of(y_spec))
        if same:
            parts.append(x)
            continue
        # TFLite ConcatenationWithScaling, in float32: q*scale + bias, std::round.
        scale = scale_of(t) * (np.float32(1.0) / scale_of(y_spec))
        bias = np.float32(-zero_point_of(t)) * scale
        v = x.astype(np.float32) * scale + bias
        lo, hi = DTYPE_RANGE[y_spec["dtype"]]
        parts.append(np.clip(round_half_away(v) + zero_point_of(y_spec), lo, hi))
    return [np.concatenate([p.astype(np.float64 if y_spec["dtype"] == "f32" else np.int64) for p in parts],
                           axis=spec["attrs"]["axis"])]


def split_op(spec, ins):
    a = spec["attrs"]
    bounds = np.cumsum(a["sizes"])[:-1]
    return np.split(ins[0], bounds, axis=a["axis"])


def slice_op(spec, ins):
    a = spec["attrs"]
    return [ins[0][tuple(slice(b, e, s) for b, e, s in zip(a["begin"], a["end"], a["step"]))]]


def pad_op(spec, ins):
    a = spec["attrs"]
    y_spec = spec["outputs"][0]
    fill = f32(a["value"])
    if is_quantized(y_spec):
        lo, hi = DTYPE_RANGE[y_spec["dtype"]]
        fill = int(np.clip(zero_point_of(y_spec) + round_half_away(fill / scale_of(y_spec)), lo, hi))
    return [np.pad(ins[0], list(zip(a["before"], a["after"])), constant_values=fill)]


def quantize_op(spec, ins):
    x_spec, y_spec = spec["inputs"][0], spec["outputs"][0]
    lo, hi = DTYPE_RANGE[y_spec["dtype"]]
    if x_spec["dtype"] == "f32":
        # TFLite AffineQuantize: float32 division, round half away, zero point.
        q = np.clip(round_half_away(ins[0].astype(np.float32) / scale_of(y_spec)), -2.0 ** 31, 2.0 ** 31 - 1)
        return [np.clip(q.astype(np.int64) + zero_point_of(y_spec), lo, hi)]
    # Requantize: one multiplier in_scale/out_scale (double).
    m = quantize_multiplier(float(scale_of(x_spec)) / float(scale_of(y_spec)))
    y = multiply_by_quantized_multiplier(ins[0].astype(np.int64) - zero_point_of(x_spec), *m)
    return [np.clip(y + zero_point_of(y_spec), lo, hi)]


def dequantize_op(spec, ins):
    return [dequantized(spec["inputs"][0], ins[0]).astype(np.float32)]


OPS = {
    "Conv2D": lambda s, i: conv_op(s, i, depthwise=False),
    "DepthwiseConv2D": lambda s, i: conv_op(s, i, depthwise=True),
    "FullyConnected": fully_connected_op,
    "Add": lambda s, i: binary_op(s, i, "Add"),
    "Sub": lambda s, i: binary_op(s, i, "Sub"),
    "Mul": lambda s, i: binary_op(s, i, "Mul"),
    "Clip": clip_op,
    "Sigmoid": sigmoid_op,
    "HardSwish": hard_swish_op,
    "MaxPool": lambda s, i: pool_op(s, i, is_max=True),
    "AveragePool": lambda s, i: pool_op(s, i, is_max=False),
    "Mean": mean_op,
    "Softmax": softmax_op,
    "LRN": lrn_op,
    "Concat": concat_op,
    "Split": split_op,
    "Slice": slice_op,
    "Reshape": lambda s, i: [i[0].reshape(s["outputs"][0]["shape"])],
    "Transpose": lambda s, i: [np.transpose(i[0], s["attrs"]["perm"])],
    "Pad": pad_op,
    "Quantize": quantize_op,
    "Dequantize": dequantize_op,
}


def run_case(case_dir):
    with open(os.path.join(case_dir, "spec.json")) as f:
        spec = json.load(f)
    ins = [None if t is None else np.load(os.path.join(case_dir, t["file"])) for t in spec["inputs"]]
    outs = OPS[spec["op"]](spec, ins)
    for t, y in zip(spec["outputs"], outs):
        y = np.asarray(y)
        if tuple(y.shape) != tuple(t["shape"]) and y.size == int(np.prod(t["shape"])):
            y = y.reshape(t["shape"])  # Mean without keep_dims, Reshape
        if tuple(y.shape) != tuple(t["shape"]):
            raise ValueError(f"oracle output shape {y.shape}, spec says {t['shape']}")
        np.save(os.path.join(case_dir, t["file"]), np.ascontiguousarray(y.astype(NUMPY_DTYPE[t["dtype"]])))


def main(batch_dir):
    failed = 0
    for name in sorted(os.listdir(batch_dir)):
        case_dir = os.path.join(batch_dir, name)
        if not os.path.isdir(case_dir):
            continue
        try:
            run_case(case_dir)
        except Exception:  # report every broken case, then fail the batch
            failed += 1
            print(f"kernels.py: {case_dir}:", file=sys.stderr)
            traceback.print_exc()
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: kernels.py BATCH_DIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
