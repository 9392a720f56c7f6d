#!/usr/bin/env bash
# One shard of a nightly matrix: the chains of every config listed in TIPC_CONFIGS (a file, one
# config per line as `pytest tipc --config` takes it; blank lines and # comments skipped), split
# into N parts balanced by the durations the last merged nightly recorded; this runs part K
# (TIPC_SHARD=K/N) with `pytest tipc`, its chains side by side where the machine allows
# (--tipc-jobs ${TIPC_JOBS:-auto}; TIPC_JOBS=1 for one at a time). Results go to
# <repo>/test_tipc/output/<model>/<mode>/shard<K>/; nightly/merge-shards.sh joins them.
#
#   TIPC_CONFIGS=nightly-configs.txt TIPC_MODE=lite_train_lite_infer TIPC_SHARD=2/8 \
#       nightly/run-shard.sh --tipc-repo PaddleOCR --tipc-python python3
#
# Every shard must read the same configs and the same history (the <mode>/results.jsonl a merge
# wrote; shards never write it), or they split differently: tipc merge then refuses them. The
# script's own arguments go to pytest tipc; it runs in TIPC_HOME (the tipc checkout, default:
# this script's), so config names resolve as there.
set -euo pipefail

: "${TIPC_CONFIGS:?set TIPC_CONFIGS to a file listing the configs, one per line}"
: "${TIPC_MODE:?set TIPC_MODE, e.g. lite_train_lite_infer}"
: "${TIPC_SHARD:?set TIPC_SHARD to K/N, e.g. 2/8 (the CI or scheduler index, 1-based)}"
TIPC_CONFIGS=$(realpath "$TIPC_CONFIGS")
TIPC_HOME=${TIPC_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
PYTHON=${TIPC_PYTHON:-$TIPC_HOME/.venv/bin/python}

configs=()
while read -r config || [ -n "$config" ]; do
    case "$config" in '' | '#'*) continue ;; esac
    configs+=(--config "$config")
done <"$TIPC_CONFIGS"

cd "$TIPC_HOME"
exec "$PYTHON" -m pytest tipc "${configs[@]}" --mode "$TIPC_MODE" --tipc-shard "$TIPC_SHARD" \
    --tipc-jobs "${TIPC_JOBS:-auto}" --tipc-no-report -p no:cacheprovider "$@"
