"""Bad model files: one clear engine.XMLError naming file, line, element and attribute."""
import pytest

import engine

W = "<mujoco><worldbody>{}</worldbody>{}</mujoco>"


def load(tmp_path, body, extra="", name="m.xml"):
    p = tmp_path / name
    p.write_text(W.format(body, extra))
    return engine.MjModel.from_xml_path(str(p)), p


CASES = [
    # (worldbody content, extra sections, element, attribute, words in the message, line)
    ("<body><geom size='.1'/></bod>", "", None, None, "malformed", 1),
    ("<body><wheel/></body>", "", "wheel", None, "unrecognized element", 1),
    ("<body><geom size='.1' colour='red'/></body>", "", "geom", "colour", "unrecognized attribute", 1),
    ("<body pos='1 2'><geom size='.1'/></body>", "", "body", "pos", "expected 3 values", 1),
    ("<body><geom size='.1 x'/></body>", "", "geom", "size", "expected a number", 1),
    ("<body><joint type='screw'/><geom size='.1'/></body>", "", "joint", "type", "expected one of", 1),
    ("<body><geom class='nope' size='.1'/></body>", "", "geom", "class", "unknown default class", 1),
    ("<body><joint name='a'/><geom size='.1'/></body>",
     "<actuator><motor joint='b'/></actuator>", "motor", "joint", "unknown joint 'b'", 1),
    ("<body><inertial pos='0 0 0' mass='1' diaginertia='1 1 3'/><joint/></body>", "",
     "inertial", "diaginertia", "triangle inequality", 1),
    ("<body><geom type='mesh' mesh='m'/></body>",
     "<asset><mesh name='m' file='missing.stl'/></asset>", "mesh", "file", "not found", 1),
    ("<body><joint axis='0 0 0'/><geom size='.1'/></body>", "", "joint", "axis", "zero", 1),
    ("<body><geom size='.1' quat='1 0 0 0' euler='0 0 1'/></body>", "", "geom", "euler",
     "multiple orientation", 1),
]


@pytest.mark.parametrize("body,extra,element,attr,words,line", CASES,
                         ids=[c[4].split()[0] + "-" + str(i) for i, c in enumerate(CASES)])
def test_bad_model_gives_one_clear_error(tmp_path, body, extra, element, attr, words, line):
    with pytest.raises(engine.XMLError) as e:
        load(tmp_path, body, extra)
    err = e.value
    msg = str(err)
    assert words in msg, msg
    assert err.file and err.file.endswith("m.xml"), msg
    assert err.line == line, msg
    if element:
        assert err.element == element, msg
        assert f"<{element}>" in msg
    if attr:
        assert err.attribute == attr, msg
        assert f"'{attr}'" in msg


def test_error_in_included_file_names_that_file(tmp_path):
    (tmp_path / "part.xml").write_text("<mujoco>\n<body>\n<geom size='1 2 3 4'/></body></mujoco>")
    with pytest.raises(engine.XMLError) as e:
        load(tmp_path, "<include file='part.xml'/>")
    assert e.value.file.endswith("part.xml") and e.value.line == 3, str(e.value)


def test_missing_file():
    with pytest.raises(engine.XMLError, match="not found"):
        engine.MjModel.from_xml_path("/nonexistent/model.xml")


def test_unsupported_elements_name_themselves():
    with pytest.raises(NotImplementedError, match="composite"):
        engine.MjModel.from_xml_string(
            "<mujoco><worldbody><body><composite type='cable' count='3 1 1'/></body>"
            "</worldbody></mujoco>")
    with pytest.raises(NotImplementedError, match="interpolated flex"):
        engine.MjModel.from_xml_string(
            "<mujoco><worldbody><flexcomp name='f' count='3 3 3' dof='trilinear'/>"
            "</worldbody></mujoco>")


EQ_BASE = """<mujoco><worldbody>
  <body name="a"><joint name="j1"/><geom size=".1"/><site name="s1"/></body>
  <body name="b" pos="1 0 0"><joint name="j2"/><geom size=".1"/><site name="s2"/></body>
</worldbody><tendon><fixed name="t1"><joint joint="j1" coef="1"/></fixed></tendon>
<equality>{}</equality></mujoco>"""


@pytest.mark.parametrize("eq", [
    '<connect body1="a" body2="a" anchor="0 0 0"/>', '<weld body1="a" body2="a"/>',
    '<joint joint1="j1" joint2="j1"/>', '<tendon tendon1="t1" tendon2="t1"/>',
    '<connect site1="s1" site2="s1"/>', '<weld site1="s1" site2="s1"/>',
    '<connect body1="world" anchor="0 0 0"/>', '<connect body1="a" anchor="0 0 0"/>'])
def test_equality_on_the_same_element_twice_is_rejected_as_mujoco(eq):
    """An equality between an element and itself (body2 defaults to the world): the same
    decision and message as mujoco 4.0.0 (issue 25's validation parity)."""
    from oracle import mujoco
    xml = EQ_BASE.format(eq)
    try:
        mujoco.MjModel.from_xml_string(xml)
        theirs = None
    except ValueError as e:
        theirs = str(e).split("\n")[0].removeprefix("Error: ")
    if theirs is None:
        engine.MjModel.from_xml_string(xml)
    else:
        with pytest.raises(engine.CompileError) as ours:
            engine.MjModel.from_xml_string(xml)
        assert ours.value.message == theirs
