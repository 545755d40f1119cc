"""Names from a model never change what the generated C means: hostile tensor, node and model names
build warning-free with gcc and zig, run bit-exact with TFLite Micro, and nothing else happens."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_same, tflm_outputs

from mote.accel.qvanilla import QVanilla
from mote.c_text import c_identifier, c_quoted, c_safe_text
from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import WARNINGS, Host, HostBinary, find_cc, host_core
from mote.targets.rv32 import Rv32Config, build_rv32

MARKER = "MARKER"  # replaced by a path in the test's directory: the file a payload would create
CORES = ["scalar", "vector", *(["vnni"] if host_core() is Core.VNNI else [])]  # vnni where this CPU runs it


def payloads(marker: Path) -> list[str]:
    """Names that, pasted raw into a C comment or string, would run code, break the build or hide text."""
    code = f' __attribute__((constructor)) static void mote_payload(void) {{ fclose(fopen("{marker}", "w")); }} '
    return [
        f"a*\\\r/{code}/*",  # backslash + CR splices the line: `*/` closes the comment
        f"b*\\\n/{code}/*",  # the same with LF
        f"c*??/\n/{code}/*",  # ??/ is a backslash under -std=c99 (trigraphs)
        f"d */{code}/* e",  # closes the comment directly
        "f /* an unclosed comment",
        "g // a line comment",
        "h ??= ??( ??) ??' ??< ??! ??> ??- trigraphs",
        'i " a quote " and \\" an escaped one',
        "j\x00nul",
        "k\r\ncrlf\ttab\x1b[31mred\x7f",
        "l caf\u00e9 \u2028 line separator \u2029 \u202e bidi \u2066 isolate \u200b zero width \U0001f600",
        "m" * 5000,  # very long
        "int",  # a C keyword
        "static",
        "9 starts with a digit",
        "n-o", "n+o", "n.o",  # the same identifier after sanitising (the count must stay odd)
        "$(shell touch MARKER) %s%n%x",  # make and printf syntax
    ]


def hostile_model(names: list[str], rng: np.random.Generator) -> bytes:
    """A CONV_2D then a chain of ADDs of a constant: every tensor (input, weights, bias, constants,
    outputs, so node names too) takes the next hostile name."""
    pool = iter(names * 3)
    mb = ModelBuilder()
    channels = 3
    x = mb.tensor(next(pool), [1, 4, 4, 2], "int8", scale=0.02, zero_point=-5)
    w = mb.tensor(next(pool), [channels, 3, 3, 2], "int8", scale=[0.01, 0.012, 0.009], zero_point=0, axis=0,
                  data=rng.integers(-127, 128, (channels, 3, 3, 2)))
    b = mb.tensor(next(pool), [channels], "int32", scale=[0.0002, 0.00024, 0.00018], zero_point=0,
                  data=rng.integers(-2000, 2000, channels))
    y = mb.tensor(next(pool), [1, 4, 4, channels], "int8", scale=0.05, zero_point=3)
    mb.op("CONV_2D", [x, w, b], [y], padding="SAME", stride_h=1, stride_w=1, fused_activation_function="NONE")
    for _ in range(len(names)):  # every name both as a constant and as an output (len(names) is odd)
        k = mb.tensor(next(pool), [1, 1, 1, channels], "int8", scale=0.04, zero_point=1,
                      data=rng.integers(-128, 128, (1, 1, 1, channels)))
        out = mb.tensor(next(pool), [1, 4, 4, channels], "int8", scale=0.06, zero_point=-2)
        mb.op("ADD", [y, k], [out], fused_activation_function="NONE")
        y = out
    return mb.build([x], [y])


def zig_cc() -> list[str]:
    return [sys.executable, "-m", "ziglang", "cc"]


def build(project: Path, cc: list[str]) -> Path:
    sources = ["examples/host/main.c", *sorted(str(p.relative_to(project)) for p in (project / "src").rglob("*.c"))]
    proc = subprocess.run([*cc, "-O1", *WARNINGS, "-Isrc", "-o", "model_host", *sources], cwd=project,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return project / "model_host"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, Graph, Path, list[str]]:
    work = tmp_path_factory.mktemp("hostile")
    names = payloads(work / MARKER)
    model = hostile_model(names, np.random.default_rng(7))
    graph = load_tflite(model, names[0])  # the model's name is hostile too
    for core in CORES:
        Host().write_project(compile_graph(graph, core=Core[core.upper()]), work / core)  # with the host driver
    return model, graph, work, names


def test_the_payloads_are_live(tmp_path: Path) -> None:
    """The control: pasted raw into a comment, the first payload runs (so the tests below would see it)."""
    marker = tmp_path / "marker"
    source = tmp_path / "live.c"
    source.write_text(f'#include <stdio.h>\n/* "{payloads(marker)[0]}" */\nint main(void) {{ return 0; }}\n')
    subprocess.run([find_cc(), "-o", str(tmp_path / "live"), str(source)], check=True, capture_output=True)
    marker.unlink(missing_ok=True)
    subprocess.run([str(tmp_path / "live")], check=True)
    assert marker.exists()


@pytest.mark.parametrize("compiler", ["cc", "zig"])
@pytest.mark.parametrize("core", CORES)
def test_hostile_names_build_run_and_do_nothing_else(hostile: tuple[bytes, Graph, Path, list[str]], compiler: str,
                                                     core: str) -> None:
    model, graph, work, _ = hostile
    binary = build(work / core, [find_cc()] if compiler == "cc" else zig_cc())
    host = HostBinary(binary, graph, compiler, ())
    for seed in range(2):
        inputs = random_inputs(graph, seed)
        expected = tflm_outputs(model, graph, inputs)
        assert_same(interpret(graph, inputs), expected, f"reference interpreter, seed {seed}")
        assert_same(host.run(inputs)[0], expected, f"generated C ({compiler}, {core}), seed {seed}")
    assert not (work / MARKER).exists(), "a name from the model ran as code"


def test_generated_text_holds_no_raw_name_and_nothing_c_reads(hostile: tuple[bytes, Graph, Path, list[str]]) -> None:
    _, graph, work, names = hostile
    texts = {p: p.read_text(encoding="ascii") for p in (work / "vector").rglob("*")
             if p.suffix in (".c", ".h") or p.name == "Makefile"}
    model_text = "".join(text for p, text in texts.items() if p.parent.name != "mote")
    for name in names[:12]:  # the hostile kinds; the rest are ordinary text once sanitised
        assert name not in model_text
    for node in graph.nodes:  # each layer's comment names it, sanitised
        assert c_quoted(node.name) in model_text
    for path, text in texts.items():
        assert "\\\n" not in text and "\r" not in text and "??" not in text, path
        if path.parent.name != "mote":
            assert "\\" not in text.replace('\\n"', ""), path  # only main.c's own "\n" escapes


@pytest.mark.parametrize("name", payloads(Path("/x")) + ["", "*", "/", "?", "a/", "/a", "???", "*//*/"])
def test_safe_text_is_inert(name: str) -> None:
    for limit in (1, 7, 64, 10_000):
        safe = c_safe_text(name, limit)
        assert all(" " <= ch <= "~" for ch in safe)
        assert not any(pair in safe for pair in ("/*", "*/", "//", "??", "\\", '"'))
        assert len(safe) <= 10 * limit + 3
        assert not any(pair in c_quoted(name, limit) for pair in ("/*", "*/", "//", "??"))
        assert c_safe_text(safe, len(safe)) == safe  # what a caller that re-quotes safe text relies on


def test_safe_text_keeps_ordinary_names_and_shows_what_it_replaced() -> None:
    ordinary = "model/conv2d_1/Relu;StatefulPartitionedCall:0"
    assert c_safe_text(ordinary) == ordinary
    assert c_safe_text("a\nb") == "a<U+000A>b"
    assert c_safe_text("x/*y*/z//w??=") == "x/ *y* /z/ /w? ?="
    assert c_safe_text("abcdef", 3) == "abc..."


@pytest.mark.parametrize(("text", "expected"), [
    ("conv2d_1/Relu", "conv2d_1_Relu"), ("caf\u00e9", "caf"), ("\u00e9\u00e9", "n"), ("", "n"), ("int", "n_int"),
    ("9lives", "n_9lives"), ("__a__b__", "a_b"), ("_Bool", "Bool"), ("while", "n_while"), ("a" * 100, "a" * 48)])
def test_identifiers_are_ascii_and_never_keywords_or_digits_first(text: str, expected: str) -> None:
    assert c_identifier(text) == expected


def test_constant_names_that_collide_after_sanitising_stay_distinct(
        hostile: tuple[bytes, Graph, Path, list[str]]) -> None:
    _, _, work, _ = hostile
    weights = (work / "vector" / "src" / "model_weights.h").read_text()
    declared = [line.split()[3].split("[")[0] for line in weights.splitlines() if line.startswith("extern const")]
    assert len(declared) == len(set(declared)) > 3
    assert sum(name.endswith("_n_o") for name in declared) == 3  # n-o, n+o and n.o
    assert all(name.isascii() and name.replace("_", "").isalnum() for name in declared)


def test_accelerator_timeout_message_is_a_safe_string(hostile: tuple[bytes, Graph, Path, list[str]],
                                                      tmp_path: Path) -> None:
    """An offloaded region's name reaches a C string literal (the driver's timeout message): the project
    still compiles warning-free (the driver needs the platform's register base, given here)."""
    _, graph, _, _ = hostile
    compiled = compile_graph(graph, accelerator=QVanilla(), core=Core.SCALAR)
    assert any(layer.runs_on != "cpu" for layer in compiled.layers)
    compiled.write(tmp_path / "project")
    messages = [line for line in (tmp_path / "project" / "src" / "model.c").read_text().splitlines()
                if ".timeout_message" in line]
    assert messages and all(line.count('"') == 2 and "\\" not in line for line in messages)
    project = tmp_path / "project"
    sources = sorted(str(p) for p in project.rglob("*.c") if p.name != "main.c")
    proc = subprocess.run([find_cc(), "-c", *WARNINGS, "-DMOTE_ACCEL_BASE=0x40000000u", f"-I{project / 'src'}",
                           f"-I{project / 'src' / 'mote'}", *sources], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_hostile_names_on_the_virtual_platform(hostile: tuple[bytes, Graph, Path, list[str]], tmp_path: Path) -> None:
    """The firmware build (zig's rv32 cross compiler, warnings as errors) takes the same names."""
    model, graph, work, _ = hostile
    firmware = build_rv32(compile_graph(graph), tmp_path / "rv32", Rv32Config(cc="zig"))
    inputs = random_inputs(graph, 0)
    assert_same(firmware.run(inputs).outputs, tflm_outputs(model, graph, inputs), "rv32 firmware")
    assert not (work / MARKER).exists()
