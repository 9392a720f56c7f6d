"""gpurec: a stand-in GPU target with PaddleOCR's command-line contract, computing with PyTorch.

PaddlePaddle's GPU build cannot be installed on every GPU machine (it needs CUDA 12's libraries
and wheels of its own). tipc's own GPU paths (device choice, pinning, slots, the doctor, the
drop-in auto_log's GPU figures) need no paddle: this target trains, evaluates, exports and
predicts for real on the visible CUDA device, printing PaddleOCR's log lines. It reads tinyrec's
data and config formats (``tinyrec.config``, ``tinyrec.data``, ``tinyrec.metric``: no paddle in them).
"""
