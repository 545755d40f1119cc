"""`mote accel new NAME`: write a small, working accelerator package for an author to edit.

The package is an int8 pooling accelerator in NHWC (max and average: two patterns, all stages), with its test
(a model run on the virtual platform, bit-exact, plus `mote accel check`) and a README. The file
texts are the string.Template strings below; `$name` is the package name and `$cls` its class.
The package is written into a temporary sibling directory and renamed into place, so a failure
leaves nothing half-written.
"""

from __future__ import annotations

import keyword
import os
import shutil
import sys
import tempfile
from pathlib import Path
from string import Template

from mote.errors import MoteError

# Names that, put first on sys.path by the generated test, would hide a module mote itself needs.
_SHADOWED = {"mote", "numpy", "pytest", "tests", "flatbuffers", "unicorn", "elftools", "rich", "tflite_micro"}

INIT = '''\
"""The $cls accelerator for mote: `--accel $name:$cls` (with the directory holding this package on
PYTHONPATH), or `mote.accel.find_accelerator("$name:$cls")` from Python."""

from .accelerator import $cls, ${cls}Config

__all__ = ["$cls", "${cls}Config"]
'''

ACCELERATOR = '''\
"""$cls: an int8 pooling accelerator (max and average), written by `mote accel new $name`. Edit it into yours.

What mote asks of an accelerator (the full contract is in mote/accel/interface.py):
  patterns()  which IR nodes it runs, each with predicates that must hold (`mote partition` shows
              the predicates that reject a node);
  registers   its memory-mapped 32-bit registers; mote generates the C driver from this list;
  plan()      optional: decisions across jobs, made once on the offloaded graph; its result is
              handed to every lower();
  lower()     at compile time, for one node: the value of each register (numbers, or buffers that
              become addresses);
  execute()   the functional model: the virtual platform runs it when the driver starts a job;
  cost()      cycles for one job, added to the run in timed mode (cost_breakdown() splits them
              into cost_categories for `mote explore`);
  operand_bits()  optional: int4/int2 weight (or activation) modes and their packed layout
              (mote/accel/packing.py); layers narrower than its modes stay on the CPU.

Try it (with the directory that holds the `$name` package on PYTHONPATH):
  mote partition MODEL --accel $name:$cls
  mote run MODEL --target rv32 --accel $name:$cls:timed=1 --json
  mote accel check $name:$cls
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from mote.accel import required_input, setting
from mote.accel.interface import Accelerator, Buffer, Job, Memory, Pattern, Predicate
from mote.ir import DType, Node, Tensor
from mote.ops.max_pool2d import pool_params


@dataclass(frozen=True)
class ${cls}Config:
    """Settings, given as `$name:$cls:key=value,...`. The annotation is the type (bools as 1/0); a
    byte size takes units (64KiB) only when declared with size=True; `choices` limits the values and
    `sweep` is what `mote explore` tries. EDIT: add your own knobs (buffer sizes, clock ratios, ...)."""

    timed: bool = setting(False, doc="add cost() cycles to the run's total")  # mote reads this one
    cycles_per_tap: int = setting(1, doc="cycles per window element the accelerator reads", minimum=1,
                                  sweep=(1, 2, 4))
    setup_cycles: int = setting(16, doc="fixed cycles per job (fetching registers, filling the pipeline)",
                                minimum=0)
    max_window: int = setting(32, doc="the largest filter height and width the hardware supports", minimum=1,
                              sweep=(8, 16, 32))


def _input(node: Node) -> Tensor:
    return required_input(node, 0)  # also: optional_input (None when absent), constant_input (data or default)


class $cls(Accelerator):
    name = "$name"  # what reports show in `runs_on`; also names the generated C driver (mote_$name)
    Config = ${cls}Config

    # EDIT: your register map. Register i is the 32-bit word at MOTE_ACCEL_BASE + 4*i. The driver
    # writes all of them but the start and status registers, in this order, then writes 1 to the start
    # register and polls the status register until it reads 1. `address_registers` hold addresses.
    registers = ("input", "output", "channels", "in_h", "in_w", "out_h", "out_w", "filter_h", "filter_w",
                 "stride_h", "stride_w", "pad_top", "pad_left", "act_min", "act_max", "mode", "control", "status")
    address_registers = ("input", "output")
    signed_registers = ("act_min", "act_max")  # execute() and cost() see these as signed ints
    start_register = "control"
    status_register = "status"

    # EDIT: the layout your hardware wants its activations in: "NHWC" (the CPU's, no transform) or
    # "NCHW" (mote then transposes where a region of accelerator nodes starts and where results leave it).
    activation_layout = "NHWC"

    def patterns(self) -> list[Pattern]:
        """EDIT: what the accelerator runs. A pattern names an IR op (see mote/ops/registry.py for the
        attributes of each) and, for conv2d / depthwise_conv2d / fully_connected, may stop after the
        "bias" stage (the CPU then requantizes the int32 accumulators); () means all stages. A node
        runs on the accelerator when every predicate holds. A predicate that raises is an error naming
        it: return False for nodes it cannot judge."""
        limit = self.config.max_window
        predicates = (
            Predicate("int8", lambda n: _input(n).dtype is DType.INT8 and n.outputs[0].dtype is DType.INT8),
            Predicate("batch 1", lambda n: _input(n).shape[0] == 1),
            Predicate("2-D window", lambda n: len(_input(n).shape) == 4 and len(n.attrs["filter"]) == 2),
            Predicate(f"window at most {limit}x{limit}", lambda n: max(n.attrs["filter"]) <= limit),
        )
        # An average pool keeps its input's quantization (mote's avg_pool2d requires it); a legacy uint8 model's
        # rounds halves up, which this hardware does not.
        average = Predicate("rounds halves away from zero", lambda n: not n.attrs.get("legacy_uint8"))
        return [Pattern("max_pool", "max_pool2d", (), predicates),
                Pattern("avg_pool", "avg_pool2d", (), (*predicates, average))]

    def lower(self, node: Node, pattern: Pattern, inputs: list[Tensor | None], outputs: list[Tensor],
              plan: Any = None) -> Job:
        """The job for one node, at compile time. `node` is the original op (NHWC semantics; weights as
        mote holds them, e.g. conv2d OHWI: pack them into your hardware's order here);
        `inputs`/`outputs` are the tensors in memory, in `activation_layout`: point registers at them
        with Buffer(tensor=...). Constant arrays you compute here (packed weights, lookup tables) go to
        flash with Buffer(const=array, hint="name"). Plain ints are written as they are. `plan` is what
        plan(graph) returned (None unless you override plan)."""
        p = pool_params(node)  # mote's own geometry: output size, SAME padding, the activation's clamp
        return Job({
            "input": Buffer(tensor=inputs[0]), "output": Buffer(tensor=outputs[0]),
            "channels": p.channels, "in_h": p.in_h, "in_w": p.in_w, "out_h": p.out_h, "out_w": p.out_w,
            "filter_h": p.filter_h, "filter_w": p.filter_w, "stride_h": p.stride_h, "stride_w": p.stride_w,
            "pad_top": p.pad_top, "pad_left": p.pad_left, "act_min": p.act_min, "act_max": p.act_max,
            "mode": 1 if node.op == "avg_pool2d" else 0,  # 0: the maximum of each window, 1: its mean
        }, {"taps": p.out_h * p.out_w * p.channels * p.filter_h * p.filter_w})

    def execute(self, registers: dict[str, int], memory: Memory) -> None:
        """EDIT: the functional model. It sees only what the hardware would: the registers (unsigned
        32-bit values, but those in signed_registers as signed ints) and memory. It must match mote's reference bit for
        bit on every node the patterns accept (`mote accel check` tests that). Returning False models a
        job that never finishes: the status register stays 0 and the driver reports a timeout."""
        r = registers
        c, ih, iw, oh, ow = r["channels"], r["in_h"], r["in_w"], r["out_h"], r["out_w"]
        fh, fw, sh, sw, top, left = (r[k] for k in ("filter_h", "filter_w", "stride_h", "stride_w",
                                                    "pad_top", "pad_left"))
        x = np.frombuffer(memory.read(r["input"], ih * iw * c), np.int8).reshape(ih, iw, c)
        # The input placed in a frame as large as every window needs; `inside` marks its taps. Max: padding
        # with -128, the smallest int8, never wins, the same as skipping the taps outside the input, which is
        # what the reference does. Mean: the sum and the count of the taps inside, rounded half away from zero.
        rows, cols = max((oh - 1) * sh + fh, top + ih), max((ow - 1) * sw + fw, left + iw)
        padded = np.full((rows, cols, c), -128, np.int32)
        padded[top:top + ih, left:left + iw] = x
        inside = np.zeros((rows, cols, 1), np.int32)
        inside[top:top + ih, left:left + iw] = 1
        best = np.full((oh, ow, c), -128, np.int32)
        total = np.zeros((oh, ow, c), np.int32)
        count = np.zeros((oh, ow, 1), np.int32)
        for dy in range(fh):
            for dx in range(fw):
                rows_, cols_ = slice(dy, dy + (oh - 1) * sh + 1, sh), slice(dx, dx + (ow - 1) * sw + 1, sw)
                best = np.maximum(best, padded[rows_, cols_])
                total += padded[rows_, cols_] * inside[rows_, cols_]
                count += inside[rows_, cols_]
        if r["mode"] == 1:
            count = np.maximum(count, 1)  # a window wholly in the padding: mote's reference refuses such a model
            half = count // 2
            out = np.where(total > 0, (total + half) // count, -((half - total) // count))
        else:
            out = best
        out = np.clip(out, r["act_min"], r["act_max"]).astype(np.int8)
        memory.write(r["output"], out.tobytes())

    def cost(self, registers: dict[str, int]) -> int:
        """EDIT: cycles for one job, from the registers alone (what the hardware knows)."""
        r = registers
        taps = r["out_h"] * r["out_w"] * r["channels"] * r["filter_h"] * r["filter_w"]
        return self.config.setup_cycles + self.config.cycles_per_tap * taps
'''

TEST = '''\
"""Tests of the $cls accelerator, written by `mote accel new $name`: `python -m pytest <this directory>`.

A small int8 model (conv -> max pool -> fully connected) runs on mote's virtual platform with the
max pool offloaded, bit-exact with mote's reference interpreter; `mote accel check` compares the
functional model with the reference on random nodes. EDIT: build models that exercise your patterns.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from mote.accel import find_accelerator
from mote.accel.partition import partition
from mote.errors import MoteError
from mote.frontend import load
from mote.frontend.tflite_writer import ModelBuilder
from mote.passes.accel_check import check_accelerator
from mote.pipeline import run
from mote.targets.rv32 import Rv32, Rv32Config

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the directory that holds the $name package

from $name import $cls  # noqa: E402

SPEC = "$name:$cls"  # how mote finds the accelerator: module:Class[:key=value,...]


def small_model(seed: int = 0) -> bytes:
    """conv 3x3 + ReLU -> max pool 2x2 / 2 -> reshape -> fully connected, int8."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 8, 8, 3], "int8", scale=0.02, zero_point=-5)
    w = mb.tensor("w", [8, 3, 3, 3], "int8", scale=list(rng.uniform(0.005, 0.02, 8)), zero_point=0, axis=0,
                  data=rng.integers(-127, 128, (8, 3, 3, 3)))
    b = mb.tensor("b", [8], "int32", scale=[2e-4] * 8, zero_point=0, data=rng.integers(-2000, 2000, 8))
    conv = mb.tensor("conv", [1, 8, 8, 8], "int8", scale=0.05, zero_point=-128)
    mb.op("CONV_2D", [x, w, b], [conv], padding="SAME", stride_h=1, stride_w=1, dilation_h_factor=1,
          dilation_w_factor=1, fused_activation_function="RELU")
    pool = mb.tensor("pool", [1, 4, 4, 8], "int8", scale=0.05, zero_point=-128)
    mb.op("MAX_POOL_2D", [conv], [pool], padding="VALID", stride_h=2, stride_w=2, filter_height=2, filter_width=2,
          fused_activation_function="NONE")
    flat = mb.tensor("flat", [1, 128], "int8", scale=0.05, zero_point=-128)
    mb.op("RESHAPE", [pool, mb.tensor("shape", [2], "int32", data=np.array([1, 128]))], [flat], new_shape=[1, 128])
    wf = mb.tensor("wf", [10, 128], "int8", scale=0.01, zero_point=0, data=rng.integers(-127, 128, (10, 128)))
    bf = mb.tensor("bf", [10], "int32", scale=[5e-4] * 10, zero_point=0, data=rng.integers(-2000, 2000, 10))
    y = mb.tensor("y", [1, 10], "int8", scale=0.5, zero_point=-10)
    mb.op("FULLY_CONNECTED", [flat, wf, bf], [y], fused_activation_function="NONE")
    return mb.build([x], [y])


def test_found_by_name() -> None:
    accel = find_accelerator(f"{SPEC}:timed=1")
    assert isinstance(accel, $cls) and accel.timed
    with pytest.raises(MoteError, match="max_window"):  # a size's units where no size is declared
        find_accelerator(f"{SPEC}:max_window=8K")


def test_functional_model_matches_the_reference() -> None:
    results = check_accelerator($cls(), trials=20)
    for result in results:
        assert result.ok, f"pattern {result.pattern!r}: {result.first_failure or 'no random node accepted'}"


def test_partition_offloads_the_max_pool(tmp_path: Path) -> None:
    path = tmp_path / "small.tflite"
    path.write_bytes(small_model())
    decisions = partition(load(path), find_accelerator(SPEC))
    assert [(d.node.op, d.offloaded) for d in decisions] == [
        ("conv2d", False), ("max_pool2d", True), ("reshape", False), ("fully_connected", False)]
    # A predicate that fails is named in the reasons `mote partition` shows.
    (pool,) = [d for d in partition(load(path), find_accelerator(f"{SPEC}:max_window=1")) if d.node.op == "max_pool2d"]
    assert not pool.offloaded and pool.rejected == {"max_pool": ["window at most 1x1"]}


def test_runs_bit_exact_on_the_virtual_platform(tmp_path: Path) -> None:
    path = tmp_path / "small.tflite"
    path.write_bytes(small_model())
    report = run(path, target=Rv32(Rv32Config(cc="zig")), accelerator=find_accelerator(f"{SPEC}:timed=1"))
    assert report.bit_exact, f"{report.mismatches} output values differ from the reference"
    runs_on = {layer.op: layer.runs_on for layer in report.compiled.layers}
    assert runs_on["max_pool2d"] == "$name" and runs_on["conv2d"] == "cpu"
    sim = report.figures.sim  # what the virtual platform counted (mote.targets.rv32.SimFigures)
    assert sim.accel_jobs == 1 and sim.accel_cycles > 0  # timed mode charges cost()
'''

README = '''\
# $name: a mote accelerator

Written by `mote accel new $name`. `$name/accelerator.py` is a complete, working accelerator:
an int8 pooling unit in NHWC (max and average), with its register map, its compile-time lowering (`lower`), its
functional model (`execute`, numpy) and its cost model (`cost`). Edit it into yours; the `EDIT:`
comments mark what to change.

Use it from the command line with the directory that holds this package on `PYTHONPATH`:

    mote partition MODEL.tflite --accel $name:$cls    # which nodes it takes; why not the others
    mote accel check $name:$cls                       # its functional model against mote's reference
    mote run MODEL.tflite --target rv32 --accel $name:$cls:timed=1 --json

Settings are the fields of `${cls}Config`, declared with `setting(...)` (type, doc, allowed values,
values to sweep): `--accel $name:$cls:timed=1,cycles_per_tap=2`. An unknown or invalid setting is
an error before anything runs.

Test it from the directory that holds it (the test puts that directory on `sys.path` itself):

    python -m pytest $name/tests

When you change what the accelerator runs, change `patterns()` (what it accepts), `registers` and
`lower()` (what the driver writes), `execute()` (what it computes) and `cost()` together, then keep
`mote accel check` and the tests passing: mote requires offloaded runs to be bit-exact with its
reference interpreter.
'''


def class_name(name: str) -> str:
    """my_npu -> MyNpu."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part) or "Npu"


def _check_name(name: str) -> None:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise MoteError(f"accelerator name {name!r} is not a Python identifier; use e.g. my_npu")
    if name in _SHADOWED or name in sys.stdlib_module_names:
        raise MoteError(f"accelerator name {name!r} would hide the module of that name; choose another")


def skeleton_files(name: str, rtl: bool = False) -> dict[str, str]:
    """The package's files (path relative to the package directory -> text); `rtl`: with its behaviour in
    SystemVerilog (mote.accel.rtl.skeleton)."""
    values = {"name": name, "cls": class_name(name)}
    files = {
        "__init__.py": Template(INIT).substitute(values),
        "accelerator.py": Template(ACCELERATOR).substitute(values),
        f"tests/test_{name}.py": Template(TEST).substitute(values),
        "README.md": Template(README).substitute(values),
    }
    if rtl:
        from mote.accel.rtl.skeleton import rtl_skeleton_files

        return rtl_skeleton_files(name, files)
    return files


def write_skeleton(name: str, directory: Path, rtl: bool = False) -> Path:
    """Write the package `directory/name/` and return its path. Refuses a non-empty existing target."""
    _check_name(name)
    directory = Path(directory)
    target = directory / name
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise MoteError(f"{target} already exists and is not empty; choose another name or directory")
    files = skeleton_files(name, rtl)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=directory))
    except OSError as e:
        raise MoteError(f"cannot write into {directory}: {e.strerror or e}") from None
    try:
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text)
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private; the package is an ordinary directory
        if target.is_dir():
            target.rmdir()  # empty (checked above); fails, and we refuse, if something appeared since
        tmp.rename(target)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise MoteError(f"cannot write {target}: {e.strerror or e}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
