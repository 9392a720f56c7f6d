"""The documentation site: `make docs` builds it with warnings as errors (Sphinx, MyST Markdown, furo)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE / "_ext"), str(HERE.parent)]

from tipc.version import VERSION  # noqa: E402  (the checkout's tipc, whatever is installed)

project = "tipc"
author = "the tipc developers"
copyright = author
release = version = VERSION
extensions = ["myst_parser", "sphinx.ext.autodoc", "tipc_reference"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
html_theme = "furo"
html_title = f"tipc {VERSION}"
autodoc_member_order = "bysource"
nitpicky = False
# The changelog page includes CHANGELOG.md as written, whose entries jump from a release to its "Added"/"Fixed".
suppress_warnings = ["myst.header"]
