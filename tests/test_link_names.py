"""Collision reports and picture legends name robot links for a robot read from URDF (issue
32: `collide ur5_robot.urdf` reported frame names, which for a URDF robot are joint names,
while SRDFs and users speak of links). Link names checked against the URDF itself (lxml)."""

from __future__ import annotations

import json

import pytest
from lxml import etree

from tests.corpus import require_corpus
from tests.run import robrayc
from tests.urdf_robots import env_with_packages, robot_path


@pytest.fixture(scope="module")
def ur5():
    require_corpus()
    path = robot_path("ur5")
    links = {el.get("name") for el in etree.parse(str(path)).getroot().iter("link")}
    return path, links


def test_collide_names_links(ur5) -> None:
    path, links = ur5
    r = robrayc("collide", path, "--var", "elbow_joint", "--val", "3", "--distance",
                env=env_with_packages(), process=True)
    assert r.status == 1, r.err
    pairs = [line.split() for line in r.out.splitlines() if not line.startswith("distance")]
    assert ["forearm_link", "upper_arm_link"] in pairs
    assert all(a in links and b in links and a <= b for a, b in pairs), pairs
    assert len(pairs) == len({tuple(p) for p in pairs})
    dist = [line.split()[1:3] for line in r.out.splitlines() if line.startswith("distance")]
    assert dist and all(a in links and b in links for a, b in dist)


def test_collide_json_keeps_frames_and_adds_links(ur5) -> None:
    path, links = ur5
    r = robrayc("collide", path, "--var", "elbow_joint", "--val", "3", "--json", "--distance",
                env=env_with_packages(), process=True)
    doc = json.loads(r.out)
    assert ["elbow_joint", "shoulder_lift_joint"] in doc["collisions"]  # as before
    assert len(doc["collision_links"]) == len(doc["collisions"])
    for (fa, fb), (la, lb) in zip(doc["collisions"], doc["collision_links"], strict=True):
        assert (doc["links"][fa], doc["links"][fb]) == (la, lb) and {la, lb} <= links
    assert doc["links"]["elbow_joint"] == "forearm_link"
    assert len(doc["distance_links"]) == len(doc["distances"])


def test_allowed_collisions_name_links(ur5) -> None:
    path, links = ur5
    r = robrayc("allowed-collisions", path, "--samples", "200", "--format", "json",
                env=env_with_packages(), process=True)
    pairs = json.loads(r.out)["pairs"]
    assert pairs and all({p["link_a"], p["link_b"]} <= links for p in pairs)
    text = robrayc("allowed-collisions", path, "--samples", "200", env=env_with_packages(),
                   process=True).out
    assert ('allow_collision "elbow_joint" "shoulder_lift_joint";  // links forearm_link '
            "upper_arm_link: adjacent") in text


def test_picture_legend_names_links(ur5, tmp_path) -> None:
    path, links = ur5
    out = tmp_path / "ur5.svg"
    r = robrayc(path, "-o", out, "--highlight-collisions", "--var", "elbow_joint", "--val", "3",
                env=env_with_packages(), process=True)
    assert r.status == 0, r.err
    legend = etree.parse(str(out)).getroot().find(".//{*}g[@class='legend']")
    texts = [t.text for t in legend.iter("{*}text") if t.text and "<->" in t.text]
    assert "forearm_link <-> upper_arm_link" in texts or \
        "upper_arm_link <-> forearm_link" in texts, texts
    assert all(name in links for t in texts for name in t.split(" <-> ")), texts


def test_a_scene_without_links_keeps_frame_names(tmp_path) -> None:
    scene = tmp_path / "s.robray"
    scene.write_text("frame a { geometry { shape box; dimension [1, 1, 1]; } }\n"
                     "frame b { translation [0.5, 0, 0];\n"
                     "          geometry { shape sphere; radius 0.3; } }\n")
    r = robrayc("collide", scene, env=env_with_packages(), process=True)
    assert r.out == "a b\n" and "1 colliding pair at" in r.err
