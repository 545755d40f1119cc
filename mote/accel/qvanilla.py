"""QVanilla: the mock conv2d + bias accelerator of the TVM UMA virtual-platform study (seed 000).

It computes an int8 convolution with stride 1 and one group, adds an int32 bias and writes the int32
accumulators; the CPU requantizes them. Registers: ifmap, weights, bias, result (addresses), oc, iw,
ih, ic, kh, kw, input and kernel zero points, control (write 1 to start), status (1 when done).
Its layouts are the seed's: activations and results as channel planes (NCHW), weights OIHW (packed
at compile time). Unlike the original, kernels may be non-square, and no layout transform runs
between accelerator jobs: the CPU's requantization reads the planes and writes the planes the next
job reads (or NHWC, where a CPU kernel reads the result). What the hardware lacks, the CPU supplies
around it: SAME padding by padding the input planes with the zero point, strides by keeping every
stride-th position of the stride-1 result while requantizing (the accelerator then does stride_h *
stride_w times the MACs), and depthwise convolutions as one start per channel, a one-channel
convolution on that channel's plane (the driver advances the plane addresses; depth multiplier 1).
Timed mode charges 2 cycles per MAC. The weights arrive as the IR holds them (OHWI; depthwise
1HWC) and `lower` packs them into OIHW (depthwise: one HW plane per channel) for flash. The zero
point registers are declared signed, so the models read them as signed ints.

Sub-byte weights (mote.accel.packing): a `wbits` register, after `status` so the seed's register
offsets stay, gives the job's weight width, 8, 4 or 2 (0 reads as 8). At 4 and 2 bits `lower` packs each
filter (OIHW: an output channel's IC*KH*KW weights; depthwise: a channel's KH*KW) as one row of the
rows-lsb-first layout, so every filter starts on a byte; the functional model unpacks them. Layers whose
weights are int4 or int2 (Tensor.bits; the `weight_bits` setting narrows the offloaded layers' weights to
that width at compile time, mote.passes.accel_weights) run in that mode. Cost model: a MAC's
`cycles_per_mac` cycles are half the read of its input byte and half that of its weight byte (the RTL's
schedule: one byte read per operand); a packed weight byte carries 8/bits weights, so a MAC in the
b-bit mode costs cycles_per_mac * (8 + b) / 16 cycles (rounded up per job): 2, 1.5, 1.25 cycles by default.
This is a documented assumption of the model, not a measurement (docs/area.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mote.accel.hardware import Hardware
from mote.accel.interface import Accelerator, Buffer, Job, Memory, Pattern, Predicate
from mote.accel.node_inputs import constant_input, optional_input, required_input
from mote.accel.packing import OperandBits, pack_rows, row_bytes, unpack_rows
from mote.accel.settings import check_config, setting
from mote.ir import DType, Node, Tensor
from mote.ops.registry import attr


@dataclass(frozen=True)
class QVanillaConfig:
    timed: bool = setting(False, doc="add the cost model's cycles to the virtual platform's run")
    cycles_per_mac: int = setting(2, doc="cycles the cost model charges per multiply-accumulate", minimum=0,
                                  sweep=(1, 2, 4))
    weight_bits: int = setting(8, doc="narrow the offloaded layers' weights to this many bits per channel at "
                                      "compile time and run them in that mode (8: as they are)", choices=(8, 4, 2),
                               sweep=(8, 4, 2))

    def __post_init__(self) -> None:
        check_config(self, "qvanilla")


def _x(node: Node) -> Tensor:
    return required_input(node, 0)


def _w(node: Node) -> Tensor:
    return required_input(node, 1)


COMMON = (
    Predicate("int8 input and output", lambda n: _x(n).dtype is DType.INT8 and n.outputs[0].dtype is DType.INT8),
    Predicate("batch 1", lambda n: _x(n).shape[0] == 1),
    Predicate("dilation 1", lambda n: tuple(attr(n, "dilation")) == (1, 1)),
    Predicate("constant weights", lambda n: _w(n).is_const),
    Predicate("constant bias", lambda n: (bias := optional_input(n, 2)) is None or bias.is_const),
)
CONV = (*COMMON, Predicate("one group", lambda n: _w(n).shape[3] == _x(n).shape[3]))
DEPTHWISE = (*COMMON, Predicate("depth multiplier 1", lambda n: _w(n).shape[3] == _x(n).shape[3]))


class QVanilla(Accelerator):
    name = "qvanilla"
    Config = QVanillaConfig
    registers = ("ifmap", "weights", "bias", "result", "oc", "iw", "ih", "ic", "kh", "kw", "izp", "kzp",
                 "control", "status", "wbits")
    address_registers = ("ifmap", "weights", "bias", "result")
    signed_registers = ("izp", "kzp")
    activation_layout = "NCHW"

    def hardware(self) -> Hardware:
        """One MAC unit (cycles_per_mac cycles each), no SRAM of its own: it reads system memory."""
        return Hardware(1, weight_bits=self.operand_bits().weights)

    def operand_bits(self) -> OperandBits:
        """int8, int4 and int2 weights (packed rows, one per filter); int8 activations."""
        return OperandBits(weights=(8, 4, 2))

    def patterns(self) -> list[Pattern]:
        return [Pattern("conv2d+bias", "conv2d", ("conv2d", "bias"), CONV, pad_input=True, cpu_stride=True),
                Pattern("depthwise as per-channel conv2d+bias", "depthwise_conv2d", ("depthwise_conv2d", "bias"),
                        DEPTHWISE, pad_input=True, cpu_stride=True)]

    def lower(self, node: Node, pattern: Pattern, inputs: list[Tensor | None], outputs: list[Tensor],
              plan: Any = None) -> Job:
        x, w = _x(node), _w(node)
        assert w.data is not None and node.attrs["padding"] == "VALID"
        _, ih, iw, _ = x.shape
        bits = w.bits
        if node.op == "depthwise_conv2d":  # [1, kh, kw, C] -> one [kh, kw] filter per start
            _, kh, kw, channels = w.shape
            oc = ic = 1
            filters = w.data.astype(np.int8)[0].transpose(2, 0, 1)
            repeat, step = channels, {"ifmap": ih * iw, "weights": row_bytes(kh * kw, bits), "bias": 4,
                                      "result": 4 * (ih - kh + 1) * (iw - kw + 1)}
        else:  # OHWI -> OIHW
            oc, kh, kw, ic = w.shape
            filters = w.data.astype(np.int8).transpose(0, 3, 1, 2)
            repeat, step = 1, {}
        # int8: the filters as they are; narrower: one packed row per filter
        weights = np.ascontiguousarray(filters if bits == 8 else pack_rows(filters.reshape(len(filters), -1), bits))
        bias = constant_input(node, 2, np.zeros(oc * repeat, np.int32))
        registers: dict[str, Any] = {
            "ifmap": Buffer(tensor=inputs[0]), "weights": Buffer(const=weights, hint="qv_weights"),
            "bias": Buffer(const=bias, hint="qv_bias"), "result": Buffer(tensor=outputs[0]),
            "oc": oc, "iw": iw, "ih": ih, "ic": ic, "kh": kh, "kw": kw, "izp": x.zero_point, "kzp": 0,
            "wbits": bits,
        }
        info: dict[str, Any] = {"macs": repeat * (ih - kh + 1) * (iw - kw + 1) * oc * kh * kw * ic}
        if bits != 8:
            info.update(weight_bits=bits, weight_bytes=int(weights.nbytes))
        return Job(registers, info, repeat, step)

    def execute(self, registers: dict[str, int], memory: Memory) -> None:
        r = registers
        oc, iw, ih, ic, kh, kw = (r[k] for k in ("oc", "iw", "ih", "ic", "kh", "kw"))
        x = np.frombuffer(memory.read(r["ifmap"], ic * ih * iw), np.int8).reshape(ic, ih, iw).astype(np.int64)
        bits = r.get("wbits", 0) or 8
        packed = np.frombuffer(memory.read(r["weights"], oc * row_bytes(ic * kh * kw, bits)), np.uint8)
        w = unpack_rows(packed.reshape(oc, -1), ic * kh * kw, bits).reshape(oc, ic, kh, kw)
        bias = np.frombuffer(memory.read(r["bias"], 4 * oc), "<i4").astype(np.int64)
        x = x - r["izp"]
        w = w.astype(np.int64) - r["kzp"]
        oh, ow = ih - kh + 1, iw - kw + 1
        acc = np.tile(bias[:, None, None], (1, oh, ow))
        for dy in range(kh):
            for dx in range(kw):
                acc += np.einsum("oi,iyx->oyx", w[:, :, dy, dx], x[:, dy:dy + oh, dx:dx + ow])
        memory.write(r["result"], acc.astype("<i4").tobytes())

    def cost(self, registers: dict[str, int]) -> int:
        r = registers
        macs = (r["ih"] - r["kh"] + 1) * (r["iw"] - r["kw"] + 1) * r["oc"] * r["kh"] * r["kw"] * r["ic"]
        bits = r.get("wbits", 0) or 8
        return -(-self.config.cycles_per_mac * macs * (8 + bits) // 16)
