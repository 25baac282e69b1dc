// Load an SDF (or URDF, which libsdformat converts) with sdf::Root; exit 1 on any error.
// Prints what the tests compare, one fact a line, poses resolved by libsdformat itself:
//   link NAME x y z qw qx qy qz            (link frame relative to the model frame)
//   inertial LINK mass ixx iyy izz ixy ixz iyz x y z qw qx qy qz
//   joint NAME TYPE PARENT CHILD ax ay az lower upper effort velocity (axis in child frame)
//   shape LINK visual|collision NAME KIND sizes... x y z qw qx qy qz  (pose in the link frame)
//   color LINK NAME r g b a transparency
#include <sdf/sdf.hh>

#include <iomanip>
#include <iostream>
#include <string>

static void pose(const ignition::math::Pose3d &p) {
  std::cout << ' ' << p.Pos().X() << ' ' << p.Pos().Y() << ' ' << p.Pos().Z() << ' '
            << p.Rot().W() << ' ' << p.Rot().X() << ' ' << p.Rot().Y() << ' ' << p.Rot().Z();
}

static bool check(const sdf::Errors &errors, const std::string &what) {
  for (const auto &e : errors) std::cerr << what << ": " << e << '\n';
  return errors.empty();
}

static void geometry(const sdf::Geometry *g) {
  switch (g->Type()) {
    case sdf::GeometryType::BOX: {
      auto s = g->BoxShape()->Size();
      std::cout << " box " << s.X() << ' ' << s.Y() << ' ' << s.Z();
      break;
    }
    case sdf::GeometryType::SPHERE:
      std::cout << " sphere " << g->SphereShape()->Radius();
      break;
    case sdf::GeometryType::CYLINDER:
      std::cout << " cylinder " << g->CylinderShape()->Radius() << ' '
                << g->CylinderShape()->Length();
      break;
    case sdf::GeometryType::MESH: {
      auto s = g->MeshShape()->Scale();
      std::cout << " mesh " << s.X() << ' ' << s.Y() << ' ' << s.Z() << ' '
                << g->MeshShape()->Uri();
      break;
    }
    default:
      std::cout << " other";
  }
}

template <typename T>
static bool shape(const sdf::Link *link, const T *s, const char *kind) {
  ignition::math::Pose3d p;
  bool ok = check(s->SemanticPose().Resolve(p, link->Name()), s->Name());
  std::cout << "shape " << link->Name() << ' ' << kind << ' ' << s->Name();
  geometry(s->Geom());
  pose(p);
  std::cout << '\n';
  return ok;
}

static bool links(const sdf::Model *model) {
  bool ok = true;
  for (uint64_t i = 0; i < model->LinkCount(); ++i) {
    const sdf::Link *link = model->LinkByIndex(i);
    ignition::math::Pose3d p;
    ok = check(link->SemanticPose().Resolve(p), link->Name()) && ok;
    std::cout << "link " << link->Name();
    pose(p);
    std::cout << '\n';
    auto in = link->Inertial();
    auto m = in.MassMatrix();
    std::cout << "inertial " << link->Name() << ' ' << m.Mass() << ' ' << m.Ixx() << ' '
              << m.Iyy() << ' ' << m.Izz() << ' ' << m.Ixy() << ' ' << m.Ixz() << ' '
              << m.Iyz();
    pose(in.Pose());
    std::cout << '\n';
    for (uint64_t v = 0; v < link->VisualCount(); ++v) {
      const sdf::Visual *vis = link->VisualByIndex(v);
      ok = shape(link, vis, "visual") && ok;
      if (vis->Material() != nullptr) {
        auto c = vis->Material()->Diffuse();
        std::cout << "color " << link->Name() << ' ' << vis->Name() << ' ' << c.R() << ' '
                  << c.G() << ' ' << c.B() << ' ' << c.A() << ' ' << vis->Transparency()
                  << '\n';
      }
    }
    for (uint64_t c = 0; c < link->CollisionCount(); ++c)
      ok = shape(link, link->CollisionByIndex(c), "collision") && ok;
  }
  return ok;
}

static bool joints(const sdf::Model *model) {
  bool ok = true;
  for (uint64_t i = 0; i < model->JointCount(); ++i) {
    const sdf::Joint *j = model->JointByIndex(i);
    std::cout << "joint " << j->Name() << ' ' << static_cast<int>(j->Type()) << ' '
              << j->ParentLinkName() << ' ' << j->ChildLinkName();
    const sdf::JointAxis *axis = j->Axis(0);
    if (axis != nullptr) {
      ignition::math::Vector3d xyz;
      ok = check(axis->ResolveXyz(xyz, j->ChildLinkName()), j->Name()) && ok;
      std::cout << ' ' << xyz.X() << ' ' << xyz.Y() << ' ' << xyz.Z() << ' ' << axis->Lower()
                << ' ' << axis->Upper() << ' ' << axis->Effort() << ' ' << axis->MaxVelocity();
    }
    std::cout << '\n';
  }
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: sdf_check FILE\n";
    return 2;
  }
  std::cout << std::setprecision(17);
  sdf::Root root;
  if (!check(root.Load(argv[1]), argv[1])) return 1;
  const sdf::Model *model = root.Model();
  if (model == nullptr && root.WorldCount() == 1 && root.WorldByIndex(0)->ModelCount() == 0) {
    std::cout << "world " << root.WorldByIndex(0)->Name() << '\n';  // an empty scene
    return 0;
  }
  if (model == nullptr) {
    std::cerr << argv[1] << ": no model\n";
    return 1;
  }
  std::cout << "model " << model->Name() << '\n';
  bool ok = links(model);
  ok = joints(model) && ok;
  return ok ? 0 : 1;
}
