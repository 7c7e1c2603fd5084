"""Builds models/tuned-1.npz from train.py's weights.safetensors and the published int8
model (models/model-stock.onnx): the patch that scripts/tuned-model.py applies.

Each int8 weight tensor of the published file (the dense layers' [in, out] matrices with one
scale per column, the embedding tables with one scale per row) is re-quantized from the
fine-tuned float weights on the published scales, and stored as the difference of codes
(about 5% of codes move, by 1 mostly; a code past +-127 is clipped). Float tensors
(biases, layer norms, token-type embeddings) are stored as their new values. The published
scales are kept so that the patch stays small and the graph stays the one
scripts/w8a8-model.py knows.

Usage: python3 scripts/finetune/patch.py models/model-stock.onnx WEIGHTS.safetensors OUT.npz
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper
from safetensors.numpy import load_file


def main():
    stock, weights, out = sys.argv[1:4]
    graph = onnx.load(stock).graph
    inits = {i.name: i for i in graph.initializer}
    tuned = {"inner." + k: v for k, v in load_file(weights).items()}
    consumers, producer = {}, {o: n for n in graph.node for o in n.output}
    for n in graph.node:
        for x in n.input:
            consumers.setdefault(x, []).append(n)
    patch, stats = {}, {"changed": 0, "total": 0, "clipped": 0}

    def codes(w, scale_name, q_name):
        scale = numpy_helper.to_array(inits[scale_name])
        q = np.rint(w / scale)
        stats["clipped"] += int((np.abs(q) > 127).sum())
        q = np.clip(q, -127, 127).astype(np.int16)
        d = q - numpy_helper.to_array(inits[q_name]).astype(np.int16)
        stats["changed"] += int((d != 0).sum())
        stats["total"] += d.size
        patch["d:" + q_name] = d.astype(np.int8)

    # A dense layer: MatMul(x, Mul(Cast(W_q), scale)) whose output gets Add(., <layer>.bias).
    for n in graph.node:
        mul = producer.get(n.input[1]) if n.op_type == "MatMul" else None
        cast = producer.get(mul.input[0]) if mul is not None and mul.op_type == "Mul" else None
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in inits or mul.input[1] not in inits:
            continue
        adds = [c for c in consumers.get(n.output[0], []) if c.op_type == "Add" and c.input[1].endswith(".bias")]
        if len(adds) != 1:
            sys.exit("patch: %s has no single bias Add" % n.name)
        layer = adds[0].input[1][: -len(".bias")]
        codes(tuned[layer + ".weight"].T, mul.input[1], cast.input[0])
    for table in ("word_embeddings", "position_embeddings"):
        p = "inner.embeddings." + table
        codes(tuned[p + ".weight"], p + ".weight_scale", p + ".weight_q")
    for name, init in inits.items():
        if init.data_type == onnx.TensorProto.FLOAT and name in tuned:
            new = tuned[name].astype(np.float32).reshape(tuple(init.dims))
            if not np.array_equal(new, numpy_helper.to_array(init)):
                patch["f:" + name] = new
    np.savez_compressed(out, **patch)
    print("%d tensors, %d of %d codes changed, %d clipped" % (len(patch), stats["changed"], stats["total"], stats["clipped"]))


main()
