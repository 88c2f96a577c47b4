"""Which attributes of a terraform-provider-aws resource force a new resource, read from its Go source.

pulumi-aws is bridged from terraform-provider-aws: the bridge turns each
attribute's `ForceNew: true` (SDKv2) or `RequiresReplace()` plan modifier
(Plugin Framework) into the schema's `willReplaceOnChanges`, and at diff time
the provider replaces a resource when such an attribute changes. A
`CustomizeDiff` that calls `d.ForceNew("x")` (or `customdiff.ForceNewIf*`)
replaces only on some changes (a Lustre capacity decrease); those attributes are
`conditional`, which no schema can show.

This reads the source the way a reviewer does, not the way Go does: it walks
the composite literals of a resource's schema, by brace, and never runs Go.
What it can't resolve it reports, so the table built from it says what it
doesn't know instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import field
from pathlib import Path

from blueprints.records import record
from railyard.change.go_source import FUNC, Group, Package, first_map, flat, grouped, map_entries, map_key, resolve, struct_fields, tokens

REPLACE = "replace"
CONDITIONAL = "conditional"
UPDATE = "update"

_SDK_ANNOTATION = re.compile(r'//\s*@SDKResource\("(aws_[a-z0-9_]+)"')
# A framework resource names itself in its annotation (newer files) or in its Metadata method (older ones).
_FRAMEWORK_NAME = re.compile(r'@FrameworkResource\("(aws_[a-z0-9_]+)"|TypeName\s*=\s*"(aws_[a-z0-9_]+)"')
# The attribute a CustomizeDiff call names: a string literal or a `names.Attr*` constant.
_NAMED = r'\(\s*("[a-z0-9_.]+"|names\.Attr[A-Za-z0-9]+)'
_FORCE_NEW_CALL = re.compile(r"(?:\.ForceNew|customdiff\.ForceNewIf(?:Change)?)" + _NAMED)
_RECOMPUTED_CALL = re.compile(r"(?:customdiff\.ComputedIf|\.SetNewComputed)" + _NAMED)
# A framework ModifyPlan that decides replacement itself: `response.RequiresReplace = ...path.Root(...)...`.
_PLAN_REPLACES = re.compile(r"\.RequiresReplace\s*=[^\n]*")
_PATH_ROOT = re.compile(r'path\.Root\(\s*("[a-z0-9_]+"|names\.Attr[A-Za-z0-9]+)?')
_SDK_MAP = ("map", "[", "string", "]", "*schema.Schema")
_FRAMEWORK_MAPS = (("map", "[", "string", "]", "schema.Attribute"), ("map", "[", "string", "]", "schema.Block"))


@record(frozen=False)
class ResourceSchema:
    """One resource's attributes (dotted paths, Terraform's names) with their effect, and what could not be read."""

    terraform_name: str
    file: str
    attributes: dict[str, str] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)
    # Computed attributes the provider marks unknown when the resource changes (`customdiff.ComputedIf`):
    # an in-place update gives them new values, which flow on to every resource that reads them.
    recomputed: list[str] = field(default_factory=list)
    # Attributes both Optional and Computed: removed from the config they make no diff (the SDK's `diffString`:
    # "if removed && schema.Computed { return nil }"; a framework attribute keeps its state value the same way).
    optional_computed: list[str] = field(default_factory=list)


def _attribute_literal(value: list, package: Package) -> Group | None:
    """An attribute's struct literal: written inline, or returned by a helper (`tftags.TagsSchema()`) or held by a package variable.

    Helpers are followed through a few hops: a variable holding `sync.OnceValue(func() *schema.Schema { return &schema.Schema{...} })`,
    or a function returning a function that returns the literal.
    """
    for _ in range(6):
        inline = next((item for item in value if isinstance(item, Group)), None)
        if inline is not None and inline[:1] != ["return"]:
            return inline
        if inline is not None:  # a function literal's body: `return &schema.Schema{...}`
            value = inline[1:]
            continue
        found = resolve(value, package)
        if found is None:
            return None
        value, package = found
    return None


def _attributes(body: Group, prefix: str, package: Package, out: ResourceSchema) -> Iterator[tuple[str, Group, dict[str, list]]]:
    """Each attribute of a schema map: its path, struct literal and fields; one that can't be resolved goes to `out.unresolved`."""
    unnamed: list[str] = []
    for name, value in map_entries(body, package, unnamed):
        literal = _attribute_literal(value, package)
        if literal is None:
            out.unresolved.append(prefix + name)
        else:
            yield prefix + name, literal, struct_fields(literal)
    out.unresolved.extend(prefix + name for name in unnamed)


def _note_optional_computed(path: str, fields: dict[str, list], out: ResourceSchema) -> None:
    """Record `path` when its literal says both `Optional: true` and `Computed: true`."""
    if fields.get("Optional") == ["true"] and fields.get("Computed") == ["true"]:
        out.optional_computed.append(path)


def _sdk_attributes(body: Group, prefix: str, package: Package, out: ResourceSchema, depth: int = 0) -> None:
    for path, _, fields in _attributes(body, prefix, package, out):
        out.attributes[path] = REPLACE if fields.get("ForceNew") == ["true"] else UPDATE
        _note_optional_computed(path, fields, out)
        elem = fields.get("Elem")
        if elem is None or depth > 8:
            continue
        nested = first_map(elem, (_SDK_MAP,)) or _schema_of(elem, package)
        if not nested and "&schema.Resource" in flat(elem):
            out.unresolved.append(path + ".*")
        for group in nested[:1]:
            _sdk_attributes(group, path + ".", package, out, depth + 1)


def _schema_of(value: list, package: Package, hops: int = 0) -> list[Group]:
    """The schema map behind `&schema.Resource{Schema: helper()}`, `helper()` or a package variable."""
    inner = next((item for item in value if isinstance(item, Group)), None)
    fields = struct_fields(inner) if inner is not None else {}
    target = fields.get("Schema") or fields.get("SchemaFunc") or (value if inner is None else None)
    found = resolve(target, package) if target and hops < 6 else None
    if found is None:
        return []
    resolved, owner = found
    return first_map(resolved, (_SDK_MAP,)) or _schema_of(resolved, owner, hops + 1)


def _framework_attributes(body: Group, prefix: str, package: Package, out: ResourceSchema, depth: int = 0) -> None:
    for path, literal, fields in _attributes(body, prefix, package, out):
        modifiers = flat(fields.get("PlanModifiers", []))
        replaces = any(token.endswith(("RequiresReplace", "RequiresReplaceIfConfigured")) for token in modifiers)
        conditional = any(token.endswith("RequiresReplaceIf") for token in modifiers)
        out.attributes[path] = REPLACE if replaces else CONDITIONAL if conditional else UPDATE
        _note_optional_computed(path, fields, out)
        if depth > 8:
            continue
        for nested in first_map(literal, _FRAMEWORK_MAPS):
            _framework_attributes(nested, path + ".", package, out, depth + 1)


def _normal(path: str) -> str:
    """`launch_template.0.version` -> `launch_template.version`: Terraform's list indexes dropped."""
    return ".".join(part for part in path.split(".") if not part.isdigit())


def _mark_customized(source: str, out: ResourceSchema, package: Package) -> None:
    """What the resource decides at diff time: conditional replacements and recomputed attributes from its CustomizeDiff,
    and replacements a framework resource's ModifyPlan asks for (`response.RequiresReplace = ...`). A call whose
    attribute can't be named (`path.Root(old)`, an undeclared constant) is reported under `unresolved`.
    """
    named = {
        call: [(match.group(1), map_key(match.group(1), package)) for match in call.finditer(source)] for call in (_FORCE_NEW_CALL, _RECOMPUTED_CALL)
    }
    out.unresolved.extend("CustomizeDiff: " + written for calls in named.values() for written, name in calls if name is None)
    for _, name in named[_FORCE_NEW_CALL]:
        if name is not None and out.attributes.get(_normal(name)) != REPLACE:
            out.attributes[_normal(name)] = CONDITIONAL
    out.recomputed = sorted({name for _, name in named[_RECOMPUTED_CALL] if name is not None} - {"tags_all"})
    for assignment in _PLAN_REPLACES.finditer(source):
        written = assignment.group(0).split("=", 1)[1].strip()
        paths = [map_key(root.group(1), package) if root.group(1) else None for root in _PATH_ROOT.finditer(written)]
        if not paths or None in paths:
            out.unresolved.append("ModifyPlan: " + written)
        for path in filter(None, paths):
            if out.attributes.get(path) != REPLACE:
                out.attributes[path] = CONDITIONAL


def _schema_source(source: str, package: Package) -> str:
    """The source holding a framework resource's Schema: its own file's, or, when its struct only embeds another
    (`securityGroupEgressRuleResource struct { securityGroupRuleResource }`), the file that defines the embedded one's."""
    if re.search(r"^func\s+\([^)]*\)\s*Schema\s*\(", source, re.M):
        return source
    embedded = re.search(r"^type\s+\w+\s+struct\s*\{\s*(\w+)\s*\}", source, re.M)
    if embedded is None:
        return source
    method = re.compile(rf"^func\s+\(\w*\s*\*?{embedded.group(1)}\)\s*Schema\s*\(", re.M)
    return next((text for text in package.files.values() if method.search(text)), source)


def read_resource(file: Path, terraform_name: str, package: Package | None = None) -> ResourceSchema:
    """The schema of `terraform_name`, defined in `file` (SDKv2 or Plugin Framework)."""
    package = package or Package(file.parent)
    source = package.files.get(file) or file.read_text(encoding="utf-8")
    out = ResourceSchema(terraform_name, str(file.relative_to(package.root)) if package.root else file.name)
    annotation = next((match for match in _SDK_ANNOTATION.finditer(source) if match.group(1) == terraform_name), None)
    if annotation is not None:
        function = FUNC.search(source, annotation.end())
        found = package.declaration(function.group(1)) if function else None
        body = found if isinstance(found, Group) else None
        maps = (first_map(body, (_SDK_MAP,)) or _schema_of(body, package)) if body is not None else []
        if not maps:
            out.unresolved.append("*")
            return out
        _sdk_attributes(maps[0], "", package, out)
    else:
        source = _schema_source(source, package)
        schema_method = re.search(r"^func\s+\([^)]*\)\s*Schema\s*\(", source, re.M)
        start = schema_method.start() if schema_method else 0
        following = FUNC.search(source, schema_method.end()) if schema_method else None
        body = grouped(tokens(source[start : following.start() if following else len(source)]))
        maps = first_map(body, _FRAMEWORK_MAPS)
        if not maps:
            out.unresolved.append("*")
            return out
        for group in maps:
            _framework_attributes(group, "", package, out)
    _mark_customized(source, out, package)
    return out


def _declared(root: Path) -> Iterator[tuple[str, Path]]:
    """Every resource name declared under `root/internal/service`, with its file: SDK annotations, then framework names."""
    for path in sorted((root / "internal" / "service").glob("*/*.go")):
        if path.name.endswith("_test.go"):
            continue
        text = path.read_text(encoding="utf-8")
        for match in _SDK_ANNOTATION.finditer(text):
            yield match.group(1), path
        if "@FrameworkResource" in text:
            for match in _FRAMEWORK_NAME.finditer(text):
                yield match.group(1) or match.group(2), path


def resource_names(root: Path) -> set[str]:
    """Every Terraform resource name defined under `root/internal/service`."""
    return {name for name, _ in _declared(root)}


def find_resources(root: Path, wanted: set[str]) -> dict[str, Path]:
    """Where each wanted Terraform resource is defined under `root/internal/service`."""
    found: dict[str, Path] = {}
    for name, path in _declared(root):
        if name in wanted:
            found.setdefault(name, path)
    return found


def read_resources(root: Path, wanted: set[str]) -> dict[str, ResourceSchema]:
    """The schemas of every wanted resource found under `root` (a terraform-provider-aws checkout)."""
    packages: dict[Path, Package] = {}
    schemas = {}
    for name, path in sorted(find_resources(root, wanted).items()):
        if path.parent not in packages:
            packages[path.parent] = Package(path.parent, root, packages)
        package = packages[path.parent]
        schemas[name] = read_resource(path, name, package)
    return schemas
