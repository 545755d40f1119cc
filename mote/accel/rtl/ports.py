"""The top module's ports against mote's RTL contract (docs/rtl.md), checked before a design is built.

Verilator reads the design once with `--json-only` (a few hundredths of a second): syntax errors and a
missing top module are reported there, and its tree gives each port's direction and width. A design
whose ports differ from the contract (a missing or extra port, a wrong direction or width) is one
RtlError naming every difference, instead of a C++ error from mote's wrapper or a design that builds
and then misbehaves (a 16-bit mem_addr would silently drop the address's upper half).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from mote.accel.rtl.tools import RtlError, first_error

# name -> (direction, width in bits): the ports of docs/rtl.md, in its order
CONTRACT: dict[str, tuple[str, int]] = {
    "clk": ("input", 1), "rst": ("input", 1), "reg_write": ("input", 1), "reg_index": ("input", 8),
    "reg_wdata": ("input", 32), "reg_rdata": ("output", 32), "busy": ("output", 1), "mem_valid": ("output", 1),
    "mem_write": ("output", 1), "mem_addr": ("output", 32), "mem_wdata": ("output", 32), "mem_wstrb": ("output", 4),
    "mem_ready": ("input", 1), "mem_rvalid": ("input", 1), "mem_rdata": ("input", 32),
}


def _width(node: dict[str, Any] | None, nodes: dict[str, dict[str, Any]], depth: int = 0) -> int | None:
    """A data type's width in bits: a basic type's range, or the type it refers to; None when unknown."""
    if node is None or depth > 8:
        return None
    if node.get("type") == "BASICDTYPE":
        low_high = str(node.get("range", "")).split(":")
        if len(low_high) == 2 and all(p.strip().lstrip("-").isdigit() for p in low_high):
            return abs(int(low_high[0]) - int(low_high[1])) + 1
        return 1 if node.get("keyword") in ("logic", "bit", "wire", "reg") else None
    for key in ("refDTypep", "subDTypep", "dtypep"):
        ref = node.get(key)
        if isinstance(ref, str) and ref in nodes and nodes[ref] is not node:
            return _width(nodes[ref], nodes, depth + 1)
    return None


def _index(tree: Any, nodes: dict[str, dict[str, Any]]) -> None:
    """Every node of Verilator's JSON tree by its address."""
    if isinstance(tree, dict):
        if isinstance(tree.get("addr"), str):
            nodes.setdefault(tree["addr"], tree)
        for value in tree.values():
            _index(value, nodes)
    elif isinstance(tree, list):
        for value in tree:
            _index(value, nodes)


def design_ports(tree: dict[str, Any], top: str) -> dict[str, tuple[str, int | None]]:
    """The top module's ports in Verilator's JSON tree: name -> (direction, width or None)."""
    nodes: dict[str, dict[str, Any]] = {}
    _index(tree, nodes)
    modules = [m for m in tree.get("modulesp", []) if top in (m.get("name"), m.get("origName"))]
    if not modules:
        raise RtlError(f"Verilator's reading of the design has no module {top!r}; name the top module with --top")
    ports = {}
    for stmt in modules[0].get("stmtsp", []):
        if stmt.get("type") == "VAR" and stmt.get("varType") == "PORT":
            ports[stmt["name"]] = (str(stmt.get("direction", "")).lower(), _width(nodes.get(stmt.get("dtypep")), nodes))
    return ports


def differences(ports: dict[str, tuple[str, int | None]]) -> list[str]:
    """How `ports` differ from the contract, one phrase each (empty: they match)."""
    found = []
    for name, (direction, width) in CONTRACT.items():
        if name not in ports:
            found.append(f"no port {name} ({direction}, {width} bit{'s' if width > 1 else ''})")
            continue
        have_direction, have_width = ports[name]
        if have_direction != direction:
            found.append(f"{name} is an {have_direction}, not an {direction}")
        if have_width is not None and have_width != width:
            found.append(f"{name} is {have_width} bits wide, not {width}")
    found += [f"port {name} is not one of mote's" for name in ports if name not in CONTRACT]
    return found


def check_ports(sources: list[Path], top: str, tool: str, env: dict[str, str]) -> None:
    """An RtlError (one line) when Verilator cannot read the design or its top module's ports differ from
    the contract."""
    with tempfile.TemporaryDirectory(prefix="mote-rtl-ports-") as work:
        command = [tool, "--json-only", "-Wno-fatal", "--prefix", "Vmote_rtl", "--top-module", top, "--Mdir", work,
                   *map(str, sources)]
        try:
            out = subprocess.run(command, capture_output=True, text=True, env=env)
        except OSError as e:
            raise RtlError(f"cannot run Verilator ({tool}): {e.strerror or e}") from None
        if out.returncode != 0:
            raise RtlError(f"Verilator could not build {top}: {first_error(out.stderr + out.stdout)}")
        trees = sorted(Path(work).glob("*.tree.json"))
        if not trees:
            raise RtlError(f"Verilator wrote no description of {top} to check its ports against docs/rtl.md")
        tree = json.loads(trees[0].read_text())
    problems = differences(design_ports(tree, top))
    if problems:
        raise RtlError(f"the ports of {top} ({sources[0].name}) differ from mote's RTL contract (docs/rtl.md): "
                       + "; ".join(problems))
