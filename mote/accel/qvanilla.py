"""QVanilla: the mock conv2d + bias accelerator of the TVM UMA virtual-platform study (seed 000).

It computes an int8 convolution with stride 1 and one group, adds an int32 bias and writes the int32
accumulators; the CPU requantizes them. Registers: ifmap, weights, bias, result (addresses), oc, iw,
ih, ic, kh, kw, input and kernel zero points, control (write 1 to start), status (1 when done).
Unlike the original, kernels may be non-square, and mote keeps everything in the CPU's layouts
(activations NHWC, weights OHWI), so no transform surrounds a job. What the hardware lacks, the
CPU supplies around it: SAME padding by padding the input with its zero point, and strides by
keeping every stride-th position of the stride-1 result while requantizing (the accelerator then
does stride_h * stride_w times the MACs). Timed mode charges 2 cycles per MAC.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.accel.interface import Accelerator, Buffer, Job, Memory, Pattern, Predicate, as_signed
from mote.ir import DType, Node, Tensor


@dataclass(frozen=True)
class QVanillaConfig:
    timed: bool = False  # add the cost model's cycles to the run
    cycles_per_mac: int = 2


def _x(node: Node) -> Tensor:
    x = node.inputs[0]
    assert x is not None
    return x


def _w(node: Node) -> Tensor:
    w = node.inputs[1]
    assert w is not None
    return w


PREDICATES = (
    Predicate("int8 input and output", lambda n: _x(n).dtype is DType.INT8 and n.outputs[0].dtype is DType.INT8),
    Predicate("batch 1", lambda n: _x(n).shape[0] == 1),
    Predicate("dilation 1", lambda n: tuple(n.attrs.get("dilation", (1, 1))) == (1, 1)),
    Predicate("one group", lambda n: _w(n).shape[3] == _x(n).shape[3]),
    Predicate("constant weights", lambda n: _w(n).is_const),
)


class QVanilla(Accelerator):
    name = "qvanilla"
    Config = QVanillaConfig
    registers = ("ifmap", "weights", "bias", "result", "oc", "iw", "ih", "ic", "kh", "kw", "izp", "kzp",
                 "control", "status")
    address_registers = ("ifmap", "weights", "bias", "result")

    def patterns(self) -> list[Pattern]:
        return [Pattern("conv2d+bias", "conv2d", ("conv2d", "bias"), PREDICATES, pad_input=True, cpu_stride=True)]

    def lower(self, node: Node, pattern: Pattern, inputs: list[Tensor | None], outputs: list[Tensor]) -> Job:
        x, w = _x(node), _w(node)
        assert w.data is not None and node.attrs["padding"] == "VALID"
        oc, kh, kw, ic = w.shape
        bias_t = node.inputs[2] if len(node.inputs) > 2 else None
        bias = np.zeros(oc, np.int32) if bias_t is None or bias_t.data is None else bias_t.data.astype(np.int32)
        _, ih, iw, _ = x.shape
        return Job({
            "ifmap": Buffer(tensor=inputs[0]), "weights": Buffer(const=w.data.astype(np.int8), hint="qv_weights"),
            "bias": Buffer(const=bias, hint="qv_bias"), "result": Buffer(tensor=outputs[0]),
            "oc": oc, "iw": iw, "ih": ih, "ic": ic, "kh": kh, "kw": kw, "izp": x.zero_point, "kzp": 0,
        }, {"macs": (ih - kh + 1) * (iw - kw + 1) * oc * kh * kw * ic})

    def execute(self, registers: dict[str, int], memory: Memory) -> None:
        r = registers
        oc, iw, ih, ic, kh, kw = (r[k] for k in ("oc", "iw", "ih", "ic", "kh", "kw"))
        x = np.frombuffer(memory.read(r["ifmap"], ih * iw * ic), np.int8).reshape(ih, iw, ic).astype(np.int64)
        w = np.frombuffer(memory.read(r["weights"], oc * kh * kw * ic), np.int8).reshape(oc, kh, kw, ic)
        bias = np.frombuffer(memory.read(r["bias"], 4 * oc), "<i4").astype(np.int64)
        x = x - as_signed(r["izp"])
        w = w.astype(np.int64) - as_signed(r["kzp"])
        oh, ow = ih - kh + 1, iw - kw + 1
        acc = np.tile(bias, (oh, ow, 1))
        for dy in range(kh):
            for dx in range(kw):
                acc += x[dy:dy + oh, dx:dx + ow, :] @ w[:, dy, dx, :].T
        memory.write(r["result"], acc.astype("<i4").tobytes())

    def cost(self, registers: dict[str, int]) -> int:
        r = registers
        macs = (r["ih"] - r["kh"] + 1) * (r["iw"] - r["kw"] + 1) * r["oc"] * r["kh"] * r["kw"] * r["ic"]
        return self.config.cycles_per_mac * macs
