"""TFLite's integer requantization, written again from the definitions (test-only).

An independent re-statement for the kernel oracle, not a transcription of
src/exec/reference/quant_math.cc: each helper says what the operation *is*
(a rounding rule on exact rationals) and computes it with exact integers.
Python ints for scalars; numpy int64 arrays for elements, exact because every
intermediate below stays under 2**63 (bounds noted where they matter).

Float32 parameters arrive in JSON as decimal strings; f32() snaps them back to
the float32 the C++ side holds, so double arithmetic starts from the same value.
"""
import math

import numpy as np

INT32_MIN = -(2 ** 31)
INT32_MAX = 2 ** 31 - 1

DTYPE_RANGE = {"i8": (-128, 127), "u8": (0, 255), "i32": (INT32_MIN, INT32_MAX)}


def f32(value):
    """The float32 nearest a JSON number, as a numpy float32."""
    return np.float32(value)


def round_half_away_scalar(x):
    """std::round of a double: nearest integer, halves away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def round_half_away(x):
    """std::round elementwise on a float array, as float64 (exact for float32 input)."""
    x = np.asarray(x, dtype=np.float64)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def quantize_multiplier(real):
    """TFLite QuantizeMultiplier: real = m * 2**(shift - 31), m in [2**30, 2**31).

    frexp gives real = q * 2**e with 0.5 <= |q| < 1; m is q * 2**31 rounded half
    away from zero (exact: q*2**31 is a double with at most 22 fractional bits),
    a carry to 2**31 moves into the exponent, exponents below -31 flush to zero
    and above 30 clamp (TFLite does both).
    """
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    m = round_half_away_scalar(q * 2.0 ** 31)
    if m == 2 ** 31:
        m //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    if shift > 30:
        return INT32_MAX, 30
    return m, shift


def wrap_int32(x):
    """Two's-complement wrap of int64 values to int32 (TFLite's `x * (1 << s)`)."""
    return ((np.asarray(x, dtype=np.int64) + 2 ** 31) % 2 ** 32) - 2 ** 31


def saturating_rounding_doubling_high_mul(a, b):
    """gemmlowp SRDHM: the high 32 bits of 2*a*b, rounded to nearest with halves
    going up (toward +inf), i.e. floor(a*b / 2**31 + 1/2); the single overflow
    (INT32_MIN * INT32_MIN = 2**62 -> 2**31) saturates. |a*b| <= 2**62: exact."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    high = (a * b + 2 ** 30) >> 31  # numpy >> on int64 is floor division
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, high)


def rounding_divide_by_pot(x, exponent):
    """gemmlowp RoundingDivideByPOT: x / 2**exponent, nearest, halves away from 0."""
    x = np.asarray(x, dtype=np.int64)
    exponent = np.asarray(exponent, dtype=np.int64)
    half = np.where(exponent > 0, np.left_shift(1, np.maximum(exponent - 1, 0)), 0)
    return np.sign(x) * ((np.abs(x) + half) >> exponent)


def multiply_by_quantized_multiplier(x, multiplier, shift):
    """TFLite MultiplyByQuantizedMultiplier (double rounding): x * 2**max(shift,0)
    in int32, SRDHM by the multiplier, then a rounding right shift by max(-shift,0).
    `multiplier` and `shift` may be arrays broadcasting against x (per channel)."""
    shift = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    shifted = wrap_int32(np.left_shift(np.asarray(x, dtype=np.int64), left))
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier), right)


def check_int32(name, values):
    """The C++ kernels accumulate in int32; a case that overflows it is a bad case."""
    values = np.asarray(values)
    if values.size and (values.min() < INT32_MIN or values.max() > INT32_MAX):
        raise ValueError(f"{name} overflows int32 ([{values.min()}, {values.max()}]); shrink the case")


def activation_range(activation, dtype, scale, zero_point):
    """Output clamp of a fused activation [min, max] (None = unbounded): TFLite
    CalculateActivationRangeQuantized, min/scale divided in float32 and rounded
    half away from zero, intersected with the dtype's range."""
    lo, hi = DTYPE_RANGE[dtype]
    if activation.get("min") is not None:
        lo = max(lo, zero_point + round_half_away_scalar(float(f32(activation["min"]) / f32(scale))))
    if activation.get("max") is not None:
        hi = min(hi, zero_point + round_half_away_scalar(float(f32(activation["max"]) / f32(scale))))
    return lo, hi
