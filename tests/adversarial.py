"""An adversarial search for unsound collision answers (issue 28), against a reference that
shares no code with robrayc: forward kinematics written here from the URDF text (xml.etree,
numpy), python-fcl objects built here from the URDF's primitives and meshes (trimesh), and a
search near contact: segments between random configurations (in and out of the joint limits)
bisected to where a link pair starts to collide, configurations just past that boundary, the
same with whole turns added to variables that only turn joints, the robot carried to far
coordinates on a rail, NaN values, and pairs an allowed-collision run proved never to meet
(bound 0) pushed towards each other.

An answer is unsound when the reference finds a link pair colliding (FCL's libccd test on
primitives shrunk by ERODE, which misses overlaps below about a micrometre but was never seen
to report a pair that is apart)
and the checker does not, when a NaN configuration is answered instead of refused, or when a
pair proven never to collide does collide within the joint limits. Used by
tests/test_adversarial.py (a seeded slice) and benchmarks/adversarial.py (the full run).
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# Variables carrying the robot along the map (added by with_rail): far from the origin when
# their values are.
RAIL = ("adv_rail_x", "adv_rail_y")
# The reference's primitives are this much smaller on every side than the URDF's, so a
# pair it finds colliding overlaps by more than 2 ERODE (meshes are surfaces, kept as they
# are): ten times robrayc's contact tolerance (CONTACT_TOL, 1e-9), which rounding in either
# cannot explain.
ERODE = 1e-8
# How far past the boundary the probes go, as a share of the segment (configuration units:
# about as many metres at the links).
PAST = (1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3)


# --- the reference: URDF kinematics and FCL objects ---------------------------------------


def _origin(el) -> np.ndarray:
    """The 4x4 pose of an <origin> (xyz, rpy: R = Rz(yaw) Ry(pitch) Rx(roll)), identity if none."""
    m = np.eye(4)
    if el is None:
        return m
    xyz = [float(x) for x in el.get("xyz", "0 0 0").split()]
    r, p, y = (float(x) for x in el.get("rpy", "0 0 0").split())
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), \
        math.sin(y)
    m[:3, :3] = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]]) @ np.array(
        [[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]]) @ np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    m[:3, 3] = xyz
    return m


def _turn(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues' rotation about a unit axis."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    m = np.eye(4)
    m[:3, :3] = np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)
    return m


@dataclass
class Joint:
    name: str
    kind: str
    parent: str
    child: str
    origin: np.ndarray
    axis: np.ndarray
    limits: tuple[float, float] | None
    mimic: tuple[str, float, float] | None  # master, multiplier, offset


@dataclass
class Reference:
    """A URDF's links, joints and collision shapes, posed by its own kinematics."""

    links: list[str]
    joints: dict[str, Joint]  # by child link
    variables: list[str]  # joints that are not fixed and mimic none
    shapes: list[tuple[str, np.ndarray, object]] = field(default_factory=list)  # link, pose, fcl

    def value(self, j: Joint, q: dict[str, float]) -> float:
        if j.mimic is None:
            return q.get(j.name, 0.0)
        master, mult, off = j.mimic
        return mult * self.value(self.by_name[master], q) + off

    @property
    def by_name(self) -> dict[str, Joint]:
        return {j.name: j for j in self.joints.values()}

    def link_poses(self, q: dict[str, float]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for link in self.links:  # parents first
            j = self.joints.get(link)
            if j is None:
                out[link] = np.eye(4)
                continue
            m = out[j.parent] @ j.origin
            x = self.value(j, q)
            if j.kind in ("revolute", "continuous"):
                m = m @ _turn(j.axis, x)
            elif j.kind == "prismatic":
                t = np.eye(4)
                t[:3, 3] = j.axis * x
                m = m @ t
            out[link] = m
        return out

    def _placed(self, q: dict[str, float]) -> list[tuple[str, object]]:
        import fcl

        poses = self.link_poses(q)
        out = []
        for link, pose, geom in self.shapes:
            m = poses[link] @ pose
            out.append((link, fcl.CollisionObject(geom, fcl.Transform(m[:3, :3], m[:3, 3]))))
        return out

    def colliding(self, q: dict[str, float], pairs: set | None = None,
                  surfaces: bool = True) -> set[tuple[str, str]]:
        """The link pairs (sorted names) whose shapes FCL finds colliding at q; without
        `surfaces`, only those where a primitive collides (two meshes have no depth: at a
        contact, rounding decides whether their triangles cross)."""
        import fcl

        placed = self._placed(q)
        mesh = [isinstance(geom, fcl.BVHModel) for _, _, geom in self.shapes]
        out = set()
        for i, (la, oa) in enumerate(placed):
            for k, (lb, ob) in enumerate(placed[i + 1:], start=i + 1):
                key = (la, lb) if la < lb else (lb, la)
                if la == lb or key in out or (pairs is not None and key not in pairs):
                    continue
                if not surfaces and mesh[i] and mesh[k]:
                    continue
                if fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()):
                    out.add(key)
        return out

    def gap(self, q: dict[str, float], pair: tuple[str, str]) -> float:
        """How far apart the pair's shapes are (FCL's unsigned distance; 0 when colliding)."""
        import fcl

        placed = self._placed(q)
        a = [o for link, o in placed if link == pair[0]]
        b = [o for link, o in placed if link == pair[1]]
        best = math.inf
        for oa in a:
            for ob in b:
                if fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()):
                    return 0.0
                best = min(best, fcl.distance(oa, ob, fcl.DistanceRequest(),
                                              fcl.DistanceResult()))
        return best

    def ranges(self) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = [], []
        for v in self.variables:
            lim = self.by_name[v].limits
            if lim is None:
                lo.append(-math.pi)
                hi.append(math.pi)
            else:
                lo.append(lim[0])
                hi.append(lim[1])
        return np.array(lo), np.array(hi)

    def periodic(self) -> np.ndarray:
        """Per variable: every joint it drives turns (so a whole turn changes no pose)."""
        out = []
        for v in self.variables:
            driven = [j for j in self.joints.values() if j.name == v or (
                j.mimic is not None and self._master(j) == v)]
            out.append(all(j.kind in ("revolute", "continuous") for j in driven))
        return np.array(out)

    def _master(self, j: Joint) -> str:
        while j.mimic is not None:
            j = self.by_name[j.mimic[0]]
        return j.name


def _package_dir(name: str) -> Path | None:
    for root in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
        if root and (Path(root) / name).is_dir():
            return Path(root) / name
    return None


def _mesh_geometry(path: Path, scale: np.ndarray):
    import fcl
    import trimesh

    mesh = trimesh.load(str(path), force="mesh", process=False)
    geom = fcl.BVHModel()
    faces = np.asarray(mesh.faces, dtype=np.int64)
    geom.beginModel(len(mesh.vertices), len(faces))
    geom.addSubModel(np.asarray(mesh.vertices, dtype=float) * scale, faces)
    geom.endModel()
    return geom


def _geometry(geom_el, base: Path):
    """The FCL geometry of a URDF <geometry>, None for what the reference does not read
    (COLLADA meshes: trimesh and robrayc may read their units and axes differently)."""
    import fcl

    box, sphere = geom_el.find("box"), geom_el.find("sphere")
    cyl, mesh = geom_el.find("cylinder"), geom_el.find("mesh")
    if box is not None:
        return fcl.Box(*(float(x) - 2 * ERODE for x in box.get("size").split()))
    if sphere is not None:
        return fcl.Sphere(float(sphere.get("radius")) - ERODE)
    if cyl is not None:
        return fcl.Cylinder(float(cyl.get("radius")) - ERODE,
                            float(cyl.get("length")) - 2 * ERODE)
    if mesh is not None:
        name = mesh.get("filename")
        if name.startswith("package://"):
            pkg, _, rest = name[len("package://"):].partition("/")
            root = _package_dir(pkg)
            path = root / rest if root is not None else None
        else:
            path = base / name.removeprefix("file://")
        if path is None or not path.is_file() or path.suffix.lower() != ".stl":
            return None
        scale = np.array([float(x) for x in mesh.get("scale", "1 1 1").split()])
        return _mesh_geometry(path, scale)
    return None


def reference(urdf: Path) -> Reference:
    root = ET.parse(urdf).getroot()
    joints: dict[str, Joint] = {}
    for el in root.findall("joint"):
        axis_el, lim, mim = el.find("axis"), el.find("limit"), el.find("mimic")
        axis = np.array([float(x) for x in (axis_el.get("xyz") if axis_el is not None
                                            else "1 0 0").split()])
        kind = el.get("type")
        limits = None
        if kind in ("revolute", "prismatic") and lim is not None:
            limits = (float(lim.get("lower", 0)), float(lim.get("upper", 0)))
        mimic = None
        if mim is not None and kind != "fixed":
            mimic = (mim.get("joint"), float(mim.get("multiplier", 1)),
                     float(mim.get("offset", 0)))
        joints[el.find("child").get("link")] = Joint(
            el.get("name"), kind, el.find("parent").get("link"), el.find("child").get("link"),
            _origin(el.find("origin")), axis / (np.linalg.norm(axis) or 1.0), limits, mimic)
    names = [el.get("name") for el in root.findall("link")]
    order, seen = [], set()

    def visit(link: str) -> None:
        if link in seen:
            return
        j = joints.get(link)
        if j is not None:
            visit(j.parent)
        seen.add(link)
        order.append(link)

    for link in names:
        visit(link)
    variables = [j.name for j in joints.values()
                 if j.kind in ("revolute", "continuous", "prismatic") and j.mimic is None]
    ref = Reference(order, joints, variables)
    for link in root.findall("link"):
        for col in link.findall("collision"):
            geom = _geometry(col.find("geometry"), urdf.parent)
            if geom is not None:
                ref.shapes.append((link.get("name"), _origin(col.find("origin")), geom))
    return ref


def with_rail(urdf_text: str) -> str:
    """The robot on a map: a new root link and two prismatic joints (x, y; +-1e7 m)."""
    root = ET.fromstring(urdf_text)
    children = {j.find("child").get("link") for j in root.findall("joint")}
    base = next(el.get("name") for el in root.findall("link") if el.get("name") not in children)
    for name in ("adv_map", "adv_rail"):
        root.insert(0, ET.Element("link", name=name))
    for name, parent, child, axis in ((RAIL[0], "adv_map", "adv_rail", "1 0 0"),
                                      (RAIL[1], "adv_rail", base, "0 1 0")):
        j = ET.SubElement(root, "joint", name=name, type="prismatic")
        ET.SubElement(j, "parent", link=parent)
        ET.SubElement(j, "child", link=child)
        ET.SubElement(j, "axis", xyz=axis)
        ET.SubElement(j, "limit", lower="-1e7", upper="1e7", effort="1", velocity="1")
    return ET.tostring(root, encoding="unicode")


# --- random scenes --------------------------------------------------------------------------


def random_urdf(rng: np.random.Generator, folder: Path, name: str) -> Path:
    """A random tree of 4 to 7 links: boxes, spheres, cylinders and meshes (a convex blob and
    an open box surface), on revolute, continuous and prismatic joints, some mimicking an
    earlier joint (multiplier +-1, an offset: a prismatic joint may mimic a continuous one)."""
    import trimesh

    robot = ET.Element("robot", name=name)
    links = ["base"]
    ET.SubElement(robot, "link", name="base")
    movable: list[tuple[str, str]] = []
    n = int(rng.integers(4, 8))
    for k in range(1, n):
        link = f"l{k}"
        el = ET.SubElement(robot, "link", name=link)
        for _ in range(int(rng.integers(1, 3))):
            col = ET.SubElement(el, "collision")
            ET.SubElement(col, "origin", xyz=" ".join(f"{x:.6f}" for x in rng.uniform(-.3, .3, 3)),
                          rpy=" ".join(f"{x:.6f}" for x in rng.uniform(-math.pi, math.pi, 3)))
            geom = ET.SubElement(col, "geometry")
            kind = rng.choice(["box", "sphere", "cylinder", "mesh", "mesh-open"])
            if kind == "box":
                size = " ".join(f"{x:.6f}" for x in rng.uniform(.05, .5, 3))
                ET.SubElement(geom, "box", size=size)
            elif kind == "sphere":
                ET.SubElement(geom, "sphere", radius=f"{rng.uniform(.05, .3):.6f}")
            elif kind == "cylinder":
                ET.SubElement(geom, "cylinder", radius=f"{rng.uniform(.03, .2):.6f}",
                              length=f"{rng.uniform(.1, .6):.6f}")
            else:
                if kind == "mesh":
                    mesh = trimesh.convex.convex_hull(rng.normal(size=(24, 3)) * .12)
                else:  # a box with one face missing: only surfaces collide
                    mesh = trimesh.creation.box(rng.uniform(.1, .4, 3))
                    mesh.update_faces(np.arange(len(mesh.faces)) >= 2)
                mesh_name = f"{name}_{k}_{len(list(el))}.stl"
                mesh.export(folder / mesh_name)
                ET.SubElement(geom, "mesh", filename=mesh_name)
        parent = links[int(rng.integers(0, len(links)))]
        kind = str(rng.choice(["revolute", "continuous", "prismatic", "fixed"],
                              p=[.4, .25, .25, .1]))
        j = ET.SubElement(robot, "joint", name=f"j{k}", type=kind)
        ET.SubElement(j, "parent", link=parent)
        ET.SubElement(j, "child", link=link)
        ET.SubElement(j, "origin", xyz=" ".join(f"{x:.6f}" for x in rng.uniform(-.5, .5, 3)),
                      rpy=" ".join(f"{x:.6f}" for x in rng.uniform(-math.pi, math.pi, 3)))
        axis = rng.normal(size=3) if rng.random() < .4 else np.eye(3)[int(rng.integers(0, 3))]
        ET.SubElement(j, "axis", xyz=" ".join(f"{x:.9f}" for x in axis / np.linalg.norm(axis)))
        if kind == "revolute":
            a = rng.uniform(.5, 2 * math.pi + 1)
            ET.SubElement(j, "limit", lower=f"{-a:.6f}", upper=f"{a:.6f}", effort="1", velocity="1")
        elif kind == "prismatic":
            ET.SubElement(j, "limit", lower=f"{-rng.uniform(.1, .6):.6f}",
                          upper=f"{rng.uniform(.1, .6):.6f}", effort="1", velocity="1")
        if kind != "fixed" and movable and rng.random() < .35:
            master, master_kind = movable[int(rng.integers(0, len(movable)))]
            ET.SubElement(j, "mimic", joint=master, multiplier=str(float(rng.choice([1, -1]))),
                          offset=f"{rng.uniform(-.5, .5):.6f}")
        elif kind != "fixed":
            movable.append((f"j{k}", kind))
        links.append(link)
    path = folder / f"{name}.urdf"
    path.write_text(ET.tostring(robot, encoding="unicode"))
    return path


def shared_urdf(rng: np.random.Generator, folder: Path, name: str) -> Path:
    """A turning arm and a slider driven by one variable (the slider mimics the arm, as a
    robray scene may share a variable between a revolute and a prismatic joint): the arm
    turns through more than a whole turn, and each turn slides the slider further."""
    reach = rng.uniform(2.0, 3.5)
    turn = rng.uniform(math.pi + 1.0, 2 * math.pi)
    sign = float(rng.choice([1.0, -1.0]))
    meet = rng.uniform(2 * math.pi - turn + 0.2, turn - 0.2)  # past a whole turn from -turn
    # the slider's origin where the pole's centre is at q = meet (they meet head on)
    at = np.array([reach * math.cos(meet) - sign * meet, reach * math.sin(meet)])
    r, (x, y) = rng.uniform(.3, .6), rng.uniform(.4, 1.0, 2)
    shape = [f'<cylinder radius="{r:.6f}" length="1"/>', f'<box size="{x:.6f} {y:.6f} 1"/>']
    text = f"""<robot name="{name}">
  <link name="base"/>
  <link name="arm"/>
  <link name="pole"><collision><origin xyz="{reach:.6f} 0 0"/>
    <geometry>{shape[0]}</geometry></collision></link>
  <link name="slider"><collision><geometry>{shape[int(rng.integers(0, 2))]}</geometry>
    </collision></link>
  <joint name="q" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="{-turn:.6f}" upper="{turn:.6f}" effort="1" velocity="1"/>
  </joint>
  <joint name="fix" type="fixed"><parent link="arm"/><child link="pole"/></joint>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="slider"/>
    <origin xyz="{at[0]:.6f} {at[1]:.6f} 0"/><axis xyz="1 0 0"/>
    <limit lower="{-turn - 1:.6f}" upper="{turn + 1:.6f}" effort="1" velocity="1"/>
    <mimic joint="q" multiplier="{sign}" offset="0"/></joint>
</robot>
"""
    path = folder / f"{name}.urdf"
    path.write_text(text)
    return path


# --- the search -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    q: tuple[float, ...]  # values of the reference's variables
    case: str  # boundary, out-of-limit, wrapped, far
    pairs: frozenset  # link pairs the reference finds colliding


@dataclass
class Findings:
    """What a search checked and the unsound answers it found, by backend and case."""

    probes: dict = field(default_factory=dict)  # (backend, case) -> probes checked
    unsound: list = field(default_factory=list)  # (backend, case, detail)
    never_pairs: int = 0  # pairs proven never (bound 0) that were pushed together

    def count(self, backend: str, case: str, n: int = 1) -> None:
        self.probes[(backend, case)] = self.probes.get((backend, case), 0) + n

    def unsound_in(self, backend: str | None = None, cases: tuple[str, ...] | None = None) -> list:
        return [u for u in self.unsound if (backend is None or u[0] == backend)
                and (cases is None or u[1] in cases)]

    def merge(self, other: Findings) -> None:
        for key, n in other.probes.items():
            self.count(*key, n)
        self.unsound += other.unsound
        self.never_pairs += other.never_pairs


def _draw(ref: Reference, rng: np.random.Generator, far: float | None) -> np.ndarray:
    lo, hi = ref.ranges()
    if rng.random() < 0.3:  # out of the limits too (a checker answers anywhere)
        lo, hi = lo - 0.25 * (hi - lo), hi + 0.25 * (hi - lo)
    q = lo + rng.random(len(lo)) * (hi - lo)
    for k, v in enumerate(ref.variables):
        if v in RAIL:
            q[k] = (far or 0.0) * (1 if RAIL.index(v) == 0 else 0.5)
    return q


def _case(ref: Reference, q: np.ndarray, far: float | None) -> str:
    lo, hi = ref.ranges()
    if far is not None and far >= 1e3:
        return "far"
    return "out-of-limit" if ((q < lo) | (q > hi)).any() else "boundary"


def boundary_probes(ref: Reference, rng: np.random.Generator, segments: int,
                    far: float | None = None) -> list[Probe]:
    """Configurations just past where a link pair starts to collide, on random segments,
    and each with whole turns added to variables that only turn joints."""
    names = ref.variables
    periodic = ref.periodic()
    out: list[Probe] = []
    for _ in range(segments):
        q0, q1 = _draw(ref, rng, far), _draw(ref, rng, far)
        r0 = ref.colliding(dict(zip(names, q0, strict=True)))
        r1 = ref.colliding(dict(zip(names, q1, strict=True)))
        changed = sorted(r0 ^ r1)
        if not changed:
            continue
        pair = changed[int(rng.integers(0, len(changed)))]
        a, b = (q0, q1) if pair in r1 else (q1, q0)  # a: apart, b: colliding
        t_free, t_hit = 0.0, 1.0
        for _ in range(48):
            t = (t_free + t_hit) / 2
            if ref.colliding(dict(zip(names, a + t * (b - a), strict=True)), {pair}):
                t_hit = t
            else:
                t_free = t
        length = float(np.linalg.norm(b - a))
        for past in (0.0, *PAST):
            t = t_hit + past / length
            if t > 1.0:
                break
            q = a + t * (b - a)
            points = [(q, _case(ref, q, far))]
            if periodic.any():
                turns = rng.integers(-2, 3, len(q)) * periodic
                if turns.any():
                    points.append((q + 2 * math.pi * turns, "far" if far and far >= 1e3
                                   else "wrapped"))
            for x, case in points:  # two meshes: only well past their first contact
                hits = ref.colliding(dict(zip(names, x, strict=True)), surfaces=past >= 1e-6)
                if hits:
                    out.append(Probe(tuple(x.tolist()), case, frozenset(hits)))
    return out


def link_of(scene) -> dict[str, str]:
    return {f.name: f.link if f.link is not None else f.name for f in scene.frames}


def check_probes(scene, ref: Reference, probes: list[Probe], backend: str,
                 findings: Findings) -> None:
    """Every probe through the checker (batched, and one at a time): a pair the reference
    finds colliding and the checker does not is unsound; so is an answer to a NaN."""
    from robrayc.analysis.collision import CollisionChecker

    checker = CollisionChecker(scene, use_allowed=False, backend=backend)
    assert checker.backend == backend, checker.note
    assert set(scene.variables) == set(ref.variables), (scene.variables, ref.variables)
    column = [ref.variables.index(v) for v in scene.variables]
    links = link_of(scene)
    if probes:
        Q = np.array([p.q for p in probes])[:, column]
        batch = checker.colliding_pairs_batch(Q)
        for probe, row, got in zip(probes, Q, batch, strict=True):
            findings.count(backend, probe.case)
            for answer in (got, checker.colliding_pairs(row)):
                seen = {tuple(sorted((links[x], links[y]))) for x, y in answer}
                missing = {p for p in probe.pairs if p[0] != p[1]} - seen
                if missing:
                    findings.unsound.append((backend, probe.case, (
                        scene.robot_name, dict(zip(scene.variables, row.tolist(), strict=True)),
                        sorted(missing))))
                    break
    for k in range(min(2, len(scene.variables))):
        q = np.zeros(len(scene.variables))
        q[k] = math.nan
        findings.count(backend, "nan")
        try:
            answer = checker.colliding_pairs(q)
        except ValueError:
            continue
        findings.unsound.append((backend, "nan", (scene.variables[k], answer)))


def check_never(scene, ref: Reference, rng: np.random.Generator, samples: int,
                backend: str, findings: Findings, tries: int = 200) -> None:
    """Pairs an allowed-collision run proves never to collide (bound 0), pushed together:
    the closest of `tries` random configurations within the limits (whole turns added to
    variables that only turn joints), then a shrinking random descent on the reference's
    distance. A collision found is a wrong 'never'."""
    from robrayc.analysis import acm

    result = acm.generate(scene, samples=samples, seed=int(rng.integers(0, 1 << 30)), jobs=1,
                          backend=backend, prove=True)
    links = link_of(scene)
    names = ref.variables
    lo, hi = ref.ranges()
    periodic = ref.periodic()
    # a link with several collision shapes has a frame for each: a link pair is pushed
    # together when every frame pair between them is proven never to collide
    proven: dict[tuple[str, str], bool] = {}
    for verdict in result.pairs:
        pair = tuple(sorted((links[verdict.a], links[verdict.b])))
        proven[pair] = proven.get(pair, True) and verdict.proven
    for pair, sure in proven.items():
        if not sure or pair[0] == pair[1]:
            continue
        findings.never_pairs += 1
        findings.count(backend, "never")
        Q = lo + rng.random((tries, len(lo))) * (hi - lo)
        gaps = [ref.gap(dict(zip(names, q, strict=True)), pair) for q in Q]
        q = Q[int(np.argmin(gaps))]
        best, step = min(gaps), (hi - lo) / 8
        for _ in range(60):
            if best <= 0.0:
                break
            trial = np.clip(q + rng.normal(size=len(q)) * step, lo, hi)
            g = ref.gap(dict(zip(names, trial, strict=True)), pair)
            if g < best:
                q, best = trial, g
            else:
                step = step * 0.85
        wrapped = q + 2 * math.pi * rng.integers(-1, 2, len(q)) * periodic
        for x in (q, wrapped):
            if ref.colliding(dict(zip(names, x, strict=True)), {pair}):
                findings.unsound.append((backend, "never", (pair, x.tolist())))
                break


# --- runs -----------------------------------------------------------------------------------

FAR = (1e3, 1e4, 1e5, 1e6, 1e7)


def load(urdf: Path):
    from robrayc.diagnostics import DiagnosticSink
    from robrayc.frontend import LoadOptions, load_scene

    return load_scene([str(urdf)], LoadOptions(missing_mesh="drop"), DiagnosticSink(quiet=True))


def search_urdf(urdf: Path, rng: np.random.Generator, segments: int, backends: tuple[str, ...],
                findings: Findings, far: tuple[float, ...] = (), never_samples: int = 0) -> None:
    """One robot: boundary probes at the origin (and on a rail at each of `far`), through
    every backend; with never_samples, its proven 'never' pairs pushed together."""
    runs = [(urdf, None)]
    for x in far:
        railed = urdf.with_name(urdf.stem + "_rail.urdf")
        if not railed.exists():
            railed.write_text(with_rail(urdf.read_text()))
        runs.append((railed, x))
    for path, at in runs:
        ref = reference(path)
        scene = load(path)
        probes = boundary_probes(ref, rng, segments, at)
        for backend in backends:
            check_probes(scene, ref, probes, backend, findings)
    if never_samples:
        ref, scene = reference(urdf), load(urdf)
        for backend in backends:
            check_never(scene, ref, rng, never_samples, backend, findings)


def search_random(seed: int, scenes: int, folder: Path, segments: int,
                  backends: tuple[str, ...], far: tuple[float, ...] = (),
                  never_samples: int = 0) -> Findings:
    findings = Findings()
    rng = np.random.default_rng(seed)
    for k in range(scenes):  # every third a shared variable (issue 28's defect 1)
        make = shared_urdf if k % 3 == 2 else random_urdf
        urdf = make(rng, folder, f"adv{seed}_{k}")
        search_urdf(urdf, rng, segments, backends, findings, far, never_samples)
    return findings
