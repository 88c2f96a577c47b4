"""railyard/change/go_source.py on Go written in the test: tokens (strings, raw strings, runes and comments), brace
groups (balanced, a stray closing brace, an unclosed file), the group after a typed literal's head (and a function
literal that returns one), map keys and entries (literal, constant, unresolved), struct fields, a package's
declarations (functions, methods, variables, string constants, the generated `names` constants) and how names resolve
across the provider's packages."""

from __future__ import annotations

from pathlib import Path

import pytest

from railyard.change.go_source import (
    Group,
    Package,
    after,
    declaration_ends,
    first_map,
    flat,
    grouped,
    map_entries,
    map_key,
    resolve,
    struct_fields,
    tokens,
    value_items,
)

MODULE = "github.com/hashicorp/terraform-provider-aws"
SDK_MAP = ("map", "[", "string", "]", "*schema.Schema")


def g(*items) -> Group:
    return Group(items)


# --- tokens and groups ---------------------------------------------------------------------------------------------------


def test_tokens_keep_strings_raw_strings_and_runes_whole_and_drop_comments():
    source = "x := f(\"a \\\"b\\\" {\", `raw {\n}`, '}', '\\'') // gone {\n/* gone\n} */ y[0];"
    assert tokens(source) == ["x", ":", "=", "f", "(", '"a \\"b\\" {"', ",", "`raw {\n}`", ",", "'}'", ",", "'\\''", ")", "y", "[", "0", "]", ";"]


def test_a_string_does_not_run_past_its_line():
    # An interpreted string ends at its line; a quote left open is no token, and the words around it are read as words.
    assert tokens('a "open\nb" c') == ["a", "open", "b", "c"]


def test_braces_nest_as_groups_and_other_brackets_stay_flat():
    assert grouped(tokens("a { b ( c ) { d } } e")) == ["a", ["b", "(", "c", ")", ["d"]], "e"]
    assert isinstance(grouped(["{", "x", "}"])[0], Group)


def test_a_stray_closing_brace_is_dropped_and_an_unclosed_group_kept():
    assert grouped(tokens("a } b")) == ["a", "b"]
    unclosed = grouped(tokens("a { b { c"))
    assert unclosed == ["a", ["b", ["c"]]]
    assert isinstance(unclosed[1], Group) and isinstance(unclosed[1][1], Group)


def test_flat_opens_every_group_in_order():
    assert flat(grouped(tokens("a { b { c } d } e"))) == ["a", "b", "c", "d", "e"]


# --- after and first_map -----------------------------------------------------------------------------------------------


def test_after_finds_each_group_that_directly_follows_the_head():
    items = grouped(tokens('x map[string]*schema.Schema{ "a": 1 } y map[string]*schema.Schema z { "no" } map[string]*schema.Schema { "b": 2 }'))
    assert after(items, SDK_MAP) == [['"a"', ":", "1"], ['"b"', ":", "2"]]


def test_a_head_at_the_very_end_has_no_group_after_it():
    assert after(["x", "map", "[", "string", "]", "*schema.Schema"], SDK_MAP) == []
    assert after(["a", "b"], ("a", "b")) == []


def test_a_group_standing_in_the_head_does_not_match_it():
    assert after(["a", g("b"), g("c")], ("a", "b")) == []


def test_a_function_literal_stands_for_the_literal_it_returns():
    items = grouped(tokens('F: func() map[string]*schema.Schema { return map[string]*schema.Schema{ "k": 1 } }'))
    assert after(items, SDK_MAP) == [['"k"', ":", "1"]]
    bare = grouped(tokens("func() map[string]*schema.Schema { return m }"))
    assert after(bare, SDK_MAP) == [["return", "m"]]  # it returns no literal: the body itself


def test_first_map_searches_breadth_first_and_stops_at_the_shallowest_depth():
    items = grouped(tokens('outer { map[string]*schema.Schema{ "deep": 1 } } map[string]*schema.Schema{ "top": 1 }'))
    assert first_map(items, (SDK_MAP,)) == [['"top"', ":", "1"]]
    nested = grouped(tokens('a { b { map[string]*schema.Schema{ "deeper": 1 } } } c { map[string]*schema.Schema{ "deep": 1 } }'))
    assert first_map(nested, (SDK_MAP,)) == [['"deep"', ":", "1"]]
    assert first_map(grouped(tokens("a { b }")), (SDK_MAP,)) == []


# --- map entries and struct fields ------------------------------------------------------------------------------------


@pytest.fixture
def provider(tmp_path) -> Path:
    """A provider tree: a service package that imports `names`, `tftags` (aliased) and `sync`; a `names` package declaring
    AttrTags in Go and more constants in attr_constants.csv; a tags package with a helper."""
    service = tmp_path / "internal" / "service" / "demo"
    service.mkdir(parents=True)
    (service / "widget.go").write_text(
        'package demo\n\nimport (\n\t"sync"\n\n'
        f'\ttftags "{MODULE}/internal/tags"\n\t"{MODULE}/names"\n)\n\n'
        'const kindKey = "kind"\n\n'
        "func helper() *schema.Schema {\n\treturn &schema.Schema{ForceNew: true}\n}\n\n"
        "var once = sync.OnceValue(func() *schema.Schema {\n\treturn &schema.Schema{Optional: true}\n})\n\n"
        'var plain = map[string]int{"a": 1}\n\n'
        "var ends = other\nvar next = 2\n\n"
        "func (r *widget) Schema(ctx context.Context) {\n\tbody()\n}\n\n"
        "func helper() string {\n\treturn fmt.Sprint(2)\n}\n"
    )
    (service / "widget_test.go").write_text("package demo\n\nfunc testOnly() {\n}\n")
    names = tmp_path / "names"
    names.mkdir()
    (names / "consts.go").write_text('package names\n\nconst (\n\tAttrTags = "tags_from_go"\n\tAttrOther = "other"\n)\n')
    (names / "attr_constants.csv").write_text("tags,Tags\ncidr_block, CIDRBlock \nno_suffix,\nsubnet_ids,SubnetIDs\n")
    tags = tmp_path / "internal" / "tags"
    tags.mkdir()
    (tags / "schema.go").write_text("package tags\n\nfunc TagsSchema() *schema.Schema {\n\treturn &schema.Schema{Optional: true}\n}\n")
    return tmp_path


def _demo(provider: Path) -> Package:
    return Package(provider / "internal" / "service" / "demo", provider, {})


def test_a_map_key_is_a_string_literal_or_a_constant_that_resolves_to_one(provider):
    package = _demo(provider)
    assert map_key('"kind"', None) == "kind"
    assert map_key(g("x"), package) is None
    assert map_key("names.AttrTags", package) == "tags_from_go"  # the Go declaration before the generated one
    assert map_key("names.AttrCIDRBlock", package) == "cidr_block"  # only the csv declares it, its suffix trimmed
    assert map_key("names.AttrNoSuffix", package) is None  # a row without a suffix declares nothing
    assert map_key("names.AttrTags", None) is None
    assert map_key("kindKey", package) is None  # a local name is not a key, even a string constant
    assert map_key("tftags.TagsSchema", package) is None  # declared, but not as a string


def test_map_entries_read_each_value_up_to_the_next_top_level_comma(provider):
    package = _demo(provider)
    body = grouped(tokens('"a": x, "b": f(1, 2), names.AttrTags: y, names.AttrNowhere: z, Type: w, "c": { n }, "d"'))
    unresolved: list[str] = []
    assert map_entries(body, package, unresolved) == [
        ("a", ["x"]),
        ("b", ["f", "(", "1", ",", "2", ")"]),
        ("tags_from_go", ["y"]),
        ("c", [["n"]]),
    ]
    assert unresolved == ["names.AttrNowhere"]
    assert map_entries(body) == [("a", ["x"]), ("b", ["f", "(", "1", ",", "2", ")"]), ("c", [["n"]])]


def test_a_constant_key_at_the_end_of_a_body_is_not_reported():
    unresolved: list[str] = []
    assert map_entries(g('"a"', ":", "1", ",", "names.AttrLast"), None, unresolved) == [("a", ["1"])]
    assert unresolved == []


def test_value_items_stop_at_a_comma_outside_parentheses():
    body = g("f", "(", "a", ",", "(", "b", ",", "c", ")", ")", ",", "d")
    assert value_items(body, 0) == (["f", "(", "a", ",", "(", "b", ",", "c", ")", ")"], 10)
    assert value_items(body, 11) == (["d"], 12)
    assert value_items(body, 12) == ([], 12)


def test_struct_fields_are_named_fields_not_quoted_keys():
    body = grouped(tokens('Type: schema.TypeString, Optional: true, "quoted": 1, Elem: &schema.Resource{ Schema: m }, Last'))
    assert struct_fields(body) == {"Type": ["schema.TypeString"], "Optional": ["true"], "Elem": ["&schema.Resource", ["Schema", ":", "m"]]}


# --- packages ----------------------------------------------------------------------------------------------------------


def test_a_package_reads_its_go_files_but_not_its_tests_and_names_its_imports(provider):
    package = _demo(provider)
    assert [path.name for path in package.files] == ["widget.go"]
    assert package.imports == {"sync": "sync", "tftags": f"{MODULE}/internal/tags", "names": f"{MODULE}/names"}


def test_declarations_functions_methods_variables_and_constants(provider):
    package = _demo(provider)
    assert package.declaration("helper") == ["return", "&schema.Schema", ["ForceNew", ":", "true"]]  # the first of two
    assert package.declaration("Schema") == ["body", "(", ")"]  # a method, by its name
    assert package.declaration("kindKey") == ['"kind"']
    assert package.declaration("once") == [
        "sync.OnceValue",
        "(",
        "func",
        "(",
        ")",
        "*schema.Schema",
        ["return", "&schema.Schema", ["Optional", ":", "true"]],
        ")",
    ]
    assert package.declaration("plain") == ["map", "[", "string", "]", "int", ['"a"', ":", "1"]]
    assert package.declaration("ends") == ["other"]  # up to the next declaration
    assert package.declaration("next") == ["2"]
    assert package.declaration("testOnly") is None
    assert package.declaration("nowhere") is None


def test_names_from_another_package_of_the_provider_are_located_and_the_package_kept(provider):
    registry: dict[Path, Package] = {}
    package = Package(provider / "internal" / "service" / "demo", provider, registry)
    found = package.locate("tftags.TagsSchema")
    assert found is not None
    body, owner = found
    assert body == ["return", "&schema.Schema", ["Optional", ":", "true"]]
    assert owner.directory == provider / "internal" / "tags"
    assert registry == {provider / "internal" / "tags": owner}
    assert package.locate("tftags.TagsSchema")[1] is owner  # read once
    assert package.locate("helper") == (package.declaration("helper"), package)
    assert package.locate("nowhere") is None
    assert package.locate("sync.OnceValue") is None  # outside the provider
    assert package.locate("unknown.Name") is None  # not imported
    assert Package(provider / "internal" / "service" / "demo").locate("tftags.TagsSchema") is None  # no root to look under


def test_a_generated_constant_is_read_from_the_csv_beside_the_go_files(provider):
    names = Package(provider / "names")
    assert (names.declaration("AttrTags"), names.declaration("AttrOther")) == (['"tags_from_go"'], ['"other"'])
    assert (names.declaration("AttrCIDRBlock"), names.declaration("AttrSubnetIDs")) == (['"cidr_block"'], ['"subnet_ids"'])
    assert names.declaration("Attr") is None


def test_a_declaration_ends_where_the_next_begins():
    items = ["x", "=", "1", "func", "var", "const", "type", ")", "y", "=", "2", "(", "z"]
    assert [index for index in range(len(items)) if declaration_ends(items, index)] == [0, 3, 4, 5, 6, 7, 8]
    assert declaration_ends(["x"], 0) is False
    assert declaration_ends(["x", "y"], 0) is False
    assert declaration_ends(["a.b", "="], 0) is False


def test_a_value_resolves_through_its_outermost_call_in_the_provider(provider):
    package = _demo(provider)
    assert resolve(["helper", "(", ")"], package) == (package.declaration("helper"), package)
    # sync.OnceValue is outside the provider: passed over for the helper inside it.
    assert resolve(["sync.OnceValue", "(", "helper", "(", ")", ")"], package) == (package.declaration("helper"), package)
    assert resolve(["plain"], package) == (package.declaration("plain"), package)
    found = resolve(["tftags.TagsSchema", "(", ")"], package)
    assert found is not None and found[1].directory == provider / "internal" / "tags"
    assert resolve(["&schema.Resource", ["x"]], package) is None
    assert resolve(["nowhere", "(", ")"], package) is None
    assert resolve(["plain", "x"], package) is None  # two items, no call: nothing named


# --- the survivors of the first run ------------------------------------------------------------------------------------------


def test_a_literal_that_holds_another_of_its_type_is_itself_the_match():
    inner = g('"inner"', ":", "1")
    outer = g('"k"', ":", *SDK_MAP, inner)
    assert after(["x", *SDK_MAP, outer], SDK_MAP) == [outer]


def test_only_the_quotes_are_stripped_from_a_key(provider):
    assert map_key('"X.keyX"', None) == "X.keyX"
    (provider / "names" / "consts.go").write_text('package names\n\nconst (\n\tAttrEdge = "Xedge_X"\n)\n')
    assert map_key("names.AttrEdge", _demo(provider)) == "Xedge_X"


def test_a_key_at_the_end_of_a_body_has_an_empty_value_and_so_has_a_last_field():
    assert map_entries(g('"a"', ":", "1", ",", '"last"', ":")) == [("a", ["1"]), ("last", [])]
    assert struct_fields(g("Type", ":", "x", ",", "Last", ":")) == {"Type": ["x"], "Last": []}


def test_a_name_of_three_parts_is_located_by_its_first_dot_and_not_found(provider):
    package = _demo(provider)
    assert package.locate("response.Diagnostics.Append") is None
    assert package.locate("tftags.Nested.Name") is None


def test_a_package_reached_from_another_keeps_the_root_and_the_shared_registry(provider):
    (provider / "internal" / "tags" / "schema.go").write_text(
        f'package tags\n\nimport (\n\t"{MODULE}/names"\n)\n\nfunc TagsSchema() *schema.Schema {{\n\treturn &schema.Schema{{Optional: true}}\n}}\n'
    )
    registry: dict[Path, Package] = {}
    package = Package(provider / "internal" / "service" / "demo", provider, registry)
    _, tags = package.locate("tftags.TagsSchema")
    # From the tags package, names.AttrTags is found under the same root, and the names package joins the same registry.
    assert tags.registry is registry
    assert map_key("names.AttrTags", tags) == "tags_from_go"
    assert set(registry) == {provider / "internal" / "tags", provider / "names"}


def test_a_file_that_ends_inside_a_declaration_keeps_what_was_read(tmp_path):
    cases = {
        "a.go": 'package p\n\nconst first = "v"\n\nvar x = 1\n\nfunc',  # the last token is `func`
        "b.go": "package p\n\nvar y = 2\n\nfunc broken",  # a function without its body
        "c.go": "package p\n\nvar z = 3\n\nfunc (r *t",  # a receiver never closed
        "d.go": 'package p\n\nvar w = 4\n\nconst last = "l"',  # a string constant, the file's last tokens
        "e.go": "package p\n\nvar v = 5\n\nvar dangling =",  # an assignment with nothing after it
    }
    for name, text in cases.items():
        folder = tmp_path / name.removesuffix(".go")
        folder.mkdir()
        (folder / name).write_text(text)
    assert Package(tmp_path / "a").declaration("x") == ["1"]
    assert Package(tmp_path / "a").declaration("first") == ['"v"']
    assert (Package(tmp_path / "b").declaration("y"), Package(tmp_path / "b").declaration("broken")) == (["2"], None)
    assert Package(tmp_path / "c").declaration("z") == ["3"]
    assert Package(tmp_path / "d").declaration("last") == ['"l"']
    assert (Package(tmp_path / "e").declaration("v"), Package(tmp_path / "e").declaration("dangling")) == (["5"], None)


def test_a_string_constant_is_its_literal_alone(tmp_path):
    (tmp_path / "a.go").write_text('package p\n\nvar joined = "a" + suffix\n\nvar after = 1\n')
    assert Package(tmp_path).declaration("joined") == ['"a"']


def test_an_assignment_in_the_last_two_tokens_starts_a_declaration():
    assert declaration_ends(["x", "="], 0) is True


def test_a_lone_group_names_nothing_to_resolve(provider):
    assert resolve([g("x")], _demo(provider)) is None


def test_a_package_made_without_a_registry_starts_its_own(provider):
    package = Package(provider / "internal" / "service" / "demo", provider)
    found = package.locate("tftags.TagsSchema")
    assert found is not None and found[1].directory == provider / "internal" / "tags"
    assert set(package.registry) == {provider / "internal" / "tags"}
