#!/usr/bin/env bash
# After every shard of a nightly matrix (nightly/run-shard.sh): for each results folder
# <output>/<model>/<mode>/ holding shards/<run group>/shard<K>/ parts, `tipc merge` joins the
# parts of one night (TIPC_RUN_GROUP; default: the newest group) into the folder itself (its
# results.jsonl is the history the next night's split reads) and `tipc report` renders one report
# of them into REPORTS, then the night's index over them all. Parts of other nights are set aside and named, never merged. Every folder
# is tried and reported; exit 1 when one failed (a split that differs between shards, a shard
# folder that is not one), was incomplete (a shard of the night that did not report, or was cancelled:
# named), or
# none was found, or a report's badge is not passed: a failed stage, or a regressed figure under
# TIPC_FAIL_ON=regression (`tipc report` reads TIPC_FAIL_ON and the TIPC_TREND_* settings, as a run does).
#
#   TIPC_RUN_GROUP=slurm-41872 nightly/merge-shards.sh PaddleOCR/test_tipc/output [reports]
set -uo pipefail

output=${1:?usage: nightly/merge-shards.sh <repo>/test_tipc/output [reports dir]}
reports=${2:-reports}
TIPC_HOME=${TIPC_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
PYTHON=${TIPC_PYTHON:-$TIPC_HOME/.venv/bin/python}
group=()
if [ -n "${TIPC_RUN_GROUP:-}" ]; then group=(--run-group "$TIPC_RUN_GROUP"); fi

status=0
found=0
for mode_dir in "$output"/*/*/; do
    compgen -G "${mode_dir}shards/*/shard*/run.json" >/dev/null || continue
    found=1
    rc=0
    "$PYTHON" -m tipc merge "$mode_dir" "${group[@]}" || rc=$?
    # A failed or incomplete night (exit 1), or one the machine ended (75: infra), is still merged: its
    # report shows what ran, names the gap, and records the night in the history. 2: nothing was merged.
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 75 ]; then
        "$PYTHON" -m tipc report "$mode_dir" --out "$reports" || rc=1
    fi
    if [ "$rc" -ne 0 ]; then status=1; fi
done
if [ "$found" = 0 ]; then
    echo "merge-shards: no <model>/<mode>/shards/<run group>/shard<K>/ results under $output" >&2
    exit 1
fi
# The night's index over every model and mode merged above: <reports>/night/<run group>/index.html.
"$PYTHON" -m tipc report --night "$output" --out "$reports" || status=1
exit "$status"
