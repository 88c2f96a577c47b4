"""Go source read the way a reviewer reads it: tokens, brace groups, composite literals and a package's declarations.

The replace table's readers (`terraform_source` for terraform-provider-aws, `kubernetes_source` for
pulumi-kubernetes) walk providers' Go by brace; nothing here runs or type-checks Go. A `Package`
resolves a name to its declaration in the package, or in another package of the same module
(`tftags.TagsSchema`), and reads `names.Attr*` constants from the `attr_constants.csv` the
`names` package generates them from.
"""

from __future__ import annotations

import re
from pathlib import Path

_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`|\'(?:[^\'\\\n]|\\.)+\'|//[^\n]*|/\*.*?\*/|[{}()\[\],:;]|[^\s{}()\[\],:;"`\']+', re.S)
FUNC = re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z0-9_]+)\s*\(", re.M)
_IMPORT = re.compile(r'^\s*(?:([A-Za-z0-9_]+)\s+)?"([^"]+)"\s*$', re.M)
_MODULE = "github.com/hashicorp/terraform-provider-aws/"


class Group(list):
    """The tokens between one pair of braces, with nested pairs as nested groups."""


def tokens(source: str) -> list[str]:
    """Go source as tokens, comments dropped."""
    return [token for token in _TOKENS.findall(source) if not token.startswith(("//", "/*"))]


def grouped(listed: list[str]) -> Group:
    """Brace groups nested: `a { b { c } }` becomes ['a', ['b', ['c']]]. Other brackets stay flat tokens."""
    stack = [Group()]
    for token in listed:
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


def after(items: list, head: tuple[str, ...]) -> list[Group]:
    """Every group that directly follows the token sequence `head` (a typed composite literal's body).

    A function literal returning that type (`SchemaFunc: func() map[string]*schema.Schema { return map...{} }`)
    stands for the literal it returns.
    """
    found = []
    width = len(head)
    for index in range(len(items) - width):
        group = items[index + width]
        if tuple(item if isinstance(item, str) else None for item in items[index : index + width]) == head and isinstance(group, Group):
            returned = after(group, head) if group[:1] == ["return"] else []
            found.extend(returned or [group])
    return found


def map_key(item: object, package: Package | None) -> str | None:
    """A map key: a string literal, or a string constant (`names.AttrTags`) the package resolves."""
    if not isinstance(item, str):
        return None
    if item.startswith('"'):
        return item.strip('"')
    found = package.locate(item) if package is not None and "." in item else None
    if found and isinstance(found[0][0], str) and found[0][0].startswith('"'):
        return found[0][0].strip('"')
    return None


def map_entries(body: Group, package: Package | None = None, unresolved: list[str] | None = None) -> list[tuple[str, list]]:
    """A map literal's `"key": value` entries, each value as its items up to the next top-level comma.

    A key that is a constant the package can't resolve (`names.AttrOutpostARN` with no declaration) goes
    to `unresolved` as written, so the attribute is reported missing rather than silently dropped.
    """
    entries: list[tuple[str, list]] = []
    index = 0
    while index < len(body):
        item = body[index]
        key = map_key(item, package) if index + 1 < len(body) and body[index + 1] == ":" else None
        if key is not None:
            value, index = value_items(body, index + 2)
            entries.append((key, value))
        elif unresolved is not None and isinstance(item, str) and "." in item and body[index + 1 : index + 2] == [":"]:
            unresolved.append(item)
        index += 1
    return entries


def value_items(body: Group, index: int) -> tuple[list, int]:
    """The items of one value from `index` up to the next comma outside parentheses (`append(a, b...)` is one value)."""
    value: list = []
    depth = 0
    while index < len(body) and not (body[index] == "," and depth == 0):
        item = body[index]
        depth += 1 if item == "(" else -1 if item == ")" else 0
        value.append(item)
        index += 1
    return value, index


def struct_fields(body: Group) -> dict[str, list]:
    """A struct literal's `Name: value` fields."""
    fields: dict[str, list] = {}
    index = 0
    while index < len(body):
        item = body[index]
        if isinstance(item, str) and index + 1 < len(body) and body[index + 1] == ":" and not item.startswith('"'):
            fields[item], index = value_items(body, index + 2)
        index += 1
    return fields


class Package:
    """The Go files of one service package, by top-level declaration, for resolving helpers and package variables."""

    def __init__(self, directory: Path, root: Path | None = None, registry: dict[Path, Package] | None = None):
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

    def locate(self, name: str) -> tuple[list, Package] | None:
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
            self.registry[directory] = Package(directory, self.root, self.registry)
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
                if index < len(items) and items[index] == "(":  # a method's receiver (to the file's end if never closed)
                    index = items.index(")", index) + 1 if ")" in items[index:] else len(items)
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
                while index < len(items) and (depth > 0 or not declaration_ends(items, index)):
                    value.append(items[index])
                    depth += 1 if items[index] == "(" else -1 if items[index] == ")" else 0
                    index += 1
                    if depth == 0 and isinstance(value[-1], Group):
                        break
                self._declarations.setdefault(item, value)
                continue
            index += 1


def declaration_ends(items: list, index: int) -> bool:
    """True where a new top-level declaration starts (newlines are gone, so by its first tokens)."""
    item = items[index]
    if item in ("func", "var", "const", "type", ")"):
        return True
    return isinstance(item, str) and item.isidentifier() and index + 1 < len(items) and items[index + 1] == "="


def resolve(value: list, package: Package) -> tuple[list, Package] | None:
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


def first_map(items: list, heads: tuple[tuple[str, ...], ...]) -> list[Group]:
    """The map literals of the given types in `items`, searching nested groups breadth-first."""
    queue = [items]
    while queue:
        found = [group for head in heads for group in after(queue[0], head)]
        if found:
            return found
        queue.extend(item for item in queue.pop(0) if isinstance(item, Group))
    return []


def flat(items: list) -> list[str]:
    """Every token of `items`, nested groups opened, in order."""
    found: list[str] = []
    for item in items:
        found.extend(flat(item) if isinstance(item, Group) else [item])
    return found
