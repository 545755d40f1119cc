"""Measure the table TFLite Micro's int16 LOGISTIC and TANH interpolate in (256 values of the sigmoid in
0.16 fixed point), by running the tflite-micro interpreter's int16 TANH on inputs that land exactly on
the table's entries, and write it to mote/ops/sigmoid_table.py.

Usage: python scripts/measure_sigmoid_table.py

With the input scale 2^-12 / 3 * k, the interpreter scales an input x to k * x before the lookup
(its multiplier doubles k up to 2^14 with a shift that undoes it); TANH then returns entry[i] - 32768
for k * x = 256 * i. k = 2 reaches entries 0 to 254; the last one comes from an input between
entries 254 and 255 (k = 4, 252/256 of the way), whose interpolation gives their difference.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # lets the script run from a plain checkout

from mote.frontend.tflite_writer import ModelBuilder  # noqa: E402

TABLE_PATH = REPO / "mote" / "ops" / "sigmoid_table.py"


def tanh_int16(x: np.ndarray, k: int) -> np.ndarray:
    from tflite_micro.python.tflite_micro import runtime

    mb = ModelBuilder()
    a = mb.tensor("x", [x.size], "int16", scale=k * 2**-12 / 3, zero_point=0)
    y = mb.tensor("y", [x.size], "int16", scale=2**-15, zero_point=0)
    mb.op("TANH", [a], [y])
    interp = runtime.Interpreter.from_bytes(mb.build([a], [y]), arena_size=1 << 20)
    interp.set_input(x.astype(np.int16), 0)
    interp.invoke()
    return interp.get_output(0).astype(np.int64)


def measure() -> list[int]:
    table = [int(v) + 32768 for v in tanh_int16(np.arange(255) * 128, 2)]
    between = int(tanh_int16(np.array([(254 * 256 + 252) // 4]), 4)[0]) + 32768
    return [*table, table[254] + (between - table[254])]  # (252 d + 128) >> 8 is d while d <= 32


def main() -> None:
    table = measure()
    rows = [", ".join(str(v) for v in table[i:i + 12]) for i in range(0, len(table), 12)]
    body = ",\n    ".join(rows)
    TABLE_PATH.write_text(
        '"""The sigmoid table of TFLite Micro\'s int16 LOGISTIC and TANH: 256 entries, sigmoid(i / 24) in 0.16\n'
        "fixed point as the interpreter rounds them. Measured from the tflite-micro interpreter by\n"
        'scripts/measure_sigmoid_table.py, which wrote this file."""\n\n'
        f"SIGMOID_TABLE: tuple[int, ...] = (\n    {body},\n)\n")
    print(f"wrote {TABLE_PATH.relative_to(REPO)}: {len(table)} entries, {table[0]} to {table[-1]}")


if __name__ == "__main__":
    main()
