"""Derives models/model.onnx, toolscout's fine-tuned embedder, from models/model-stock.onnx
(all-MiniLM-L6-v2 with int8 weights, as published) and models/tuned-1.npz (run by
scripts/fetch-models).

The fine-tuning (scripts/finetune/, see models/README.md) changed the model's weights a
little. The patch stores that change on the published file's own quantization grid: each
int8 weight tensor's new codes minus the published ones (the published per-column or
per-row scales are kept, so most differences are 0 or +-1 and compress well), and the new
values of the float tensors (biases, layer norms). Applying it is exact integer and float
copying: the same two inputs and numpy/onnx versions give the same bytes, whose sha256
scripts/fetch-models pins. The graph is untouched, so scripts/w8a8-model.py derives the
integer-product model from the result as it did from the published one.

Each patch entry is named "d:<initializer>" (int8 code differences) or "f:<initializer>"
(float32 values); the script stops with a message when an entry does not fit the model.

Usage: python3 scripts/tuned-model.py STOCK.onnx PATCH.npz DEST.onnx
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper


def fail(why):
    sys.exit("tuned-model: %s" % why)


def patched(old, kind, value, name):
    """The initializer `name`'s new array: `old` plus code differences, or new floats."""
    if kind == "d":
        if old.dtype != np.int8 or value.dtype != np.int8:
            fail("%s: expected int8 codes and differences, found %s and %s" % (name, old.dtype, value.dtype))
        new = old.astype(np.int16) + value.astype(np.int16)
        if np.abs(new).max() > 127:
            fail("%s: a code leaves [-127, 127]" % name)
        new = new.astype(np.int8)
    elif kind == "f":
        if old.dtype != np.float32:
            fail("%s: expected a float32 tensor, found %s" % (name, old.dtype))
        new = value.astype(np.float32)
    else:
        fail("unknown patch entry kind %r for %s" % (kind, name))
    if new.shape != old.shape:
        fail("%s: the patch has shape %s, the model %s" % (name, new.shape, old.shape))
    return new


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    stock, patch_path, dest = sys.argv[1:4]
    model = onnx.load(stock)
    initializers = {i.name: i for i in model.graph.initializer}
    patch = np.load(patch_path)
    for key in sorted(patch.files):
        kind, _, name = key.partition(":")
        if name not in initializers:
            fail("the patch names %s, which the model does not have" % name)
        old = numpy_helper.to_array(initializers[name])
        new = patched(old, kind, patch[key], name)
        initializers[name].CopyFrom(numpy_helper.from_array(new, name))
    onnx.save(model, dest)


main()
