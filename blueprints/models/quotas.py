"""Service quotas the account has already raised: `quotas: {L-BD136A63: 1000}`.

railyard plans against AWS's default quotas (`blueprints/catalog/quotas.yaml`)
unless the blueprint declares a raised value here, by the quota's code as the
Service Quotas console shows it. `railyard validate` lists every quota the
design needs against what it has (the quota plan), and refuses a design
that needs more.
"""

from typing import Annotated

from pydantic import Field, StringConstraints

QuotaCode = Annotated[str, StringConstraints(pattern=r"^L-[0-9A-F]{8}$")]
# Service Quotas' own bounds on a quota's value (botocore 1.44.5, service-quotas 2019-06-24, shape QuotaValue:
# min 0, max 10000000000); a quota's own least value is `blueprints.rules.quota_values`'s.
MOST_QUOTA = 10_000_000_000

Quotas = Annotated[
    dict[QuotaCode, Annotated[int, Field(ge=0, le=MOST_QUOTA)]],
    Field(description="Quota values this account already has above AWS's defaults, by code (L-BD136A63: 1000)."),
]
