"""``--fail-on``: which findings fail a run besides failed stages."""

from __future__ import annotations

import pytest

from tipc.errors import SettingsError
from tipc.session.settings import DEFAULT_FAIL_ON, parse_fail_on


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ([], DEFAULT_FAIL_ON),
        (["golden"], {"golden"}),
        (["regression"], {"regression"}),
        (["golden,regression"], {"golden", "regression"}),
        (["golden", "regression"], {"golden", "regression"}),
        ([" regression , golden "], {"golden", "regression"}),
        (["none"], set()),
    ],
)
def test_fail_on_values(given, expected):
    assert parse_fail_on(given) == frozenset(expected)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["speed"], "--fail-on speed: expected golden, regression or none"),
        (["golden,none"], "--fail-on none: cannot be combined"),
    ],
)
def test_fail_on_refuses(given, message):
    with pytest.raises(SettingsError, match=message):
        parse_fail_on(given)
