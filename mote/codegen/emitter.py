"""Turns values into C: const arrays for flash, pointer expressions into the arena."""

from __future__ import annotations

import hashlib

import numpy as np

from mote.c_text import c_identifier, c_literal
from mote.ir import Tensor
from mote.memory.arena import ArenaPlan
from mote.memory.lifetimes import Buffer
from mote.memory.state import StatePlan

_C_TYPES = {np.dtype(np.int8): "int8_t", np.dtype(np.int16): "int16_t", np.dtype(np.int32): "int32_t",
            np.dtype(np.uint8): "uint8_t", np.dtype(np.uint16): "uint16_t", np.dtype(np.uint32): "uint32_t",
            np.dtype(np.float32): "float",
            np.dtype(np.int64): "int64_t", np.dtype(np.bool_): "bool"}


def _elements(a: np.ndarray) -> list[str]:
    """An array's values as C literals (integers straight through str: the common case, kept fast)."""
    values = a.reshape(-1).tolist()
    if a.dtype == np.float32:
        return [c_literal(v) for v in values]
    if a.dtype == np.int64:
        return [f"INT64_C({v})" for v in values]
    if a.dtype == np.uint32:
        return [f"{v}u" for v in values]
    return list(map(str, map(int, values)))  # bool as 0 and 1


class ConstPool:
    """The const arrays of NAME_weights.c, deduplicated by content, named in order of first use, each name starting
    with the library's `prefix`."""

    def __init__(self, prefix: str = "model") -> None:
        self.prefix = prefix
        self.arrays: list[tuple[str, np.ndarray]] = []
        self._by_digest: dict[bytes, str] = {}

    def add(self, data: np.ndarray, hint: str) -> str:
        data = np.ascontiguousarray(data)
        if data.dtype not in _C_TYPES:
            raise TypeError(f"no C type for {data.dtype}")
        digest = hashlib.sha256(data.dtype.str.encode() + data.tobytes()).digest()
        if digest not in self._by_digest:
            name = f"{self.prefix}_w{len(self.arrays)}_{c_identifier(hint)}"
            self.arrays.append((name, data))
            self._by_digest[digest] = name
        return self._by_digest[digest]

    def c_types(self) -> str:
        """The C element types of the arrays, for the headers they need."""
        return " ".join(sorted({_C_TYPES[a.dtype] for _, a in self.arrays}))

    def c_needs(self) -> str:
        """What the definitions need beyond weights.h: the macros of non-finite floats (<math.h>)."""
        floats = [a for _, a in self.arrays if a.dtype == np.float32]
        return "NAN HUGE_VALF" if any(not np.isfinite(a).all() for a in floats) else ""

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for _, a in self.arrays)

    def declarations(self) -> str:
        return "".join(f"extern const {_C_TYPES[a.dtype]} {n}[{max(a.size, 1)}];\n" for n, a in self.arrays)

    def definitions(self) -> str:
        out = []
        for name, a in self.arrays:
            values = _elements(a) or ["0"]
            rows = [", ".join(values[i:i + 16]) for i in range(0, len(values), 16)]
            body = ",\n  ".join(rows)
            place = "MODEL_WEIGHTS_SECTION MODEL_WEIGHTS_ALIGNED"  # mote.codegen.placement
            out.append(f"const {_C_TYPES[a.dtype]} {name}[{max(a.size, 1)}] {place} = {{\n  {body}\n}};\n")
        return "\n".join(out)


class Emitter:
    """What an op's `emit` sees: places constants, names tensors (mote.ops.registry.Emitter)."""

    def __init__(self, pool: ConstPool, plan: ArenaPlan, of_tensor: dict[Tensor, Buffer],
                 state: StatePlan | None = None, base: str = "ARENA") -> None:
        self.pool = pool
        self.plan = plan
        self.of_tensor = of_tensor
        self.state = state or StatePlan({}, 0)
        self.base = base  # the macro its buffers' offsets are taken from: ARENA, or a subgraph's FRAME

    def at(self, offset: int) -> str:
        """A pointer to `offset` in the planned memory (int8_t *)."""
        return f"{self.base}({offset})"

    def const(self, data: np.ndarray, hint: str) -> str:
        return self.pool.add(data, hint)

    def tensor(self, t: Tensor) -> str:
        if t.is_const:
            assert t.data is not None
            return self.const(t.data, t.name)
        cast = "" if t.dtype.c_type == "int8_t" else f"({t.dtype.c_type} *)"
        if t.variable:
            return f"{cast}STATE({self.state.offset(t)})"
        return f"{cast}{self.at(self.plan.offset(self.of_tensor[t]))}"
