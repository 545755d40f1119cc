"""Imports point one way: every module of mote sits in a layer, may import only from its own layer or
lower ones, and no modules import each other in a circle.

Imports are read with `ast` at any depth (inside functions and `if TYPE_CHECKING:` too: a deferred import
is still a dependency). `from mote.a import b` is an import of the module mote.a.b when there is one,
else of mote.a (its __init__). A module belongs to the longest prefix in LAYERS that names it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import mote

# Lowest first. A module may import its own layer and those before it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("mote", "mote.errors", "mote.ints", "mote.quant", "mote.fixedpoint", "mote.c_text", "mote.config",
              "mote.terminal", "mote.outputs", "mote.models", "mote.runtime")),
    ("ir", ("mote.ir",)),
    ("ops", ("mote.ops",)),
    ("frontend", ("mote.frontend", "mote.reference")),
    ("accel", ("mote.accel",)),
    ("passes", ("mote.passes",)),
    ("memory", ("mote.memory",)),
    ("codegen", ("mote.codegen",)),
    ("sim", ("mote.sim",)),
    ("targets", ("mote.targets",)),
    # arena_notes reports on a compiled model (codegen and ops only); the pipeline's report and the CLI use it
    ("pipeline", ("mote.pipeline", "mote.stream", "mote.inputs", "mote.arena_notes", "mote.tflm_match",
                  "mote.generate")),
    ("explore", ("mote.explore",)),
    ("report_html", ("mote.report_html",)),  # pages of runs and explorations (above the pipeline and explore)
    ("cli", ("mote.cli", "mote.cli_accel", "mote.cli_args", "mote.cli_compile", "mote.cli_explain", "mote.cli_ops",
             "mote.cli_report", "mote.cli_platform", "mote.cli_generate", "mote.cli_offload", "mote.cli_trace",
             "mote.cli_firmware")),
]


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported mote module
    where: str  # file:line of the import statement


def layer_of(module: str) -> int | None:
    """The index in LAYERS of the module's layer; None for a module no entry names."""
    best: tuple[int, int] | None = None  # (prefix length, layer index)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            # "mote" names the package's __init__ only: a new top-level module must be placed on purpose
            inside = module == prefix or (prefix != "mote" and module.startswith(prefix + "."))
            if inside and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def mote_modules() -> dict[str, Path]:
    """Every module of the installed mote package by dotted name (a package by its own name)."""
    root = Path(mote.__file__).parent
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def imports_of(module: str, source: str, known: set[str], filename: str, is_package: bool = False) -> list[Import]:
    """The mote modules `source` (the text of `module`) imports, at any depth."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: up from the module's package
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        resolved = {_known_prefix(target, known) for target in targets} - {None, module}
        found.extend(Import(module, target, f"{filename}:{node.lineno}") for target in sorted(resolved))
    return found


def _known_prefix(name: str, known: set[str]) -> str | None:
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in known:
            return ".".join(parts[:end])
    return None


def all_imports() -> list[Import]:
    modules = mote_modules()
    known = set(modules)
    repo = Path(mote.__file__).parent.parent
    return [imp for name, path in modules.items()
            for imp in imports_of(name, path.read_text(), known, str(path.relative_to(repo)),
                                  path.name == "__init__.py")]


def upward(imports: list[Import]) -> list[str]:
    """One line per import of a module from a higher layer."""
    lines = []
    for imp in imports:
        low, high = layer_of(imp.source), layer_of(imp.target)
        if low is not None and high is not None and high > low:
            lines.append(f"{imp.where}: {imp.source} ({LAYERS[low][0]}) imports {imp.target} ({LAYERS[high][0]})")
    return lines


def cycles(imports: list[Import]) -> list[str]:
    """One line per group of modules that import each other in a circle (strongly connected components of
    more than one module, Tarjan's algorithm), naming the imports inside the group."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        graph.setdefault(imp.source, set()).add(imp.target)
        graph.setdefault(imp.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count (~150)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    lines = []
    for group in groups:
        inside = sorted({f"{imp.where}: {imp.source} -> {imp.target}" for imp in imports
                         if imp.source in group and imp.target in group})
        lines.append(f"cycle among {', '.join(sorted(group))}: " + "; ".join(inside))
    return lines


def test_every_module_has_a_layer() -> None:
    modules = mote_modules()
    assert len(modules) > 100  # the walk found the package
    unplaced = sorted(name for name in modules if layer_of(name) is None)
    assert not unplaced, f"modules with no layer (add them to LAYERS in tests/test_layers.py): {unplaced}"


def test_no_upward_imports() -> None:
    bad = upward(all_imports())
    assert not bad, "imports that point up a layer:\n" + "\n".join(bad)


def test_no_import_cycles() -> None:
    bad = cycles(all_imports())
    assert not bad, "import cycles:\n" + "\n".join(bad)


def test_onnx_frontend_has_one_entry_point_and_no_cycles() -> None:
    """The rest of mote imports the ONNX frontend through mote.frontend.onnx (its __init__) only."""
    imports = all_imports()
    inner = [imp for imp in imports if imp.target.startswith("mote.frontend.onnx.")]
    assert len(inner) > 20  # the package's own modules import each other
    from_outside = [f"{imp.where}: {imp.target}" for imp in inner if not imp.source.startswith("mote.frontend.onnx")]
    assert not from_outside, "import mote.frontend.onnx instead of its modules:\n" + "\n".join(from_outside)
    assert not [line for line in cycles(imports) if "mote.frontend" in line]


def test_the_checks_catch_what_they_look_for() -> None:
    """The checker on made-up modules: an upward import, a cycle through a package __init__, relative and
    deferred imports, and a clean import that must pass."""
    known = {"mote.ir", "mote.ir.graph", "mote.ops", "mote.ops.registry", "mote.cli", "mote.errors"}
    sources = {
        "mote.ir.graph": "def f():\n    from mote.ops.registry import OPS\n",  # deferred, still counted
        "mote.ops.registry": "from ..ir import graph\n",  # relative, resolves to mote.ir.graph
        "mote.ops": "from mote.ops import registry\n",
        "mote.cli": "import mote.errors\nfrom mote.ir import graph\n",  # downward only: fine
    }
    imports = [imp for name, text in sources.items()
               for imp in imports_of(name, text, known, name, is_package=name == "mote.ops")]
    assert {(i.source, i.target) for i in imports} == {
        ("mote.ir.graph", "mote.ops.registry"), ("mote.ops.registry", "mote.ir.graph"),
        ("mote.ops", "mote.ops.registry"), ("mote.cli", "mote.errors"), ("mote.cli", "mote.ir.graph")}
    assert upward(imports) == ["mote.ir.graph:2: mote.ir.graph (ir) imports mote.ops.registry (ops)"]
    [cycle] = cycles(imports)
    assert cycle.startswith("cycle among mote.ir.graph, mote.ops.registry:")
    assert layer_of("mote.frontend.onnx.convert") == layer_of("mote.reference") == 3
    assert layer_of("mote.cli_args") == len(LAYERS) - 1 and layer_of("mote.cli2") is None
