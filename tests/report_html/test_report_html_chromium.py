"""The --html pages rendered by headless Chromium (Debian's `chromium`): the DOM it builds holds every
figure's title, the run's total cycles, each layer's name and cycles, and the exploration's plots.

Skipped, with the reason, when no chromium is installed (`apt-get install -y chromium`)."""

from __future__ import annotations

import base64
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hostile_names_model import CONV, FC, hostile_model
from test_cli import mote

from mote.pipeline import default_model

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium): "
                                                          "the --html pages were not rendered")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def rendered_dom(page: Path, profile: Path) -> str:
    """The DOM headless Chromium builds from `page` (no network: the page must not need it)."""
    assert CHROMIUM is not None
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           f"--user-data-dir={profile}", "--dump-dom", page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "<body" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


def text_of(dom: str, name: str) -> str:
    """`name` as Chromium serializes it in a text node (&, < and > escaped; quotes not)."""
    return html.escape(name, quote=False)


def test_profile_page_shows_the_figures(tmp_path: Path) -> None:
    model = hostile_model(tmp_path)
    page = tmp_path / "report.html"
    proc = mote("profile", model, "--accel", "qvanilla:timed=1", "--json", "--html", page)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    dom = rendered_dom(page, tmp_path / "chromium")
    assert not re.search(r"<script", dom, re.IGNORECASE)
    for title in ("Partitioned graph: what ran where and why", "Instructions per layer", "CPU cycles per layer",
                  "Accelerator cycles per layer", "Energy per layer (µJ)", "Arena occupancy: bytes live per layer"):
        assert f"<figcaption>{title}</figcaption>" in dom or f"<h2>{title}</h2>" in dom, title
    assert data["accel_cycles"] > 0
    for key in ("total_cycles", "cycles", "accel_cycles", "instructions"):
        assert f"<dd>{data[key]:,}</dd>" in dom, key
    names = {layer["name"] for layer in data["layers"]}
    assert CONV in names and FC in names
    for layer in data["layers"]:
        assert f"<td>{text_of(dom, layer['name'])}</td>" in dom, layer["name"]
        if "cycles" in layer:
            assert f">{layer['cycles']:,}<" in dom
    assert f"arena {data['arena_bytes']:,} B" in dom


def test_run_page_on_the_host_says_layers_are_not_measured(tmp_path: Path) -> None:
    page = tmp_path / "run.html"
    proc = mote("run", "--html", page, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    dom = rendered_dom(page, tmp_path / "chromium")
    assert "does not measure each layer" in dom and "Arena occupancy: bytes live per layer" in dom
    for layer in data["layers"]:
        assert f"<td>{text_of(dom, layer['name'])}</td>" in dom


def test_explore_page_shows_the_plots_and_table(tmp_path: Path) -> None:
    page = tmp_path / "explore.html"
    proc = mote("explore", default_model(), "--accel", "qvanilla", "--sweep", "cycles_per_mac=1,2", "--out",
                tmp_path / "results", "--html", page, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    dom = rendered_dom(page, tmp_path / "chromium")
    model = rows[0]["model"]
    for title in (f"{model}: cycles by cost category", f"{model}: cycles against cycles_per_mac",
                  f"{model}: energy against cycles_per_mac", f"{model}: Pareto front of cycles, energy and area"):
        assert f"<figcaption>{title}</figcaption>" in dom
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', dom)
    assert len(images) == 4 and all(base64.b64decode(i).startswith(PNG_MAGIC) for i in images)
    for row in rows:
        assert f">{row['total_cycles']:,}<" in dom and f">{row['accel_cycles']:,}<" in dom
