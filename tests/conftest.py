"""The suite's run-wide set-up: the folder in which its workers share what they compute (`tests/shared.py`)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests import shared


def pytest_configure(config: pytest.Config) -> None:
    """The controller makes the run's folder; each worker reads where it is."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        shared.folder = Path(workerinput[shared.FOLDER_OPTION]) if shared.FOLDER_OPTION in workerinput else None
    else:  # the controller (of a run on workers, `-n`, or the one process of a run without: it leaves the folder unused)
        config.stash[_FOLDER] = Path(tempfile.mkdtemp(prefix="railyard-shared-"))


_FOLDER = pytest.StashKey[Path]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # pytest-xdist's hook: a worker is about to start
    folder = node.config.stash.get(_FOLDER, None)
    if folder is not None:
        node.workerinput[shared.FOLDER_OPTION] = str(folder)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
