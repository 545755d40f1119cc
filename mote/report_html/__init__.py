"""`--html report.html`: one self-contained page (inline CSS, inline SVG, PNG as data: URLs; no script,
no external address) of a run, a profile or an exploration. Every name that comes from a model is
escaped (mote.report_html.page.esc)."""

from mote.report_html.explore_page import write_exploration, write_explore_page
from mote.report_html.page import Figure
from mote.report_html.run_page import write_run_page

__all__ = ["Figure", "write_exploration", "write_explore_page", "write_run_page"]
