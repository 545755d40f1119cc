"""The operators mote supports. Importing this package registers every op module in it."""

import importlib
import pkgutil

from mote.ops.registry import OPS, CCall, OpDef, register

# Modules that register no op of their own.
_INFRASTRUCTURE = {"registry", "common", "broadcast", "checks", "window_checks", "windows", "conv_common",
                   "conv2d_params", "conv2d_kernels", "weighted_16x8", "arith_s16", "abs_int", "copy_plan",
                   "sigmoid_table", "sigmoid_s16", "softmax_s16", "depthwise_plane", "depthwise_params",
                   "depthwise_band", "squared_difference_int", "elu_int",
                   "hard_swish_int", "l2_norm_int", "div_int", "detection_nms", "subgraphs",
                   "lstm_common", "lstm_int", "filter_offset", "log_softmax_int", "dialect_int",
                   "rsqrt_int", "fully_connected_pairs", "fully_connected_bytes", "fully_connected_row_pairs",
                   "batch_matmul_pairs", "requant_stage", "dsp_kernels", "subbyte_kernels", "subbyte_depthwise",
                   "armv6m_kernels"}

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in _INFRASTRUCTURE:
        importlib.import_module(f"{__name__}.{_module}")

__all__ = ["OPS", "CCall", "OpDef", "register"]
