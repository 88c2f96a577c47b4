"""The launch-template interface layout, generated from the catalog's network cards (no Pulumi)."""

import pytest

from blueprints.catalog import load_catalog
from topology.cluster.interfaces import PRIMARY, InterfaceSpec, efa_count, interface_layout

CATALOG = load_catalog()


def efa_cards(layout):
    return [interface.network_card_index for interface in layout if interface.is_efa]


@pytest.mark.parametrize(
    ("instance_type", "expected_cards"),
    [
        ("p5.48xlarge", list(range(32))),
        ("p5en.48xlarge", list(range(16))),
        ("trn2.48xlarge", list(range(16))),
        ("p6-b300.48xlarge", list(range(1, 17))),  # card 0 can't carry EFA
        ("p6-b200.48xlarge", list(range(8))),
        ("p4d.24xlarge", list(range(4))),
    ],
    ids=lambda value: str(value) if isinstance(value, str) else None,
)
def test_efa_instance_gets_the_primary_and_one_efa_only_per_efa_card(instance_type, expected_cards):
    layout = interface_layout(CATALOG.get(instance_type), efa=True)
    assert layout[0] == InterfaceSpec(0, 0, "interface")
    assert efa_cards(layout) == expected_cards
    assert {interface.interface_type for interface in layout[1:]} == {"efa-only"}
    assert efa_count(layout) == CATALOG.get(instance_type).max_efa_interfaces == CATALOG.get(instance_type).efa_devices


def test_p5_puts_the_card_0_efa_on_device_1_and_the_others_on_device_0():
    layout = interface_layout(CATALOG.get("p5.48xlarge"), efa=True)
    assert len(layout) == 33
    assert layout[1] == InterfaceSpec(0, 1, "efa-only")
    assert {interface.device_index for interface in layout[2:]} == {0}


def test_p6e_gb200_gets_awss_four_efa_interfaces_one_per_gpu_not_one_per_efa_card():
    spec = CATALOG.get("p6e-gb200.36xlarge")
    layout = interface_layout(spec, efa=True)
    # "For the primary NCI (network card index 0, device index 0), use an ENA network interface. Add EFA-only
    # network interfaces to the following: NCI 1, 5, 9, 13, device index 0" (EFA configuration for P6e-GB200).
    assert layout == (PRIMARY, *(InterfaceSpec(card, 0, "efa-only") for card in (1, 5, 9, 13)))
    assert efa_count(layout) == 4 < spec.max_efa_interfaces == 16
    # Each GPU's pair of cards carries one of them, and the four together have the guide's 1,600 Gbps.
    pairs = ((1, 3), (5, 7), (9, 11), (13, 15))
    assert [sum(card in pair for card in efa_cards(layout)) for pair in pairs] == [1, 1, 1, 1]
    assert sum(spec.network_cards[card].baseline_gbps for card in efa_cards(layout)) == 1600


def test_p6_b300_has_no_efa_on_card_0():
    layout = interface_layout(CATALOG.get("p6-b300.48xlarge"), efa=True)
    assert [interface for interface in layout if interface.network_card_index == 0] == [PRIMARY]
    assert len(layout) == 17


@pytest.mark.parametrize("instance_type", ["inf2.48xlarge", "g6e.xlarge"])
def test_instance_without_efa_gets_only_the_primary_when_not_asked(instance_type):
    assert interface_layout(CATALOG.get(instance_type), efa=False) == (PRIMARY,)


def test_asking_for_efa_on_inf2_is_refused():
    with pytest.raises(ValueError, match="inf2.48xlarge does not support EFA"):
        interface_layout(CATALOG.get("inf2.48xlarge"), efa=True)


@pytest.mark.parametrize("name", [name for name in CATALOG.names() if CATALOG.get(name).efa_supported])
def test_every_efa_type_in_the_catalog_follows_the_rules(name):
    spec = CATALOG.get(name)
    layout = interface_layout(spec, efa=True)
    slots = [(interface.network_card_index, interface.device_index) for interface in layout]
    cards = {card.index: card for card in spec.network_cards}
    assert len(set(slots)) == len(slots), "a (card, device) slot is used twice"
    assert [i for i in layout if (i.network_card_index, i.device_index) == (0, 0)] == [PRIMARY]
    assert len(efa_cards(layout)) == len(set(efa_cards(layout))), "two EFAs on one card"
    assert all(cards[card].supports_efa for card in efa_cards(layout))
    assert efa_count(layout) <= spec.max_efa_interfaces
    for index, card in cards.items():
        assert sum(1 for i in layout if i.network_card_index == index) <= card.max_interfaces
