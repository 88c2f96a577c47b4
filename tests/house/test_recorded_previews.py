"""`RAILYARD_PREVIEWS` (tests/recorded.py): a recording run stores what it computes; a replaying run reads it back and
never computes, so mutation testing's forked workers never start Pulumi."""

from __future__ import annotations

import pytest

from tests.recorded import VARIABLE, NotRecorded, recorded, setting


def test_unset_computes_every_time():
    calls = []
    assert recorded("k", lambda: calls.append(1) or "value", environ={}) == "value"
    assert recorded("k", lambda: calls.append(1) or "value", environ={}) == "value"
    assert calls == [1, 1]


def test_replay_reads_back_what_record_stored_without_computing(tmp_path):
    folder = tmp_path / "previews"
    stored = recorded("preview-abc", lambda: {"resources": [1, 2]}, environ={VARIABLE: f"record:{folder}"})
    assert stored == {"resources": [1, 2]}
    assert (folder / "preview-abc.pickle").is_file()

    def never():
        raise AssertionError("a replaying run computed a preview")

    assert recorded("preview-abc", never, environ={VARIABLE: f"replay:{folder}"}) == {"resources": [1, 2]}


def test_replay_of_an_unrecorded_preview_is_an_error_not_a_run(tmp_path):
    with pytest.raises(NotRecorded, match=r"preview-missing\.pickle: no recorded preview for preview-missing"):
        recorded("preview-missing", lambda: "computed", environ={VARIABLE: f"replay:{tmp_path}"})


@pytest.mark.parametrize("raw", ["replay", "record:", "play:/tmp/x"])
def test_a_malformed_setting_is_refused(raw):
    with pytest.raises(ValueError, match="expected record:FOLDER or replay:FOLDER"):
        setting({VARIABLE: raw})


def test_the_setting_names_mode_and_folder(tmp_path):
    assert setting({}) is None
    assert setting({VARIABLE: f"replay:{tmp_path}"}) == ("replay", tmp_path)
