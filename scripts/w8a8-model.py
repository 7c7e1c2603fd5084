"""Derives models/model-w8a8.onnx from models/model.onnx (run by scripts/fetch-models).

model.onnx stores each dense layer's weights as int8 with one float scale per output column,
but turns them back into float32 at run time (MatMul(x, Mul(Cast(W_int8), scale))): every
matrix product runs in float32. This script rewrites each such MatMul to run in integers
(w8a8: 8-bit weights, 8-bit activations), which ONNX Runtime executes with the CPU's VNNI
dot-product instructions at about 1.8x the speed of the float model:

    s      = max(|x| over the hidden dimension) / 127        one scale per token
    x_u8   = uint8(x / s + 128.5)                             round half up, zero point 128
    y      = MatMulInteger(x_u8, W_int8, 128) * scale * s     exact int32 sum, then rescaled

The weights are the model's own int8 values and scales, unchanged: only the activations are
quantized. Two choices keep the embeddings right:

- One scale per token (per row), not one per tensor as ONNX Runtime's quantize_dynamic does.
  A per-tensor scale is taken over the whole batch, padding included, so a text's vector
  would depend on what it is batched with (measured: cosine 0.991 between a text embedded
  alone and in a batch). Per token, a text's vector is the same in any batch, to the bit,
  and it is closer to the float model (cosine 0.998 against 0.993).
- The rescaling is two Muls (per column, then per token), not one Mul by their product:
  ONNX Runtime fuses MatMulInteger + Cast + Mul(scale) into MatMulIntegerToFloat, which
  takes a per-tensor or per-column activation scale and silently misreads a per-row one
  (cosine 0.81 against the float model when the product was one Mul).

The inputs of the three attention projections are the same tensor and are quantized once.
Only standard ONNX operators are used (opset of the source model). The output is
deterministic: the same source file and onnx/numpy versions give the same bytes, whose
sha256 scripts/fetch-models pins.

Usage: python3 scripts/w8a8-model.py SOURCE.onnx DEST.onnx
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def int8_weight(name, producer, initializers):
    """(W_int8 [K, N], scale [N]) when `name` is Mul(Cast(int8 initializer), scale [1, N])."""
    mul = producer.get(name)
    if mul is None or mul.op_type != "Mul":
        return None
    cast = producer.get(mul.input[0])
    if cast is None or cast.op_type != "Cast":
        return None
    if cast.input[0] not in initializers or mul.input[1] not in initializers:
        return None
    weight = numpy_helper.to_array(initializers[cast.input[0]])
    scale = numpy_helper.to_array(initializers[mul.input[1]])
    if weight.dtype != np.int8 or weight.ndim != 2 or scale.shape != (1, weight.shape[1]):
        return None
    return weight, scale.reshape(-1).astype(np.float32)


def quantize_activation(x, prefix):
    """Nodes turning float `x` [..., K] into (uint8 codes, per-token scale) named by prefix."""
    return [
        helper.make_node("Abs", [x], [prefix + "abs"]),
        helper.make_node("ReduceMax", [prefix + "abs"], [prefix + "max"], axes=[-1], keepdims=1),
        # An all-zero row would divide by zero; its codes are all 128 (zero) either way.
        helper.make_node("Max", [prefix + "max", "w8a8_eps"], [prefix + "range"]),
        helper.make_node("Div", ["w8a8_127", prefix + "range"], [prefix + "inv"]),
        helper.make_node("Div", [prefix + "range", "w8a8_127"], [prefix + "scale"]),
        helper.make_node("Mul", [x, prefix + "inv"], [prefix + "scaled"]),
        # In [-127, 127] + 128.5: Cast truncates, so this rounds half up into [1, 255].
        helper.make_node("Add", [prefix + "scaled", "w8a8_offset"], [prefix + "shifted"]),
        helper.make_node("Cast", [prefix + "shifted"], [prefix + "codes"], to=TensorProto.UINT8),
    ]


def rewrite(model):
    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    added = [
        numpy_helper.from_array(np.array(1e-12, np.float32), "w8a8_eps"),
        numpy_helper.from_array(np.array(127.0, np.float32), "w8a8_127"),
        numpy_helper.from_array(np.array(128.5, np.float32), "w8a8_offset"),
        numpy_helper.from_array(np.array(128, np.uint8), "w8a8_zero"),
    ]
    nodes, quantized, matmuls = [], {}, 0
    for node in graph.node:
        weight = int8_weight(node.input[1], producer, initializers) if node.op_type == "MatMul" else None
        if weight is None:
            nodes.append(node)
            continue
        w, scale = weight
        x = node.input[0]
        if x not in quantized:
            quantized[x] = "w8a8_x%d_" % len(quantized)
            nodes += quantize_activation(x, quantized[x])
        q = quantized[x]
        p = "w8a8_m%d_" % matmuls
        matmuls += 1
        added += [numpy_helper.from_array(w, p + "weight"), numpy_helper.from_array(scale, p + "scale")]
        nodes += [
            helper.make_node("MatMulInteger", [q + "codes", p + "weight", "w8a8_zero"], [p + "sum"]),
            helper.make_node("Cast", [p + "sum"], [p + "float"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [p + "float", p + "scale"], [p + "columns"]),
            helper.make_node("Mul", [p + "columns", q + "scale"], [node.output[0]]),
        ]
    if matmuls == 0:
        sys.exit("no MatMul with int8 per-column weights found: not the expected model.onnx")
    # The float dequantisers of the replaced weights are read by nothing now: drop them.
    outputs = {o.name for o in graph.output}
    while True:
        used = {i for n in nodes for i in n.input} | outputs
        kept = [n for n in nodes if any(o in used for o in n.output)]
        if len(kept) == len(nodes):
            break
        nodes = kept
    kept_initializers = [i for i in list(graph.initializer) + added if i.name in used]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept_initializers)
    onnx.checker.check_model(model)
    return matmuls, len(quantized)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: w8a8-model.py SOURCE.onnx DEST.onnx")
    model = onnx.load(sys.argv[1])
    matmuls, inputs = rewrite(model)
    onnx.save(model, sys.argv[2])
    print("w8a8-model: %d matmuls in integers, %d activations quantized per token" % (matmuls, inputs))


if __name__ == "__main__":
    main()
