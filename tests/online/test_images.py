"""`validate --online` holds each custom AMI a pool names to the image the account has (moto)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ec2.models import ec2_backends

from railyard.online import validate_online
from railyard.pipeline import validate
from tests.online.conftest import ROOT, variant
from tests.online.moto_account import MotoAccount, moto_account

DEV = ROOT / "blueprints" / "examples" / "dev-g6e.yaml"  # one g6e.xlarge (x86_64) in us-west-2


@pytest.fixture
def us_west_2(monkeypatch: pytest.MonkeyPatch) -> Iterator[MotoAccount]:
    with moto_account("us-west-2", monkeypatch) as account:
        yield account


def _image(account: MotoAccount, architecture: str) -> str:
    ec2 = account.session().client("ec2")
    image = ec2.register_image(Name=f"team-al2023-gpu-{architecture}", Architecture=architecture, RootDeviceName="/dev/xvda")["ImageId"]
    # moto's RegisterImage keeps no architecture; EC2's does, and DescribeImages returns it.
    ec2_backends[DEFAULT_ACCOUNT_ID]["us-west-2"].amis[image].architecture = architecture
    return image


def _checked(account: MotoAccount, tmp_path, ami: str):
    path = variant(tmp_path, DEV, ("    instance_type: g6e.xlarge\n", f"    instance_type: g6e.xlarge\n    ami_id: {ami}\n"))
    offline = validate(str(path))
    online = validate_online(offline, session=account.session())
    return [f for f in online.findings if f.code.startswith("online.ami")], online


def test_an_available_image_of_the_right_architecture_adds_nothing(us_west_2, tmp_path):
    found, online = _checked(us_west_2, tmp_path, _image(us_west_2, "x86_64"))
    assert found == [] and "images" in online.online.checks


def test_an_image_for_another_architecture_is_unusable(us_west_2, tmp_path):
    ami = _image(us_west_2, "arm64")
    [finding] = _checked(us_west_2, tmp_path, ami)[0]
    assert (finding.code, finding.path_text) == ("online.ami-unusable", "pools[0].ami_id")
    assert "built for arm64, but g6e.xlarge is x86_64" in finding.message


def test_an_image_the_account_does_not_have_is_missing(us_west_2, tmp_path):
    [finding] = _checked(us_west_2, tmp_path, "ami-0123456789abcdef0")[0]
    assert (finding.code, finding.severity) == ("online.ami-missing", "error") and "us-west-2" in finding.message
