"""The dla accelerator: each pattern and instruction against the reference, tiling, whole models on the VP."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.accel import job_cost
from mote.accel.dla import isa
from mote.accel.dla.accelerator import Dla
from mote.accel.dla.config import DlaConfig
from mote.accel.dla.functional import DlaState, run
from mote.accel.loader import find_accelerator
from mote.accel.random_nodes import GENERATORS
from mote.accel.settings import settings_of
from mote.errors import MoteError
from mote.ir import Graph
from mote.ops import OPS
from mote.passes.accel_check import FlatMemory, check_accelerator, run_functional
from mote.passes.offload import offload
from mote.quant import multiply_by_quantized_multiplier

MODELS = Path(__file__).resolve().parents[2] / "models" / "mlperf-tiny"
CONFIGS = [
    DlaConfig(),
    DlaConfig(pes=8, sram=4096, mode="input", depthwise="emulated", dma_bytes_per_cycle=3),
    DlaConfig(pes=3, sram=700, depthwise="native"),  # tiles almost every random node
]


class _NoAdd(Dla):
    """check_accelerator seeds only a node's first input; add is checked below with both inputs."""

    def patterns(self):  # noqa: ANN201
        return [p for p in super().patterns() if p.op != "add"]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.pes}pe-{c.sram}B-{c.mode}-{c.depthwise}")
def test_patterns_bit_exact(config: DlaConfig) -> None:
    for result in check_accelerator(_NoAdd(config), trials=15):
        assert result.ok, f"{result.pattern}: {result.first_failure}"


@pytest.mark.parametrize("config", CONFIGS[:2] + [DlaConfig(sram=64)], ids=["default", "small", "tiny"])
def test_add_bit_exact(config: DlaConfig) -> None:
    rng = np.random.default_rng(1)
    accel = Dla(config)
    checked = 0
    for _ in range(40):
        node = GENERATORS["add"](rng)
        if accel.patterns()[-1].rejections(node):
            continue
        (n,) = offload(Graph("add", list(node.inputs), node.outputs, [node]), accel).nodes
        a, b = (rng.integers(-128, 128, t.shape, dtype=np.int8) for t in node.inputs)
        expected = OPS["add"].reference(node, OPS["add"].prepare(node), [a, b])[0]
        assert np.array_equal(run_functional(accel, n, [a, b]), expected)
        checked += 1
    assert checked > 10


def test_depthwise_none_is_rejected_with_a_reason() -> None:
    pattern = Dla(DlaConfig(depthwise="none")).patterns()[1]
    node = GENERATORS["depthwise_conv2d"](np.random.default_rng(0))
    assert pattern.rejections(node) == ["depthwise=none: depthwise convolutions run on the CPU"]


def test_encoding_round_trips() -> None:
    commands = [isa.Command(isa.OP_CFG, 0, 0, isa.CFG["PAD_TOP"], -3 & 0xFFFFFFFF),
                isa.Command(isa.OP_DMA_READ, 0, 0x8001, 3, 16, 32, 8, 4, 12, 0),
                isa.Command(isa.OP_CONV_RELU, isa.FLAG_REQUANT, 7, 1, 2, 3, 4)]
    data = isa.encode(commands)
    assert len(data) == 3 * isa.COMMAND_BYTES and isa.decode(data) == commands
    assert isa.s32(isa.decode(data)[0].b) == -3


def _eltwise(op: int, a: np.ndarray, b: np.ndarray, regs: dict[str, int], wide: bool = False) -> np.ndarray:
    """Run one element-wise instruction on a fresh DLA (operands DMA'd in, result DMA'd out)."""
    memory = FlatMemory()
    dtype = "<i4" if wide else "i1"
    pa, pb = memory.place(a.astype(dtype).tobytes()), memory.place(b.astype(dtype).tobytes())
    po = memory.place(bytes(a.astype(dtype).nbytes))
    state = DlaState(4096)
    n, size = a.size, a.astype(dtype).nbytes
    commands = [isa.Command(isa.OP_CFG, a=isa.CFG[k], b=v & 0xFFFFFFFF) for k, v in regs.items()]
    commands += [isa.Command(isa.OP_DMA_READ, a=0, b=0, c=0, d=size, e=1, f=size),
                 isa.Command(isa.OP_DMA_READ, a=1, b=0, c=1024, d=size, e=1, f=size),
                 isa.Command(op, a=0, b=1024, c=2048, e=n),
                 isa.Command(isa.OP_DMA_WRITE, a=2, b=0, c=2048, d=size, e=1, f=size)]
    run(commands, [pa, pb, po, 0], memory, state)
    return np.frombuffer(memory.read(po, size), dtype)


@pytest.mark.parametrize("seed", range(3))
def test_element_wise_instructions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    a, b = (rng.integers(-128, 128, n).astype(np.int64) for _ in range(2))
    zp = int(rng.integers(-20, 20))
    regs = {"OUT_OFFSET": zp, "ACT_MIN": -128, "ACT_MAX": 127, "ALPHA_MULT": 1 << 29, "ALPHA_SHIFT": -1}
    assert np.array_equal(_eltwise(isa.OP_ACT_RELU, a, b, regs), np.maximum(a, zp))
    assert np.array_equal(_eltwise(isa.OP_E_ABS, a, b, regs), np.minimum(np.abs(a), 127))
    assert np.array_equal(_eltwise(isa.OP_C_MIN, a, b, regs), np.minimum(a, b))
    assert np.array_equal(_eltwise(isa.OP_C_MAX, a, b, regs), np.maximum(a, b))
    leaky = np.where(a >= zp, a, multiply_by_quantized_multiplier(a - zp, 1 << 29, -1) + zp)
    assert np.array_equal(_eltwise(isa.OP_ACT_LRELU, a, b, regs), np.clip(leaky, -128, 127))
    wa, wb = (rng.integers(-2**31, 2**31, n) for _ in range(2))
    wrapped = (wa + wb + 2**31) % 2**32 - 2**31
    assert np.array_equal(_eltwise(isa.OP_E32_ADD, wa, wb, {}, wide=True), wrapped)


def test_too_small_sram_names_layer_and_size() -> None:
    node = GENERATORS["conv2d"](np.random.default_rng(0))
    with pytest.raises(MoteError) as e:
        Dla(DlaConfig(sram=32)).compile(node)
    message = str(e.value)
    assert "\n" not in message and repr(node.name) in message and "needs at least" in message
    needed = int(message.split("needs at least ")[1].split()[0])
    Dla(DlaConfig(sram=needed)).compile(node)  # the size it names is enough


def test_small_sram_tiles_and_double_buffers() -> None:
    rng = np.random.default_rng(5)
    node = GENERATORS["conv2d"](rng)
    small = Dla(DlaConfig(sram=512)).compile(node)
    assert small.info["tiles"] > 1 and small.info["sram_bytes"] <= 512


def test_loader_parses_settings() -> None:
    accel = find_accelerator("dla:pes=128,sram=1MiB,mode=input,depthwise=emulated,timed=1")
    assert isinstance(accel, Dla) and accel.config == DlaConfig(128, 1 << 20, "input", 8, "emulated", True)
    with pytest.raises(MoteError, match="one of input, output"):
        find_accelerator("dla:mode=diagonal")
    assert find_accelerator("dla:sram=64K").config.sram == 64 << 10  # a size: units allowed
    with pytest.raises(MoteError, match="pes: '64K' is not an integer"):  # a count: no units
        find_accelerator("dla:pes=64K")
    with pytest.raises(MoteError, match="pes=0 is too small"):
        find_accelerator("dla:pes=0")


def test_settings_are_declared_for_explore() -> None:
    specs = {s.name: s for s in settings_of(DlaConfig)}
    assert list(specs) == ["pes", "sram", "mode", "dma_bytes_per_cycle", "depthwise", "timed", "weight_bits"]
    assert specs["sram"].size and not specs["pes"].size and specs["mode"].choices == ("input", "output")
    assert all(specs[k].sweep for k in ("pes", "sram", "mode", "dma_bytes_per_cycle", "depthwise", "weight_bits"))
    assert all(specs[k].doc for k in specs)


def test_job_costs_add_up_by_category() -> None:
    from mote.frontend import load
    accel = Dla(DlaConfig(sram=64 << 10))
    nodes = [n for n in offload(load(MODELS / "kws_ref_model.tflite"), accel).nodes if n.op == "accel"]
    assert nodes
    for node in nodes:
        job = node.attrs["job"]
        breakdown = job_cost(accel, job)
        assert set(breakdown) == set(Dla.cost_categories)
        assert sum(breakdown.values()) == job.info["cycles"] > 0


def _vp(model: str, accel: str | None):  # noqa: ANN202
    from mote.pipeline import run
    from mote.targets.rv32 import Rv32, Rv32Config
    return run(MODELS / model, target=Rv32(Rv32Config(cc="zig")),
               accelerator=find_accelerator(accel) if accel else None)


@pytest.mark.parametrize("model", ["vww_96_int8.tflite", "kws_ref_model.tflite"])
def test_models_on_the_vp_in_three_depthwise_modes(model: str) -> None:
    cpu = _vp(model, None)
    for mode in ("none", "emulated", "native"):
        report = _vp(model, f"dla:depthwise={mode},sram=64KiB,timed=1")  # 64 KiB tiles VWW's large layers
        assert report.bit_exact
        for name, value in cpu.outputs.items():
            assert np.array_equal(report.outputs[name], value), f"{mode}: {name}"
        assert report.figures.sim.accel_cycles > 0
    from mote.explore.evaluate import evaluate
    row = evaluate(str(MODELS / model), "dla", {"depthwise": "native", "sram": "64KiB"})
    assert row["resident_inputs"] > row["jobs"] // 2  # the runs above kept most results in SRAM


def test_explore_writes_table_csv_json_and_plots(tmp_path: Path) -> None:
    from mote.explore import explore
    sweep = {"pes": ["16", "64"], "sram": ["32KiB", "1MiB"], "mode": ["input", "output"]}
    rows = explore([MODELS / "kws_ref_model.tflite"], "dla", sweep, tmp_path, verify=1, workers=1, show=False)
    assert len(rows) == 8 and all(r["status"] == "ok" and r["total_cycles"] > r["accel_cycles"] > 0 for r in rows)
    for name in ("results.csv", "results.json", "kws_ref_model_breakdown.png", "kws_ref_model_sram.png"):
        assert (tmp_path / name).stat().st_size > 0
    import json
    (check,) = json.loads((tmp_path / "results.json").read_text())["verify"]
    assert check["bit_exact"] and abs(check["error_percent"]) < 5


def _two_convs(rng: np.random.Generator) -> Graph:
    """conv -> 1x1 conv, the first one's result read by the second only."""
    from mote.ir import Node, Quant, Tensor
    first = GENERATORS["conv2d"](rng)
    x, w = first.outputs[0], first.inputs[1]
    c = int(rng.integers(1, 9))
    shape = (c, 1, 1, x.shape[3])
    w2 = Tensor("w2", shape, w.dtype, Quant((0.02,), (0,)), rng.integers(-127, 128, shape).astype(np.int8))
    out = Tensor("out2", (*x.shape[:3], c), DTYPE_INT8, second_quant(rng))
    second = Node("conv2d", "second", [x, w2, None], [out], {**first.attrs, "stride": (1, 1), "padding": "VALID"})
    return Graph("two", [first.inputs[0]], [out], [first, second])


@pytest.mark.parametrize("seed", range(4))
def test_intermediate_results_stay_in_sram(seed: int) -> None:
    """The first job keeps its result in SRAM, the second reads it there: neither moves it by DMA,
    and the pair computes what the reference computes."""
    rng = np.random.default_rng(seed)
    graph = _two_convs(rng)
    accel = Dla(DlaConfig(sram=1 << 20))
    first, second = offload(graph, accel).nodes
    jobs = [n.attrs["job"] for n in (first, second)]  # lowered by the offload pass, with the plan
    assert jobs[0].info["output_kept"] and jobs[1].info["input_resident"]
    assert not jobs[1].info["output_kept"]  # the graph returns it
    commands = [isa.decode(job.registers["cmd"].const.tobytes()) for job in jobs]
    assert not any(c.op == isa.OP_DMA_WRITE for c in commands[0])
    assert not any(c.op == isa.OP_DMA_READ and c.a == isa.BASE_IN0 for c in commands[1])
    assert not hasattr(accel, "_residency")  # the plan is handed to lower, not kept on the accelerator
    x = rng.integers(-128, 128, graph.inputs[0].shape, dtype=np.int8)
    reference = x
    for node in graph.nodes:
        args = [reference] + [None if t is None else t.data for t in node.inputs[1:]]
        reference = OPS[node.op].reference(node, OPS[node.op].prepare(node), args)[0]
    run_functional(accel, first, [x] + [None] * 2)
    # The second job's input in system memory is never written: zeros there prove it read SRAM.
    got = run_functional(accel, second, [np.zeros(first.outputs[0].shape, np.int8)] + [None] * 2)
    assert np.array_equal(got, reference)


def second_quant(rng: np.random.Generator):  # noqa: ANN201
    from mote.ir import Quant
    return Quant((0.05,), (int(rng.integers(-10, 10)),))


from mote.ir import DType  # noqa: E402

DTYPE_INT8 = DType.INT8


def test_explore_on_a_dask_cluster_matches_local_cores(tmp_path: Path) -> None:
    from distributed import LocalCluster

    from mote.explore.sweep import sweep
    settings = {"pes": ["16", "64"], "sram": ["32KiB", "1MiB"]}
    model = [MODELS / "ad01_int8.tflite"]
    local, _ = sweep(model, "dla", settings, workers=1, progress=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote, _ = sweep(model, "dla", settings, progress=False, dask=cluster.scheduler_address)
    assert remote == local and all(r["status"] == "ok" for r in remote)


def test_explore_names_an_unreachable_dask_scheduler(monkeypatch: pytest.MonkeyPatch) -> None:
    from mote.explore import sweep as sweeping
    monkeypatch.setattr(sweeping, "DASK_CONNECT_TIMEOUT", "1s")
    sweep = sweeping.sweep
    with pytest.raises(MoteError, match="cannot reach a Dask scheduler"):
        sweep([MODELS / "ad01_int8.tflite"], "dla", {"pes": ["16"]}, progress=False, dask="tcp://127.0.0.1:9")


def test_the_timed_breakdown_adds_up_to_the_simulated_cycles() -> None:
    rng = np.random.default_rng(2)
    accel = Dla(DlaConfig(sram=4096, timed=True))
    node = GENERATORS["conv2d"](rng)
    (n,) = [n for n in offload(Graph("one", [node.inputs[0]], node.outputs, [node]), accel).nodes if n.op == "accel"]
    run_functional(accel, n, [rng.integers(-128, 128, node.inputs[0].shape, dtype=np.int8), None, None])
    breakdown = accel.cost_breakdown({})
    assert set(breakdown) == set(Dla.cost_categories) and min(breakdown.values()) >= 0
    assert sum(breakdown.values()) == accel.cost({}) > 0


def _three_readers(rng: np.random.Generator) -> Graph:
    """Three fully connected layers of one input (a query, key and value projection)."""
    from mote.ir import Node
    first = GENERATORS["fully_connected"](rng)
    x = first.inputs[0]
    nodes = [first]
    for k in (1, 2):
        other = GENERATORS["fully_connected"](rng)
        while other.inputs[1].shape[1] != x.shape[1]:  # weights for x's depth
            other = GENERATORS["fully_connected"](rng)
        nodes.append(Node("fully_connected", f"fc{k}", [x, *other.inputs[1:]], [other.outputs[0]], other.attrs))
    return Graph("readers", [x], [n.outputs[0] for n in nodes], nodes)


@pytest.mark.parametrize("seed", range(4))
def test_consecutive_readers_of_one_input_find_it_in_sram(seed: int) -> None:
    """The first of three jobs that read one input reads it whole into SRAM once; the others read it there, with
    no DMA of their input, and each computes what the reference computes."""
    rng = np.random.default_rng(seed)
    graph = _three_readers(rng)
    accel = Dla()
    jobs_nodes = offload(graph, accel).nodes
    jobs = [n.attrs["job"] for n in jobs_nodes]
    assert jobs[0].info["input_loaded"] and not jobs[0].info["input_resident"]
    assert jobs[1].info["input_resident"] and jobs[2].info["input_resident"]
    commands = [isa.decode(job.registers["cmd"].const.tobytes()) for job in jobs]
    reads = [[c for c in cmds if c.op == isa.OP_DMA_READ and c.a == isa.BASE_IN0] for cmds in commands]
    assert len(reads[0]) == 1 and reads[0][0].d * reads[0][0].e == graph.inputs[0].nbytes
    assert reads[1] == [] and reads[2] == []
    assert jobs[1].info["dma_bytes"] < job_bytes_alone(graph.nodes[1], accel)
    x = rng.integers(-128, 128, graph.inputs[0].shape, dtype=np.int8)
    for k, node in enumerate(graph.nodes):
        want = OPS[node.op].reference(node, OPS[node.op].prepare(node), [x] + [t.data for t in node.inputs[1:]])[0]
        # after the first job, the input in system memory is zeros: only the SRAM copy gives the right result
        got = run_functional(accel, jobs_nodes[k], [x if k == 0 else np.zeros_like(x)] + [None] * 2)
        assert np.array_equal(got, want)


def job_bytes_alone(node, accel: Dla) -> int:  # noqa: ANN001
    """The DMA bytes of `node`'s job without any residency."""
    from mote.accel.dla.compiler import dma_bytes
    return dma_bytes(accel.compile(node).commands)
