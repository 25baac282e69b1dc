"""XML attacks on URDF (and COLLADA meshes): entity expansion, external entities (general and
parameter), external DTDs (file and network), XInclude, and the same behind a comment or in
UTF-16. Each is refused with an error located in the file; no byte of the secret file ever
appears in an output or a message, and nothing is fetched from the network.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from tests.fuzz.harness import run_inprocess

CANARY = "CANARY-7f3a9"
SECRET_TEXT = f"{CANARY} 4242.4242 1717.1717 9191.9191\n"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    p = tmp_path / "secret" / "passwords.txt"
    p.parent.mkdir()
    p.write_text(SECRET_TEXT)
    return p


@pytest.fixture
def listener():
    """A local TCP port that records whether anything connected (a would-be DTD fetch)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(5)
    s.setblocking(False)
    yield s
    s.close()


def _connected(s: socket.socket) -> bool:
    try:
        conn, _ = s.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


LINK = '<link name="a"><visual><geometry><box size="1 1 1"/></geometry></visual></link>'


def attacks(secret: Path, port: int) -> dict[str, bytes]:
    url = secret.as_uri()
    laughs = ['<!ENTITY l0 "lollollollollollollollollollol">'] + [
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)]
    out = {
        "billion_laughs": "<!DOCTYPE robot [\n" + "\n".join(laughs) + "\n]>\n"
                          f'<robot name="&l9;">{LINK}</robot>',
        "quadratic_blowup": f'<!DOCTYPE robot [<!ENTITY a "{"x" * 50_000}">]>\n'
                            f'<robot name="r"><link name="{"&a;" * 2000}"/></robot>',
        "external_general_attr": f'<!DOCTYPE robot [<!ENTITY x SYSTEM "{url}">]>\n'
                                 f'<robot name="&x;">{LINK}</robot>',
        "external_general_text": f'<!DOCTYPE robot [<!ENTITY x SYSTEM "{url}">]>\n'
                                 f'<robot name="r"><link name="a">&x;</link></robot>',
        "external_parameter": f'<!DOCTYPE robot [<!ENTITY % p SYSTEM "{url}"> %p;]>\n'
                              f'<robot name="r">{LINK}</robot>',
        "external_dtd_file": f'<!DOCTYPE robot SYSTEM "{url}">\n<robot name="r">{LINK}</robot>',
        "external_dtd_http": f'<!DOCTYPE robot PUBLIC "-//x//y" "http://127.0.0.1:{port}/e.dtd">'
                             f'\n<robot name="r">{LINK}</robot>',
        "xinclude_text": '<robot name="r" xmlns:xi="http://www.w3.org/2001/XInclude">'
                         f'<link name="a"><xi:include href="{url}" parse="text"/></link></robot>',
        "xinclude_xml": '<robot name="r" xmlns:xi="http://www.w3.org/2001/XInclude">'
                        f'<xi:include href="http://127.0.0.1:{port}/more.urdf"/>{LINK}</robot>',
    }
    for key in ("external_general_attr", "external_parameter", "external_dtd_file"):
        out["comment_" + key] = "<!-- <a> hides nothing -->\n" + out[key]
    data = {k: b'<?xml version="1.0"?>\n' + v.encode() for k, v in out.items()}
    data["utf16_external"] = ('<?xml version="1.0" encoding="UTF-16"?>\n'
                              + out["external_general_attr"]).encode("utf-16")
    return data


ATTACKS = sorted(attacks(Path("/x"), 1))


@pytest.mark.parametrize("name", ATTACKS)
def test_attack_refused_with_a_located_error(name, tmp_path, secret, listener):
    src = tmp_path / f"{name}.urdf"
    src.write_bytes(attacks(secret, listener.getsockname()[1])[name])
    out = tmp_path / "out" / "robot.c"
    out.parent.mkdir()
    outcome = run_inprocess([str(src), "-o", str(out)])
    assert outcome.status == 1, (outcome.stderr, outcome.exception)
    assert outcome.seconds < 2
    m = re.match(r"^(.+?):(\d+):(\d+): error: (.*)$", outcome.stderr, re.M)
    assert m and m.group(1) == str(src), outcome.stderr
    assert re.search(r"entit|DTD|XInclude|XML", m.group(4)), m.group(4)
    assert CANARY not in outcome.stderr and "4242" not in outcome.stderr
    assert CANARY.encode() not in outcome.stdout
    assert list(out.parent.iterdir()) == []
    assert not _connected(listener)


def test_collada_mesh_with_an_external_entity(tmp_path, secret):
    """A mesh is XML too: its entities are never resolved into vertex data."""
    dae = tmp_path / "evil.dae"
    dae.write_text(f"""<?xml version="1.0"?>
<!DOCTYPE COLLADA [<!ENTITY x SYSTEM "{secret.as_uri()}">]>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<library_geometries><geometry id="g"><mesh>
<source id="p"><float_array id="pa" count="9">&x; 0 0 1 0 0 0 1 0</float_array>
<technique_common><accessor source="#pa" count="3" stride="3"><param name="X" type="float"/>
<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common>
</source><vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
<triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
</mesh></geometry></library_geometries>
<library_visual_scenes><visual_scene id="s"><node><instance_geometry url="#g"/></node>
</visual_scene></library_visual_scenes><scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
""")
    src = tmp_path / "scene.robray"
    src.write_text('frame a { geometry { mesh "evil.dae"; } }\n')
    out = tmp_path / "out.c"
    outcome = run_inprocess([str(src), "-o", str(out)])
    assert outcome.exception is None and outcome.status in (0, 1), outcome.stderr
    texts = [outcome.stderr, outcome.stdout.decode()]
    if out.exists():
        texts.append(out.read_text())
    for t in texts:
        assert CANARY not in t and "4242" not in t


def test_json_positions_cannot_print_other_files(tmp_path, secret):
    """A JSON scene's "pos" names any file; diagnostics show lines only of files read."""
    src = tmp_path / "leak.json"
    pos = {"file": str(secret), "line": 1, "col": 1, "end_line": 1, "end_col": 5}
    src.write_text(json.dumps({"format": "robrayc-scene", "version": 1, "frames": [
        {"name": "a", "parent": "missing", "pos": pos}]}))
    outcome = run_inprocess([str(src), "-o", str(tmp_path / "out.c")])
    assert outcome.status == 1
    assert f"{secret}:1:1: error: unknown parent frame 'missing'" in outcome.stderr
    assert CANARY not in outcome.stderr


def test_mesh_path_naming_a_secret_file(tmp_path, secret):
    for name in ("passwords.txt", "passwords.obj", "passwords.stl", "passwords.dae"):
        target = secret.parent / name
        if not target.exists():
            target.write_text(SECRET_TEXT)
        src = tmp_path / "scene.robray"
        src.write_text(f'frame a {{ geometry {{ mesh "{target}"; }} }}\n')
        outcome = run_inprocess([str(src), "-o", str(tmp_path / "out.c")])
        assert outcome.status == 1 and outcome.exception is None, outcome.stderr
        assert CANARY not in outcome.stderr and "4242" not in outcome.stderr
