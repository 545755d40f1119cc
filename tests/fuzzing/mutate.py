"""Seeded mutations of .tflite files: raw byte edits, and edits of the flatbuffer's fields through the schema's
object API (the values a damaged or hostile file can hold: out-of-range indices and enums, zero/NaN/negative
scales, impossible shapes, resized buffers, hostile names), re-packed into a valid flatbuffer."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import flatbuffers
import numpy as np
import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema

BOUNDARY_BYTES = (0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE)
BOUNDARY_WORDS = (0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x10, 0xFFFF, 0x00010000)
# Table metadata sits in the first bytes of a flatbuffer (vectors of constant data are packed first, so last).
HEADER_SPAN = 4096

SMALL_INTS = (0, -1, -2, 1, 2, 3, 5, 7, 99, 127, -128, -7)
WIDE_INTS = (*SMALL_INTS, 2**31 - 1, -(2**31), 1 << 20, 65536, 1 << 28)
BAD_SCALES = (0.0, math.nan, math.inf, -math.inf, -0.05, 1e-45, 1e-30, 1e30, 3.4e38)
BAD_ZERO_POINTS = (128, -129, 255, 300, -1000, 2**31 - 1, -(2**31), 2**40)
HOSTILE_NAMES = (
    "a\\\r/ int x = 1; /*", "x */ int evil; /* y", "??=define", "name\nnext line", "nul\x00byte",
    "[bold red]markup[/]", "[/]", "\x1b[31mred\x1b[0m", "caf\u00e9 \u2603", "a\\", "\r", "", " ",
    "\"quoted\"", "a // b\\", "int", "%s%n", "x" * 2000, "../../../outside", "__attribute__((constructor))",
)

# Names that are not UTF-8 at all (a flatbuffer string is bytes on disk).
HOSTILE_BYTE_NAMES = (b"\xff\xfe", b"ok\xc3", b"\xed\xa0\x80", b"\xc0\xaf*/")

Mutator = Callable[[Any, np.random.Generator], str]


def _pick(rng: np.random.Generator, values: Any) -> Any:
    return values[int(rng.integers(len(values)))]


def _index(rng: np.random.Generator, n: int) -> int:
    return int(rng.integers(n)) if n else 0


# --- raw bytes ---------------------------------------------------------------------------------------


def _position(data: bytearray, rng: np.random.Generator) -> int:
    if rng.integers(3) and len(data) > 8:
        return int(rng.integers(8, min(len(data), HEADER_SPAN)))  # keep the identifier most of the time
    return _index(rng, len(data))


def mutate_bytes(data: bytes, rng: np.random.Generator) -> tuple[bytes, str]:
    out = bytearray(data)
    kind = int(rng.integers(7))
    if kind == 0:
        for _ in range(int(rng.integers(1, 9))):
            out[_position(out, rng)] ^= 1 << int(rng.integers(8))
        return bytes(out), "bit flips"
    if kind == 1:
        for _ in range(int(rng.integers(1, 5))):
            out[_position(out, rng)] = _pick(rng, BOUNDARY_BYTES)
        return bytes(out), "boundary bytes"
    if kind == 2:
        at = _position(out, rng) & ~3
        word = int(_pick(rng, BOUNDARY_WORDS))
        out[at:at + 4] = word.to_bytes(4, "little")
        return bytes(out[:len(data)]), f"word {word:#x} at {at}"
    if kind == 3:
        cut = int(rng.integers(0, len(out)))
        return bytes(out[:cut]), f"truncated to {cut}"
    if kind == 4:
        at, n = _position(out, rng), int(rng.integers(1, 64))
        run = bytes([_pick(rng, BOUNDARY_BYTES)]) * n if rng.integers(2) else rng.bytes(n)
        return bytes(out[:at] + run + out[at:]), f"inserted {n} bytes at {at}"
    if kind == 5:
        at, n = _position(out, rng), int(rng.integers(1, 64))
        return bytes(out[:at] + out[at + n:]), f"deleted {n} bytes at {at}"
    at = _position(out, rng)
    return bytes(out[:at] + rng.bytes(int(rng.integers(1, 16))) + out[at + 16:]), f"random bytes at {at}"


# --- flatbuffer fields -------------------------------------------------------------------------------


def _sub(model: Any) -> Any:
    return model.subgraphs[0]


def _tensor(model: Any, rng: np.random.Generator) -> tuple[int, Any]:
    tensors = _sub(model).tensors
    i = _index(rng, len(tensors))
    return i, tensors[i]


def _operator(model: Any, rng: np.random.Generator) -> tuple[int, Any]:
    ops = _sub(model).operators
    i = _index(rng, len(ops))
    return i, ops[i]


def m_shape(model: Any, rng: np.random.Generator) -> str:
    i, t = _tensor(model, rng)
    shape = [int(d) for d in (t.shape if t.shape is not None else [])]
    kind = int(rng.integers(4))
    if kind == 0 and shape:
        shape[_index(rng, len(shape))] = int(_pick(rng, WIDE_INTS))
    elif kind == 1 and shape:
        shape.pop(_index(rng, len(shape)))
    elif kind == 2:
        shape.insert(_index(rng, len(shape) + 1), int(_pick(rng, (1, 2, 0, 3))))
    else:
        shape = [int(d) * int(_pick(rng, (2, 3))) for d in shape] or [int(_pick(rng, WIDE_INTS))]
    t.shape = shape
    return f"tensor {i} shape {shape[:6]}"


def m_dtype(model: Any, rng: np.random.Generator) -> str:
    i, t = _tensor(model, rng)
    t.type = int(_pick(rng, (0, 1, 2, 3, 4, 6, 7, 9, 10, 16, 17, 99, 127, -1)))
    return f"tensor {i} dtype {t.type}"


def _quant(t: Any) -> Any:
    if t.quantization is None:
        t.quantization = schema.QuantizationParametersT()
    return t.quantization


def m_scale(model: Any, rng: np.random.Generator) -> str:
    i, t = _tensor(model, rng)
    q = _quant(t)
    scales = [float(s) for s in (q.scale if q.scale is not None else [])] or [0.1]
    scales[_index(rng, len(scales))] = float(_pick(rng, BAD_SCALES))
    q.scale = scales
    return f"tensor {i} scales {scales[:4]}"


def m_zero_point(model: Any, rng: np.random.Generator) -> str:
    i, t = _tensor(model, rng)
    q = _quant(t)
    zps = [int(z) for z in (q.zeroPoint if q.zeroPoint is not None else [])] or [0]
    zps[_index(rng, len(zps))] = int(_pick(rng, BAD_ZERO_POINTS))
    q.zeroPoint = zps
    return f"tensor {i} zero points {zps[:4]}"


def m_plausible_quant(model: Any, rng: np.random.Generator) -> str:
    """Scales and zero points a converter could write, far from the seed's: the mutant should be accepted and
    must then agree with TFLite Micro (rounding, saturation and multiplier-range corners)."""
    i, t = _tensor(model, rng)
    q = t.quantization
    if q is None or q.scale is None or len(q.scale) == 0:
        return f"tensor {i} not quantized"
    factor = float(np.exp(rng.uniform(-8.0, 8.0)))
    q.scale = [float(np.float32(s * factor)) for s in q.scale]
    if t.type == schema.TensorType.INT8 and q.zeroPoint is not None and any(int(z) for z in q.zeroPoint):
        q.zeroPoint = [int(rng.integers(-128, 128))] * len(q.zeroPoint)
    return f"tensor {i} scales x{factor:.3g}, zero points {list(q.zeroPoint)[:2] if q.zeroPoint is not None else []}"


def m_quant_layout(model: Any, rng: np.random.Generator) -> str:
    i, t = _tensor(model, rng)
    kind = int(rng.integers(4))
    if kind == 0:
        t.quantization = None
        return f"tensor {i} quantization removed"
    q = _quant(t)
    if kind == 1:
        q.quantizedDimension = int(_pick(rng, (-1, 1, 2, 3, 4, 7, 99)))
        return f"tensor {i} quantized dimension {q.quantizedDimension}"
    scales = list(q.scale if q.scale is not None else [0.1])
    if kind == 2:
        q.scale = scales * int(_pick(rng, (2, 3, 5)))
        return f"tensor {i} {len(q.scale)} scales"
    q.zeroPoint = [0] * (len(scales) + int(_pick(rng, (-1, 1, 3))))
    return f"tensor {i} {len(q.zeroPoint)} zero points for {len(scales)} scales"


def m_operator_tensors(model: Any, rng: np.random.Generator) -> str:
    n = len(_sub(model).tensors)
    i, op = _operator(model, rng)
    field = "inputs" if rng.integers(3) else "outputs"
    indices = [int(x) for x in (getattr(op, field) if getattr(op, field) is not None else [])]
    kind = int(rng.integers(4))
    if kind == 0 and indices:
        indices[_index(rng, len(indices))] = int(_pick(rng, (n, n + 5, -1, -2, 2**31 - 1, -(2**31))))
    elif kind == 1 and indices:
        indices[_index(rng, len(indices))] = _index(rng, n)  # another tensor: wrong shapes, dtypes, cycles
    elif kind == 2 and indices:
        indices.pop(_index(rng, len(indices)))
    else:
        indices.append(int(_pick(rng, (-1, 0, _index(rng, n)))))
    setattr(op, field, indices)
    return f"operator {i} {field} {indices[:6]}"


def m_opcode(model: Any, rng: np.random.Generator) -> str:
    if rng.integers(2):
        i, op = _operator(model, rng)
        op.opcodeIndex = int(_pick(rng, (len(model.operatorCodes), 7, 1 << 20, 2**32 - 1)))
        return f"operator {i} opcode index {op.opcodeIndex}"
    code = model.operatorCodes[_index(rng, len(model.operatorCodes))]
    kind = int(rng.integers(3))
    if kind == 0:
        code.builtinCode = code.deprecatedBuiltinCode = int(rng.integers(0, 127))
    elif kind == 1:
        code.builtinCode = int(_pick(rng, (-1, 127, 128, 162, 206, 9999, 2**31 - 1)))
    else:
        code.builtinCode, code.deprecatedBuiltinCode = 32, 32
        code.customCode = _pick(rng, HOSTILE_NAMES).encode()
    return f"opcode builtin {code.builtinCode} custom {code.customCode!r}"


def _option_value(name: str, value: Any, rng: np.random.Generator) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, float):
        return float(_pick(rng, (0.0, -1.0, math.nan, math.inf, 1e-30, 1e30)))
    if isinstance(value, int):
        if name in ("padding", "fusedActivationFunction", "weightsFormat", "quantizedBiasType", "mode"):
            return int(_pick(rng, (2, 3, 4, 5, 6, 7, 99, 127, -1, -128)))
        return int(_pick(rng, WIDE_INTS))
    items = [int(v) for v in (value if value is not None else [])]
    if items and rng.integers(2):
        items[_index(rng, len(items))] = int(_pick(rng, SMALL_INTS))
    else:
        items.append(int(_pick(rng, SMALL_INTS)))
    return items


def m_options(model: Any, rng: np.random.Generator) -> str:
    i, op = _operator(model, rng)
    options = op.builtinOptions
    if options is None or not vars(options) or rng.integers(6) == 0:
        # The table stays and is read back as another union member (or none at all).
        op.builtinOptionsType = int(_pick(rng, (0, 1, 2, 5, 9, 10, 13, 19, 200)))
        if rng.integers(2):
            op.builtinOptions = None
        return f"operator {i} options type {op.builtinOptionsType}"
    name = _pick(rng, sorted(vars(options)))
    value = _option_value(name, getattr(options, name), rng)
    setattr(options, name, value)
    return f"operator {i} option {name}={value!r}"


def m_buffer(model: Any, rng: np.random.Generator) -> str:
    i, t = _tensor(model, rng)
    kind = int(rng.integers(4))
    if kind == 0:
        t.buffer = int(_pick(rng, (len(model.buffers), len(model.buffers) + 9, 2**32 - 1)))
        return f"tensor {i} buffer index {t.buffer}"
    if kind == 1:
        t.buffer = _index(rng, len(model.buffers))
        return f"tensor {i} shares buffer {t.buffer}"
    buffer = model.buffers[t.buffer] if t.buffer < len(model.buffers) else None
    if buffer is None:
        return "no buffer"
    data = np.asarray(buffer.data if buffer.data is not None else [], dtype=np.uint8)
    if kind == 2:
        n = int(_pick(rng, (0, 1, 3, max(len(data) - 1, 0), len(data) + 1, len(data) * 2, 4)))
        buffer.data = np.resize(data, n).astype(np.uint8) if len(data) else rng.integers(0, 256, n, dtype=np.uint8)
        return f"tensor {i} buffer resized to {n}"
    if len(data):
        extreme = np.frombuffer(bytes([_pick(rng, BOUNDARY_BYTES)]) * len(data), dtype=np.uint8)
        buffer.data = extreme.copy()
    return f"tensor {i} buffer filled with one extreme byte"


def m_graph_io(model: Any, rng: np.random.Generator) -> str:
    sub = _sub(model)
    n = len(sub.tensors)
    field = "inputs" if rng.integers(2) else "outputs"
    indices = [int(x) for x in (getattr(sub, field) if getattr(sub, field) is not None else [])]
    kind = int(rng.integers(5))
    if kind == 0:
        indices = []
    elif kind == 1 and indices:
        indices[_index(rng, len(indices))] = int(_pick(rng, (n, -1, 2**31 - 1)))
    elif kind == 2:
        indices.append(indices[0] if indices else 0)
    elif kind == 3:
        consts = [j for j, t in enumerate(sub.tensors) if t.buffer and model.buffers[t.buffer].data is not None]
        indices.append(_pick(rng, consts) if consts else _index(rng, n))  # a constant as graph input
    else:
        indices = [_index(rng, n)]
    setattr(sub, field, indices)
    return f"subgraph {field} {indices[:6]}"


def m_name(model: Any, rng: np.random.Generator) -> str:
    i, t = _tensor(model, rng)
    t.name = _pick(rng, HOSTILE_BYTE_NAMES) if rng.integers(5) == 0 else _pick(rng, HOSTILE_NAMES).encode()
    if rng.integers(3) == 0:
        _sub(model).name = t.name
    return f"tensor {i} name {t.name[:40]!r}"


def m_structure(model: Any, rng: np.random.Generator) -> str:
    sub = _sub(model)
    kind = int(rng.integers(5))
    if kind == 0 and sub.operators:
        sub.operators.pop(_index(rng, len(sub.operators)))
        return "operator removed"
    if kind == 1 and sub.operators:
        sub.operators.append(sub.operators[_index(rng, len(sub.operators))])
        return "operator duplicated"
    if kind == 2 and len(sub.operators or []) > 1:
        sub.operators.reverse()
        return "operators reversed"
    if kind == 3:
        sub.operators = []
        return "no operators"
    model.subgraphs = [sub, sub] if rng.integers(2) else []
    return f"{len(model.subgraphs)} subgraphs"


MUTATORS: tuple[Mutator, ...] = (m_shape, m_dtype, m_scale, m_zero_point, m_plausible_quant, m_quant_layout,
                                 m_operator_tensors, m_opcode, m_options, m_buffer, m_graph_io, m_name, m_structure)


def pack(model: Any) -> bytes:
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def mutate_fields(data: bytes, rng: np.random.Generator) -> tuple[bytes, str] | None:
    """One to three field edits; None when they cannot be made or packed."""
    model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    try:
        steps = [_pick(rng, MUTATORS)(model, rng) for _ in range(int(rng.integers(1, 4)))]
        return pack(model), "; ".join(steps)
    except Exception:  # an edit that needs what an earlier one removed, or a value that does not fit its field
        return None


def mutate(data: bytes, rng: np.random.Generator) -> tuple[bytes, str]:
    """A mutant of `data` and a short description of the edits."""
    if rng.integers(3):
        for _ in range(4):
            result = mutate_fields(data, rng)
            if result is not None:
                return result
    return mutate_bytes(data, rng)
