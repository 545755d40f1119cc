"""rv32imfc: the virtual MCU with the F extension. Float models run bit-exact with the reference, in far
fewer instructions than with soft float, their float instructions counted in classes of their own;
integer models run as on rv32imc."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote import pipeline
from mote.errors import MoteError
from mote.frontend.tflite_writer import ModelBuilder
from mote.sim.decode import Cls, decode_block
from mote.targets.rv32 import Rv32, Rv32Config

ROOT = Path(__file__).resolve().parents[2]
FLOAT_MODEL = ROOT / "models" / "float" / "digits_cnn_f32.tflite"
INT8_MODEL = ROOT / "models" / "mlperf-tiny" / "ad01_int8.tflite"


def _run(model: Path, isa: str, tmp_path: Path) -> pipeline.RunReport:
    return pipeline.run(model, target=Rv32(Rv32Config(cc="zig", isa=isa)), work_dir=tmp_path / isa)


def test_float_model_runs_in_hardware_float(tmp_path: Path) -> None:
    hard, soft = _run(FLOAT_MODEL, "rv32imfc", tmp_path), _run(FLOAT_MODEL, "rv32imc", tmp_path)
    assert hard.bit_exact and soft.bit_exact
    assert hard.to_json()["class_counts"]["fpu"] > 0 and soft.to_json()["class_counts"]["fpu"] == 0
    assert hard.to_json()["instructions"] * 5 < soft.to_json()["instructions"]
    assert "-mabi=ilp32f" in hard.to_json()["cflags"]


def test_integer_model_is_unchanged_by_the_fpu(tmp_path: Path) -> None:
    hard, soft = _run(INT8_MODEL, "rv32imfc", tmp_path), _run(INT8_MODEL, "rv32imc", tmp_path)
    assert hard.bit_exact and soft.bit_exact
    assert hard.to_json()["class_counts"]["fpu"] == 0


def transcendental_model() -> bytes:
    """Every float op that calls one of mote's own math functions (mote_expf.c and its siblings, which use
    <math.h> for its special values only), side by side on one input, and a constant -inf in the weights
    (weights.c then takes HUGE_VALF from <math.h> too)."""
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 24], "float32")
    squashed = mb.tensor("squashed", [1, 24], "float32")
    mb.op("LOGISTIC", [x], [squashed])
    outputs = []
    for op, source in [("EXP", x), ("TANH", x), ("SIN", x), ("COS", x), ("SOFTMAX", x), ("LOG", squashed),
                       ("SQRT", squashed), ("RSQRT", squashed), ("ELU", x)]:
        y = mb.tensor(op.lower(), [1, 24], "float32")
        mb.op(op, [source], [y], **({"beta": 1.0} if op == "SOFTMAX" else {}))
        outputs.append(y)
    floor = mb.tensor("floor", [1, 24], "float32", data=np.full((1, 24), -np.inf, np.float32))
    outputs.append(mb.tensor("max", [1, 24], "float32"))
    mb.op("MAXIMUM", [x, floor], [outputs[-1]])
    return mb.build([x], [squashed, *outputs])


@pytest.mark.parametrize("isa", ["rv32imc", "rv32imfc"])
def test_float_math_builds_freestanding_and_matches_the_reference(isa: str, tmp_path: Path) -> None:
    """zig's freestanding target has no C library headers: the platform's include/math.h gives the kernels
    the special values they take from <math.h>."""
    model = tmp_path / "math.tflite"
    model.write_bytes(transcendental_model())
    report = _run(model, isa, tmp_path)
    assert report.bit_exact


@pytest.mark.parametrize("word,cls", [(0x00B57553, Cls.FPU), (0x18B57553, Cls.FDIV), (0x58057553, Cls.FDIV),
                                      (0x10B57543, Cls.FPU), (0x02B50533, Cls.MUL)])
def test_decoder_classes_float_instructions(word: int, cls: Cls) -> None:
    """fadd.s, fdiv.s, fsqrt.s, fmadd.s and (for contrast) mul."""
    (insn,) = decode_block(0x100, word.to_bytes(4, "little"), 1)
    assert insn.cls is cls


def test_an_unknown_isa_is_refused() -> None:
    with pytest.raises(MoteError, match="rv32 isa must be one of"):
        Rv32Config(isa="rv32gc").validate()
