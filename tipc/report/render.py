"""ReportModel → one self-contained HTML document (jinja2, autoescaped)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import islice

import jinja2
import markupsafe

from tipc.metrics.logtext import printable
from tipc.report.figures import THROUGHPUT_DEFINITION
from tipc.report.matrix import ABSENT_WHY
from tipc.report.model import ReportModel, StageView
from tipc.report.svg import fmt_figure, fmt_number, fmt_range


def num(value: float | None, digits: int = 2) -> str:
    """Fixed decimals for tables; an en dash for a missing figure."""
    if value is None:
        return "–"
    if float(value).is_integer() and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.{digits}f}"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"


def percent(change: float) -> str:
    return f"{change * 100:+.1f}%"


def _shown(value: object) -> object:
    """Every value a template prints: text made printable, markup the report built left as it is."""
    if isinstance(value, str) and not isinstance(value, markupsafe.Markup):
        return printable(value)
    return value


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("tipc.report", "templates"),
        # .html/.svg autoescape; log text and commands are hostile until escaped.
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "svg"), default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # Escaping makes text safe for the markup, not for the reader: control bytes from a log,
        # a reason or a command (NUL, BEL, escape sequences) are made visible or dropped too.
        finalize=_shown,
        # Compiling the templates is most of a small report's time: keep the compiled code between
        # runs, in jinja2's per-user folder under the system's temporary directory.
        bytecode_cache=jinja2.FileSystemBytecodeCache(),
    )
    env.filters.update(num=num, duration=duration, percent=percent, short=fmt_number, figure=fmt_figure)
    env.globals.update(figure_range=fmt_range)
    env.globals.update(
        THROUGHPUT_DEFINITION=THROUGHPUT_DEFINITION, ABSENT_WHY=ABSENT_WHY, stage_html=stage_html, href=href
    )
    return env


@jinja2.pass_context
def href(context: jinja2.runtime.Context, anchor: str) -> str:
    """A link to a stage or a chain: on the page itself, or on its chain's page in a report of many pages."""
    pages = context["r"].pages
    if pages is None:
        return f"#{anchor}"
    return f"{pages.up}{pages.links.get(anchor, '')}#{anchor}"


def stage_html(view: StageView) -> markupsafe.Markup:
    """One stage's details (``templates/stage.html``), put in place by the report's page."""
    return markupsafe.Markup(environment().get_template("stage.html").render(s=view))


def render(model: ReportModel) -> str:
    return environment().get_template("report.html").render(r=model)


def render_pieces(model: ReportModel) -> Iterator[str]:
    """``render`` piece by piece, for the write door to write as they come: a large page is never
    held whole. The template's pieces are a few characters each: they are written some hundreds at a
    time, as one write each."""
    pieces = environment().get_template("report.html").generate(r=model)
    while batch := list(islice(pieces, PIECES_A_WRITE)):  # a batch of empty pieces is not the end
        yield "".join(batch)


PIECES_A_WRITE = 512


def render_redirect(target: str, title: str) -> str:
    return environment().get_template("redirect.html").render(target=target, title=title)
