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
from dataclasses import dataclass, field
from pathlib import Path

REPLACE = "replace"
CONDITIONAL = "conditional"
UPDATE = "update"

_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`|\'(?:[^\'\\\n]|\\.)+\'|//[^\n]*|/\*.*?\*/|[{}()\[\],:;]|[^\s{}()\[\],:;"`\']+', re.S)
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
_FUNC = re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z0-9_]+)\s*\(", re.M)
_IMPORT = re.compile(r'^\s*(?:([A-Za-z0-9_]+)\s+)?"([^"]+)"\s*$', re.M)
_MODULE = "github.com/hashicorp/terraform-provider-aws/"
_SDK_MAP = ("map", "[", "string", "]", "*schema.Schema")
_FRAMEWORK_MAPS = (("map", "[", "string", "]", "schema.Attribute"), ("map", "[", "string", "]", "schema.Block"))


class Group(list):
    """The tokens between one pair of braces, with nested pairs as nested groups."""


@dataclass
class ResourceSchema:
    """One resource's attributes (dotted paths, Terraform's names) with their effect, and what could not be read."""

    terraform_name: str
    file: str
    attributes: dict[str, str] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)
    # Computed attributes the provider marks unknown when the resource changes (`customdiff.ComputedIf`):
    # an in-place update gives them new values, which flow on to every resource that reads them.
    recomputed: list[str] = field(default_factory=list)


def tokens(source: str) -> list[str]:
    """Go source as tokens, comments dropped."""
    return [token for token in _TOKENS.findall(source) if not token.startswith(("//", "/*"))]


def grouped(flat: list[str]) -> Group:
    """Brace groups nested: `a { b { c } }` becomes ['a', ['b', ['c']]]. Other brackets stay flat tokens."""
    stack = [Group()]
    for token in flat:
        if token == "{":
            stack.append(Group())
        elif token == "}":
            if len(stack) > 1:
                inner = stack.pop()
                stack[-1].append(inner)
        else:
            stack[-1].append(token)
    while len(stack) > 1:  # an unbalanced file: keep what was read
        inner = stack.pop()
        stack[-1].append(inner)
    return stack[0]


def _after(items: list, head: tuple[str, ...]) -> list[Group]:
    """Every group that directly follows the token sequence `head` (a typed composite literal's body).

    A function literal returning that type (`SchemaFunc: func() map[string]*schema.Schema { return map...{} }`)
    stands for the literal it returns.
    """
    found = []
    width = len(head)
    for index in range(len(items) - width):
        group = items[index + width]
        if tuple(item if isinstance(item, str) else None for item in items[index : index + width]) == head and isinstance(group, Group):
            returned = _after(group, head) if group[:1] == ["return"] else []
            found.extend(returned or [group])
    return found


def _key(item: object, package: _Package | None) -> str | None:
    """A map key: a string literal, or a string constant (`names.AttrTags`) the package resolves."""
    if not isinstance(item, str):
        return None
    if item.startswith('"'):
        return item.strip('"')
    found = package.locate(item) if package is not None and "." in item else None
    if found and isinstance(found[0][0], str) and found[0][0].startswith('"'):
        return found[0][0].strip('"')
    return None


def _entries(body: Group, package: _Package | None = None, unresolved: list[str] | None = None) -> list[tuple[str, list]]:
    """A map literal's `"key": value` entries, each value as its items up to the next top-level comma.

    A key that is a constant the package can't resolve (`names.AttrOutpostARN` with no declaration) goes
    to `unresolved` as written, so the attribute is reported missing rather than silently dropped.
    """
    entries: list[tuple[str, list]] = []
    index = 0
    while index < len(body):
        item = body[index]
        key = _key(item, package) if index + 1 < len(body) and body[index + 1] == ":" else None
        if key is not None:
            value, index = _value(body, index + 2)
            entries.append((key, value))
        elif unresolved is not None and isinstance(item, str) and "." in item and body[index + 1 : index + 2] == [":"]:
            unresolved.append(item)
        index += 1
    return entries


def _value(body: Group, index: int) -> tuple[list, int]:
    """The items of one value from `index` up to the next comma outside parentheses (`append(a, b...)` is one value)."""
    value: list = []
    depth = 0
    while index < len(body) and not (body[index] == "," and depth == 0):
        item = body[index]
        depth += 1 if item == "(" else -1 if item == ")" else 0
        value.append(item)
        index += 1
    return value, index


def _fields(body: Group) -> dict[str, list]:
    """A struct literal's `Name: value` fields."""
    fields: dict[str, list] = {}
    index = 0
    while index < len(body):
        item = body[index]
        if isinstance(item, str) and index + 1 < len(body) and body[index + 1] == ":" and not item.startswith('"'):
            fields[item], index = _value(body, index + 2)
        index += 1
    return fields


class _Package:
    """The Go files of one service package, by top-level declaration, for resolving helpers and package variables."""

    def __init__(self, directory: Path, root: Path | None = None, registry: dict[Path, _Package] | None = None):
        self.directory = directory
        self.files = {path: path.read_text(encoding="utf-8") for path in sorted(directory.glob("*.go")) if not path.name.endswith("_test.go")}
        self.root = root
        self.registry = registry if registry is not None else {}
        self.imports = {
            match.group(1) or match.group(2).rsplit("/", 1)[-1]: match.group(2)
            for source in self.files.values()
            for match in _IMPORT.finditer(source)
        }
        self._declarations: dict[str, list] | None = None

    def locate(self, name: str) -> tuple[list, _Package] | None:
        """A declaration by Go name, `local` or `alias.Name` from another package of the provider, with the package
        that declares it (whose own names its body uses)."""
        if "." not in name:
            found = self.declaration(name)
            return (found, self) if found is not None else None
        alias, local = name.split(".", 1)
        module = self.imports.get(alias, "")
        if self.root is None or not module.startswith(_MODULE):
            return None
        directory = self.root / module.removeprefix(_MODULE)
        if directory not in self.registry:
            self.registry[directory] = _Package(directory, self.root, self.registry)
        return self.registry[directory].locate(local)

    def declaration(self, name: str) -> list | None:
        """A function's body group, or a variable's value (its tokens up to its first brace group); None when not in the package.

        The `names` package generates its `Attr*` constants from `attr_constants.csv` (`cidr_block,CIDRBlock`
        declares `AttrCIDRBlock = "cidr_block"`), so a constant the Go files don't declare is read from there.
        """
        if self._declarations is None:
            self._declarations = {}
            for source in self.files.values():
                self._declare(grouped(tokens(source)))
            table = self.directory / "attr_constants.csv"
            rows = table.read_text(encoding="utf-8").splitlines() if table.is_file() else []
            for value, _, suffix in (row.partition(",") for row in rows):
                if suffix.strip():
                    self._declarations.setdefault("Attr" + suffix.strip(), [f'"{value.strip()}"'])
        return self._declarations.get(name)

    def _declare(self, items: Group) -> None:
        assert self._declarations is not None
        index = 0
        while index < len(items):
            item = items[index]
            if item == "func":
                index += 1
                if index < len(items) and items[index] == "(":  # a method's receiver
                    index = items.index(")", index) + 1
                name = items[index] if index < len(items) else ""
                while index < len(items) and not isinstance(items[index], Group):
                    index += 1
                if index < len(items) and isinstance(name, str):
                    self._declarations.setdefault(name, items[index])
            elif isinstance(item, str) and index + 2 < len(items) and items[index + 1] == "=" and item.isidentifier():
                if isinstance(items[index + 2], str) and items[index + 2].startswith('"'):  # a string constant
                    self._declarations.setdefault(item, [items[index + 2]])
                    index += 3
                    continue
                value: list = []
                index += 2
                depth = 0  # inside parentheses (`sync.OnceValue(func() ... {...})`) nothing ends the value
                while index < len(items) and (depth > 0 or not _declaration_ends(items, index)):
                    value.append(items[index])
                    depth += 1 if items[index] == "(" else -1 if items[index] == ")" else 0
                    index += 1
                    if depth == 0 and isinstance(value[-1], Group):
                        break
                self._declarations.setdefault(item, value)
                continue
            index += 1


def _declaration_ends(items: list, index: int) -> bool:
    """True where a new top-level declaration starts (newlines are gone, so by its first tokens)."""
    item = items[index]
    if item in ("func", "var", "const", "type", ")"):
        return True
    return isinstance(item, str) and item.isidentifier() and index + 1 < len(items) and items[index + 1] == "="


def _resolve(value: list, package: _Package) -> tuple[list, _Package] | None:
    """What a value that calls a helper (`fooSchema()`, `sync.OnceValue(fooFunc(x))`) or names a package variable stands for.

    Calls are tried outermost first; one into a package outside the provider (`sync.OnceValue`) is passed over.
    """
    names = [item for index, item in enumerate(value[:-1]) if isinstance(item, str) and value[index + 1] == "("]
    if len(value) == 1:
        names = [value[0]]
    for name in names:
        if isinstance(name, str) and name.replace(".", "_").isidentifier():
            found = package.locate(name)
            if found is not None:
                return found
    return None


def _first_map(items: list, heads: tuple[tuple[str, ...], ...]) -> list[Group]:
    """The map literals of the given types in `items`, searching nested groups breadth-first."""
    queue = [items]
    while queue:
        found = [group for head in heads for group in _after(queue[0], head)]
        if found:
            return found
        queue.extend(item for item in queue.pop(0) if isinstance(item, Group))
    return []


def _attribute_literal(value: list, package: _Package) -> Group | None:
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
        found = _resolve(value, package)
        if found is None:
            return None
        value, package = found
    return None


def _attributes(body: Group, prefix: str, package: _Package, out: ResourceSchema) -> Iterator[tuple[str, Group, dict[str, list]]]:
    """Each attribute of a schema map: its path, struct literal and fields; one that can't be resolved goes to `out.unresolved`."""
    unnamed: list[str] = []
    for name, value in _entries(body, package, unnamed):
        literal = _attribute_literal(value, package)
        if literal is None:
            out.unresolved.append(prefix + name)
        else:
            yield prefix + name, literal, _fields(literal)
    out.unresolved.extend(prefix + name for name in unnamed)


def _sdk_attributes(body: Group, prefix: str, package: _Package, out: ResourceSchema, depth: int = 0) -> None:
    for path, _, fields in _attributes(body, prefix, package, out):
        out.attributes[path] = REPLACE if fields.get("ForceNew") == ["true"] else UPDATE
        elem = fields.get("Elem")
        if elem is None or depth > 8:
            continue
        nested = _first_map(elem, (_SDK_MAP,)) or _schema_of(elem, package)
        if not nested and "&schema.Resource" in _flat(elem):
            out.unresolved.append(path + ".*")
        for group in nested[:1]:
            _sdk_attributes(group, path + ".", package, out, depth + 1)


def _schema_of(value: list, package: _Package, hops: int = 0) -> list[Group]:
    """The schema map behind `&schema.Resource{Schema: helper()}`, `helper()` or a package variable."""
    inner = next((item for item in value if isinstance(item, Group)), None)
    fields = _fields(inner) if inner is not None else {}
    target = fields.get("Schema") or fields.get("SchemaFunc") or (value if inner is None else None)
    found = _resolve(target, package) if target and hops < 6 else None
    if found is None:
        return []
    resolved, owner = found
    return _first_map(resolved, (_SDK_MAP,)) or _schema_of(resolved, owner, hops + 1)


def _flat(items: list) -> list[str]:
    flat: list[str] = []
    for item in items:
        flat.extend(_flat(item) if isinstance(item, Group) else [item])
    return flat


def _framework_attributes(body: Group, prefix: str, package: _Package, out: ResourceSchema, depth: int = 0) -> None:
    for path, literal, fields in _attributes(body, prefix, package, out):
        modifiers = _flat(fields.get("PlanModifiers", []))
        replaces = any(token.endswith(("RequiresReplace", "RequiresReplaceIfConfigured")) for token in modifiers)
        conditional = any(token.endswith("RequiresReplaceIf") for token in modifiers)
        out.attributes[path] = REPLACE if replaces else CONDITIONAL if conditional else UPDATE
        if depth > 8:
            continue
        for nested in _first_map(literal, _FRAMEWORK_MAPS):
            _framework_attributes(nested, path + ".", package, out, depth + 1)


def _normal(path: str) -> str:
    """`launch_template.0.version` -> `launch_template.version`: Terraform's list indexes dropped."""
    return ".".join(part for part in path.split(".") if not part.isdigit())


def _mark_customized(source: str, out: ResourceSchema, package: _Package) -> None:
    """What the resource decides at diff time: conditional replacements and recomputed attributes from its CustomizeDiff,
    and replacements a framework resource's ModifyPlan asks for (`response.RequiresReplace = ...`). A call whose
    attribute can't be named (`path.Root(old)`, an undeclared constant) is reported under `unresolved`.
    """
    named = {
        call: [(match.group(1), _key(match.group(1), package)) for match in call.finditer(source)] for call in (_FORCE_NEW_CALL, _RECOMPUTED_CALL)
    }
    out.unresolved.extend("CustomizeDiff: " + written for calls in named.values() for written, name in calls if name is None)
    for _, name in named[_FORCE_NEW_CALL]:
        if name is not None and out.attributes.get(_normal(name)) != REPLACE:
            out.attributes[_normal(name)] = CONDITIONAL
    out.recomputed = sorted({name for _, name in named[_RECOMPUTED_CALL] if name is not None} - {"tags_all"})
    for assignment in _PLAN_REPLACES.finditer(source):
        written = assignment.group(0).split("=", 1)[1].strip()
        paths = [_key(root.group(1), package) if root.group(1) else None for root in _PATH_ROOT.finditer(written)]
        if not paths or None in paths:
            out.unresolved.append("ModifyPlan: " + written)
        for path in filter(None, paths):
            if out.attributes.get(path) != REPLACE:
                out.attributes[path] = CONDITIONAL


def _schema_source(source: str, package: _Package) -> str:
    """The source holding a framework resource's Schema: its own file's, or, when its struct only embeds another
    (`securityGroupEgressRuleResource struct { securityGroupRuleResource }`), the file that defines the embedded one's."""
    if re.search(r"^func\s+\([^)]*\)\s*Schema\s*\(", source, re.M):
        return source
    embedded = re.search(r"^type\s+\w+\s+struct\s*\{\s*(\w+)\s*\}", source, re.M)
    if embedded is None:
        return source
    method = re.compile(rf"^func\s+\(\w*\s*\*?{embedded.group(1)}\)\s*Schema\s*\(", re.M)
    return next((text for text in package.files.values() if method.search(text)), source)


def read_resource(file: Path, terraform_name: str, package: _Package | None = None) -> ResourceSchema:
    """The schema of `terraform_name`, defined in `file` (SDKv2 or Plugin Framework)."""
    package = package or _Package(file.parent)
    source = package.files.get(file) or file.read_text(encoding="utf-8")
    out = ResourceSchema(terraform_name, str(file.relative_to(package.root)) if package.root else file.name)
    annotation = next((match for match in _SDK_ANNOTATION.finditer(source) if match.group(1) == terraform_name), None)
    if annotation is not None:
        function = _FUNC.search(source, annotation.end())
        found = package.declaration(function.group(1)) if function else None
        body = found if isinstance(found, Group) else None
        maps = (_first_map(body, (_SDK_MAP,)) or _schema_of(body, package)) if body is not None else []
        if not maps:
            out.unresolved.append("*")
            return out
        _sdk_attributes(maps[0], "", package, out)
    else:
        source = _schema_source(source, package)
        schema_method = re.search(r"^func\s+\([^)]*\)\s*Schema\s*\(", source, re.M)
        start = schema_method.start() if schema_method else 0
        following = _FUNC.search(source, schema_method.end()) if schema_method else None
        body = grouped(tokens(source[start : following.start() if following else len(source)]))
        maps = _first_map(body, _FRAMEWORK_MAPS)
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
    packages: dict[Path, _Package] = {}
    schemas = {}
    for name, path in sorted(find_resources(root, wanted).items()):
        if path.parent not in packages:
            packages[path.parent] = _Package(path.parent, root, packages)
        package = packages[path.parent]
        schemas[name] = read_resource(path, name, package)
    return schemas
