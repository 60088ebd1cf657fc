"""Reading a case's spec.json for the kernel oracle (test-only): quantization
parameters of tensor specs, the float clamp of a fused activation, and the
real-valued view of quantized tensors."""
import numpy as np

from tflite_integer import DTYPE_RANGE, f32, round_half_away


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


def is_quantized(t):
    return t["dtype"] in ("i8", "u8")


def dequantized(t, x):
    return float(scale_of(t)) * (x.astype(np.float64) - zero_point_of(t))


def to_output_grid(y_spec, real):
    """Nearest quantized value of a real result (for the 1-quantum comparisons)."""
    lo, hi = DTYPE_RANGE[y_spec["dtype"]]
    q = round_half_away(real / float(scale_of(y_spec))) + zero_point_of(y_spec)
    return np.clip(q, lo, hi)
