"""AL2023 user data: a MIME multi-part document with a nodeadm NodeConfig (no Pulumi)."""

import base64
import email

import yaml

from components.plan.user_data import encoded_user_data, node_config


def parts(encoded):
    message = email.message_from_string(base64.b64decode(encoded).decode())
    assert message.is_multipart()
    return message.get_payload()


def test_raid0_user_data_is_one_nodeconfig_part():
    (part,) = parts(encoded_user_data(raid0=True))
    assert part.get_content_type() == "application/node.eks.aws"
    config = yaml.safe_load(part.get_payload())
    assert config["kind"] == "NodeConfig" and config["apiVersion"] == "node.eks.aws/v1alpha1"
    assert config["spec"] == {"instance": {"localStorage": {"strategy": "RAID0"}}}


def test_a_custom_mount_path_is_passed_on():
    config = yaml.safe_load(node_config(True, "/scratch"))
    assert config["spec"]["instance"]["localStorage"] == {"strategy": "RAID0", "mountPath": "/scratch"}


def test_no_local_disks_no_user_data():
    assert encoded_user_data(raid0=False) is None
