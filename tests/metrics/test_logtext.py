"""Log text made safe for a terminal and a page."""

from __future__ import annotations

import pytest

from tipc.metrics.logtext import printable


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text\twith a tab\n", "plain text\twith a tab\n"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b]0;pwned\x07after", "after"),  # OSC window title, ended by BEL
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),  # OSC hyperlink, ended by ST
        ("nul\x00 bel\x07 del\x7f c1\x9b", "nul\\x00 bel\\x07 del\\x7f c1\\x9b"),
        ("epoch 1\r50%\r100%\r\nnext", "epoch 1\n50%\n100%\nnext"),
        ("\x1bc reset", " reset"),
    ],
    ids=["plain", "colour", "osc-title", "osc-hyperlink", "controls", "carriage-returns", "two-byte-escape"],
)
def test_printable(raw, shown):
    assert printable(raw) == shown
