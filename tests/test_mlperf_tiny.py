"""The four MLPerf Tiny models: generated C on the host is bit-exact with TFLite Micro."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MLPERF_TINY, assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.reference import interpret
from mote.targets.host import build_host

MODELS = ["ad01_int8.tflite", "kws_ref_model.tflite", "pretrainedResnet_quant.tflite", "vww_96_int8.tflite"]
INPUTS = 10


@pytest.mark.parametrize("file", MODELS)
def test_generated_c_is_bit_exact_with_tflite_micro(file: str, tmp_path: Path) -> None:
    model = (MLPERF_TINY / file).read_bytes()
    graph = load_tflite(model, Path(file).stem)
    binary = build_host(compile_graph(graph), tmp_path / "project")
    for seed in range(INPUTS):
        inputs = random_inputs(graph, seed)
        expected = tflm_outputs(model, graph, inputs)
        assert_same(binary.run(inputs)[0], expected, f"{file} generated C, seed {seed}")
        if seed < 2:  # the numpy reference is slower; two inputs are enough to pin it down
            assert_same(interpret(graph, inputs), expected, f"{file} reference interpreter, seed {seed}")


def test_sanitizers_are_clean(tmp_path: Path) -> None:
    """KWS uses conv, depthwise, pooling, reshape, FC and softmax: ASan/UBSan must stay silent."""
    model = (MLPERF_TINY / "kws_ref_model.tflite").read_bytes()
    graph = load_tflite(model, "kws")
    binary = build_host(compile_graph(graph), tmp_path / "project", opt="-O1", sanitize=True)
    inputs = random_inputs(graph, 0)
    assert_same(binary.run(inputs)[0], tflm_outputs(model, graph, inputs), "kws under sanitizers")


@pytest.mark.parametrize("file, bound", [("ad01_int8.tflite", 768), ("kws_ref_model.tflite", 16_000),
                                         ("pretrainedResnet_quant.tflite", 49_152),
                                         ("vww_96_int8.tflite", 55_296)])
def test_arena_reaches_the_lower_bound(file: str, bound: int) -> None:
    compiled = compile_graph(load_tflite((MLPERF_TINY / file).read_bytes(), file))
    assert compiled.plan.lower_bound == bound
    assert compiled.plan.size == bound


def test_generated_project_is_deterministic() -> None:
    model = (MLPERF_TINY / "pretrainedResnet_quant.tflite").read_bytes()
    first = compile_graph(load_tflite(model, "resnet")).sources
    second = compile_graph(load_tflite(model, "resnet")).sources
    assert first == second


def test_ad_reference_matches_tflite_micro_where_the_multiplier_product_matters() -> None:
    """Seeds 116 and 254 reach AD's last layer at an accumulator where a per-tensor multiplier taken
    from a float32 scale product (not TFLite Micro's double one) rounds the other way."""
    model = (MLPERF_TINY / "ad01_int8.tflite").read_bytes()
    graph = load_tflite(model, "ad01")
    for seed in (116, 254):
        inputs = random_inputs(graph, seed)
        assert_same(interpret(graph, inputs), tflm_outputs(model, graph, inputs), f"ad01 reference, seed {seed}")
