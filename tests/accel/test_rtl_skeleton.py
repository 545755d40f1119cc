"""The RTL of `mote accel new NAME --rtl` (max and average pooling) against its Python functional model and
cost model, job by job through the bridge, on random windows with padding, strides and clamps (cases its
generated test, one VALID 2x2 max pool, does not reach)."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from test_rtl_qvanilla import BASE, Ram

from mote.accel.rtl import rtl_library
from mote.accel.rtl.bridge import PythonMemory, RtlModel
from mote.accel.skeleton import write_skeleton


@pytest.fixture(scope="module")
def accel(tmp_path_factory):
    root = tmp_path_factory.mktemp("skeleton")
    write_skeleton("toy_rtl", root, rtl=True)
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module("toy_rtl")
    finally:
        sys.path.remove(str(root))
    yield module.ToyRtl()
    sys.modules.pop("toy_rtl", None)
    sys.modules.pop("toy_rtl.accelerator", None)


@pytest.mark.parametrize("mode", [0, 1])  # max, average
@pytest.mark.parametrize("seed", range(6))
def test_rtl_pool_matches_the_functional_and_cost_models(accel, seed: int, mode: int) -> None:
    rng = np.random.default_rng(seed)
    c, ih, iw = (int(v) for v in rng.integers(1, 6, 3))
    fh, fw, sh, sw = (int(v) for v in rng.integers(1, 4, 4))
    top, left = int(rng.integers(0, fh)), int(rng.integers(0, fw))
    # outputs whose windows reach past the bottom and right edges too
    oh, ow = (ih + top) // sh + 1, (iw + left) // sw + 1
    lo = int(rng.integers(-128, 0))
    registers = {"input": BASE + 1, "output": BASE + 3 + ih * iw * c, "channels": c, "in_h": ih, "in_w": iw,
                 "out_h": oh, "out_w": ow, "filter_h": fh, "filter_w": fw, "stride_h": sh, "stride_w": sw,
                 "pad_top": top, "pad_left": left, "act_min": lo, "act_max": int(rng.integers(lo, 128)),
                 "mode": mode}
    rtl_ram, py_ram = Ram(2048), Ram(2048)
    rtl_ram.write(registers["input"], rng.integers(-128, 128, ih * iw * c, dtype=np.int8).tobytes())
    py_ram.data[:] = rtl_ram.data
    model = RtlModel(rtl_library(accel))
    port = PythonMemory(rtl_ram)
    for name, value in registers.items():
        model.write_register(accel.registers.index(name), value, port.port)
    model.write_register(accel.registers.index("control"), 1, port.port)
    cycles = 1 + model.run(port.port, 1 << 24)
    assert model.read_register(accel.registers.index("status")) == 1
    signed = accel.model_registers({**dict.fromkeys(accel.registers, 0),
                                    **{k: v & 0xFFFFFFFF for k, v in registers.items()}})
    accel.execute(signed, py_ram)
    assert rtl_ram.data == py_ram.data
    assert cycles == accel.cost(signed)
