#!/usr/bin/env bash
# One shard of a nightly matrix: the chains of every config listed in TIPC_CONFIGS (a file, one
# config per line as `pytest tipc --config` takes it; blank lines and # comments skipped), split
# into N parts balanced by the durations the last merged nightly recorded; this runs part K
# (TIPC_SHARD=K/N) with `pytest tipc`, its chains side by side where the machine allows
# (--tipc-jobs ${TIPC_JOBS:-auto}; TIPC_JOBS=1 for one at a time). Results go to
# <repo>/test_tipc/output/<model>/<mode>/shards/<run group>/shard<K>/; nightly/merge-shards.sh
# joins one night's. The run group (one id for every shard of one night) is TIPC_RUN_GROUP, else
# the scheduler's (Slurm's array, GitHub's run, GitLab's pipeline): a shard needs one. A shard whose
# part has no chain (more shards than chains) exits 0.
#
#   TIPC_CONFIGS=nightly/paddleocr-configs.txt TIPC_REPO=PaddleOCR TIPC_MODE=lite_train_lite_infer \
#       TIPC_SHARD=2/8 TIPC_RUN_GROUP=nightly-2026-12-01 nightly/run-shard.sh --tipc-python python3
#
# TIPC_REPO (optional) is the target checkout: passed as --tipc-repo, and a listed config that is a
# path inside it is the target's own.
#
# Every shard must read the same configs and the same history (the <mode>/results.jsonl a merge
# wrote; shards never write it), or they split differently: tipc merge then refuses them. The
# script's own arguments go to pytest tipc; it runs in TIPC_HOME (the tipc checkout, default:
# this script's), so config names resolve as there, with the venv's bin/ first on PATH (a config's
# `python:python3` finds the interpreter that has paddle).
set -euo pipefail

: "${TIPC_CONFIGS:?set TIPC_CONFIGS to a file listing the configs, one per line}"
: "${TIPC_MODE:?set TIPC_MODE, e.g. lite_train_lite_infer}"
: "${TIPC_SHARD:?set TIPC_SHARD to K/N, e.g. 2/8 (the CI or scheduler index, 1-based)}"
TIPC_CONFIGS=$(realpath "$TIPC_CONFIGS")
TIPC_HOME=${TIPC_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
PYTHON=${TIPC_PYTHON:-$TIPC_HOME/.venv/bin/python}

repo=()
if [ -n "${TIPC_REPO:-}" ]; then
    TIPC_REPO=$(realpath "$TIPC_REPO")
    repo=(--tipc-repo "$TIPC_REPO")
fi
configs=()
while read -r config || [ -n "$config" ]; do
    case "$config" in '' | '#'*) continue ;; esac
    # The target's own config when it has one by that path, else as pytest tipc --config takes it.
    if [ -n "${TIPC_REPO:-}" ] && [ -f "$TIPC_REPO/$config" ]; then config=$TIPC_REPO/$config; fi
    configs+=("--config=$config")  # one word: pytest must not take the path for its rootdir
done <"$TIPC_CONFIGS"

cd "$TIPC_HOME"
PATH="$(dirname "$PYTHON"):$PATH"
export PATH
exec "$PYTHON" -m pytest tipc "${configs[@]}" "${repo[@]}" --mode "$TIPC_MODE" --tipc-shard "$TIPC_SHARD" \
    --tipc-jobs "${TIPC_JOBS:-auto}" --tipc-no-report -p no:cacheprovider "$@"
