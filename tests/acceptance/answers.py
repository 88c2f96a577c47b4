"""A stand-in for what `urllib.request.urlopen` (or an opener's `open`) hands back, for the tests of the checker's HTTP
clients (acceptance/kube.py and aws.py) that record the request instead of sending it."""

from __future__ import annotations

# A keyword's default that no caller passes, so a test can tell an argument left out from one given as None.
UNSET = object()


class Answer:
    """An answer whose body is `payload`, as a context manager."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload

    def __enter__(self) -> Answer:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def read(self) -> bytes:
        """The whole body."""
        return self.payload
