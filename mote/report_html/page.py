"""The page's frame: escaping, figures, tables and the self-contained HTML document.

Nothing here links outside the page: the style is inline, charts are inline SVG or PNG data: URLs, and
there is no script. Every string that reaches the page goes through `esc` (text) or is a number."""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mote.outputs import write_file_atomic
from mote.terminal import plain

_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;color:#1d2330;
  padding:0 1em;line-height:1.4}
h1{font-size:1.5em;margin-bottom:.2em}
h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccd;padding-bottom:.2em}
.meta{color:#556}
table{border-collapse:collapse;font-size:.85em;margin:.6em 0}
th,td{border:1px solid #d4d8e0;padding:.2em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere;
  max-width:28em}
th{background:#eef1f6}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal}
tr.accel td{background:#eaf6ec}
figure{margin:1em 0;padding:.5em;border:1px solid #e0e3ea;border-radius:4px;overflow-x:auto}
figcaption{font-weight:600;margin-bottom:.4em}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(40em,1fr));gap:.8em}
dl.summary{display:grid;grid-template-columns:max-content auto;gap:.1em 1em}dl.summary dt{color:#556}
dl.summary dd{margin:0;font-variant-numeric:tabular-nums}
.note{color:#665;overflow-wrap:anywhere}
"""


def esc(text: object) -> str:
    """`text` safe as HTML text or a quoted attribute value: control characters shown as escapes
    (mote.terminal.plain), then <, >, &, " and ' escaped."""
    return html.escape(plain(text), quote=True)


def num(value: float | int | None, digits: int = 2) -> str:
    """A figure for the page: thousands separated, '-' for none."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


@dataclass(frozen=True)
class Figure:
    """One figure of the page: a title and its body, inline SVG markup (made by mote.report_html.svg,
    every text in it escaped) or a PNG's bytes."""

    title: str
    svg: str = ""
    png: bytes = b""
    caption: str = ""  # a line under the figure (plain text; escaped)

    @classmethod
    def from_png_file(cls, title: str, path: Path, caption: str = "") -> Figure:
        return cls(title, png=Path(path).read_bytes(), caption=caption)

    @classmethod
    def from_matplotlib(cls, title: str, fig: object, caption: str = "") -> Figure:
        """A matplotlib figure, as PNG bytes (closed afterwards)."""
        import io

        import matplotlib.pyplot as plt

        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110)  # type: ignore[attr-defined]
        plt.close(fig)  # type: ignore[arg-type]
        return cls(title, png=buffer.getvalue(), caption=caption)

    def html(self) -> str:
        if self.svg:
            body = self.svg
        else:
            data = base64.b64encode(self.png).decode("ascii")
            body = f'<img alt="{esc(self.title)}" src="data:image/png;base64,{data}" style="max-width:100%">'
        caption = f'<p class="note">{esc(self.caption)}</p>' if self.caption else ""
        return f"<figure><figcaption>{esc(self.title)}</figcaption>{body}{caption}</figure>"


def figures_html(figures: Iterable[Figure]) -> str:
    return '<div class="figures">' + "".join(f.html() for f in figures) + "</div>"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], numeric: Iterable[int] = (),
          row_classes: Sequence[str] | None = None) -> str:
    """An HTML table; cells are escaped text, columns in `numeric` right-aligned."""
    right = set(numeric)
    out = ["<table><thead><tr>", *(f"<th>{esc(h)}</th>" for h in headers), "</tr></thead><tbody>"]
    for i, row in enumerate(rows):
        cls = f' class="{esc(row_classes[i])}"' if row_classes and row_classes[i] else ""
        cells = (f'<td class="num">{esc(c)}</td>' if j in right else f"<td>{esc(c)}</td>" for j, c in enumerate(row))
        out.append(f"<tr{cls}>{''.join(cells)}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def summary_list(items: Iterable[tuple[str, str]]) -> str:
    return '<dl class="summary">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items) + "</dl>"


def section(title: str, body: str) -> str:
    return f"<section><h2>{esc(title)}</h2>{body}</section>"


def document(title: str, subtitle: str, sections: Iterable[str]) -> str:
    """The whole page: no script, no external address (the test checks)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{esc(title)}</h1><p class=\"meta\">{esc(subtitle)}</p>{''.join(sections)}</body></html>\n")


def write_page(path: Path, text: str) -> None:
    """Written beside `path` and renamed over it; a directory, device or missing parent is refused
    (mote.outputs) with a one-line error naming --html."""
    write_file_atomic(path, text, "--html")
