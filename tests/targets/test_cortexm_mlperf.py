"""The four MLPerf Tiny models on every Cortex-M target: firmware built for the core (its kernels, its -mcpu) runs
bit-exact with TFLite Micro on the virtual platform. One input each, and each model compiled once per kind of
kernels, to keep the time small."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from conftest import MLPERF_TINY, assert_same, tflm_outputs

from mote.codegen.compile import CompiledModel, compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.cortexm import CORES, CortexMConfig, build_cortexm

MODELS = {"ad": "ad01_int8.tflite", "kws": "kws_ref_model.tflite", "resnet8": "pretrainedResnet_quant.tflite",
          "vww": "vww_96_int8.tflite"}


@functools.cache
def _compiled(model: str, core: Core) -> tuple[bytes, CompiledModel]:
    data = (MLPERF_TINY / MODELS[model]).read_bytes()
    return data, compile_graph(load_tflite(data, model), core=core)


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("cpu", list(CORES))
def test_mlperf_tiny_bit_exact_on_the_core(cpu: str, model: str, tmp_path: Path) -> None:
    config = CortexMConfig(cpu=cpu, cc="zig")
    data, compiled = _compiled(model, config.arm.kernels)
    firmware = build_cortexm(compiled, tmp_path / model, config)
    inputs = random_inputs(compiled.graph, 0)
    result = firmware.run(inputs)
    assert_same(result.outputs, tflm_outputs(data, compiled.graph, inputs), f"{model} on {cpu}")
    assert result.instructions > compiled.macs // 8  # it ran the model, not a stub
