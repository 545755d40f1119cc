"""Sub-byte weights on the CPU (mote.ops.subbyte_kernels): TFLite INT4 models bit-exact with TFLite Micro, INT2
models (which TFLite Micro here cannot load) bit-exact with TFLite Micro running the same weights as int8,
generated C on the host (sanitized) and on the rv32 virtual platform bit-exact with the reference, the packed
kernels chosen, and the flash they save."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.errors import MoteError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.ir.verify import check_tensor
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import build_host
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.ops.kernel_util import chosen
from tests.ops.subbyte_models import conv_model, depthwise_model, fc_model, small_cnn_int4

PACKED = {"fully_connected": {"mote_fully_connected_packed_s8"},
          "conv2d": {"mote_conv_packed_s8", "mote_conv_packed_ring_s8", "mote_conv_packed_rows_s8"},
          "depthwise_conv2d": {"mote_depthwise_conv_packed_s8", "mote_depthwise_conv_packed_band_s8"}}


def _assert_packed(graph: Graph, core: Core) -> None:
    layers = [n for n in graph.nodes if n.op in PACKED]
    assert layers
    for node in layers:
        assert node.inputs[1] is not None and node.inputs[1].bits < 8
        assert chosen(node, core) in PACKED[node.op], node.name


@pytest.mark.parametrize("core", [Core.VECTOR, Core.SCALAR])
@pytest.mark.parametrize(("depth", "out", "batches", "zero_point"),
                         [(37, 7, 2, 0), (64, 16, 1, 0), (1, 3, 1, 0), (129, 20, 3, 0), (30, 5, 2, 3)])
def test_int4_fully_connected_matches_tflite_micro(check_model: Callable[..., Graph], core: Core, depth: int, out: int,
                                                   batches: int, zero_point: int) -> None:
    model = fc_model(4, depth, out, seed=depth, batches=batches, w_zero_point=zero_point)
    _assert_packed(check_model(model, sanitize=True, core=core), core)


CONVS = [  # in_hw, in_ch, out_ch, filter, stride, padding, dilation, per_channel, filter_in_ch (groups)
    (7, 5, 6, 3, 2, "SAME", 1, True, 5),
    (9, 3, 4, 3, 1, "VALID", 2, False, 3),
    (6, 8, 5, 1, 1, "VALID", 1, True, 8),
    (8, 1, 3, 5, 1, "SAME", 1, True, 1),
    (6, 6, 10, 3, 1, "SAME", 1, True, 3),  # two groups of five output channels
    (9, 4, 6, 3, 2, "SAME", 1, True, 4),  # the ring kernel on scalar cores: stride 2, a block of four not whole
    (7, 6, 5, 3, 1, "VALID", 1, False, 6),  # the ring kernel at stride 1
    (7, 5, 17, 3, 2, "SAME", 1, True, 5),  # the rows kernel: odd input channels, a last row on its own
    (9, 3, 16, 3, 1, "VALID", 2, False, 3),  # the rows kernel, dilated
    (8, 16, 32, 1, 2, "VALID", 1, True, 16),  # the rows kernel at 1x1, stride 2
]


@pytest.mark.parametrize("core", [Core.VECTOR, Core.SCALAR])
@pytest.mark.parametrize("case", CONVS)
def test_int4_conv_matches_tflite_micro(check_model: Callable[..., Graph], core: Core, case: tuple) -> None:
    in_hw, in_ch, out_ch, filt, stride, padding, dilation, per_channel, filter_in_ch = case
    model = conv_model(4, in_hw, in_ch, out_ch, filt, stride, padding, seed=in_hw, dilation=dilation,
                       per_channel=per_channel, activation="RELU", filter_in_ch=filter_in_ch)
    _assert_packed(check_model(model, sanitize=True, core=core), core)


DEPTHWISES = [  # in_hw, in_ch, multiplier, filter, stride, padding, dilation
    (8, 6, 1, 3, 1, "SAME", 1),
    (9, 3, 2, 3, 2, "VALID", 1),
    (10, 4, 1, 5, 1, "SAME", 2),
]


@pytest.mark.parametrize("core", [Core.VECTOR, Core.SCALAR])
@pytest.mark.parametrize("case", DEPTHWISES)
def test_int4_depthwise_matches_tflite_micro(check_model: Callable[..., Graph], core: Core, case: tuple) -> None:
    in_hw, in_ch, multiplier, filt, stride, padding, dilation = case
    model = depthwise_model(4, in_hw, in_ch, multiplier, filt, stride, padding, seed=in_hw, dilation=dilation)
    _assert_packed(check_model(model, sanitize=True, core=core), core)


def test_int4_small_cnn_matches_tflite_micro(check_model: Callable[..., Graph]) -> None:
    graph = check_model(small_cnn_int4(), sanitize=True)
    assert {t.name: t.bits for n in graph.nodes for t in n.inputs if t is not None and t.is_const
            and t.dtype.value == "int8"} == {"w1": 4, "wd": 4, "wf": 4}


@pytest.mark.parametrize("core", [Core.VECTOR, Core.SCALAR])
@pytest.mark.parametrize("model", ["fc", "conv", "depthwise"])
def test_int2_matches_tflite_micro_on_the_same_weights_as_int8(tmp_path: Path, core: Core, model: str) -> None:
    """TFLite Micro here cannot load INT2 tensors: it runs the same values stored as int8."""
    if model == "fc":
        int2, int8 = fc_model(2, 45, 9, seed=3, batches=2), fc_model(2, 45, 9, seed=3, batches=2, dtype_bits=8)
    elif model == "conv":
        int2 = conv_model(2, 7, 6, 5, 3, 1, "SAME", seed=4)
        int8 = conv_model(2, 7, 6, 5, 3, 1, "SAME", seed=4, dtype_bits=8)
    else:
        int2 = depthwise_model(2, 7, 5, 2, 3, 1, "SAME", seed=5)
        int8 = depthwise_model(2, 7, 5, 2, 3, 1, "SAME", seed=5, dtype_bits=8)
    graph = load_tflite(int2, "int2")
    _assert_packed(graph, core)
    binary = build_host(compile_graph(graph, core=core), tmp_path / "p", sanitize=True)
    for seed in range(3):
        inputs = random_inputs(graph, seed)
        expected = tflm_outputs(int8, graph, inputs)
        reference = interpret(graph, inputs)
        assert_same(reference, expected, f"reference, seed {seed}")
        assert_same(binary.run(inputs)[0], reference, f"generated C, seed {seed}")


@pytest.mark.parametrize("bits", [4, 2])
def test_rv32_matches_the_reference(tmp_path: Path, bits: int) -> None:
    graph = load_tflite(small_cnn_int4(bits=bits), "cnn")
    compiled = compile_graph(graph, core=Core.SCALAR)
    kernels = {layer.op: layer.kernel for layer in compiled.layers if layer.op in PACKED}
    assert kernels.keys() == PACKED.keys() and all(kernels[op] in PACKED[op] for op in PACKED), kernels
    firmware = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    for seed in range(2):
        inputs = random_inputs(graph, seed)
        assert_same(firmware.run(inputs).outputs, interpret(graph, inputs), f"rv32, seed {seed}")


@pytest.mark.parametrize("bits", [4, 2])
def test_packed_weights_take_less_flash(bits: int) -> None:
    narrow = compile_graph(load_tflite(small_cnn_int4(bits=bits), "narrow"))
    wide = compile_graph(load_tflite(small_cnn_int4(bits=bits, dtype_bits=8), "wide"))
    rom = {kind: {layer.name: layer.weights_bytes for layer in m.layers} for kind, m in
           (("narrow", narrow), ("wide", wide))}
    fc_weights = 10 * 512
    # the fully connected layer: the same biases and multipliers, its weights 8 / bits times smaller
    assert rom["wide"]["y4"] - rom["narrow"]["y4"] == fc_weights - fc_weights * bits // 8
    assert rom["narrow"]["y1"] < rom["wide"]["y1"] and rom["narrow"]["y2"] < rom["wide"]["y2"]


def test_a_value_out_of_range_is_one_line() -> None:
    graph = load_tflite(fc_model(4, 8, 3), "m")
    w = graph.nodes[0].inputs[1]
    assert w is not None and w.data is not None
    w.data[0, 0] = 9
    with pytest.raises(MoteError, match=r"tensor 'w': value 9 at flat index 0 does not fit 4 signed bits") as info:
        check_tensor(w)
    assert "\n" not in str(info.value)


def test_a_bad_bit_width_is_one_line() -> None:
    graph = load_tflite(fc_model(4, 8, 3), "m")
    w = graph.nodes[0].inputs[1]
    assert w is not None
    w.bits = 3
    with pytest.raises(MoteError, match="tensor 'w': a bit width of 3 is not supported; use 8, 4 or 2"):
        check_tensor(w)


def test_an_int4_activation_is_one_line() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 8], "int8", scale=0.1, zero_point=0)
    w = mb.tensor("w", [3, 8], "int4", scale=0.1, zero_point=0)  # no data: an int4 tensor computed at run time
    y = mb.tensor("y", [1, 3], "int8", scale=0.1, zero_point=0)
    mb.op("FULLY_CONNECTED", [x, w, -1], [y])
    with pytest.raises(MoteError, match=r"tensor 'w' \(int4\) holds no constant data; mote reads int4") as info:
        load_tflite(mb.build([x, w], [y]), "m")
    assert "\n" not in str(info.value)


# rv32 instructions per MAC the packed kernels must stay within on layers of ResNet-8's and KWS models' shapes
PER_MAC = {"conv2d": 3.0, "depthwise_conv2d": 4.0, "fully_connected": 3.0}


@pytest.mark.parametrize("bits", [4, 2])
@pytest.mark.parametrize("op", sorted(PER_MAC))
def test_rv32_instructions_per_mac(tmp_path: Path, bits: int, op: str) -> None:
    model = {"conv2d": lambda: conv_model(bits, 16, 32, 32, 3, 1, "SAME", seed=1),
             "depthwise_conv2d": lambda: depthwise_model(bits, 12, 64, 1, 3, 1, "SAME", seed=2),
             "fully_connected": lambda: fc_model(bits, 256, 64, seed=3)}[op]()
    graph = load_tflite(model, op)
    compiled = compile_graph(graph, core=Core.SCALAR)
    (layer,) = [x for x in compiled.layers if x.op == op]
    assert layer.kernel in PACKED[op] and layer.macs > 0
    inputs = random_inputs(graph, 0)
    run = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig")).run(inputs)
    assert_same(run.outputs, interpret(graph, inputs), "rv32")
    (profile,) = [x for x in run.layers if x.index == layer.index]
    per_mac = profile.instructions / layer.macs
    assert per_mac <= PER_MAC[op], f"{layer.kernel}: {per_mac:.2f} rv32 instructions per MAC"
