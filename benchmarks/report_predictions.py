"""Render a report whose infer cases show predictions over real images; print the time and the size.

24 detection cases (a PaddleOCR sweep's worth) of one chain, each logging boxes for the same 50
scenes of 1280 × 720 (noisy JPEGs: the worst case for the thumbnails' size), and the same run
without predictions in its logs, side by side. Budget (exit 1 when exceeded): the predictions add
under 2 s and under 1.5 MiB of HTML. The thumbnails of the first 6 images are decoded once for all
cases.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from tipc.report import write_report
from tipc.results.records import RunInfo, StageRecord, Status

CASES, IMAGES, BOXES = 24, 50, 20
BUDGET_SECONDS, BUDGET_BYTES = 2.0, 3 << 19
BOX = [[[100 + 40 * k, 50], [130 + 40 * k, 50], [130 + 40 * k, 80], [100 + 40 * k, 80]] for k in range(BOXES)]


def results(root: Path, predictions: bool) -> Path:
    folder = root / ("with" if predictions else "without")
    (folder / "images").mkdir(parents=True)
    for i in range(IMAGES):
        noise = Image.effect_noise((1280, 720), 64 + i).convert("RGB")  # photo-like: JPEG cannot shrink noise
        noise.save(folder / "images" / f"scene_{i}.jpg", quality=85)
    lines = "".join(f"[2026/12/01 01:52:42] ppocr INFO: scene_{i}.jpg\t{json.dumps(BOX)}\n" for i in range(IMAGES))
    records = []
    for n in range(CASES):
        log = folder / f"infer_{n}.log"
        log.write_text(lines if predictions else "done\n")
        records.append(
            StageRecord(
                id=f"norm_train-gpus_0-fp32::infer[case{n}]",
                kind="infer",
                chain="norm_train-gpus_0-fp32",
                status=Status.PASSED,
                argv=("python3", "tools/infer/predict_det.py", "--image_dir=./images"),
                cwd=str(folder),
                log=str(log),
                model="bench",
                mode="lite_train_lite_infer",
            )
        )
    (folder / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in records))
    (folder / "run.json").write_text(RunInfo("bench", "lite_train_lite_infer", "bench.txt", start=1.79e9).to_json())
    return folder


def render(folder: Path, out: Path) -> tuple[float, int]:
    start = time.perf_counter()
    index = write_report([folder], out, history=False)
    return time.perf_counter() - start, index.stat().st_size


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        base_s, base_b = render(results(root, False), root / "r0")
        pred_s, pred_b = render(results(root, True), root / "r1")
    extra_s, extra_b = pred_s - base_s, pred_b - base_b
    ok = extra_s <= BUDGET_SECONDS and extra_b <= BUDGET_BYTES
    print(
        f"report_predictions: {CASES} cases × {IMAGES} images of 1280×720, {BOXES} boxes each: "
        f"without predictions {base_s:.2f} s, {base_b / 1024:.0f} KiB; with {pred_s:.2f} s, {pred_b / 1024:.0f} KiB "
        f"(+{extra_s:.2f} s, budget {BUDGET_SECONDS:.0f} s; +{extra_b / 1024:.0f} KiB, budget {BUDGET_BYTES >> 10} KiB)"
        + ("" if ok else " -- OVER BUDGET")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
