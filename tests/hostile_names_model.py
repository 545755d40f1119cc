"""A small int8 model whose tensor (and so layer) names and file name hold HTML: a conv2d the accelerator
takes, a reshape and a fully connected layer it leaves to the CPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder

SCRIPT = "<script>alert('x')</script>"
CONV = f"conv {SCRIPT}"
FC = 'fc "quoted" & <b>bold</b>'
INPUT = "in<img src=x onerror=alert(1)>"
FILE_NAME = 'model<i>"x"&.tflite'


def hostile_model(directory: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    hw, ch = 8, 8
    x = mb.tensor(INPUT, [1, hw, hw, 4], "int8", scale=0.02, zero_point=-5)
    w = mb.tensor("w'1", [ch, 3, 3, 4], "int8", scale=list(rng.uniform(0.005, 0.02, ch)), zero_point=0, axis=0,
                  data=rng.integers(-127, 128, (ch, 3, 3, 4)))
    b = mb.tensor("b\"1", [ch], "int32", scale=[2e-4] * ch, zero_point=0, data=rng.integers(-2000, 2000, ch))
    y1 = mb.tensor(CONV, [1, hw, hw, ch], "int8", scale=0.05, zero_point=-128)
    mb.op("CONV_2D", [x, w, b], [y1], padding="SAME", fused_activation_function="RELU", stride_h=1, stride_w=1,
          dilation_h_factor=1, dilation_w_factor=1)
    flat = hw * hw * ch
    y2 = mb.tensor("flat & <flat>", [1, flat], "int8", scale=0.05, zero_point=-128)
    mb.op("RESHAPE", [y1, mb.tensor("shape", [2], "int32", data=np.array([1, flat]))], [y2], new_shape=[1, flat])
    y3 = mb.tensor(FC, [1, 10], "int8", scale=0.5, zero_point=-10)
    wf = mb.tensor("wf", [10, flat], "int8", scale=0.01, zero_point=0, data=rng.integers(-127, 128, (10, flat)))
    bf = mb.tensor("bf", [10], "int32", scale=[5e-4] * 10, zero_point=0, data=rng.integers(-2000, 2000, 10))
    mb.op("FULLY_CONNECTED", [y2, wf, bf], [y3], fused_activation_function="NONE")
    path = directory / FILE_NAME
    path.write_bytes(mb.build([x], [y3]))
    return path
