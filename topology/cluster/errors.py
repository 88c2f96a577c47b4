"""The one exception planning raises."""

from __future__ import annotations

from blueprints.findings import Path


class PlanError(ValueError):
    """The blueprint validated, but it can't be compiled as written (for example, the VPC is too small).

    The message names the blueprint value at fault and what would fit; `path`
    points at it in the blueprint, so the finding shows its line.
    """

    def __init__(self, message: str, path: Path = ()):
        super().__init__(message)
        self.path = path
