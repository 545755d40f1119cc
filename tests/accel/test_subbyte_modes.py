"""Sub-byte weight modes of QVanilla and the DLA: bit-exact with the reference per node (functional model)
and on the virtual platform for MLPerf Tiny models, smaller packed weights and costs, and the CPU taking
the layers whose width no mode takes."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY

from mote.accel.dla.accelerator import Dla
from mote.accel.dla.config import DlaConfig
from mote.accel.loader import find_accelerator
from mote.accel.packing import OperandBits
from mote.accel.partition import partition
from mote.accel.qvanilla import QVanilla
from mote.accel.random_nodes import GENERATORS
from mote.errors import MoteError
from mote.frontend import load
from mote.ir import Graph, Node
from mote.passes.accel_check import check_accelerator
from mote.passes.accel_weights import for_accelerator, narrowable
from mote.passes.narrow_weights import narrow_weights
from mote.passes.offload import offload
from mote.pipeline import run
from mote.targets.rv32 import Rv32, Rv32Config

ZIG = Rv32Config(cc="zig")
DLAS = [DlaConfig(), DlaConfig(pes=8, sram=4096, mode="input", depthwise="emulated", dma_bytes_per_cycle=3),
        DlaConfig(pes=3, sram=700)]


def _narrowed_nodes(op: str, bits: int, count: int, seed: int) -> list[Node]:
    rng = np.random.default_rng(seed)
    nodes = []
    while len(nodes) < count:
        node = GENERATORS[op](rng)
        if narrowable(node, bits):
            nodes.append(narrow_weights(Graph("n", [node.inputs[0]], node.outputs, [node]), bits).nodes[0])
    return nodes


class _NoAdd(Dla):
    """check_accelerator seeds only a node's first input; add has no weights anyway."""

    def patterns(self):  # noqa: ANN201
        return [p for p in super().patterns() if p.op != "add"]


@pytest.mark.parametrize("config", DLAS, ids=["default", "small-input-emulated", "tiny"])
@pytest.mark.parametrize("bits", [4, 2])
def test_dla_modes_are_bit_exact_per_node(config: DlaConfig, bits: int) -> None:
    results = {r.pattern: r for r in check_accelerator(_NoAdd(config), trials=6, weight_bits=bits)}
    for name in ("conv2d", "fully_connected", f"depthwise_conv2d ({config.depthwise})"):
        assert results[name].trials == 6 and results[name].ok, f"{name}: {results[name].first_failure}"


@pytest.mark.parametrize("bits", [4, 2])
def test_qvanilla_modes_are_bit_exact_per_node(bits: int) -> None:
    for result in check_accelerator(QVanilla(), trials=6, weight_bits=bits):
        assert result.trials == 6 and result.ok, f"{result.pattern}: {result.first_failure}"


def test_the_check_runs_the_packed_mode() -> None:
    """A functional model that unpacks 4-bit weights as 2-bit ones passes the int8 check and fails the int4 one."""

    class Unpacked(QVanilla):
        def execute(self, registers, memory):  # noqa: ANN001, ANN202
            return super().execute({**registers, "wbits": 2 if registers["wbits"] == 4 else registers["wbits"]},
                                   memory)

    assert all(r.ok for r in check_accelerator(Unpacked(), trials=3))
    assert not any(r.ok for r in check_accelerator(Unpacked(), trials=3, weight_bits=4))


def test_dla_packs_weights_and_flags_the_mode() -> None:
    node = _narrowed_nodes("conv2d", 4, 1, seed=3)[0]
    eight = dataclasses.replace(node.inputs[1], bits=8)  # the same values, declared 8 bits wide
    wide = Node(node.op, node.name, [node.inputs[0], eight, *node.inputs[2:]], node.outputs, node.attrs)
    accel = Dla(DlaConfig(pes=4))
    packed, plain = accel.compile(node), accel.compile(wide)
    assert packed.info["weight_bits"] == 4 and plain.info["weight_bits"] == 8
    oc, kh, kw, ic = node.inputs[1].shape
    assert plain.info["weight_bytes"] == oc * kh * kw * ic
    assert packed.info["weight_bytes"] == oc * -(-kh * kw * ic // 2)
    layer_flags = {c.flags for c in packed.commands if c.op in (0x10, 0x11)}
    assert layer_flags and all(f & 0x4 for f in layer_flags)


def test_qvanilla_mode_costs_less_per_mac() -> None:
    accel = QVanilla()
    registers = {"ih": 10, "iw": 10, "kh": 3, "kw": 3, "oc": 8, "ic": 4}
    macs = 8 * 8 * 8 * 3 * 3 * 4
    assert accel.cost({**registers, "wbits": 8}) == 2 * macs
    assert accel.cost({**registers, "wbits": 4}) == 2 * macs * 12 // 16
    assert accel.cost({**registers, "wbits": 2}) == 2 * macs * 10 // 16
    assert accel.cost({**registers, "wbits": 0}) == 2 * macs  # 0: the register's reset value, int8


def test_dla_costs_fewer_cycles_and_bytes_in_narrow_modes() -> None:
    graph = load(MLPERF_TINY / "pretrainedResnet_quant.tflite")
    figures = {}
    for bits in (8, 4, 2):
        accel = Dla(DlaConfig(pes=16, weight_bits=bits))
        jobs = [n.attrs["job"] for n in offload(for_accelerator(graph, accel), accel).nodes if n.op == "accel"]
        figures[bits] = (sum(j.info["cycles"] for j in jobs), sum(j.info["weight_bytes"] for j in jobs),
                         sum(j.info["cost"].sram_read for j in jobs))
    assert figures[8][0] > figures[4][0] > figures[2][0]
    assert figures[8][1] > figures[4][1] > figures[2][1]
    assert figures[8][2] > figures[4][2] > figures[2][2]


class _Int8OnlyDla(Dla):
    name = "dla-int8"

    def operand_bits(self) -> OperandBits:
        return OperandBits(weights=(8, 4))


class _Int8OnlyQVanilla(QVanilla):
    name = "qvanilla-int8"

    def operand_bits(self) -> OperandBits:
        return OperandBits()


def test_layers_whose_width_no_mode_takes_stay_on_the_cpu() -> None:
    graph = narrow_weights(load(MLPERF_TINY / "kws_ref_model.tflite"), 2)
    for accel in (_Int8OnlyQVanilla(), _Int8OnlyDla()):
        decisions = partition(graph, accel)
        layers = [d for d in decisions if d.node.op in ("conv2d", "depthwise_conv2d")]
        assert layers and not any(d.offloaded for d in layers)
        assert all("no int2 weights mode" in d.why_not() for d in layers)
    assert any(d.offloaded for d in partition(graph, Dla()))
    assert any(d.offloaded for d in partition(graph, find_accelerator("qvanilla-rtl")))  # the RTL has the int2 mode
    with pytest.raises(MoteError, match="weight_bits=2"):
        for_accelerator(load(MLPERF_TINY / "kws_ref_model.tflite"), _Int8OnlyDla(DlaConfig(weight_bits=2)))


@pytest.mark.parametrize("accel, file", [
    ("dla:weight_bits=4,timed=1", "pretrainedResnet_quant.tflite"),
    ("dla:weight_bits=2,timed=1", "kws_ref_model.tflite"),
    ("qvanilla:weight_bits=2,timed=1", "pretrainedResnet_quant.tflite"),
    ("qvanilla:weight_bits=4,timed=1", "kws_ref_model.tflite"),
])
def test_mlperf_tiny_bit_exact_on_the_virtual_platform(accel: str, file: str) -> None:
    """The reference (on the narrowed graph), the firmware's CPU layers and the accelerator's functional model
    agree bit for bit; the narrowed run's weights take less flash and the same layers are offloaded."""
    path = MLPERF_TINY / file
    narrow = run(path, target=Rv32(ZIG), accelerator=find_accelerator(accel))
    eight = run(path, target=Rv32(ZIG), accelerator=find_accelerator(accel.replace("weight_bits=4", "weight_bits=8")
                                                                       .replace("weight_bits=2", "weight_bits=8")))
    assert narrow.mismatches == 0 and eight.mismatches == 0
    assert narrow.compiled.weights_bytes < eight.compiled.weights_bytes
    jobs = [n for n in narrow.compiled.graph.nodes if n.op == "accel"]
    assert len(jobs) == sum(n.op == "accel" for n in eight.compiled.graph.nodes)
    assert {n.attrs["job"].info["weight_bits"] for n in jobs if n.attrs["original"].op != "add"} - {8} <= {2, 4}
    assert any(n.attrs["job"].info.get("weight_bits") in (2, 4) for n in jobs)


def test_accel_check_cli_checks_the_configured_width() -> None:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "accel", "check", "qvanilla:weight_bits=2", "--trials",
                           "3", "--json"], capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["accelerator"].endswith("weight_bits=2") and all(p["ok"] and p["trials"] == 3
                                                                   for p in report["patterns"])


def test_activations_narrower_than_any_activation_mode_stay_on_the_cpu() -> None:
    """The DLA declares int8 activations only: a conv reading a tensor marked 4 bits wide is the CPU's."""
    node = GENERATORS["conv2d"](np.random.default_rng(7))
    x = dataclasses.replace(node.inputs[0], bits=4)
    narrow = Node(node.op, node.name, [x, *node.inputs[1:]], node.outputs, node.attrs)
    (decision,) = partition(Graph("n", [x], node.outputs, [narrow]), Dla())
    assert not decision.offloaded and "int4 activations" in decision.why_not()
    (decision,) = partition(Graph("n", [node.inputs[0]], node.outputs, [node]), Dla())
    assert decision.offloaded


def test_run_says_which_layers_run_in_a_weight_mode() -> None:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "run", str(MLPERF_TINY / "kws_ref_model.tflite"),
                           "--target", "rv32", "--accel", "dla:weight_bits=2"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("weights:"))
    layers = sum(n.op in ("conv2d", "depthwise_conv2d", "fully_connected")
                 for n in load(MLPERF_TINY / "kws_ref_model.tflite").nodes)
    assert f"{layers} layers in its int2 weight mode" in line and "bytes packed" in line
    plain = subprocess.run([sys.executable, "-m", "mote.cli", "run", str(MLPERF_TINY / "kws_ref_model.tflite"),
                            "--target", "rv32", "--accel", "dla"], capture_output=True, text=True)
    assert plain.returncode == 0 and "weights:" not in plain.stdout
