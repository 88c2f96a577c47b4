"""Long checks show progress on a terminal, and never anywhere else: not in a pipe, not in --json output.

The terminal is a real pseudo-terminal (`pty`), so `isatty()` answers as it does for a person at a shell.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from tests.preview.conftest import ROOT

EXAMPLE = str(ROOT / "blueprints" / "examples" / "dgx-h100-superpod.yaml")


def _run(*args: str) -> tuple[str, str, int]:
    """Run the CLI with standard error on a pseudo-terminal; (stdout, what the terminal got, exit status)."""
    primary, secondary = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "railyard", *args], stdout=subprocess.PIPE, stderr=secondary, cwd=ROOT, text=True)
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
    return done.stdout, b"".join(chunks).decode(), done.returncode


def test_validate_on_a_terminal_shows_each_stage_and_erases_the_line():
    stdout, terminal, status = _run("validate", EXAMPLE)
    assert status == 0 and "ok: no errors" in stdout
    for stage in ("loading the blueprint and checking its rules", "checking the topology", "planning quotas"):
        assert f"railyard: {stage}..." in terminal
    assert terminal.endswith("\r\x1b[K")  # the progress line is gone when the report prints
    assert "railyard:" not in stdout


def test_json_output_gets_no_progress_even_on_a_terminal():
    stdout, terminal, status = _run("validate", EXAMPLE, "--json")
    assert status == 0 and stdout.startswith("{") and terminal == ""


def test_a_pipe_gets_no_progress():
    done = subprocess.run([sys.executable, "-m", "railyard", "validate", EXAMPLE], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stderr == ""


def test_preview_shows_the_program_and_policy_stages():
    _, terminal, status = _run("preview", EXAMPLE, "--policies")
    assert status == 0
    assert "railyard: running the Pulumi program under mocks (stack preview)..." in terminal
    assert "railyard: running the policy pack..." in terminal
