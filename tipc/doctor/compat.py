"""The CUDA compatibility table (``cuda_compat.json``, data with its sources) and how to read it.

Which CUDA builds a paddle release ships (and their cuDNN), and the least NVIDIA driver each
CUDA needs: its own minimum, and the lower floor of CUDA's minor version compatibility (a
driver of the same major release runs it, but kernels that need PTX JIT compilation fail).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

TABLE = Path(__file__).with_name("cuda_compat.json")


def version_key(text: str) -> tuple[int, ...]:
    """``"525.60.13"`` → ``(525, 60, 13)``; the digits of each part (``"12.0.1-rc"`` → ``(12, 0, 1)``)."""
    return tuple(int(m) for m in re.findall(r"\d+", text))


def series(version: str, parts: int = 2) -> str:
    """``"3.3.1"`` → ``"3.3"``; ``"11.8.89"`` → ``"11.8"``."""
    return ".".join(str(p) for p in version_key(version)[:parts])


class DriverFit(str, Enum):
    FULL = "full"  # at least the CUDA release's own minimum
    MINOR_COMPAT = "minor_compat"  # only CUDA's minor version compatibility floor
    TOO_OLD = "too_old"
    UNKNOWN = "unknown"  # a CUDA release the table does not hold


@dataclass(frozen=True, slots=True)
class CompatTable:
    min_driver: Mapping[str, str]  # CUDA "12.6" → "560.28.03"
    minor_compat: Mapping[str, str]  # CUDA major "12" → "525.60.13"
    builds: Mapping[str, Mapping[str, str]]  # paddle "3.3" → CUDA "12.6" → cuDNN "9.5"

    def driver_fit(self, cuda: str, driver: str) -> tuple[DriverFit, str]:
        """How ``driver`` suits a build for ``cuda``, and the driver version that would fully suit it."""
        wanted = self.min_driver.get(series(cuda))
        if wanted is None:
            return DriverFit.UNKNOWN, ""
        if version_key(driver) >= version_key(wanted):
            return DriverFit.FULL, wanted
        floor = self.minor_compat.get(series(cuda, 1))
        if floor is not None and version_key(driver) >= version_key(floor):
            return DriverFit.MINOR_COMPAT, wanted
        return DriverFit.TOO_OLD, wanted

    def published(self, paddle: str) -> Mapping[str, str] | None:
        """The CUDA builds (→ cuDNN) of this paddle release; None for a release the table lacks."""
        return self.builds.get(series(paddle))


def parse_table(text: str) -> CompatTable:
    data = json.loads(text)
    return CompatTable(
        min_driver={cuda: str(row["min_driver"]) for cuda, row in data["cuda"].items()},
        minor_compat={major: str(v) for major, v in data["minor_compat"].items()},
        builds={paddle: dict(cudas) for paddle, cudas in data["paddle"].items()},
    )


@functools.lru_cache(maxsize=1)
def load_table() -> CompatTable:
    return parse_table(TABLE.read_text(encoding="utf-8"))
