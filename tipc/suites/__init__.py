"""Suite dialects: PaddleOCR, PaddleClas, PaddleDetection and PaddleSeg TIPC configs, read and planned as each
suite's own bash runs them (``dialect``), and the hooks through which a plugin adds another (``hooks``)."""
