"""What the compiler decided, checked against the text form of the compiled model (mote.codegen.ir_text):
offloading to an accelerator, the kernel each layer gets on each kind of core, and the arena's offsets."""

from __future__ import annotations

from pathlib import Path

import pytest

from mote.accel import find_accelerator
from mote.codegen.compile import compile_graph
from mote.codegen.ir_text import dump_compiled
from mote.frontend import load
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.ops.registry import Core
from tests.filecheck import check

DIGITS = Path(__file__).parent.parent.parent / "mote" / "models" / "digits_cnn.tflite"


def dump(accelerator: str | None = None, core: Core = Core.VECTOR) -> str:
    return dump_compiled(compile_graph(load(DIGITS), find_accelerator(accelerator) if accelerator else None, core))


def test_qvanilla_takes_the_convolutions_up_to_the_bias() -> None:
    """QVanilla computes int32 accumulators in NCHW: the CPU pads and transposes before, requantizes after,
    and keeps the fully connected layer."""
    check(dump("qvanilla"), """
        CHECK: #1 reshape "input_int8 (NCHW)"
        CHECK-SAME: // cpu in place
        CHECK-NEXT: #2 pad
        CHECK-NEXT: #3 accel "conv1"
        CHECK-SAME: {accelerator="qvanilla"
        CHECK-SAME: original=conv2d "conv1" {activation="RELU", dilation=[1, 1], padding="VALID"
        CHECK-SAME: stages=["conv2d", "bias"]}  // qvanilla mote_qvanilla_run
        CHECK-NEXT: #4 requantize_s32 "conv1"
        CHECK-SAME: // cpu mote_requantize_s32_s8
        CHECK-NEXT: #5 accel "conv2"
        CHECK-SAME: -> %"conv2 (int32) (NCHW)": i32[1,16,7,7]
        CHECK-NEXT: #6 requantize_s32 "conv2"
        CHECK-NOT: accel
        CHECK: fully_connected "logits"
        CHECK-SAME: // cpu mote_fully_connected_s8
    """)


def test_an_offloaded_node_shows_its_lowered_job() -> None:
    """The register values the driver will write: the padded input's zero point as a signed value, the
    packed weights by checksum, the tensors by name."""
    check(dump("qvanilla"), """
        CHECK: #3 accel "conv1"
        CHECK-SAME: job=Job{info={macs=4608}, registers={bias=Buffer{const=array int32[8] sha256:
        CHECK-SAME: ifmap=Buffer{const=none, hint="accel", tensor=%"input_int8 (padded) (NCHW)"}, ih=10, iw=10,
        CHECK-SAME: izp=-128, kh=3, kw=3, kzp=0, oc=8,
        CHECK-SAME: repeat=1, step={}}
    """)


def test_the_dla_takes_whole_layers_in_nhwc() -> None:
    check(dump("dla"), """
        CHECK-NOT: requantize_s32
        CHECK: #1 accel "conv1" (%input_int8, %conv1/weights, %conv1/bias) -> %conv1: i8[1,8,8,8]
        CHECK-SAME: perm=none, stages=["conv2d", "bias", "requantize", "activation"]}  // dla mote_dla_run
        CHECK-NEXT: #2 accel "conv2"
        CHECK-SAME: // dla mote_dla_run
        CHECK-NEXT: #3 reshape "flatten"
        CHECK-SAME: // cpu in place
        CHECK-NEXT: #4 accel "logits"
        CHECK-SAME: original=fully_connected "logits"
        CHECK-NEXT: #5 softmax "probs"
        CHECK-SAME: // cpu mote_softmax_s8
        CHECK-NOT: requantize_s32
    """)


@pytest.mark.parametrize(("core", "kernels"), [
    (Core.VECTOR, ["mote_quantize_f32_s8", "mote_conv_im2col_s8", "mote_conv_rows_s8", "mote_fully_connected_s8"]),
    (Core.SCALAR, ["mote_quantize_f32_s8", "mote_conv_plane_s8 scratch=", "mote_conv_ring_s8 scratch=",
                   "mote_fully_connected_row_pairs_s8"]),
    (Core.VNNI, ["mote_quantize_f32_s8_vnni", "mote_conv_vnni_s8 scratch=", "mote_conv_vnni_s8 scratch=",
                 "mote_fully_connected_s8"]),
])
def test_each_kind_of_core_gets_its_kernels(core: Core, kernels: list[str]) -> None:
    quantize, conv1, conv2, logits = kernels
    check(dump(core=core), f"""
        CHECK: kernels for {core.value} cores
        CHECK: #0 quantize
        CHECK-SAME: // cpu {quantize}
        CHECK-NEXT: #1 conv2d "conv1"
        CHECK-SAME: // cpu {conv1}
        CHECK-NEXT: #2 conv2d "conv2"
        CHECK-SAME: // cpu {conv2}
        CHECK-NEXT: #3 reshape
        CHECK-SAME: // cpu in place
        CHECK-NEXT: #4 fully_connected "logits"
        CHECK-SAME: // cpu {logits}
    """)


def test_the_arena_of_the_digits_model() -> None:
    """Each tensor's offset and size; the reshape shares its input's bytes in place."""
    check(dump(), """
        CHECK: // arena 768 B (lower bound 768 B)
        CHECK: input %input: f32[1,8,8,1] arena=0+256
        CHECK: #0 quantize "input_int8" (%input) -> %input_int8: i8[1,8,8,1] q(0.00392157, -128) arena=512+64
        CHECK-NEXT: #1 conv2d "conv1"
        CHECK-SAME: -> %conv1: i8[1,8,8,8] q(0.0194565, -128) arena=0+512
        CHECK-NEXT: #2 conv2d "conv2"
        CHECK-SAME: arena=512+256
        CHECK-NEXT: #3 reshape "flatten"
        CHECK-SAME: arena=512+256
        CHECK-NEXT: #4 fully_connected
        CHECK-SAME: arena=0+10
        CHECK-NEXT: #5 softmax
        CHECK-SAME: arena=40+10
        CHECK-NEXT: #6 dequantize
        CHECK-SAME: arena=0+40
    """)


def test_an_elementwise_output_reuses_an_input_read_for_the_last_time() -> None:
    """x -> relu -> y -> relu -> z; add(z, y) -> w: y lives to the end, z takes x's place, and the add
    writes over z (which it reads for the last time), so the arena is below the bound of disjoint buffers."""
    q = Quant((0.5,), (0,))
    x, y, z, w = (Tensor(name, (1, 64), DType.INT8, q) for name in "xyzw")
    graph = Graph("chain", [x], [w], [Node("relu", "y", [x], [y]), Node("relu", "z", [y], [z]),
                                      Node("add", "w", [z, y], [w])])
    check(dump_compiled(compile_graph(graph)), """
        CHECK: // arena 128 B (lower bound 192 B)
        CHECK-NEXT: input %x: i8[1,64] q(0.5, 0) arena=0+64
        CHECK-NEXT: #0 relu "y" (%x) -> %y: i8[1,64] q(0.5, 0) arena=64+64  // cpu mote_relu_s8
        CHECK-NEXT: #1 relu "z" (%y) -> %z: i8[1,64] q(0.5, 0) arena=0+64  // cpu mote_relu_s8
        CHECK-NEXT: #2 add "w" (%z, %y) -> %w: i8[1,64] q(0.5, 0) arena=0+64  // cpu mote_add_s8
        CHECK-NEXT: output %w
    """)
