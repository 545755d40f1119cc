"""rv32imfc: the virtual MCU with the F extension. Float models run bit-exact with the reference, in far
fewer instructions than with soft float, their float instructions counted in classes of their own;
integer models run as on rv32imc."""

from __future__ import annotations

from pathlib import Path

import pytest

from mote import pipeline
from mote.errors import MoteError
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


@pytest.mark.parametrize("word,cls", [(0x00B57553, Cls.FPU), (0x18B57553, Cls.FDIV), (0x58057553, Cls.FDIV),
                                      (0x10B57543, Cls.FPU), (0x02B50533, Cls.MUL)])
def test_decoder_classes_float_instructions(word: int, cls: Cls) -> None:
    """fadd.s, fdiv.s, fsqrt.s, fmadd.s and (for contrast) mul."""
    (insn,) = decode_block(0x100, word.to_bytes(4, "little"), 1)
    assert insn.cls is cls


def test_an_unknown_isa_is_refused() -> None:
    with pytest.raises(MoteError, match="rv32 isa must be one of"):
        Rv32Config(isa="rv32gc").validate()


@pytest.mark.parametrize("isa", ["rv32imc", "rv32imfc"])
def test_float_math_builds_freestanding(isa: str, tmp_path: Path) -> None:
    """exp, sqrt, log, sin and softmax: their kernels take HUGE_VALF and NAN from <math.h>, which a freestanding
    build gets from the platform's include/math.h (the macros only: no libm is linked)."""
    from mote.frontend.tflite_writer import ModelBuilder

    mb = ModelBuilder()
    names = ["x", "e", "s", "l", "n", "y"]
    tensors = [mb.tensor(n, [2, 8], "float32") for n in names]
    for op, a, b in zip(("EXP", "SQRT", "LOG", "SIN", "SOFTMAX"), tensors, tensors[1:]):
        mb.op(op, [a], [b], **({"beta": 1.0} if op == "SOFTMAX" else {}))
    path = tmp_path / "math.tflite"
    path.write_bytes(mb.build([tensors[0]], [tensors[-1]]))
    assert _run(path, isa, tmp_path).bit_exact
