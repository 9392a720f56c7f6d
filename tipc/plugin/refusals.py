"""Options of pytest and of other plugins that cannot run a chain, refused before anything starts.

Each would run the stages in a way that is no chain run, or not at all, and pytest would still say
"passed" or nothing: a usage error that names what to use instead is the honest answer. Checked
once tipc is active (``--config``), before the run begins, so a refused run writes nothing. And a
warning for ``--config PATH`` in two words, whose PATH pytest took for a test path at its start.
"""

from __future__ import annotations

import itertools

import pytest

NO_TEST = "--collect-only lists the stages, --tipc-dry-run prints their commands"


def refusal(config: pytest.Config) -> str | None:
    """Why this pytest invocation cannot run tipc's stages, or None."""
    option = config.option
    for flag, dest in (("--setup-plan", "setupplan"), ("--setup-only", "setuponly")):
        if getattr(option, dest, False):
            # pytest sets up fixtures and calls no test: a stage has none, nothing would run.
            return f"{flag} runs no test, so no stage would run; {NO_TEST}"
    if getattr(option, "benchmark_only", False):
        return (
            "--benchmark-only (pytest-benchmark) skips every test that is not a benchmark, every stage; "
            "drop it to run the stages (each stage's record has its duration and speed figures)"
        )
    if (getattr(option, "count", None) or 1) > 1 and config.pluginmanager.hasplugin("repeat"):
        # Each item N times in a row is no chain run: export would run N times on one training.
        return (
            f"--count {option.count} (pytest-repeat) runs each stage again right after itself, not the "
            "chain again; to repeat a chain, run pytest tipc that many times (each run is recorded, the "
            "report's trends compare them)"
        )
    if getattr(option, "flake_finder_enable", False):
        return (
            "--flake-finder (pytest-flakefinder) runs each stage many times in a row, not the chain; to "
            "find a flaky stage, run pytest tipc several times (the report's trends compare the runs) or "
            "use --reruns N (pytest-rerunfailures: a stage that passes on a later attempt is marked flaky)"
        )
    if getattr(option, "splits", None) and config.pluginmanager.hasplugin("pytest-split"):
        # Like xdist's --dist load: a part would get export without the train it reads.
        return (
            f"--splits {option.splits} (pytest-split) divides the items by their durations and can cut a "
            "train → export → infer chain between two groups; use --tipc-shard K/N (each part runs whole "
            "chains; tipc merge joins the parts' results)"
        )
    return None


def refuse(config: pytest.Config) -> None:
    why = refusal(config)
    if why is not None:
        raise pytest.UsageError(f"tipc: {why}")


def two_word_configs(config: pytest.Config) -> list[str]:
    """Configs outside the current directory given as ``--config PATH`` (two words): pytest chose its
    rootdir, ini file and conftests before tipc's option was declared, taking PATH for a test path
    (``--config=PATH`` is one word, and no test path)."""
    args = list(config.invocation_params.args)
    here = config.invocation_params.dir.resolve()
    return [
        value
        for flag, value in itertools.pairwise(args)
        if flag in ("--config", "--tipc-config") and not (here / value).resolve().is_relative_to(here)
    ]


def warn_two_word_configs(config: pytest.Config) -> None:
    for value in two_word_configs(config):
        config.issue_config_time_warning(
            pytest.PytestConfigWarning(
                f"tipc: --config {value} (two words, outside this directory): pytest took {value} for a test "
                f"path when it chose its rootdir ({config.rootpath}) and ini file, before tipc's options were "
                f"known, so this project's ini and conftest may be left out; write --config={value}"
            ),
            stacklevel=2,
        )
