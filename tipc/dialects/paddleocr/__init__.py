"""PaddleOCR's TIPC (``test_tipc/``): its config reader, planner, offline data maker and paddle2onnx layouts."""
