"""A user's accelerator, defined right here and found as `module:Class`: a pooling-only NPU that
wants its activations in NCHW, so mote transposes at the edges of each region of accelerator nodes.

It partitions (pooling offloaded, everything else on the CPU with a reason), runs bit-exact on the
virtual platform (KWS and a model with two pools in a row, which share one transform in and one
out), and a driver whose accelerator never signals done fails with a one-line error naming the region.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY, REPO

from mote.accel import find_accelerator
from mote.accel.interface import Accelerator, Buffer, Job, Memory, Pattern, Predicate
from mote.accel.partition import partition
from mote.accel.settings import setting
from mote.errors import MoteError
from mote.frontend import load
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import DType, Node, Quant, Tensor
from mote.ops.max_pool2d import pool_params
from mote.passes.accel_check import check_accelerator
from mote.pipeline import run
from mote.targets.rv32 import Rv32, Rv32Config

ZIG = Rv32Config(cc="zig")
MAX, AVERAGE = 0, 1  # the `mode` register


@dataclass(frozen=True)
class PoolNpuConfig:
    timed: bool = setting(False, doc="add the cost model's cycles to the run")
    cycles_per_tap: int = setting(1, doc="cycles per window element", minimum=1, sweep=(1, 2))


def _x(node: Node) -> Tensor:
    x = node.inputs[0]
    assert x is not None
    return x


COMMON = (
    Predicate("int8", lambda n: _x(n).dtype is DType.INT8 and n.outputs[0].dtype is DType.INT8),
    Predicate("batch 1", lambda n: _x(n).shape[0] == 1),
)
SAME_QUANT = Predicate("same quantization in and out",
                       lambda n: _x(n).quant == n.outputs[0].quant)


class PoolNpu(Accelerator):
    """Max and average pooling, all stages, on activations in NCHW (channel planes)."""

    name = "poolnpu"
    Config = PoolNpuConfig
    registers = ("mode", "src", "dst", "channels", "in_h", "in_w", "out_h", "out_w", "filter_h", "filter_w",
                 "stride_h", "stride_w", "pad_top", "pad_left", "act_min", "act_max", "control", "status")
    address_registers = ("src", "dst")
    signed_registers = ("act_min", "act_max")
    activation_layout = "NCHW"

    def patterns(self) -> list[Pattern]:
        return [Pattern("avg_pool", "avg_pool2d", (), (*COMMON, SAME_QUANT)),
                Pattern("max_pool", "max_pool2d", (), COMMON)]

    def lower(self, node: Node, pattern: Pattern, inputs: list[Tensor | None], outputs: list[Tensor],
              plan: object = None) -> Job:
        x, out = inputs[0], outputs[0]
        assert x is not None and x.shape[1] == _x(node).shape[3]  # NCHW views of the node's NHWC tensors
        p = pool_params(node)
        return Job({"mode": AVERAGE if node.op == "avg_pool2d" else MAX,
                    "src": Buffer(tensor=x), "dst": Buffer(tensor=out),
                    "channels": p.channels, "in_h": p.in_h, "in_w": p.in_w, "out_h": p.out_h, "out_w": p.out_w,
                    "filter_h": p.filter_h, "filter_w": p.filter_w, "stride_h": p.stride_h, "stride_w": p.stride_w,
                    "pad_top": p.pad_top, "pad_left": p.pad_left, "act_min": p.act_min, "act_max": p.act_max})

    def execute(self, registers: dict[str, int], memory: Memory) -> bool | None:
        r = registers
        c, ih, iw, oh, ow = r["channels"], r["in_h"], r["in_w"], r["out_h"], r["out_w"]
        fh, fw, sh, sw, top, left = (r[k] for k in ("filter_h", "filter_w", "stride_h", "stride_w", "pad_top",
                                                    "pad_left"))
        x = np.frombuffer(memory.read(r["src"], c * ih * iw), np.int8).reshape(c, ih, iw).astype(np.int32)
        rows, cols = max((oh - 1) * sh + fh, top + ih), max((ow - 1) * sw + fw, left + iw)
        values = np.zeros((c, rows, cols), np.int32)
        inside = np.zeros((rows, cols), np.int32)  # 1 where a tap falls on the input
        values[:, top:top + ih, left:left + iw] = x
        inside[top:top + ih, left:left + iw] = 1
        best = np.full((c, oh, ow), -128, np.int32)
        total = np.zeros((c, oh, ow), np.int32)
        count = np.zeros((oh, ow), np.int32)
        for dy in range(fh):
            for dx in range(fw):
                ys, xs = slice(dy, dy + (oh - 1) * sh + 1, sh), slice(dx, dx + (ow - 1) * sw + 1, sw)
                tap, hit = values[:, ys, xs], inside[ys, xs]
                best = np.where(hit == 1, np.maximum(best, tap), best)
                total += tap
                count += hit
        if r["mode"] == AVERAGE:
            # Divide rounding half away from zero, as the reference kernel's integer division does.
            magnitude = (np.abs(total) + count // 2) // count
            result = np.sign(total) * magnitude
        else:
            result = best
        result = np.clip(result, r["act_min"], r["act_max"])  # signed_registers: no sign fix needed
        memory.write(r["dst"], result.astype(np.int8).tobytes())
        return None

    def cost(self, registers: dict[str, int]) -> int:
        r = registers
        return self.config.cycles_per_tap * r["channels"] * r["out_h"] * r["out_w"] * r["filter_h"] * r["filter_w"]


class HungPoolNpu(PoolNpu):
    """Never signals done: its status register stays 0 and the driver gives up."""

    name = "hungnpu"

    def execute(self, registers: dict[str, int], memory: Memory) -> bool | None:
        return False


def _conv(mb: ModelBuilder, rng: np.random.Generator, x: int, shape_in: tuple[int, ...], ch: int, name: str,
          zero_point: int) -> int:
    """A 3x3 SAME conv + ReLU from `x` (NHWC shape_in) to `ch` channels."""
    n, h, w, c = shape_in
    wt = mb.tensor(f"{name}_w", [ch, 3, 3, c], "int8", scale=list(rng.uniform(0.005, 0.02, ch)), zero_point=0,
                   axis=0, data=rng.integers(-127, 128, (ch, 3, 3, c)))
    b = mb.tensor(f"{name}_b", [ch], "int32", scale=[2e-4] * ch, zero_point=0, data=rng.integers(-2000, 2000, ch))
    y = mb.tensor(name, [n, h, w, ch], "int8", scale=0.05, zero_point=zero_point)
    mb.op("CONV_2D", [x, wt, b], [y], padding="SAME", stride_h=1, stride_w=1, dilation_h_factor=1,
          dilation_w_factor=1, fused_activation_function="RELU")
    return y


def _dense(mb: ModelBuilder, rng: np.random.Generator, x: int, n_in: int, source_zp: int) -> int:
    flat = mb.tensor("flat", [1, n_in], "int8", scale=0.05, zero_point=source_zp)
    mb.op("RESHAPE", [x, mb.tensor("shape", [2], "int32", data=np.array([1, n_in]))], [flat], new_shape=[1, n_in])
    wf = mb.tensor("wf", [10, n_in], "int8", scale=0.01, zero_point=0, data=rng.integers(-127, 128, (10, n_in)))
    bf = mb.tensor("bf", [10], "int32", scale=[5e-4] * 10, zero_point=0, data=rng.integers(-2000, 2000, 10))
    y = mb.tensor("y", [1, 10], "int8", scale=0.5, zero_point=-10)
    mb.op("FULLY_CONNECTED", [flat, wf, bf], [y], fused_activation_function="NONE")
    return y


def two_pools(seed: int = 0) -> bytes:
    """conv -> average pool 3x3 / 1 (SAME) -> max pool 2x2 / 2 (VALID) -> reshape -> fully connected."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 10, 6, 3], "int8", scale=0.02, zero_point=-5)
    y1 = _conv(mb, rng, x, (1, 10, 6, 3), 5, "conv", zero_point=-100)
    y2 = mb.tensor("avg", [1, 10, 6, 5], "int8", scale=0.05, zero_point=-100)
    mb.op("AVERAGE_POOL_2D", [y1], [y2], padding="SAME", stride_h=1, stride_w=1, filter_height=3, filter_width=3,
          fused_activation_function="NONE")
    y3 = mb.tensor("max", [1, 5, 3, 5], "int8", scale=0.05, zero_point=-100)
    mb.op("MAX_POOL_2D", [y2], [y3], padding="VALID", stride_h=2, stride_w=2, filter_height=2, filter_width=2,
          fused_activation_function="NONE")
    return mb.build([x], [_dense(mb, rng, y3, 75, -100)])


def one_pool(seed: int = 0) -> bytes:
    """conv -> max pool 2x2 / 2 -> reshape -> fully connected."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 8, 8, 3], "int8", scale=0.02, zero_point=-5)
    y1 = _conv(mb, rng, x, (1, 8, 8, 3), 4, "conv", zero_point=-128)
    y2 = mb.tensor("the_pool", [1, 4, 4, 4], "int8", scale=0.05, zero_point=-128)
    mb.op("MAX_POOL_2D", [y1], [y2], padding="VALID", stride_h=2, stride_w=2, filter_height=2, filter_width=2,
          fused_activation_function="NONE")
    return mb.build([x], [_dense(mb, rng, y2, 64, -128)])


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("models")
    (d / "two_pools.tflite").write_bytes(two_pools())
    (d / "one_pool.tflite").write_bytes(one_pool())
    return d


def test_found_as_module_and_class() -> None:
    accel = find_accelerator(f"{__name__}:PoolNpu:timed=1,cycles_per_tap=3")
    assert isinstance(accel, PoolNpu) and accel.timed and accel.config.cycles_per_tap == 3
    assert accel.label == "poolnpu:timed=True,cycles_per_tap=3"


def test_functional_model_matches_the_reference() -> None:
    results = check_accelerator(PoolNpu(), trials=15)
    assert [r.pattern for r in results] == ["avg_pool", "max_pool"]
    for r in results:
        assert r.ok, f"{r.pattern}: {r.first_failure}"


def test_partition_kws() -> None:
    decisions = partition(load(MLPERF_TINY / "kws_ref_model.tflite"), PoolNpu())
    offloaded = [d for d in decisions if d.offloaded]
    assert [(d.node.op, d.pattern.name) for d in offloaded] == [("avg_pool2d", "avg_pool")]  # type: ignore[union-attr]
    reasons = {d.node.op: d.why_not() for d in decisions if not d.offloaded}
    assert reasons == {op: f"no pattern for {op}" for op in
                       ("conv2d", "depthwise_conv2d", "reshape", "fully_connected", "softmax")}


def test_partition_names_the_failed_predicate(model_dir: Path) -> None:
    graph = load(model_dir / "two_pools.tflite")
    assert [d.offloaded for d in partition(graph, PoolNpu())] == [False, True, True, False, False]
    avg = graph.nodes[1]
    rescaled = Tensor(avg.outputs[0].name, avg.outputs[0].shape, DType.INT8, Quant((0.1,), (-100,)))
    avg.outputs[0] = rescaled  # an average pool that would also rescale: not this accelerator's job
    (d,) = [d for d in partition(graph, PoolNpu()) if d.node is avg]
    assert not d.offloaded and d.rejected == {"avg_pool": ["same quantization in and out"]}


def _transforms(nodes: list[Node]) -> list[Node]:
    return [n for n in nodes if n.op == "layout_transform"]


def test_kws_bit_exact_on_the_virtual_platform() -> None:
    report = run(MLPERF_TINY / "kws_ref_model.tflite", target=Rv32(ZIG), accelerator=PoolNpu())
    assert report.bit_exact
    assert [layer.op for layer in report.compiled.layers if layer.runs_on == "poolnpu"] == ["avg_pool2d"]
    assert report.figures.sim.accel_jobs == 1
    # NHWC -> NCHW before the pool; after it, its 1x1 result holds the same bytes in both layouts.
    nodes = report.compiled.graph.nodes
    assert [n.attrs["perm"] for n in _transforms(nodes)] == [(0, 3, 1, 2)]
    pool = next(i for i, n in enumerate(nodes) if n.op == "accel")
    assert nodes[pool + 1].op == "reshape" and nodes[pool + 1].outputs[0].shape == (1, 1, 1, 64)


@pytest.mark.parametrize("seed", [0, 1])
def test_two_pools_share_one_transform_each_way(model_dir: Path, seed: int) -> None:
    report = run(model_dir / "two_pools.tflite", target=Rv32(ZIG), seed=seed,
                 accelerator=find_accelerator(f"{__name__}:PoolNpu:timed=1"))
    assert report.bit_exact, f"{report.mismatches} values differ"
    runs_on = [(layer.op, layer.runs_on) for layer in report.compiled.layers if layer.runs_on != "cpu"]
    assert runs_on == [("avg_pool2d", "poolnpu"), ("max_pool2d", "poolnpu")]
    nodes = report.compiled.graph.nodes
    ops = [n.op for n in nodes]
    # One transform into the region, none between the pools, one out of it.
    assert ops == ["conv2d", "layout_transform", "accel", "accel", "layout_transform", "reshape", "fully_connected"]
    into, out = _transforms(nodes)
    assert into.inputs[0].name == "conv" and into.outputs[0].shape == (1, 5, 10, 6)
    assert nodes[3].inputs[0] is nodes[2].outputs[0]  # the max pool reads the average pool's NCHW result
    assert out.outputs[0].name == "max" and out.outputs[0].shape == (1, 5, 3, 5)
    # Timed mode: one tap per cycle.
    assert report.figures.sim.accel_cycles == 5 * 10 * 6 * 9 + 5 * 5 * 3 * 4


def test_hung_accelerator_times_out_naming_the_region(model_dir: Path) -> None:
    with pytest.raises(MoteError) as error:
        run(model_dir / "one_pool.tflite", target=Rv32(ZIG), accelerator=find_accelerator(f"{__name__}:HungPoolNpu"))
    message = str(error.value)
    assert "\n" not in message and "timed out" in message and "'the_pool'" in message, message


def test_hung_accelerator_through_the_cli(model_dir: Path) -> None:
    # This module imports as tests.accel.test_user_accelerator from the repo, and needs conftest.
    path = [str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path))}
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "run", str(model_dir / "one_pool.tflite"),
                           "--target", "rv32", "--cc", "zig", "--accel", f"{__name__}:HungPoolNpu"],
                          capture_output=True, text=True, env=env, cwd=REPO)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mote: error: "), proc.stderr
    assert "timed out" in lines[0] and "'the_pool'" in lines[0]
