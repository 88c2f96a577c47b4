"""One rule scenario on a mocked preview: the shape every firing and passing case of the rule tests takes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tests.policies.previews import Preview


@dataclass(frozen=True)
class Case:
    """One scenario: which rule, on what preview, whether it fires and what the message says."""

    rule_id: str
    name: str
    build: Callable[[], Preview]
    fires: bool
    says: str = ""
    config: dict = field(default_factory=dict)
