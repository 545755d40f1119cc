"""The simulator sits below the targets: nothing in mote.sim imports the targets, the pipeline, the
explorer or the CLI (the host C compiler is handed in)."""

from __future__ import annotations

import ast
from importlib import resources

ABOVE = ("mote.targets", "mote.pipeline", "mote.inputs", "mote.explore", "mote.cli", "mote.arena_notes")


def _imports(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_sim_imports_nothing_above_it() -> None:
    modules = [f for f in resources.files("mote.sim").iterdir() if f.name.endswith(".py")]
    assert len(modules) >= 10
    upward = {f"{f.name}: {name}" for f in modules for name in _imports(f.read_text())
              if name.startswith(ABOVE)}
    assert not upward
