"""The --html page without a browser: every model-derived name escaped, nothing fetched from elsewhere,
the arena's occupancy agreeing with the planner's bound, extra figures placed, bad paths refused."""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hostile_names_model import CONV, FC, FILE_NAME, INPUT, SCRIPT, hostile_model
from test_cli import assert_one_line_error, mote

from mote import pipeline
from mote.accel import find_accelerator
from mote.memory.arena import align
from mote.report_html import Figure
from mote.report_html.arena import occupancy, peak
from mote.report_html.explore_page import render_explore_page
from mote.report_html.run_page import render_run_page


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> pipeline.RunReport:
    model = hostile_model(tmp_path_factory.mktemp("hostile"))
    return pipeline.run(model, target="rv32", accelerator=find_accelerator("qvanilla:timed=1"))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def assert_self_contained(page: str) -> None:
    """No script, no event handler, nothing loaded from elsewhere: the only source is an inline PNG."""
    parser = _Tags()
    parser.feed(page)
    names = {tag for tag, _ in parser.tags}
    assert not names & {"script", "link", "iframe", "object", "embed", "a", "b", "i"}, names
    for tag, attrs in parser.tags:
        for key, value in attrs:
            assert not key.startswith("on") and key not in ("href", "xlink:href"), (tag, key)
            if key == "src":
                assert tag == "img" and (value or "").startswith("data:image/png;base64,")
    assert "http:" not in page and "https:" not in page and "url(" not in page


def test_model_names_are_escaped(hostile_report: pipeline.RunReport) -> None:
    page = render_run_page(hostile_report, "profile")
    assert_self_contained(page)
    for raw in (SCRIPT, FC, INPUT, FILE_NAME, "<b>", "<img", "<i>"):
        assert raw not in page
    names = [layer.name for layer in hostile_report.compiled.layers]
    assert CONV in names and FC in names
    for name in names:
        assert html.escape(name, quote=True) in page
    assert html.escape(FILE_NAME, quote=True) in page


def test_every_layer_and_figure_is_on_the_page(hostile_report: pipeline.RunReport) -> None:
    page = render_run_page(hostile_report, "profile")
    data = hostile_report.to_json()
    for title in ("Instructions per layer", "CPU cycles per layer", "Accelerator cycles per layer",
                  "Energy per layer", "Arena occupancy"):
        assert title in page
    assert data["accel_cycles"] > 0 and f"{data['total_cycles']:,}" in page
    offloaded = [layer for layer in data["layers"] if layer["runs_on"] != "cpu"]
    assert offloaded and "ran on the accelerator" in page
    assert "accelerator declined: no pattern for fully_connected" in page  # the partition's reason, per CPU layer
    for layer in data["layers"]:
        if "cycles" in layer:
            assert f">{layer['cycles']:,}<" in page


def test_arena_occupancy_matches_the_plan(hostile_report: pipeline.RunReport) -> None:
    compiled = hostile_report.compiled
    steps = occupancy(compiled)
    assert [s.index for s in steps] == [layer.index for layer in compiled.layers]
    top = peak(steps)
    assert top is not None and top.live_bytes == compiled.plan.lower_bound  # the planner's own bound
    for step in steps:
        assert step.high_water <= compiled.plan.size
        spans = sorted((b.offset, b.offset + align(b.size)) for b in step.live)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # no two live buffers overlap here


def test_extra_figures_come_first_among_the_plots(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = mote("explore", pipeline.default_model(), "--accel", "qvanilla", "--sweep", "cycles_per_mac=1,2",
                "--out", out, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    extra = Figure("Pareto front <latency & energy>", svg="<svg role=\"img\"><title>p</title></svg>")
    page = render_explore_page(rows, ["cycles_per_mac"], "qvanilla", extra=[extra])
    assert_self_contained(page)
    pareto = page.index("Pareto front &lt;latency &amp; energy&gt;")
    assert pareto < page.index("cycles by cost category") < page.index("cycles against cycles_per_mac")
    for title in ("Pareto front of cycles, energy and area", "energy against cycles_per_mac"):
        assert title in page
    assert page.count('src="data:image/png;base64,') == 4  # the front, the breakdown, cycles and energy
    for row in rows:
        assert f">{row['total_cycles']:,}<" in page


@pytest.mark.parametrize("command", ["run", "profile"])
def test_html_to_a_directory_is_refused_before_the_run(tmp_path: Path, command: str) -> None:
    proc = mote(command, "--target", "rv32", "--html", tmp_path)
    assert_one_line_error(proc, "--html", "not a regular file")
    proc = mote(command, "--target", "rv32", "--html", tmp_path / "missing" / "r.html")
    assert_one_line_error(proc, "--html", "does not exist")


def test_explore_html_to_a_device_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = mote("explore", pipeline.default_model(), "--accel", "qvanilla", "--sweep", "cycles_per_mac=1",
                "--out", out, "--html", "/dev/null")
    assert_one_line_error(proc, "--html", "not a regular file")
    assert not out.exists()


def test_a_stream_run_writes_its_page(tmp_path: Path) -> None:
    page = tmp_path / "stream.html"
    proc = mote("run", "--target", "rv32", "--calls", "2", "--html", page, "--json")
    assert proc.returncode == 0, proc.stderr
    text = page.read_text()
    assert_self_contained(text)
    for layer in json.loads(proc.stdout)["layers"]:
        assert html.escape(layer["name"], quote=True) in text
        assert "cycles" not in layer or f">{layer['cycles']:,}<" in text  # an in-place layer runs no code
