"""The Pulumi program (`pulumi up --stack dev`): the stack's blueprint, validated, then compiled.

`Pulumi.<stack>.yaml` names the blueprint (`railyard:blueprint`) and its
overrides (`railyard:overrides`). Any error finding stops the run before a
single resource is registered. `python -m railyard preview` runs the same
program offline.
"""

from pathlib import Path

import pulumi

from railyard.program import deploy

deploy(stack=pulumi.get_stack(), project_dir=Path(__file__).parent)
