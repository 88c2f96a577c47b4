"""`railyard plan adopt FILE --reservation cr-...`: the reservations bought put in place of the offerings a plan wrote.

The file is edited in place with ruamel.yaml's round-trip mode, so its comments, order and layout are kept
and only the ids change: a `capacity_block`'s `offering_id` becomes `reservation_id`, a reservation
group's `offering_ids` become `reservation_ids`, each with the offering it was bought from noted beside
it. The reservations are taken in the order the file lists its offerings. PyYAML (which railyard reads
blueprints with) was weighed and lost here: it drops every comment on a round trip.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

RESERVATION = re.compile(r"^cr-[0-9a-f]{8,17}$")


class AdoptError(ValueError):
    """The file or the reservations given can't be adopted: nothing was written."""


def _yaml() -> Any:
    from ruamel.yaml import YAML

    handler = YAML(typ="rt")
    handler.preserve_quotes = True
    handler.width = 4096
    handler.indent(mapping=2, sequence=2, offset=0)
    return handler


def _swap(capacity: Any, old: str, new: str, value: Any) -> None:
    """Put `new: value` where `old` was, in the same position of the mapping."""
    position = list(capacity.keys()).index(old)
    del capacity[old]
    capacity.insert(position, new, value)


def adopt_text(text: str, reservations: list[str]) -> tuple[str, list[tuple[str, str]]]:
    """The file's text with each offering replaced by its reservation, and the (offering, reservation) pairs; raises `AdoptError`."""
    bad = [reservation for reservation in reservations if not RESERVATION.match(reservation)]
    if bad:
        raise AdoptError(f"{', '.join(bad)} is not a capacity reservation id (cr- and 8 or 17 hex digits, as purchase-capacity-block prints)")
    handler = _yaml()
    document = handler.load(text)
    pools = document.get("pools") if hasattr(document, "get") else None
    places = []  # (capacity mapping, key, offering ids)
    for pool in pools or []:
        capacity = pool.get("capacity") if hasattr(pool, "get") else None
        if capacity is None:
            continue
        if capacity.get("offering_id"):
            places.append((capacity, "offering_id", [str(capacity["offering_id"])]))
        elif capacity.get("offering_ids"):
            places.append((capacity, "offering_ids", [str(offering) for offering in capacity["offering_ids"]]))
    offerings = [offering for _, _, ids in places for offering in ids]
    if not offerings:
        raise AdoptError("no pool names an offering (offering_id / offering_ids): there is nothing to adopt")
    if len(reservations) != len(offerings):
        raise AdoptError(f"the file names {len(offerings)} offering(s) ({', '.join(offerings)}), and {len(reservations)} reservation(s) were given")
    given = iter(reservations)
    pairs = []
    for capacity, key, ids in places:
        bought = [next(given) for _ in ids]
        pairs += list(zip(ids, bought, strict=True))
        if key == "offering_id":
            _swap(capacity, key, "reservation_id", bought[0])
            capacity.yaml_add_eol_comment(f"bought from offering {ids[0]}", "reservation_id")
        else:
            from ruamel.yaml.comments import CommentedSeq

            members = CommentedSeq(bought)
            # One column for every comment: two spaces after the longest id, with the list 4 columns in under
            # pools[].capacity as `railyard plan` writes it ("    - "); ruamel pads a shallower list to one space.
            column = 4 + 2 + max(len(reservation) for reservation in bought) + 2
            for index, offering in enumerate(ids):
                members.yaml_add_eol_comment(f"bought from offering {offering}", index, column=column)
            _swap(capacity, key, "reservation_ids", members)
    out = io.StringIO()
    handler.dump(document, out)
    return out.getvalue(), pairs


def adopt_file(path: str | Path, reservations: list[str]) -> list[tuple[str, str]]:
    """Adopt the reservations into the file in place; raises `AdoptError` (nothing written) or `OSError`."""
    file = Path(path)
    text, pairs = adopt_text(file.read_text(encoding="utf-8"), reservations)
    file.write_text(text, encoding="utf-8")
    return pairs
