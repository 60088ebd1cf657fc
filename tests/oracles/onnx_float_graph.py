#!/usr/bin/python3
"""Evaluates a float32 ONNX model with numpy in float64 (test-only): an oracle
for whole models built from the handful of operators below, independent of
tinyfit's importer, fusion passes and reference kernels. Debian's python3-onnx
1.12 has no reference evaluator, hence this one, written from the ONNX
operator definitions.

Usage: onnx_float_graph.py MODEL.onnx INPUT.npy OUTPUT.npy (one input, one output).
"""
import math
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def attribute(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def layer_norm(node, x, scale, bias=0.0):
    axis = attribute(node, "axis", -1)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(variance + attribute(node, "epsilon", 1e-5)) * scale + bias


def softmax(node, x):
    axis = attribute(node, "axis", -1)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def gemm(node, a, b, c=0.0):
    if attribute(node, "transA", 0):
        a = a.T
    if attribute(node, "transB", 0):
        b = b.T
    return attribute(node, "alpha", 1.0) * (a @ b) + attribute(node, "beta", 1.0) * c


OPS = {
    "Add": lambda n, a, b: a + b,
    "Sub": lambda n, a, b: a - b,
    "Mul": lambda n, a, b: a * b,
    "Div": lambda n, a, b: a / b,
    "Erf": lambda n, x: np.vectorize(math.erf)(x),
    "MatMul": lambda n, a, b: np.matmul(a, b),
    "Gemm": gemm,
    "Reshape": lambda n, x, shape: x.reshape(shape),
    "Transpose": lambda n, x: np.transpose(x, attribute(n, "perm")),
    "Softmax": softmax,
    "LayerNormalization": layer_norm,
}


def main(model_path, input_path, output_path):
    graph = onnx.load(model_path).graph
    values = {}
    for t in graph.initializer:
        array = numpy_helper.to_array(t)
        # Floats in float64; integers (Reshape's shapes) stay integers.
        values[t.name] = array.astype(np.float64) if array.dtype.kind == "f" else array
    values[graph.input[0].name] = np.load(input_path).astype(np.float64)
    for node in graph.node:
        values[node.output[0]] = OPS[node.op_type](node, *[values[name] for name in node.input])
    np.save(output_path, values[graph.output[0].name].astype(np.float32))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print("usage: onnx_float_graph.py MODEL.onnx INPUT.npy OUTPUT.npy", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
