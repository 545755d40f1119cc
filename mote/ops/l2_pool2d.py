"""L2_POOL_2D in float32 (TFLite Micro runs no other dtype): per window, the square root of the mean of the
squares of its taps inside the input, then the fused activation; the root is correctly rounded
(mote_sqrtf), so the result is identical to TFLite Micro's."""

from __future__ import annotations

from mote.ir import DType
from mote.ops import pool2d_f32
from mote.ops.max_pool2d import pool_shape
from mote.ops.registry import POOL_ATTRS, OpDef, register

OP = register(OpDef("l2_pool2d", pool_shape, pool2d_f32.prepare, pool2d_f32.reference_l2,
                    pool2d_f32.emitter("mote_l2_pool_f32"), tflite=("L2_POOL_2D",), check=pool2d_f32.check,
                    attrs=POOL_ATTRS, dtypes=(DType.FLOAT32,)))
