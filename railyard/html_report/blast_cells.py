"""The blast-radius table's words for what published designs state beyond switches: one link and one leaf lost
(`topology.link_loss`), and the standby hosts that stand in for a pool (`topology.spares`)."""

from __future__ import annotations

from typing import Any


def percent(share: float) -> str:
    """A share as the blast-radius section writes it everywhere (chart and table alike): up to two decimals, `6.25%`, `100%`."""
    return f"{share * 100:,.2f}".rstrip("0").rstrip(".") + "%"


def link_loss_text(loss: dict[str, Any] | None) -> str | None:
    """One host link lost and the worst leaf per rail, in words (topology.link_loss)."""
    if not loss or not loss["host_link"]:
        return None
    link, leaf = loss["host_link"], loss["leaf_per_rail"]
    text = f"a link: {percent(link['share'])} of a host ({link['links_per_host']:g} links)"
    if leaf:
        rails = ", ".join(str(rail) for rail in leaf["rails"])
        text += f"; a leaf: {leaf['accelerators']:,} accelerators lose {percent(leaf['share'])} of rail {rails}"
    return text


def spares_text(spares: dict[str, Any] | None) -> str | None:
    """The standby hosts that stand in for the pool, and whether they cover its worst block (topology.spares)."""
    if not spares:
        return None
    text = f"{spares['hosts']:,} in {', '.join(spares['pools'])}, at least {spares['fewest_in_a_block']} a block"
    block = spares["worst"].get("block")
    if block:
        cover = "covered" if block["covered"] else f"{block['spares_outside']} outside"
        text += f"; {block['element']} down ({block['hosts_lost']} hosts): {cover}"
    return text
