#!/usr/bin/env bash
# Fetch REF (a branch, a tag or a commit) of URL into DIR and check it out, whether DIR is new,
# an earlier night's checkout, or a folder a CI cache restored into (the history file under
# DIR/test_tipc/output/): `git clone` refuses all but the first, and `--branch` takes no commit.
# Tracked files are reset to REF; untracked ones are kept (the restored history, prepared data).
#
#   nightly/checkout.sh https://github.com/PaddlePaddle/PaddleOCR.git main PaddleOCR
set -euo pipefail

url=${1:?usage: nightly/checkout.sh URL REF DIR}
ref=${2:?usage: nightly/checkout.sh URL REF DIR}
dir=${3:?usage: nightly/checkout.sh URL REF DIR}

mkdir -p "$dir"
if [ ! -d "$dir/.git" ]; then git -C "$dir" init -q; fi
git -C "$dir" remote remove origin 2>/dev/null || true
git -C "$dir" remote add origin "$url"
git -C "$dir" fetch -q --depth 1 origin "$ref"
git -C "$dir" checkout -q --force FETCH_HEAD
echo "checkout: $dir at $(git -C "$dir" rev-parse HEAD) ($ref of $url)"
