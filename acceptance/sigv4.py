"""AWS Signature Version 4, with hashlib and hmac: how the checker signs its one AWS request.

The steps are AWS's (IAM User Guide, "Create a signed AWS API request",
https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html):

1. the canonical request: method, URI path, canonical query, the signed headers (names lowercased and
   sorted, values trimmed with inner runs of spaces made one), the list of their names, and the
   payload's SHA-256 in hex;
2. the string to sign: `AWS4-HMAC-SHA256`, the timestamp, the credential scope
   (`<date>/<region>/<service>/aws4_request`) and the canonical request's SHA-256;
3. the signing key: HMAC-SHA256 from `AWS4` + the secret key through the date, the region, the
   service and `aws4_request`; the signature is that key's HMAC of the string to sign, in hex.

A session's token goes in `X-Amz-Security-Token` and is signed with the rest. The headers this signs
are exactly the ones it is given plus `Host` and `X-Amz-Date`, the way botocore's `SigV4Auth` signs
them; tests/acceptance/test_replace_aws.py holds the two to the same Authorization header. botocore
itself was weighed and lost: the checker is standard library only, so it runs from a ConfigMap beside
a stock Python image, and one signed POST doesn't need an SDK.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, urlsplit

ALGORITHM = "AWS4-HMAC-SHA256"
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Credentials:
    """An access key, its secret, and the session token temporary credentials carry (EKS Pod Identity's always do)."""

    access_key: str
    secret_key: str
    token: str | None = None
    expiration: str | None = None

    def __repr__(self) -> str:
        # Never print a secret: a traceback or a report that shows credentials shows the key id only.
        return f"Credentials(access_key={self.access_key!r}, expiration={self.expiration!r})"


def host_of(url: str) -> str:
    """The `Host` a URL is sent with: its host in lower case, with the port only where it isn't the scheme's default."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None and parts.port != DEFAULT_PORTS.get(parts.scheme):
        host = f"{host}:{parts.port}"
    return host


def _canonical_query(query: str) -> str:
    """The query's `key=value` pairs sorted by key, then value (the query is already URI-encoded)."""
    pairs = [pair.partition("=") for pair in query.split("&") if pair]
    return "&".join(f"{key}={value}" for key, _, value in sorted(pairs))


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).digest()


def signing_key(secret_key: str, date: str, region: str, service: str) -> bytes:
    """The key that signs one day's requests to one service in one region."""
    key = _hmac(f"AWS4{secret_key}".encode(), date)
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    return key


def sign(
    method: str,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    credentials: Credentials,
    region: str,
    service: str,
    now: datetime | None = None,
) -> dict[str, str]:
    """`headers` with `Host`, `X-Amz-Date`, `X-Amz-Security-Token` (with a session token) and `Authorization` added.

    Every header given is signed, so send exactly the headers this returns.
    """
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    signed = {**headers, "Host": host_of(url), "X-Amz-Date": stamp}
    if credentials.token:
        signed["X-Amz-Security-Token"] = credentials.token
    canonical_headers = {name.lower(): " ".join(str(value).split()) for name, value in signed.items()}
    names = sorted(canonical_headers)
    parts = urlsplit(url)
    canonical_request = "\n".join(
        [
            method.upper(),
            quote(parts.path or "/", safe="/~"),
            _canonical_query(parts.query),
            "".join(f"{name}:{canonical_headers[name]}\n" for name in names),
            ";".join(names),
            hashlib.sha256(body).hexdigest(),
        ]
    )
    scope = f"{stamp[:8]}/{region}/{service}/aws4_request"
    string_to_sign = "\n".join([ALGORITHM, stamp, scope, hashlib.sha256(canonical_request.encode("utf-8")).hexdigest()])
    key = signing_key(credentials.secret_key, stamp[:8], region, service)
    signature = hmac.new(key, string_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    signed["Authorization"] = f"{ALGORITHM} Credential={credentials.access_key}/{scope}, SignedHeaders={';'.join(names)}, Signature={signature}"
    return signed
