"""Auto Scaling as moto answers it, over HTTP on localhost: what the checker's standard-library client talks to.

moto's `ThreadedMotoServer` needs Flask (`moto[server]`), which the dev environment doesn't install, so
this bridge is a standard-library HTTP server that hands each request, its headers and body untouched, to
moto's own request handler (`moto.core.models.botocore_stubber`, where boto3's requests land under
`mock_aws`). With moto's IAM checks on (`set_initial_no_auth_action_count(0)`), moto recomputes the
request's Signature Version 4 with botocore over the headers it was sent and refuses a wrong one
(SignatureDoesNotMatch), a key it never issued, or an action the caller's policies don't allow
(AccessDenied): the checker's signing is held to AWS's algorithm by code it shares nothing with.

The account holds one Auto Scaling group named and tagged the way EKS makes a managed node group's
(`eks-<node group>-<id>`, `eks:cluster-name`, `eks:nodegroup-name`), one instance in it, and a role the
test assumes through moto's STS: the temporary credentials EKS Pod Identity would hand the checker.

    with moto_autoscaling("us-east-1", allowed=True) as account:
        account.authenticated(set_instance_health, account.instance_id, "us-east-1", account.credentials, account.endpoint)
        assert account.health() == "Unhealthy"
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
from botocore.awsrequest import AWSPreparedRequest
from moto import mock_aws
from moto.core import set_initial_no_auth_action_count
from moto.core.models import botocore_stubber

from acceptance.sigv4 import Credentials

CLUSTER = "fabric-test"
NODE_GROUP = "gpu-za-gpu"


class _Bridge(BaseHTTPRequestHandler):
    """Passes a request to moto as if boto3 had sent it to Auto Scaling's regional endpoint; writes moto's answer back."""

    region = "us-east-1"

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = dict(self.headers.items())  # Host stays what the client signed
        request = AWSPreparedRequest("POST", f"https://autoscaling.{self.region}.amazonaws.com/", headers, body, False)
        answer = botocore_stubber("before-send.auto-scaling.SetInstanceHealth", request)
        assert answer is not None, "moto didn't take the request: is mock_aws active?"
        self.send_response(answer.status_code)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    def log_message(self, *args: object) -> None:
        return None


@dataclass
class MotoAutoScaling:
    """The account a test acts on: the bridge's endpoint, the group's instance, and the role's session credentials."""

    region: str
    endpoint: str
    instance_id: str
    group: str
    credentials: Credentials

    def health(self) -> str:
        """The instance's health as Auto Scaling reports it (`Healthy` or `Unhealthy`)."""
        [instance] = boto3.client("autoscaling", self.region).describe_auto_scaling_instances(InstanceIds=[self.instance_id])["AutoScalingInstances"]
        return str(instance["HealthStatus"])

    @staticmethod
    def authenticated(function: Callable[..., Any], *args: Any) -> Any:
        """Call `function` with moto checking every request's signature and permissions."""
        return set_initial_no_auth_action_count(0)(function)(*args)


def _group(region: str) -> tuple[str, str]:
    """An EKS-style group of one instance: its name and the instance's id."""
    ec2, autoscaling = boto3.client("ec2", region), boto3.client("autoscaling", region)
    image = ec2.describe_images()["Images"][0]["ImageId"]
    ec2.create_launch_template(LaunchTemplateName="nodes", LaunchTemplateData={"ImageId": image, "InstanceType": "p5.48xlarge"})
    name = f"eks-{NODE_GROUP}-6ac7a9ef-0d4f-1b2e-9b36-5c3f0a1e2d4b"
    tags = [{"Key": "eks:cluster-name", "Value": CLUSTER}, {"Key": "eks:nodegroup-name", "Value": NODE_GROUP}]
    autoscaling.create_auto_scaling_group(
        AutoScalingGroupName=name,
        MinSize=1,
        MaxSize=1,
        DesiredCapacity=1,
        LaunchTemplate={"LaunchTemplateName": "nodes"},
        AvailabilityZones=[f"{region}a"],
        Tags=[{**tag, "PropagateAtLaunch": True} for tag in tags],
    )
    [instance] = autoscaling.describe_auto_scaling_instances()["AutoScalingInstances"]
    return name, str(instance["InstanceId"])


def _session(region: str, allowed: bool) -> Credentials:
    """Temporary credentials of a role allowed SetInstanceHealth (or only a read), from moto's STS."""
    iam, sts = boto3.client("iam", region), boto3.client("sts", region)
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName="railyard-acceptance", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    action = "autoscaling:SetInstanceHealth" if allowed else "autoscaling:DescribeAutoScalingGroups"
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": action, "Resource": "*"}]}
    iam.put_role_policy(RoleName="railyard-acceptance", PolicyName="replace", PolicyDocument=json.dumps(policy))
    found = sts.assume_role(RoleArn=role["Arn"], RoleSessionName="eks-fabric-test-checker")["Credentials"]
    return Credentials(found["AccessKeyId"], found["SecretAccessKey"], found["SessionToken"], found["Expiration"].isoformat())


@contextmanager
def moto_autoscaling(region: str = "us-east-1", allowed: bool = True) -> Iterator[MotoAutoScaling]:
    """moto's account with the group, the instance and the role's session, and the bridge listening on 127.0.0.1."""
    with mock_aws():
        group, instance = _group(region)
        credentials = _session(region, allowed)
        handler = type("Bridge", (_Bridge,), {"region": region})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield MotoAutoScaling(region, f"http://127.0.0.1:{server.server_address[1]}/", instance, group, credentials)
        finally:
            server.shutdown()
            thread.join()
