#!/usr/bin/env bash
# After every shard of a nightly matrix (nightly/run-shard.sh): for each results folder
# <output>/<model>/<mode>/ holding shard<K>/ parts, `tipc merge` joins them into the folder
# itself (its results.jsonl is the history the next night's split reads) and `tipc report`
# renders one report of them into REPORTS. Every folder is tried; exit 1 when one failed
# (a split that differs between shards, a shard folder that is not one) or none was found.
# A missing shard is no failure: the merged run.json's notes (and the report) name it.
#
#   nightly/merge-shards.sh PaddleOCR/test_tipc/output [reports]
set -uo pipefail

output=${1:?usage: nightly/merge-shards.sh <repo>/test_tipc/output [reports dir]}
reports=${2:-reports}
TIPC_HOME=${TIPC_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
PYTHON=${TIPC_PYTHON:-$TIPC_HOME/.venv/bin/python}

status=0
found=0
for mode_dir in "$output"/*/*/; do
    compgen -G "${mode_dir}shard*/run.json" >/dev/null || continue
    found=1
    "$PYTHON" -m tipc merge "$mode_dir" && "$PYTHON" -m tipc report "$mode_dir" --out "$reports" || status=1
done
if [ "$found" = 0 ]; then
    echo "merge-shards: no <model>/<mode>/shard<K>/ results under $output" >&2
    exit 1
fi
exit "$status"
