"""QVanilla's RTL (mote/accel/rtl/qvanilla.sv) against its Python functional model and cost model, job by
job through the ctypes bridge, on random shapes and data, in its int8, int4 and int2 weight modes (the
design is built once and cached)."""

from __future__ import annotations

import numpy as np
import pytest

from mote.accel import find_accelerator
from mote.accel.packing import pack_rows, row_bytes, value_range
from mote.accel.rtl import RtlError, rtl_library
from mote.accel.rtl.bridge import PythonMemory, RtlModel
from mote.accel.rtl.build import build_library

BASE = 0x1000


class Ram:
    """A flat memory at BASE; reads and writes outside it fail, as unmapped memory does."""

    def __init__(self, size: int) -> None:
        self.data = bytearray(size)

    def _check(self, address: int, size: int) -> int:
        offset = address - BASE
        if offset < 0 or offset + size > len(self.data):
            raise IndexError(hex(address))
        return offset

    def read(self, address: int, size: int) -> bytes:
        offset = self._check(address, size)
        return bytes(self.data[offset:offset + size])

    def write(self, address: int, data: bytes) -> None:
        offset = self._check(address, len(data))
        self.data[offset:offset + len(data)] = data


@pytest.fixture(scope="module")
def accel():
    return find_accelerator("qvanilla-rtl")


@pytest.fixture(scope="module")
def model(accel):
    return RtlModel(rtl_library(accel))


def _job(rng: np.random.Generator, ram: Ram, oc: int, ic: int, ih: int, iw: int, kh: int, kw: int,
         bits: int = 8) -> dict[str, int]:
    """Random operands at odd byte offsets (the design reads bytes from words), the weights packed one row
    per output channel at 4 and 2 bits; the registers of the job (`wbits` 0, the reset value, for int8)."""
    x = rng.integers(-128, 128, ic * ih * iw, dtype=np.int8)
    low, high = value_range(bits)
    w = pack_rows(rng.integers(low, high + 1, (oc, ic * kh * kw), dtype=np.int8), bits).reshape(-1)
    assert w.size == oc * row_bytes(ic * kh * kw, bits)
    b = rng.integers(-(1 << 20), 1 << 20, oc, dtype=np.int32)
    ifmap, weights = BASE + 1, BASE + 3 + x.size
    bias = (weights + w.size + 7) & ~3
    result = bias + 4 * oc
    ram.write(ifmap, x.tobytes())
    ram.write(weights, w.tobytes())
    ram.write(bias, b.astype("<i4").tobytes())
    return {"ifmap": ifmap, "weights": weights, "bias": bias, "result": result, "oc": oc, "iw": iw, "ih": ih,
            "ic": ic, "kh": kh, "kw": kw, "izp": int(rng.integers(-128, 128)), "kzp": int(rng.integers(-3, 4)),
            "wbits": 0 if bits == 8 else bits}


def _run_rtl(accel, model: RtlModel, registers: dict[str, int], memory: Ram) -> int:
    port = PythonMemory(memory)
    for name, value in registers.items():
        model.write_register(accel.registers.index(name), value, port.port)
    assert model.read_register(accel.registers.index("status")) == 1
    model.write_register(accel.registers.index("control"), 1, port.port)
    assert model.busy and model.read_register(accel.registers.index("status")) == 0
    cycles = 1 + model.run(port.port, 1 << 30)
    assert model.read_register(accel.registers.index("status")) == 1
    return cycles


@pytest.mark.parametrize("bits", [8, 4, 2])
@pytest.mark.parametrize("shape", [(1, 1, 1, 1, 1, 1), (3, 2, 5, 6, 3, 3), (2, 3, 4, 7, 2, 1), (1, 1, 9, 9, 3, 3),
                                   (4, 5, 3, 3, 3, 3), (2, 1, 6, 4, 1, 4), (3, 1, 4, 5, 1, 3), (5, 3, 3, 3, 1, 1)])
def test_rtl_matches_the_functional_and_cost_models(accel, model, shape, bits) -> None:
    """Shapes whose rows end mid-byte at 4 and 2 bits (K = 1, 3, 9, 15, 18, 27) and at a byte (K = 4, 6, 8)."""
    rng = np.random.default_rng(sum(shape) + bits)
    oc, ic, ih, iw, kh, kw = shape
    rtl_ram, py_ram = Ram(4096), Ram(4096)
    registers = _job(rng, rtl_ram, oc, ic, ih, iw, kh, kw, bits)
    py_ram.data[:] = rtl_ram.data
    cycles = _run_rtl(accel, model, registers, rtl_ram)
    signed = accel.model_registers({**dict.fromkeys(accel.registers, 0),
                                    **{k: v & 0xFFFFFFFF for k, v in registers.items()}})
    accel.execute(signed, py_ram)
    out = slice(registers["result"] - BASE, registers["result"] - BASE + 4 * oc * (ih - kh + 1) * (iw - kw + 1))
    assert rtl_ram.data[out] == py_ram.data[out]
    assert rtl_ram.data == py_ram.data  # and nothing else written
    assert cycles == accel.cost(signed)
    taps, outputs = ic * kh * kw, oc * (ih - kh + 1) * (iw - kw + 1)
    assert cycles == 1 + outputs * (taps + row_bytes(taps, bits) + 2)  # the documented schedule


def test_a_weight_mode_reads_fewer_weight_bytes(accel, model) -> None:
    """The same job in each mode: the RTL's cycles fall by the weight bytes a packed row saves, and the
    results differ (the register does select the mode: 4-bit rows read as int8 give other sums)."""
    cycles, results = {}, {}
    for bits in (8, 4, 2):
        ram = Ram(4096)
        registers = _job(np.random.default_rng(5), ram, 4, 3, 5, 5, 3, 3, bits)
        cycles[bits] = _run_rtl(accel, model, registers, ram)
        results[bits] = ram.read(registers["result"], 4 * 4 * 3 * 3)
        if bits == 4:
            misread = Ram(4096)
            _job(np.random.default_rng(5), misread, 4, 3, 5, 5, 3, 3, bits)
            _run_rtl(accel, model, {**registers, "wbits": 8}, misread)
            assert misread.read(registers["result"], 4 * 4 * 3 * 3) != results[4]
    outputs, taps = 4 * 3 * 3, 27
    assert cycles[8] - cycles[4] == outputs * (taps - row_bytes(taps, 4))
    assert cycles[8] - cycles[2] == outputs * (taps - row_bytes(taps, 2))
    assert len(set(results.values())) == 3


def test_an_access_outside_memory_is_one_line(accel, model) -> None:
    ram = Ram(256)
    registers = _job(np.random.default_rng(0), ram, 1, 1, 3, 3, 1, 1)
    registers["result"] = 0x9000_0000
    with pytest.raises(RtlError, match="0x90000000"):
        _run_rtl(accel, model, registers, ram)
    model.reset()


def test_a_verilog_error_is_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MOTE_RTL_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "broken.sv"
    source.write_text("module broken (input logic clk);\n  always_ff @(posedge clk) begin x <= ; end\nendmodule\n")
    with pytest.raises(RtlError) as error:
        build_library([source], "broken")
    assert "\n" not in str(error.value) and "could not build broken" in str(error.value)
    assert "broken.sv" in str(error.value)  # Verilator's own message, naming the file and line
    assert not list((tmp_path / "cache").glob("broken-*"))  # nothing half-built is cached
    with pytest.raises(RtlError, match="does not exist"):
        build_library([tmp_path / "missing.sv"], "missing")
