"""Fake ``paddle2onnx``: checks the model it converts and writes ``--save_file``.

The file holds what the fake predictor then predicts with ``--use_onnx=True``: ``fake`` (what it predicts
with the Paddle model), unless ``TIPC_FAKE_ONNX`` names another text (a conversion that changed the model).
"""

import os
import sys

args = dict(a.split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
model = os.path.join(args["--model_dir"], args["--model_filename"])
if not os.path.isfile(model):
    sys.exit(f"fake paddle2onnx: no model file {model}")
os.makedirs(os.path.dirname(args["--save_file"]) or ".", exist_ok=True)
with open(args["--save_file"], "w") as out:
    out.write(os.environ.get("TIPC_FAKE_ONNX", "fake"))
print(f"fake paddle2onnx: {model} -> {args['--save_file']}")
