"""Terraform attribute paths under the names the Pulumi engine sees, read from the installed pulumi_aws SDK.

The bridge names each Pulumi property after its Terraform attribute
(`per_unit_storage_throughput` -> `perUnitStorageThroughput`) and pluralises
list blocks (`taint` -> `taints`); the SDK's generated `Args` classes carry
the exact wire name on every property getter (`@pulumi.getter(name=...)`).
Walking them maps a Terraform path to the wire path a `RegisterResource`
request uses, and says when a name has no counterpart instead of inventing one.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys

import pulumi

_ARGS_NAME = re.compile(r"ForwardRef\('([A-Za-z0-9_]+Args)'\)")


def _module_and_class(type_token: str) -> tuple[str, str]:
    """`aws:fsx/lustreFileSystem:LustreFileSystem` -> (`pulumi_aws.fsx`, `LustreFileSystemArgs`)."""
    _, module_path, name = type_token.split(":")
    module = module_path.split("/", 1)[0]
    return ("pulumi_aws" if module == "index" else f"pulumi_aws.{module}"), f"{name}Args"


def _class(module: str, class_name: str) -> type | None:
    """A class of the SDK; a resource's own Args class from the resource's module, since a nested type may share its name."""
    package = importlib.import_module(module)
    resource = getattr(package, class_name.removesuffix("Args"), None) if class_name.endswith("Args") else None
    if isinstance(resource, type) and issubclass(resource, pulumi.CustomResource):
        # The SDK calls a resource's args `<Name>InitArgs` when a nested type already has `<Name>Args`.
        home = sys.modules[resource.__module__]
        for candidate in (class_name.removesuffix("Args") + "InitArgs", class_name):
            own = getattr(home, candidate, None)
            if own is not None and own.__module__ == resource.__module__:
                return own
    return getattr(package, class_name, None)


@functools.cache
def _properties(module: str, class_name: str) -> dict[str, tuple[str, str | None]]:
    """An Args class's properties: python name -> (wire name, the Args class of its elements or None)."""
    cls = _class(module, class_name)
    if cls is None:
        return {}
    found = {}
    for python_name, member in inspect.getmembers(cls, lambda item: isinstance(item, property)):
        getter = member.fget
        wire = getattr(getter, "_pulumi_name", None) or python_name
        nested = _ARGS_NAME.search(str(inspect.signature(getter).return_annotation))
        found[python_name] = (wire, nested.group(1) if nested else None)
    return found


def wire_path(type_token: str, terraform_path: str) -> str | None:
    """The wire path of a Terraform attribute path (`launch_template.version` -> `launchTemplate.version`); None when the SDK has no such property."""
    module, class_name = _module_and_class(type_token)
    names = []
    current: str | None = class_name
    for part in terraform_path.split("."):
        properties = _properties(module, current) if current else {}
        match = properties.get(part) or properties.get(part + "s") or properties.get(part + "es")
        if match is None:
            return None
        names.append(match[0])
        current = match[1]
    return ".".join(names)


def sdk_has(type_token: str) -> bool:
    """True when the installed pulumi_aws has an Args class for this resource type."""
    module, class_name = _module_and_class(type_token)
    try:
        return bool(_properties(module, class_name))
    except ImportError:
        return False


def top_level_inputs(type_token: str) -> dict[str, str]:
    """Every top-level input of a resource type: wire name -> python name."""
    module, class_name = _module_and_class(type_token)
    return {wire: python for python, (wire, _) in _properties(module, class_name).items()}


def resource_output(type_token: str, attribute: str) -> str | None:
    """The wire name of a resource's output attribute (`latest_version` -> `latestVersion`), or None."""
    module, class_name = _module_and_class(type_token)
    match = _properties(module, class_name.removesuffix("Args")).get(attribute)
    return match[0] if match else None
