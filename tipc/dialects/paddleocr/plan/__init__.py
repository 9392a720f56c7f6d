"""PaddleOCR's configs planned as its scripts run them."""

from tipc.dialects.paddleocr.plan.builder import build_plan

__all__ = ["build_plan"]
