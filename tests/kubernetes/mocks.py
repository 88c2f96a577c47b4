"""Pulumi mocks that record every resource a program registers, for the layer's tests.

`run_program(build)` sets the mocks, runs `build()` inside a
`@pulumi.runtime.test` function and returns the recorded resources, so a test
asserts on types, names and inputs exactly as the engine would see them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi


@dataclass(frozen=True)
class Recorded:
    """One resource as the engine saw it: type token, name, inputs (camelCase)."""

    type: str
    name: str
    inputs: dict


class RecordingMocks(pulumi.runtime.Mocks):
    """Mocks that echo inputs as outputs and keep a list of what was registered."""

    def __init__(self):
        self.resources: list[Recorded] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.resources.append(Recorded(args.typ, args.name, dict(args.inputs)))
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs):
        raise AssertionError(f"unexpected provider call {args.token}: nothing may be fetched in a preview")


def run_program(build) -> list[Recorded]:
    """Run `build()` under recording mocks (preview mode) and return every registered resource."""
    mocks = RecordingMocks()
    pulumi.runtime.set_mocks(mocks, preview=True)
    holder = {}

    @pulumi.runtime.test
    def program():
        holder["result"] = build()
        return pulumi.Output.from_input(None)

    program()
    return mocks.resources
