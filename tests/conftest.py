"""The suite's run-wide set-up: the folder in which its workers share what they compute (`tests/shared.py`)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests import shared

_FOLDER = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """A worker reads where the run's folder is (a run without workers has none)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and shared.FOLDER_OPTION in workerinput:
        shared.folder = Path(workerinput[shared.FOLDER_OPTION])


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # pytest-xdist's hook, in the controller: a worker is about to start
    """The controller makes the run's folder when the first worker starts, and tells every worker where it is."""
    if _FOLDER not in node.config.stash:
        node.config.stash[_FOLDER] = Path(tempfile.mkdtemp(prefix="railyard-shared-"))
    node.workerinput[shared.FOLDER_OPTION] = str(node.config.stash[_FOLDER])


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
