"""tinyrec: a small CTC text recogniser with PaddleOCR's command-line contract.

It is the reference target tipc's own tests run against: it trains for real on
paddle (CPU or GPU), exports an inference model and predicts with
``paddle.inference``, printing the same log lines PaddleOCR prints.
"""
