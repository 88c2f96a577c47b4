"""What each finding code means, why it matters, how to fix it and where it comes from: `railyard explain`.

Nothing here restates a rule. The knowledge already lives at each check, and this module reads it there:

* **meaning**: the docstring of the function that raises the code (rules document their functions), then the
  finding's own message as the check words it, with its figures left as `<placeholders>`;
* **why**: the docstring of the module that owns the code (each rule module says why its rule exists);
* **fix**: the hint the finding carries, in the same template form;
* **source**: what that module's docstring and comments cite (URLs, botocore models, research and docs files);
* **owner**: the module (and function) that raises it.

Where a check builds its wording at run time and the source holds no readable template, the module states the
code's meaning and fix next to its `CODES` in an `EXPLAIN` mapping (`{code: {"meaning": ..., "fix": ...}}`);
`tests/blueprints/test_explain_command.py` holds every code `railyard rules` lists to a meaning, a fix and an
owner. Policies of the pack bring their own metadata (title, fix, module docstring).

The source is read with `ast` from the installed package's own `.py` files (they ship in the wheel); a
documentation file or a table typed here was weighed and lost: both drift from the checks they describe.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from blueprints.records import record

# The finding builders and where their message and hint sit: (message index, hint index) among the positional
# arguments; `Finding(code, severity, path, message, hint)` and `violation(code, message, hint)` differ from
# `error(code, path, message, hint)`.
BUILDERS = {"error": (2, 3), "warning": (2, 3), "info": (2, 3), "Finding": (3, 4), "violation": (1, 2)}
STAGE_PACKAGES = ("blueprints", "topology", "railyard")
# What a docstring or comment cites: a URL, a botocore model, or a file of research, docs or data.
CITATION = re.compile(
    r"https?://[^\s)>\]`'\"]+"
    r"|botocore[’']?s? [\w-]+ (?:model|endpoint data|data)(?: \([^)]*\))?"
    r"|\b[A-Z][\w-]*(?: [\w-]+){0,3}? (?i:(?:user|developer|api|best[- ]practices) guide)(?:[,:]\s+[^.;)\n\"]+)?"
    r"|pulumi-(?:aws|kubernetes) [^.;)\n]*docstrings?"
    r"|(?:\.\./)?[\w/-]*[\w-]+(?:\.[\w-]+)*\.(?:md|json|yaml)(?: (?:section )?\d[\w.]*)?"
)
WORDS = re.compile(r"[A-Za-z]{3,}")


@record
class Explanation:
    """One code's explanation: the fields `railyard explain` prints, in that order."""

    code: str
    stage: str
    meaning: str
    why: str
    fix: str
    source: tuple[str, ...]
    owner: str
    messages: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        """The `explain --json` object (stable keys)."""
        return {
            "code": self.code,
            "stage": self.stage,
            "meaning": self.meaning,
            "messages": list(self.messages),
            "why": self.why,
            "fix": self.fix,
            "source": list(self.source),
            "owner": self.owner,
        }


@record
class CallSite:
    """Where a code is raised: the module, the enclosing function and its docstring, the message and hint templates, the class."""

    module: str
    function: str
    doc: str
    message: str
    hint: str
    # The docstring of the class whose method raises it (a model's validator): what the checked object is for.
    class_doc: str = ""
    # What the raising function cites, in its docstring or its comments.
    cited: tuple[str, ...] = ()


def _name(node: ast.expr) -> str:
    """A readable placeholder name for an expression inside an f-string (`pool.fabric` -> `fabric`)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    if isinstance(node, ast.BoolOp):  # `names or 'none'`
        return _name(node.values[0])
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "join" and node.args:
            return _name(node.args[0])
        return _name(node.func) if node.args == [] else _name(node.args[0])
    return "value"


def _placeholder(node: ast.expr, constants: dict[str, str]) -> str:
    """What an f-string's `{...}` reads as: a module constant's value, a fixed word, or `<name>`."""
    if isinstance(node, ast.Name) and node.id.isupper() and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.IfExp) and isinstance(node.body, ast.Constant) and isinstance(node.orelse, ast.Constant):
        return str(node.orelse.value)  # `zone{'s' if many else ''}`: the plain form
    return f"<{_name(node)}>"


def template(node: ast.expr | None, constants: dict[str, str]) -> str:
    """The text an expression builds, with each computed part as `<name>`; "" when it is no readable text."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            parts.append(template(value, constants) if isinstance(value, ast.Constant) else _placeholder(value.value, constants))  # type: ignore[attr-defined]
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        # Inside a sum, an unknown part is a placeholder: the words around it still read.
        return _part(node.left, constants) + _part(node.right, constants)
    if isinstance(node, ast.IfExp):
        return template(node.body, constants)
    if isinstance(node, ast.Name):
        return constants.get(node.id, "")
    return ""


def _part(node: ast.expr, constants: dict[str, str]) -> str:
    return template(node, constants) or f"<{_name(node).strip('_').lower()}>"


def readable(text: str, words: int = 2) -> bool:
    """Whether a template says something in `words` words or more, placeholders aside (a hint may be one verb)."""
    return len(WORDS.findall(re.sub(r"<[^>]*>", "", text))) >= words


def _argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if index < len(call.args):
        return call.args[index]
    return next((item.value for item in call.keywords if item.arg == keyword), None)


def _builder(call: ast.Call) -> tuple[int, int] | None:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return BUILDERS.get(name)


@functools.cache
def _package_files() -> tuple[tuple[str, str], ...]:
    """(module name, source text) of every module of the stages, read from the installed package."""
    found = []
    for package in STAGE_PACKAGES:
        root = Path(importlib.import_module(package).__file__ or "").parent
        for path in sorted(root.rglob("*.py")):
            relative = path.relative_to(root.parent).with_suffix("")
            found.append((".".join(relative.parts).removesuffix(".__init__"), path.read_text(encoding="utf-8")))
    return tuple(found)


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module's string and number constants (a hint is sometimes one: `WAYS_OUT`; a limit often is)."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, int | float) and not isinstance(value.value, bool):
                text = f"{value.value:,}"
            else:
                text = template(value, {})
            if text:
                found[node.targets[0].id] = text
    return found


def _locals_before(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> dict[str, str]:
    """The strings a function's locals were last given before `line`."""
    found: dict[str, str] = {}
    assignments = [node for node in ast.walk(function) if isinstance(node, ast.Assign) and node.lineno < line]
    for node in sorted(assignments, key=lambda node: node.lineno):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            text = template(node.value, {})
            if text:
                found[node.targets[0].id] = text
    return found


def _functions(tree: ast.Module) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.Call]]:
    """Each call inside each function (the innermost function that holds it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = {id(call) for child in ast.walk(node) if child is not node and isinstance(child, ast.FunctionDef) for call in ast.walk(child)}
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and id(call) not in inner:
                    yield node, call


@functools.cache
def call_sites(codes: frozenset[str]) -> dict[str, tuple[CallSite, ...]]:
    """Every place the stages raise one of `codes` (written as a literal), by code, in source order."""
    sites: dict[str, list[CallSite]] = {}
    for module, text in _package_files():
        if not any(f'"{code}"' in text for code in codes):
            continue
        tree = ast.parse(text)
        module_constants = _constants(tree)
        classes = {id(method): ast.get_docstring(node) or "" for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for method in node.body}
        for function, call in _functions(tree):
            if not call.args or not isinstance(call.args[0], ast.Constant) or call.args[0].value not in codes:
                continue
            # A message or hint built into a local first (`message = f"..."`) reads as the text it was last given.
            constants = module_constants | _locals_before(function, call.lineno)
            where = _builder(call)
            if where is None:
                # A builder chosen at run time (`finding = error if declared else warning`): the texts after the code.
                texts = [text for text in (template(argument, constants) for argument in call.args[1:]) if readable(text)] + ["", ""]
                message, hint = texts[0], texts[1]
            else:
                message = template(_argument(call, where[0], "message"), constants)
                hint = template(_argument(call, where[1], "hint"), constants)
            doc = ast.get_docstring(function) or ""
            cited = citations(ast.get_source_segment(text, function) or "")
            site = CallSite(module, function.name, doc, message, hint, classes.get(id(function), ""), cited)
            sites.setdefault(call.args[0].value, []).append(site)
    return {code: tuple(found) for code, found in sites.items()}


def first_paragraph(doc: str) -> str:
    """A docstring's first paragraph on one line."""
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def body(doc: str) -> str:
    """A docstring after its summary paragraph, paragraphs kept, lines joined (the reasoning modules give)."""
    rest = doc.strip().split("\n\n")[1:]
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in rest)


def citations(text: str) -> tuple[str, ...]:
    """What a module's text cites, each once, in order."""
    return tuple(dict.fromkeys(" ".join(match.group(0).split()).rstrip(".,") for match in CITATION.finditer(text)))


def module_text(name: str) -> str:
    """The source of an importable module (docstring and comments are where citations live)."""
    return inspect.getsource(importlib.import_module(name))


def _module_of(owner: str) -> str:
    """The importable module an owner entry of `railyard rules` names (`topology.cluster.kubernetes_checks (labels)`)."""
    return owner.split(" ", 1)[0]


def stated(modules: tuple[str, ...], code: str) -> dict[str, str]:
    """What a module states for `code` in its `EXPLAIN` mapping, from the first module that states anything."""
    for name in modules:
        entry = getattr(importlib.import_module(name), "EXPLAIN", {}).get(code)
        if entry:
            return dict(entry)
    return {}


def _codes_by_place(sites: dict[str, tuple[CallSite, ...]]) -> dict[tuple[str, str], set[str]]:
    """The codes each function raises, by (module, function), and each module's by (module, "")."""
    places: dict[tuple[str, str], set[str]] = {}
    for code, found in sites.items():
        for site in found:
            places.setdefault((site.module, site.function), set()).add(code)
            places.setdefault((site.module, ""), set()).add(code)
    return places


def _describes(site: CallSite, code: str, raised: dict[tuple[str, str], set[str]]) -> bool:
    """Whether the docstring of the function raising `code` explains it better than the finding's own words.

    It does when it names the code, or when the function raises this code alone and exists to raise it: a rule
    module's `check` of one code, or a `*_findings` helper. Other functions' docstrings describe what the function
    computes (sizing a fabric, previewing a stack), not the finding.
    """
    if code in site.doc:
        return True
    if raised[(site.module, site.function)] != {code}:
        return False
    if site.function == "check":
        return len(raised[(site.module, "")]) == 1
    return site.function.rstrip("s").endswith(("finding", "note"))


def explain_check(stage: str, code: str, owner: str, sites: dict[str, tuple[CallSite, ...]]) -> Explanation:
    """Assemble one finding code's explanation from where it is raised (`call_sites`) and the module that owns it."""
    here = sites.get(code, ())
    # A code two rules raise (`k8s.unknown-pool`): the owner's rule (`... (flavor-pools)`) puts its own function first.
    rule = owner.partition(" (")[2].rstrip(")").replace("-", "_")
    if rule:
        here = tuple(sorted(here, key=lambda site: rule not in site.function))
    quoted = [name for name, text in _package_files() if f'"{code}"' in text]
    modules = tuple(dict.fromkeys([site.module for site in here] + quoted + [_module_of(owner)]))
    own = stated(modules, code)
    messages = tuple(dict.fromkeys(site.message for site in here if readable(site.message)))
    raised = _codes_by_place(sites)
    specific = [first_paragraph(site.doc) for site in here if site.doc and _describes(site, code, raised)]
    general = [first_paragraph(site.doc) for site in here if site.doc]
    meaning = own.get("meaning") or next(iter(specific), "") or next(iter(messages), "") or next(iter(general), "")
    hints = [site.hint for site in here if readable(site.hint, words=1)]
    doc = inspect.getdoc(importlib.import_module(modules[0])) or ""
    # A model's validator is explained by its model (`NodeRange`, `Block`) better than by the module of models around it.
    classes = [" ".join(site.class_doc.split()) for site in here if site.class_doc]
    why = own.get("why") or next(iter(classes), "") or body(doc) or first_paragraph(doc)
    # Sources: what the rule's own words cite (its EXPLAIN entry, the raising functions), then the modules' docstrings;
    # a module's other comments cite what its other checks rest on.
    stated_text = " ".join(own.values())
    module_docs = [inspect.getdoc(importlib.import_module(name)) or "" for name in modules]
    cited = [*citations(stated_text), *(item for site in here for item in site.cited), *(item for text in module_docs for item in citations(text))]
    source = tuple(dict.fromkeys(cited))
    where = f"{here[0].module}.{here[0].function}" if here else modules[0]
    return Explanation(code, stage, meaning, why, own.get("fix") or next(iter(hints), ""), source, where, messages[:4])


def explain_policy(rule: Any, module: str) -> Explanation:
    """One policy's explanation from its metadata (title, fix) and its module's docstring."""
    doc = inspect.getdoc(importlib.import_module(module)) or ""
    summary = first_paragraph(doc).split(": ", 1)[-1]
    meaning = f"{summary[:1].upper()}{summary[1:]}" if summary else f"{rule.title}."
    why = body(doc) or meaning
    enforcement = rule.enforcement
    stage = f"police ({enforcement})"
    return Explanation(rule.id, stage, meaning, why, rule.fix, citations(module_text(module)), module)


def policy_explanations() -> dict[str, Explanation]:
    """Every policy of the pack, explained (needs the `policies` extra: `require_policy_pack` says so first)."""
    from railyard.extras import require_policy_pack

    require_policy_pack("explaining the policy pack's rules")
    import pkgutil

    from policies import rules

    found = {}
    for info in pkgutil.walk_packages(rules.__path__, prefix=f"{rules.__name__}."):
        module = importlib.import_module(info.name)
        rule = getattr(module, "RULE", None)
        if rule is not None:
            found[rule.id] = explain_policy(rule, info.name)
    return found


def check_explanations(only: str | None = None) -> dict[str, list[Explanation]]:
    """Every finding code `railyard rules` lists (or only `only`), explained; a code two rules raise is explained by each."""
    from railyard.checks import every_check

    checks = every_check()
    sites = call_sites(frozenset(check.code for check in checks))
    found: dict[str, list[Explanation]] = {}
    for check in checks:
        if only is None or check.code == only:
            found.setdefault(check.code, []).append(explain_check(check.stage, check.code, check.owner, sites))
    return found
