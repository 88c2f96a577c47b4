"""railyard/change/terraform_source.py on resource files written in the test: Terraform's list indexes dropped from a
path, Optional-and-Computed attributes (both halves), a resource whose schema can't be found (SDKv2 and framework),
CustomizeDiff calls (conditional, never weakening a replacement, `tags_all` left out of the recomputed, a constant
nothing declares reported), a framework ModifyPlan's replacement, test files passed over, and a schema's file named
from the provider's root or by itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from railyard.change.go_source import Package
from railyard.change.terraform_source import (
    CONDITIONAL,
    REPLACE,
    UPDATE,
    ResourceSchema,
    _normal,
    _note_optional_computed,
    find_resources,
    read_resource,
    read_resources,
    resource_names,
)

HEADER = 'package demo\n\nimport (\n\t"github.com/hashicorp/terraform-provider-aws/names"\n)\n\n'


def _sdk(name: str, schema: str, extra: str = "") -> str:
    body = f"\t\tSchema: map[string]*schema.Schema{{\n{schema}\n\t\t}},\n{extra}"
    return f'{HEADER}// @SDKResource("{name}", name="X")\nfunc resourceX() *schema.Resource {{\n\treturn &schema.Resource{{\n{body}\t}}\n}}\n'


def _framework(name: str, attributes: str, extra: str = "") -> str:
    return (
        f'{HEADER}// @FrameworkResource("{name}", name="X")\nfunc newX() {{\n}}\n\n'
        "func (r *x) Schema(ctx context.Context, request resource.SchemaRequest, response *resource.SchemaResponse) {\n"
        f"\tresponse.Schema = schema.Schema{{\n\t\tAttributes: map[string]schema.Attribute{{\n{attributes}\n\t\t}},\n\t}}\n}}\n{extra}"
    )


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    service = tmp_path / "internal" / "service" / "demo"
    service.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (service / name).write_text(text)
    return tmp_path


def test_list_indexes_are_dropped_from_a_path():
    assert _normal("launch_template.0.version") == "launch_template.version"
    assert _normal("rule.10.port.2") == "rule.port"
    assert _normal("0") == ""


def test_only_an_attribute_both_optional_and_computed_is_noted():
    out = ResourceSchema("aws_x", "x.go")
    _note_optional_computed("both", {"Optional": ["true"], "Computed": ["true"]}, out)
    _note_optional_computed("optional", {"Optional": ["true"]}, out)
    _note_optional_computed("computed", {"Computed": ["true"]}, out)
    _note_optional_computed("false", {"Optional": ["true"], "Computed": ["false"]}, out)
    assert out.optional_computed == ["both"]


def test_an_sdk_resource_whose_schema_cant_be_found_is_unresolved_whole(tmp_path):
    root = _tree(
        tmp_path, {"x.go": f'{HEADER}// @SDKResource("aws_demo_x", name="X")\nfunc resourceX() *schema.Resource {{\n\treturn nothing()\n}}\n'}
    )
    (schema,) = read_resources(root, {"aws_demo_x"}).values()
    assert (schema.attributes, schema.unresolved, schema.file) == ({}, ["*"], "internal/service/demo/x.go")


def test_an_sdk_annotation_without_a_function_after_it_is_unresolved_whole(tmp_path):
    root = _tree(tmp_path, {"x.go": f'{HEADER}// @SDKResource("aws_demo_x", name="X")\n'})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].unresolved == ["*"]


def test_a_framework_resource_whose_schema_cant_be_found_is_unresolved_whole(tmp_path):
    root = _tree(tmp_path, {"x.go": f'{HEADER}// @FrameworkResource("aws_demo_x", name="X")\nfunc newX() {{\n}}\n'})
    schema = read_resources(root, {"aws_demo_x"})["aws_demo_x"]
    assert (schema.attributes, schema.unresolved) == ({}, ["*"])


def test_customize_diff_marks_conditional_but_never_weakens_a_replacement(tmp_path):
    schema = """
			"kind": {Type: schema.TypeString, Required: true, ForceNew: true},
			"size": {Type: schema.TypeInt, Required: true},
			"arn": {Type: schema.TypeString, Computed: true},
"""
    extra = (
        "\t\tCustomizeDiff: customdiff.Sequence(\n"
        '\t\t\tcustomdiff.ForceNewIfChange("size", sizeDecreased),\n'
        '\t\t\tcustomdiff.ForceNewIf("kind", always),\n'
        '\t\t\tcustomdiff.ComputedIf("arn", changed),\n'
        '\t\t\tcustomdiff.ComputedIf("tags_all", changed),\n'
        "\t\t\tcustomdiff.ComputedIf(names.AttrNowhere, changed),\n"
        "\t\t),\n"
    )
    root = _tree(tmp_path, {"x.go": _sdk("aws_demo_x", schema, extra)})
    out = read_resources(root, {"aws_demo_x"})["aws_demo_x"]
    assert out.attributes == {"kind": REPLACE, "size": CONDITIONAL, "arn": UPDATE}
    assert out.recomputed == ["arn"]
    assert out.unresolved == ["CustomizeDiff: names.AttrNowhere"]


def test_a_modify_plan_replacement_is_conditional_unless_already_a_replacement(tmp_path):
    attributes = """
			"owner": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"mesh": schema.Int64Attribute{Required: true},
			"colour": schema.StringAttribute{Optional: true, Computed: true},
"""
    extra = (
        "\nfunc (r *x) ModifyPlan(ctx context.Context, request resource.ModifyPlanRequest, response *resource.ModifyPlanResponse) {\n"
        '\tresponse.RequiresReplace = []path.Path{path.Root("mesh"), path.Root("owner")}\n'
        "\tresponse.RequiresReplace = path.Paths{}\n"
        "}\n"
    )
    root = _tree(tmp_path, {"x.go": _framework("aws_demo_x", attributes, extra)})
    out = read_resources(root, {"aws_demo_x"})["aws_demo_x"]
    assert out.attributes == {"owner": REPLACE, "mesh": CONDITIONAL, "colour": UPDATE}
    assert out.optional_computed == ["colour"]
    assert out.unresolved == ["ModifyPlan: path.Paths{}"]  # names no path


def test_framework_plan_modifiers_replace_if_configured_and_replace_if(tmp_path):
    attributes = """
			"a": schema.StringAttribute{PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}},
			"b": schema.StringAttribute{PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(f, "", "")}},
			"c": schema.StringAttribute{PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
"""
    root = _tree(tmp_path, {"x.go": _framework("aws_demo_x", attributes)})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"a": REPLACE, "b": CONDITIONAL, "c": UPDATE}


def test_test_files_declare_no_resource_and_the_first_file_found_wins(tmp_path):
    root = _tree(
        tmp_path,
        {
            "a.go": _sdk("aws_demo_x", '"kind": {Type: schema.TypeString},'),
            "a_test.go": _sdk("aws_demo_only_in_test", '"kind": {Type: schema.TypeString},'),
            "b.go": _sdk("aws_demo_x", '"other": {Type: schema.TypeString},'),
        },
    )
    assert resource_names(root) == {"aws_demo_x"}
    assert find_resources(root, {"aws_demo_x", "aws_demo_only_in_test"}) == {"aws_demo_x": root / "internal" / "service" / "demo" / "a.go"}
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"kind": UPDATE}


def test_a_resource_read_without_a_package_is_named_by_its_file(tmp_path):
    root = _tree(tmp_path, {"x.go": _sdk("aws_demo_x", '"kind": {Type: schema.TypeString, ForceNew: true},')})
    file = root / "internal" / "service" / "demo" / "x.go"
    out = read_resource(file, "aws_demo_x")
    assert (out.terraform_name, out.file, out.attributes) == ("aws_demo_x", "x.go", {"kind": REPLACE})
    rooted = read_resource(file, "aws_demo_x", Package(file.parent, root, {}))
    assert rooted.file == "internal/service/demo/x.go"


def test_an_annotation_for_another_resource_in_the_file_is_passed_over(tmp_path):
    text = _sdk("aws_demo_other", '"kind": {Type: schema.TypeString},')
    root = _tree(tmp_path, {"x.go": text})
    # No annotation names aws_demo_x, so the file is read as a framework resource, which it is not.
    out = read_resource(root / "internal" / "service" / "demo" / "x.go", "aws_demo_x")
    assert (out.attributes, out.unresolved) == ({}, ["*"])


def _nested_sdk(levels: int) -> str:
    """An SDK schema whose block `l0` holds `l1`, ... down to `l<levels-1>`, each a block of the next."""
    inner = ""
    for level in reversed(range(levels)):
        elem = f"Elem: &schema.Resource{{Schema: map[string]*schema.Schema{{{inner}}}}}," if inner else ""
        inner = f'"l{level}": {{Type: schema.TypeList, Optional: true, {elem}}},'
    return inner


def _nested_framework(levels: int) -> str:
    """The same nesting as framework attributes: `l0` a nested attribute holding `l1`, and so on."""
    inner = ""
    for level in reversed(range(levels)):
        blocks = f"Attributes: map[string]schema.Attribute{{{inner}}}," if inner else "Optional: true,"
        inner = f'"l{level}": schema.SingleNestedAttribute{{{blocks}}},'
    return inner


@pytest.mark.parametrize("written", [lambda: _sdk("aws_demo_x", _nested_sdk(12)), lambda: _framework("aws_demo_x", _nested_framework(12))])
def test_nested_blocks_are_read_ten_levels_deep_and_no_further(tmp_path, written):
    root = _tree(tmp_path, {"x.go": written()})
    attributes = read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes
    assert list(attributes) == [".".join(f"l{level}" for level in range(depth + 1)) for depth in range(10)]


def _helpers(hops: int) -> str:
    """`h1()` returns `h2()` ... and `h<hops>()` returns the literal."""
    chain = [f"func h{hop}() *schema.Schema {{\n\treturn h{hop + 1}()\n}}\n" for hop in range(1, hops)]
    return "\n".join([*chain, f"func h{hops}() *schema.Schema {{\n\treturn &schema.Schema{{ForceNew: true}}\n}}\n"])


def test_an_attribute_behind_helpers_is_followed_five_calls_deep_and_no_further(tmp_path):
    root = _tree(tmp_path, {"x.go": _sdk("aws_demo_x", '"near": h1(),') + _helpers(5)})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"near": REPLACE}
    far = _tree(tmp_path / "far", {"x.go": _sdk("aws_demo_x", '"far": h1(),') + _helpers(6)})
    out = read_resources(far, {"aws_demo_x"})["aws_demo_x"]
    assert (out.attributes, out.unresolved) == ({}, ["far"])


def _schema_helpers(hops: int) -> str:
    """`s1()` returns `s2()` ... and `s<hops>()` returns a schema map of one attribute."""
    chain = [f"func s{hop}() map[string]*schema.Schema {{\n\treturn s{hop + 1}()\n}}\n" for hop in range(1, hops)]
    last = f'func s{hops}() map[string]*schema.Schema {{\n\treturn map[string]*schema.Schema{{"inner": {{Type: schema.TypeString}}}}\n}}\n'
    return "\n".join([*chain, last])


def test_a_block_schema_behind_helpers_is_followed_six_calls_deep_and_no_further(tmp_path):
    block = '"block": {Type: schema.TypeList, Optional: true, Elem: &schema.Resource{Schema: s1()}},'
    root = _tree(tmp_path, {"x.go": _sdk("aws_demo_x", block) + _schema_helpers(6)})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"block": UPDATE, "block.inner": UPDATE}
    far = _tree(tmp_path / "far", {"x.go": _sdk("aws_demo_x", block) + _schema_helpers(7)})
    out = read_resources(far, {"aws_demo_x"})["aws_demo_x"]
    assert (out.attributes, out.unresolved) == ({"block": UPDATE}, ["block.*"])


# --- the survivors of the first run: helpers, nested packages, ModifyPlan's text, embedded structs, decoys ---------------


def _helper(name: str, body: str) -> str:
    return f"\nfunc {name}() *schema.Schema {{\n\treturn {body}\n}}\n"


def test_a_function_literal_that_returns_a_helper_call_is_followed(tmp_path):
    schema = '"a": {Type: schema.TypeString}, "b": sync.OnceValue(func() *schema.Schema { return h1() }),'
    root = _tree(tmp_path, {"x.go": _sdk("aws_demo_x", schema) + _helper("h1", "&schema.Schema{ForceNew: true}")})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"a": UPDATE, "b": REPLACE}


def test_only_a_blocks_first_schema_map_is_read(tmp_path):
    schema = '"block": {Elem: pick(map[string]*schema.Schema{"first": {ForceNew: true}}, map[string]*schema.Schema{"second": {}})},'
    root = _tree(tmp_path, {"x.go": _sdk("aws_demo_x", schema)})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"block": UPDATE, "block.first": REPLACE}


def test_a_nested_attribute_behind_a_helper_is_resolved_in_the_package(tmp_path):
    schema = '"block": {Elem: &schema.Resource{Schema: map[string]*schema.Schema{"inner": h1()}}},'
    root = _tree(tmp_path, {"x.go": _sdk("aws_demo_x", schema) + _helper("h1", "&schema.Schema{ForceNew: true}")})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"block": UPDATE, "block.inner": REPLACE}
    attributes = '"block": schema.SingleNestedAttribute{Attributes: map[string]schema.Attribute{"inner": h2()}},'
    modifiers = "PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}"
    helper = f"\nfunc h2() schema.Attribute {{\n\treturn schema.StringAttribute{{{modifiers}}}\n}}\n"
    framework = _tree(tmp_path / "framework", {"x.go": _framework("aws_demo_x", attributes) + helper})
    assert read_resources(framework, {"aws_demo_x"})["aws_demo_x"].attributes == {"block": UPDATE, "block.inner": REPLACE}


def _schema_func(name: str) -> str:
    return f'\nfunc {name}() map[string]*schema.Schema {{\n\treturn map[string]*schema.Schema{{"inner": {{ForceNew: true}}}}\n}}\n'


def test_a_schema_func_named_without_a_call_is_followed_for_a_block_and_a_resource(tmp_path):
    block = '"block": {Elem: &schema.Resource{SchemaFunc: blockSchema}},'
    root = _tree(tmp_path, {"x.go": _sdk("aws_demo_x", block) + _schema_func("blockSchema")})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"block": UPDATE, "block.inner": REPLACE}
    function = "func resourceY() *schema.Resource {\n\treturn &schema.Resource{SchemaFunc: ySchema}\n}\n"
    resource = f'{HEADER}// @SDKResource("aws_demo_y", name="Y")\n{function}'
    other = _tree(tmp_path / "other", {"y.go": resource + _schema_func("ySchema")})
    assert read_resources(other, {"aws_demo_y"})["aws_demo_y"].attributes == {"inner": REPLACE}


def test_a_helper_called_beside_a_resource_literal_is_not_its_schema(tmp_path):
    resource = (
        f'{HEADER}// @SDKResource("aws_demo_x", name="X")\nfunc resourceX() *schema.Resource {{\n'
        "\tdecoy := decoySchema()\n\treturn &schema.Resource{CreateWithoutTimeout: create}\n}\n"
    )
    root = _tree(tmp_path, {"x.go": resource + _schema_func("decoySchema")})
    out = read_resources(root, {"aws_demo_x"})["aws_demo_x"]
    assert (out.attributes, out.unresolved) == ({}, ["*"])


def test_attributes_beside_one_too_deep_to_open_are_still_read(tmp_path):
    inner = '"l9": schema.SingleNestedAttribute{Attributes: map[string]schema.Attribute{"l10": schema.StringAttribute{}}}, '
    inner += '"z9": schema.StringAttribute{},'
    for level in reversed(range(9)):
        inner = f'"l{level}": schema.SingleNestedAttribute{{Attributes: map[string]schema.Attribute{{{inner}}}}},'
    root = _tree(tmp_path, {"x.go": _framework("aws_demo_x", inner)})
    deepest = [path for path in read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes if path.count(".") == 9]
    assert [path.rsplit(".", 1)[1] for path in deepest] == ["l9", "z9"]


def _modify_plan(line: str) -> str:
    return (
        f"\nfunc (r *x) ModifyPlan(ctx context.Context, request resource.ModifyPlanRequest, response *resource.ModifyPlanResponse) {{\n\t{line}\n}}\n"
    )


def test_a_modify_plan_assignment_is_read_after_its_first_equals_sign(tmp_path):
    attributes = '"mesh": schema.Int64Attribute{Required: true},'
    line = "response.RequiresReplace = pathsIf(path.Root(name), old != new)"
    root = _tree(tmp_path, {"x.go": _framework("aws_demo_x", attributes, _modify_plan(line))})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].unresolved == ["ModifyPlan: pathsIf(path.Root(name), old != new)"]
    named = _tree(
        tmp_path / "named",
        {"x.go": _framework("aws_demo_x", attributes, _modify_plan('response.RequiresReplace = pathsIf(path.Root("mesh"), old != new)'))},
    )
    out = read_resources(named, {"aws_demo_x"})["aws_demo_x"]
    assert (out.attributes, out.unresolved) == ({"mesh": CONDITIONAL}, [])


def test_a_modify_plan_path_named_by_a_constant_is_resolved(tmp_path):
    attributes = '"mesh": schema.Int64Attribute{Required: true},'
    root = _tree(
        tmp_path, {"x.go": _framework("aws_demo_x", attributes, _modify_plan("response.RequiresReplace = path.Paths{path.Root(names.AttrMesh)}"))}
    )
    (root / "names").mkdir()
    (root / "names" / "consts.go").write_text('package names\n\nconst (\n\tAttrMesh = "mesh"\n)\n')
    out = read_resources(root, {"aws_demo_x"})["aws_demo_x"]
    assert (out.attributes, out.unresolved) == ({"mesh": CONDITIONAL}, [])


def test_a_resource_with_its_own_schema_is_not_read_from_the_struct_it_embeds(tmp_path):
    own = _framework("aws_demo_x", '"own": schema.StringAttribute{},') + "\ntype x struct {\n\tbase\n}\n"
    base = "package demo\n\nfunc (r *base) Schema(ctx context.Context, request resource.SchemaRequest, response *resource.SchemaResponse) {\n"
    base += '\tresponse.Schema = schema.Schema{\n\t\tAttributes: map[string]schema.Attribute{"inherited": schema.StringAttribute{}},\n\t}\n}\n'
    root = _tree(tmp_path, {"a_base.go": base, "x.go": own})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"own": UPDATE}


def test_a_struct_embedding_one_without_a_schema_anywhere_reads_its_own_file(tmp_path):
    text = f'{HEADER}// @FrameworkResource("aws_demo_x", name="X")\nfunc newX() {{\n}}\n\ntype x struct {{\n\tnowhere\n}}\n'
    root = _tree(tmp_path, {"x.go": text})
    out = read_resources(root, {"aws_demo_x"})["aws_demo_x"]
    assert (out.attributes, out.unresolved) == ({}, ["*"])


def test_a_file_the_package_does_not_hold_is_read_from_disk(tmp_path):
    # A framework resource's schema is read from the file's own text, so it needs no declaration from the package.
    root = _tree(tmp_path, {"x.go": _framework("aws_demo_x", '"kind": schema.StringAttribute{},')})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = read_resource(root / "internal" / "service" / "demo" / "x.go", "aws_demo_x", Package(elsewhere))
    assert out.attributes == {"kind": UPDATE}


def test_the_function_after_the_annotation_is_the_resource_not_one_before_it(tmp_path):
    before = '\nfunc earlier() *schema.Resource {\n\treturn &schema.Resource{Schema: map[string]*schema.Schema{"decoy": {}}}\n}\n\n'
    text = _sdk("aws_demo_x", '"kind": {ForceNew: true},').replace("// @SDKResource", before + "// @SDKResource")
    root = _tree(tmp_path, {"x.go": text})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"kind": REPLACE}


@pytest.mark.parametrize("where", ["before", "after"])
def test_only_the_schema_methods_own_maps_are_read(tmp_path, where):
    decoy = '\nfunc (r *x) Other() {\n\tm := map[string]schema.Attribute{"decoy": schema.StringAttribute{}}\n}\n'
    text = _framework("aws_demo_x", '"kind": schema.StringAttribute{},')
    method = "func (r *x) Schema("
    text = text.replace(method, decoy + "\n" + method) if where == "before" else text + decoy
    root = _tree(tmp_path, {"x.go": text})
    assert read_resources(root, {"aws_demo_x"})["aws_demo_x"].attributes == {"kind": UPDATE}


def test_a_test_file_does_not_stop_the_files_after_it(tmp_path):
    root = _tree(tmp_path, {"a_test.go": _sdk("aws_demo_t", '"t": {},'), "b.go": _sdk("aws_demo_b", '"b": {},')})
    assert resource_names(root) == {"aws_demo_b"}
