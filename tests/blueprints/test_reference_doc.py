"""docs/reference.md is what the blueprint models give: every field, its type, default, allowed values and description."""

from __future__ import annotations

import re
from pathlib import Path

from blueprints.reference import main, reference_schema, render

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"


def rows_of(text: str, heading: str) -> dict[str, list[str]]:
    """The field rows of the section whose heading starts with `heading`, by field name."""
    section = text.split(f"\n{heading}", 1)[1].split("\n#", 1)[0]
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| `")]
    return {row[0].strip(" `"): [cell.strip() for cell in row[1:]] for row in rows}


def test_the_page_is_current():
    assert PAGE.read_text(encoding="utf-8") == render(), "run: python -m blueprints.reference"
    assert main(["--check"]) == 0


def test_check_exits_one_on_a_stale_page(tmp_path, capsys):
    stale = tmp_path / "reference.md"
    stale.write_text(render().replace("standby_for", "spare_for"))
    assert main(["--check", "--output", str(stale)]) == 1
    assert capsys.readouterr().err == f"{stale} is out of date: run python -m blueprints.reference\n"
    assert main(["--output", str(stale)]) == 0 and main(["--check", "--output", str(stale)]) == 0


def test_every_field_of_every_model_has_one_row():
    schema = reference_schema()
    fields = len(schema["properties"]) + sum(len(definition.get("properties", {})) for definition in schema["$defs"].values())
    assert len(re.findall(r"^\| `[a-z_0-9]+` \|", render(), flags=re.MULTILINE)) == fields


def test_every_object_and_kind_variant_has_its_section():
    text = render()
    schema = reference_schema()
    for name in schema["$defs"]:
        assert f'<a id="def-{name.lower()}"></a>' in text and f" ({name})\n" in text
    assert "### `pools[].capacity` kind `capacity_block` (CapacityBlock)" in text
    assert "### `storage[]` kind `fsx_lustre` (FsxLustre)" in text
    assert "### `kubernetes.device_plugins[]` kind `gpu_operator` (GpuOperator)" in text


def test_pool_rows_give_type_default_allowed_values_and_description():
    pool = rows_of(render(), "## `pools[]` (Pool)")
    assert pool["role"][:3] == ["string", "required", "`training`, `inference`, `dev`"]
    assert pool["standby_for"][:3] == ["string or none", "none", "matches `^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$`"]
    assert pool["standby_for"][3].startswith("Make these hosts hot spares of the named pool")
    assert pool["nodes"][0] == "integer or [NodeRange](#def-noderange)"
    # Defaults a factory makes are written out, where pydantic's own schema leaves them unsaid.
    assert pool["labels"][1] == "`{}`" and pool["root_volume"][1] == "its fields' defaults"


def test_ranges_and_list_lengths_are_stated():
    text = render()
    assert rows_of(text, "## The top level")["pools"][2] == "at least 1 item(s)"
    flow_logs = rows_of(text, "### `cloud.flow_logs` (FlowLogs)")
    assert flow_logs["retention_days"][1] == "`365`" and flow_logs["retention_days"][2].startswith("`1`, `3`, `5`, `7`")
    assert rows_of(text, "## The top level")["quotas"][2] == "keys matching `^L-[0-9A-F]{8}$`; each value: ≥ 0; each value: ≤ 10,000,000,000"
