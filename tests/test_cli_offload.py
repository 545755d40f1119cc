"""What `mote run` and `mote profile` print about an accelerator: its cycles and the total beside the CPU's,
per-layer accelerator cycles and the CPU/accelerator split, a model of which nothing is offloaded, and the
RAM the accelerator's layouts add (mote/cli_offload.py). Every figure is checked against the run's JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_cli import mote

MODELS = Path(__file__).resolve().parents[1] / "models" / "mlperf-tiny"


def _text_and_json(*args: str | Path) -> tuple[str, dict]:
    text = mote(*args, "--target", "rv32")
    assert text.returncode == 0, text.stderr
    data = mote(*args, "--target", "rv32", "--json")
    assert data.returncode == 0, data.stderr
    return " ".join(text.stdout.split()), json.loads(data.stdout)  # rich may wrap a long line: join them


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def test_run_prints_accelerator_and_total_cycles() -> None:
    text, data = _text_and_json("run", "--accel", "dla:timed=1")
    assert data["accel_cycles"] > 0 and data["total_cycles"] == data["cycles"] + data["accel_cycles"]
    m = re.search(r"accelerator dla: ([\d,]+) cycles in ([\d,]+) jobs; total ([\d,]+) cycles = CPU ([\d,]+) "
                  r"\(([\d.]+)%\) \+ accelerator ([\d,]+)", text)
    assert m, text
    assert _number(m[1]) == data["accel_cycles"] == _number(m[6])
    assert _number(m[2]) == data["accel_jobs"]
    assert _number(m[3]) == data["total_cycles"] and _number(m[4]) == data["cycles"]
    assert abs(float(m[5]) - 100 * data["cycles"] / data["total_cycles"]) < 0.06


def test_run_in_zero_cycle_mode_says_its_cycles_are_not_counted() -> None:
    text, data = _text_and_json("run", "--accel", "dla")
    assert data["accel_jobs"] > 0 and data["accel_cycles"] == 0
    assert f"accelerator dla: {data['accel_jobs']:,} jobs; zero-cycle mode" in text


def test_profile_shows_accelerator_cycles_per_layer_and_the_split() -> None:
    text, data = _text_and_json("profile", "--accel", "dla:timed=1")
    assert "accel cycles" in text
    layers = [layer for layer in data["layers"] if "cycles" in layer]
    cpu = sum(layer["cycles"] for layer in layers)
    accel = sum(layer["accel_cycles"] for layer in layers)
    assert accel == data["accel_cycles"] > 0
    offloaded = sum(layer["accel_cycles"] > 0 for layer in layers)
    m = re.search(r"layers' cycles: CPU ([\d,]+) \(([\d.]+)%\), accelerator dla ([\d,]+) \(([\d.]+)%, in (\d+) "
                  r"layers\)", text)
    assert m, text
    assert _number(m[1]) == cpu and _number(m[3]) == accel and int(m[5]) == offloaded
    assert abs(float(m[4]) - 100 * accel / (cpu + accel)) < 0.06
    # each offloaded layer's row carries its accelerator cycles; the shares are of CPU + accelerator cycles
    for layer in layers:
        if layer["accel_cycles"]:
            share = 100 * (layer["cycles"] + layer["accel_cycles"]) / (cpu + accel)
            row = re.search(rf"│ {layer['index']} │.*?│ {layer['cycles']:,} │ {layer['accel_cycles']:,} │ "
                            rf"([\d.]+)% │", text)
            assert row, (layer, text)
            assert abs(float(row[1]) - share) < 0.06


def test_a_model_with_nothing_offloaded_says_why() -> None:
    text, data = _text_and_json("run", MODELS / "ad01_int8.tflite", "--accel", "qvanilla")
    assert data["offloaded_layers"] == 0
    assert ("no layer offloaded to qvanilla: no layer matches its patterns (it runs conv2d, depthwise_conv2d; "
            "the model has fully_connected)") in text
    text, data = _text_and_json("run", "--accel", "qvanilla")  # the digits CNN has conv layers it takes
    assert data["offloaded_layers"] > 0 and "no layer offloaded" not in text


def test_ram_growth_from_the_accelerators_layouts() -> None:
    text, data = _text_and_json("run", MODELS / "vww_96_int8.tflite", "--accel", "qvanilla")
    grown = data["arena_bytes"] - data["arena_bytes_without_accel"]
    assert grown > 200_000  # the NCHW copies and the transposes around each region
    m = re.search(r"RAM ([\d.,]+) KB \(([\d.,]+) KB without qvanilla's layouts: \+([\d.,]+) KB", text)
    assert m, text
    ram, without, plus = (float(g.replace(",", "")) for g in m.groups())
    assert abs(ram - data["ram_bytes"] / 1000) <= 0.5 and abs(plus - grown / 1000) <= 0.5
    assert abs(without - (data["ram_bytes"] - grown) / 1000) <= 0.5


def test_no_accelerator_no_accelerator_lines() -> None:
    text, data = _text_and_json("run")
    assert "arena_bytes_without_accel" not in data
    assert "accelerator" not in text and "without" not in text
