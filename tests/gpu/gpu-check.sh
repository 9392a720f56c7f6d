#!/bin/sh
# `make gpu-check`: on a machine with NVIDIA GPUs and PyTorch, offline. The stand-in GPU target's
# chains through tipc's GPU paths (the plan, the doctor, one config alone, several side by side
# with --jobs auto), then tests/gpu/gpu_check.py judges what they recorded. docs/gpu-check.md.
#
# tipc runs in a venv of its own that builds nothing: a .pth file puts the interpreter's packages
# (jinja2, pyyaml, pillow) and this checkout on its path (`venv --system-site-packages` would miss
# them where that interpreter is itself a venv's, as on machines whose Python is a venv's). The stages run with
# the interpreter itself, the target's, which has torch and the pip NVIDIA libraries (what the
# doctor looks at) and not tipc: --autolog-shim gives its predictor tipc's drop-in auto_log.
set -eu
cd "$(dirname "$0")/../.."
GPU_PYTHON=${GPU_PYTHON:-python3}
GPU_VENV=${GPU_VENV:-.venv-gpu}
MODE=${GPU_MODE:-lite_train_lite_infer}
ONE=gpurec/train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt
AMP=gpurec/train_linux_gpu_normal_amp_infer_python_linux_gpu_cpu.txt
MULTI=gpurec/train_linux_gpu_multi_normal_infer_python_linux_gpu_cpu.txt
OUT_DIR=examples/gpurec/test_tipc/gpu-check  # the configs' repo is examples/gpurec: ./test_tipc/gpu-check there

STAGE_PY=$(command -v "$GPU_PYTHON")
"$STAGE_PY" -c 'import torch; assert torch.cuda.is_available(), "torch sees no CUDA device"'
"$STAGE_PY" -m venv --without-pip "$GPU_VENV"
PY=$(cd "$GPU_VENV/bin" && pwd)/python
{ "$STAGE_PY" -c 'import site; print("\n".join(site.getsitepackages()))'; pwd; } \
  > "$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/tipc-gpu.pth"
"$PY" -c 'import jinja2, yaml, PIL, tipc'
TIPC="$PY -m tipc"

rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"
echo "== tipc plan (--device auto)"
$TIPC plan --config "$MULTI" --mode "$MODE" --python "$STAGE_PY" > "$OUT_DIR/plan.txt"
head -12 "$OUT_DIR/plan.txt"
echo "== tipc doctor (no launcher on PYTHONPATH: the doctor asks the interpreter's own paddle)"
$TIPC doctor --config "$MULTI" --mode "$MODE" --python "$STAGE_PY" --autolog-shim > "$OUT_DIR/doctor.txt" || true
$TIPC doctor --config "$MULTI" --mode "$MODE" --python "$STAGE_PY" --autolog-shim --json > "$OUT_DIR/doctor.json" || true
cat "$OUT_DIR/doctor.txt"
$TIPC prepare --config "$ONE" --mode "$MODE"
# The stand-in launcher (examples/gpurec/README.md) for the multi-GPU trainings, for these runs only.
export PYTHONPATH="$PWD/examples/gpurec/launcher${PYTHONPATH:+:$PYTHONPATH}"
echo "== tipc run: one config, one stage at a time"
# A failed stage does not stop here: the checks below say which, with the rest of what was seen.
$TIPC run --config "$ONE" --mode "$MODE" --python "$STAGE_PY" --autolog-shim --no-report \
  --output-root ./test_tipc/gpu-check/serial || echo "tipc run: exit $?"
echo "== tipc run: two configs, three chains, --jobs auto"
$TIPC run --config "$AMP" --config "$MULTI" --mode "$MODE" --python "$STAGE_PY" --autolog-shim --no-report \
  --jobs auto --mem-per-chain 4G --output-root ./test_tipc/gpu-check/scheduled || echo "tipc run: exit $?"
echo "== the checks"
unset PYTHONPATH
"$PY" tests/gpu/gpu_check.py --doctor "$OUT_DIR/doctor.json" --multi-gpu \
  --serial "$OUT_DIR/serial/gpurec/$MODE" \
  --scheduled "$OUT_DIR/scheduled/gpurec/$MODE" "$OUT_DIR/scheduled/gpurec_amp/$MODE"
