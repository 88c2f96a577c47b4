"""The checker's one AWS call, with the standard library: credentials from EKS Pod Identity, then SetInstanceHealth.

**Credentials.** EKS Pod Identity sets two variables in a pod whose service account has an
association (AWS SDKs and Tools Reference Guide, "Container credential provider",
https://docs.aws.amazon.com/sdkref/latest/guide/feature-container-credentials.html):
`AWS_CONTAINER_CREDENTIALS_FULL_URI` (the node's Pod Identity agent) and
`AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (the pod's projected token). The protocol is botocore's
`ContainerProvider` and `ContainerMetadataFetcher` (botocore 1.44.5, `credentials.py`, `utils.py`):
GET the URI with the token, read whole from the file (or `AWS_CONTAINER_AUTHORIZATION_TOKEN`), as
the `Authorization` header, and read JSON `AccessKeyId`, `SecretAccessKey`, `Token`, `Expiration`. As
botocore does, the token is refused if it holds a line break, and the URI must be https, a loopback
address or one of the container hosts (169.254.170.2, 169.254.170.23, fd00:ec2::23, localhost), so
the token is never sent anywhere else. A node's agent can start after the checker: the GET is tried
`ATTEMPTS` times, `WAIT_SECONDS` apart.

**The call.** Auto Scaling's query API (botocore's `autoscaling` 2011-01-01 model: protocol `query`,
`SetInstanceHealth` is `POST /`): the form `Action=SetInstanceHealth&Version=2011-01-01&InstanceId=…
&HealthStatus=Unhealthy&ShouldRespectGracePeriod=false`, signed with Signature Version 4
(`acceptance/sigv4.py`, service `autoscaling`) at `https://autoscaling.<region>.<suffix>/` (botocore's
endpoints.json: `{service}.{region}.{dnsSuffix}`, `amazonaws.com.cn` in China). `Unhealthy` makes Auto
Scaling terminate the instance and launch a replacement; `ShouldRespectGracePeriod=false` acts at once
rather than after the group's health-check grace period (API Reference, SetInstanceHealth). An
error answers XML `ErrorResponse/Error/{Code,Message}`; `AwsError` carries the HTTP status, code and message.
"""

from __future__ import annotations

import ipaddress
import json
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Mapping
from datetime import datetime

from acceptance.sigv4 import Credentials, sign

FULL_URI = "AWS_CONTAINER_CREDENTIALS_FULL_URI"
TOKEN_FILE = "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"
TOKEN = "AWS_CONTAINER_AUTHORIZATION_TOKEN"
CONTAINER_HOSTS = ("169.254.170.2", "169.254.170.23", "fd00:ec2::23", "localhost")
ATTEMPTS = 6
WAIT_SECONDS = 5.0
TIMEOUT_SECONDS = 10
FORM = "application/x-www-form-urlencoded; charset=utf-8"


class AwsError(RuntimeError):
    """An AWS request failed: what was asked, the HTTP status (0: no answer), AWS's error code and message."""

    def __init__(self, what: str, status: int, code: str, message: str):
        super().__init__(f"{what}: HTTP {status}: {code}: {message}" if status else f"{what}: {message}")
        self.status, self.code = status, code


def _token(environ: Mapping[str, str]) -> str | None:
    """The authorization token: the file's whole text (as botocore reads it), else the variable, else none."""
    token: str | None
    if TOKEN_FILE in environ:
        with open(environ[TOKEN_FILE], encoding="utf-8") as file:
            token = file.read()
    else:
        token = environ.get(TOKEN)
    if token is not None and ("\r" in token or "\n" in token):
        raise AwsError("container credentials", 0, "", "the authorization token holds a line break, which no header may carry")
    return token


def _allowed(uri: str) -> bool:
    """Whether the credentials URI may receive the token: https, a loopback address, or a container host."""
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme == "https":
        return True
    host = parts.hostname or ""
    try:
        return ipaddress.ip_address(host).is_loopback or host in CONTAINER_HOSTS
    except ValueError:
        return host in CONTAINER_HOSTS


def container_credentials(environ: Mapping[str, str], sleep: Callable[[float], None] = time.sleep) -> Credentials:
    """The pod's credentials from its container credentials endpoint (EKS Pod Identity's agent); `AwsError` when there are none."""
    uri = environ.get(FULL_URI)
    if not uri:
        raise AwsError("container credentials", 0, "", f"{FULL_URI} is unset: the pod has no EKS Pod Identity association")
    if not _allowed(uri):
        raise AwsError("container credentials", 0, "", f"{FULL_URI} {uri!r} is not https, a loopback address or one of {', '.join(CONTAINER_HOSTS)}")
    headers = {"Accept": "application/json"}
    token = _token(environ)
    if token is not None:
        headers["Authorization"] = token
    # No proxy, ever: the token is for the node's agent alone, whatever HTTP_PROXY the image sets.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with opener.open(urllib.request.Request(uri, headers=headers), timeout=TIMEOUT_SECONDS) as answer:
                document = json.loads(answer.read())
            return Credentials(document["AccessKeyId"], document["SecretAccessKey"], document.get("Token"), document.get("Expiration"))
        except urllib.error.HTTPError as exc:
            failure = AwsError(f"GET {uri}", exc.code, "", exc.read().decode(errors="replace")[:300])
        except (urllib.error.URLError, OSError) as exc:
            failure = AwsError(f"GET {uri}", 0, "", f"no answer: {getattr(exc, 'reason', exc)}")
        except (ValueError, KeyError, TypeError) as exc:
            failure = AwsError(f"GET {uri}", 200, "", f"not the credentials JSON (AccessKeyId, SecretAccessKey): {exc!r}")
        if attempt < ATTEMPTS:
            sleep(WAIT_SECONDS)
    raise failure


def autoscaling_endpoint(region: str) -> str:
    """Auto Scaling's regional endpoint (botocore endpoints.json: `{service}.{region}.{dnsSuffix}`)."""
    suffix = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
    return f"https://autoscaling.{region}.{suffix}/"


def _error(text: str) -> tuple[str, str]:
    """(Code, Message) of a query API's `ErrorResponse`, whatever its namespace; ("", the text) when it is not one."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return "", text[:300]
    found = {element.tag.rsplit("}", 1)[-1]: (element.text or "") for element in root.iter()}
    return found.get("Code", ""), found.get("Message", text[:300])


def set_instance_health(instance_id: str, region: str, credentials: Credentials, endpoint: str | None = None, now: datetime | None = None) -> None:
    """Mark `instance_id` Unhealthy in its Auto Scaling group, not waiting out the grace period; `AwsError` when AWS refuses."""
    url = endpoint or autoscaling_endpoint(region)
    form = {"Action": "SetInstanceHealth", "Version": "2011-01-01", "InstanceId": instance_id, "HealthStatus": "Unhealthy"}
    body = urllib.parse.urlencode(form | {"ShouldRespectGracePeriod": "false"}).encode()
    headers = sign("POST", url, body, {"Content-Type": FORM}, credentials, region, "autoscaling", now)
    what = f"SetInstanceHealth {instance_id} Unhealthy at {url}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers, method="POST"), timeout=30):
            return
    except urllib.error.HTTPError as exc:
        code, message = _error(exc.read().decode(errors="replace"))
        raise AwsError(what, exc.code, code, message) from None
    except (urllib.error.URLError, OSError) as exc:
        raise AwsError(what, 0, "", f"no answer: {getattr(exc, 'reason', exc)}") from None
