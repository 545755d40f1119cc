"""Inline SVG charts: horizontal bars, one row per layer, with the value written beside each bar (so
the figures are in the page's text, not only in pixels). Every label is escaped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mote.report_html.page import esc, num

_LABEL_WIDTH = 300  # px for the row labels
_BAR_WIDTH = 420  # px for the longest bar
_VALUE_WIDTH = 130
_ROW = 18
_TOP = 8


@dataclass(frozen=True)
class Bar:
    label: str  # shown truncated (its end); the full text is the bar's tooltip
    value: float | None  # None: no figure for this row (drawn empty, "-")
    highlight: bool = False
    prefix: str = ""  # shown in full before the label, e.g. "#3 conv2d"
    color: str = ""  # the bar's colour if not the chart's


def _short(label: str, limit: int = 44) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1):]


def bar_chart(title: str, bars: Sequence[Bar], unit: str = "", color: str = "#4a78b5",
              marker: tuple[float, str] | None = None, digits: int = 0) -> str:
    """Horizontal bars scaled to the largest value (or `marker`'s value, if larger); `marker`: a dashed
    vertical line at (value, label), e.g. the arena's size. Values are written as numbers after each bar."""
    values = [b.value for b in bars if b.value is not None]
    scale_max = max([*values, marker[0] if marker else 0.0, 0.0])
    height = _TOP + _ROW * len(bars) + (24 if marker else 6)
    width = _LABEL_WIDTH + _BAR_WIDTH + _VALUE_WIDTH
    parts = [f'<svg role="img" aria-label="{esc(title)}" width="100%" '
             f'style="max-width:{width}px" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'
             f"<title>{esc(title)}</title>"]
    for i, bar in enumerate(bars):
        y = _TOP + i * _ROW
        shown = f"{bar.prefix} {_short(bar.label, max(8, 44 - len(bar.prefix)))}" if bar.prefix else _short(bar.label)
        parts.append(f'<text x="{_LABEL_WIDTH - 6}" y="{y + 12}" text-anchor="end">{esc(shown)}'
                     f"<title>{esc(bar.label)}</title></text>")
        length = 0.0 if not bar.value or scale_max <= 0 else _BAR_WIDTH * bar.value / scale_max
        fill = "#d9822b" if bar.highlight else bar.color or color
        parts.append(f'<rect x="{_LABEL_WIDTH}" y="{y + 2}" width="{length:.1f}" height="{_ROW - 5}" fill="{fill}">'
                     f"<title>{esc(bar.label)}: {esc(num(bar.value, digits))} {esc(unit)}</title></rect>")
        text = num(bar.value, digits) if bar.value is not None else "-"
        parts.append(f'<text x="{_LABEL_WIDTH + length + 4:.1f}" y="{y + 12}">{esc(text)}</text>')
    if marker and scale_max > 0:
        x = _LABEL_WIDTH + _BAR_WIDTH * marker[0] / scale_max
        bottom = _TOP + _ROW * len(bars)
        parts.append(f'<line x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{bottom}" stroke="#b33" '
                     'stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{x:.1f}" y="{bottom + 15}" text-anchor="end" fill="#b33">{esc(marker[1])}</text>')
    parts.append("</svg>")
    return "".join(parts)
