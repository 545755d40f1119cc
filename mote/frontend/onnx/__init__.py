"""The ONNX frontend: ONNX model -> mote Graph, `mote quantize`, and the comparison with onnxruntime.

This is the package's one entry point; the rest of mote imports from here, never from its modules.
Inside, imports point one way: the loader (convert) -> dispatch -> op handlers (resize, floats, qdq, qop,
integer, movement, fold) -> lower -> values, window, check; every handler takes the conversion's `Context`
(context.py). `run` (what `mote run model.onnx` needs), `compare` and `quantize` sit on top.
"""

from mote.frontend.onnx.compare import OnnxComparison, compare, onnxruntime_us_per_inference
from mote.frontend.onnx.convert import (
    IoInfo,
    OnnxConversion,
    convert,
    convert_file,
    is_float_model,
    load_onnx_file,
    read_model,
)
from mote.frontend.onnx.quantize import METHODS, quantize_model
from mote.frontend.onnx.run import OnnxModel, is_onnx, load_onnx_model, parse_input_shapes

__all__ = [
    "METHODS",
    "IoInfo",
    "OnnxComparison",
    "OnnxConversion",
    "OnnxModel",
    "compare",
    "convert",
    "convert_file",
    "is_float_model",
    "is_onnx",
    "load_onnx_file",
    "load_onnx_model",
    "onnxruntime_us_per_inference",
    "parse_input_shapes",
    "quantize_model",
    "read_model",
]
