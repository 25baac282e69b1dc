// Load an SDF model or world with libsdformat (sdf::Root); exit 1 on any error. Prints the
// poses libsdformat resolves, all in the world frame (a model file: its model's frame placed
// at the model's pose), one fact a line, names scoped as SDFormat scopes them (model::link):
//   link NAME x y z qw qx qy qz
//   frame NAME x y z qw qx qy qz
//   joint NAME TYPE PARENT CHILD x y z qw qx qy qz [ax ay az [bx by bz]]  (axes in the joint)
#include <sdf/sdf.hh>

#include <iomanip>
#include <iostream>
#include <string>

using Pose = ignition::math::Pose3d;

static bool ok = true;

static void check(const sdf::Errors &errors, const std::string &what) {
  for (const auto &e : errors) std::cerr << what << ": " << e << '\n';
  if (!errors.empty()) ok = false;
}

static void print(const Pose &p) {
  std::cout << ' ' << p.Pos().X() << ' ' << p.Pos().Y() << ' ' << p.Pos().Z() << ' '
            << p.Rot().W() << ' ' << p.Rot().X() << ' ' << p.Rot().Y() << ' ' << p.Rot().Z();
}

static const char *type_name(sdf::JointType t) {
  switch (t) {
    case sdf::JointType::BALL: return "ball";
    case sdf::JointType::CONTINUOUS: return "continuous";
    case sdf::JointType::FIXED: return "fixed";
    case sdf::JointType::PRISMATIC: return "prismatic";
    case sdf::JointType::REVOLUTE: return "revolute";
    case sdf::JointType::REVOLUTE2: return "revolute2";
    case sdf::JointType::UNIVERSAL: return "universal";
    default: return "other";
  }
}

static std::string scoped(const std::string &prefix, const std::string &name) {
  return name == "world" ? name : prefix + name;
}

// `where`: the model frame in the world
static void model(const sdf::Model *m, const std::string &prefix, const Pose &where) {
  for (uint64_t i = 0; i < m->LinkCount(); ++i) {
    const sdf::Link *l = m->LinkByIndex(i);
    Pose p;
    check(l->SemanticPose().Resolve(p, "__model__"), l->Name());
    std::cout << "link " << prefix << l->Name();
    print(where * p);
    std::cout << '\n';
  }
  for (uint64_t i = 0; i < m->FrameCount(); ++i) {
    const sdf::Frame *f = m->FrameByIndex(i);
    Pose p;
    check(f->SemanticPose().Resolve(p, "__model__"), f->Name());
    std::cout << "frame " << prefix << f->Name();
    print(where * p);
    std::cout << '\n';
  }
  for (uint64_t i = 0; i < m->JointCount(); ++i) {
    const sdf::Joint *j = m->JointByIndex(i);
    std::string parent, child;
    check(j->ResolveParentLink(parent), j->Name());
    check(j->ResolveChildLink(child), j->Name());
    Pose p;
    check(j->SemanticPose().Resolve(p, "__model__"), j->Name());
    std::cout << "joint " << prefix << j->Name() << ' ' << type_name(j->Type()) << ' '
              << scoped(prefix, parent) << ' ' << scoped(prefix, child);
    print(where * p);
    for (unsigned k = 0; k < 2; ++k) {
      const sdf::JointAxis *axis = j->Axis(k);
      if (axis == nullptr) break;
      ignition::math::Vector3d xyz;
      check(axis->ResolveXyz(xyz), j->Name());
      std::cout << ' ' << xyz.X() << ' ' << xyz.Y() << ' ' << xyz.Z();
    }
    std::cout << '\n';
  }
  for (uint64_t i = 0; i < m->ModelCount(); ++i) {
    const sdf::Model *n = m->ModelByIndex(i);
    Pose p;
    check(n->SemanticPose().Resolve(p, "__model__"), n->Name());
    model(n, prefix + n->Name() + "::", where * p);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: sdf_poses FILE\n";
    return 2;
  }
  std::cout << std::setprecision(17);
  sdf::Root root;
  check(root.Load(argv[1]), argv[1]);
  if (!ok) return 1;
  if (root.Model() != nullptr) model(root.Model(), "", root.Model()->RawPose());
  for (uint64_t w = 0; w < root.WorldCount(); ++w) {
    const sdf::World *world = root.WorldByIndex(w);
    for (uint64_t i = 0; i < world->ModelCount(); ++i) {
      const sdf::Model *m = world->ModelByIndex(i);
      Pose p;
      check(m->SemanticPose().Resolve(p, "world"), m->Name());
      model(m, m->Name() + "::", p);
    }
    for (uint64_t i = 0; i < world->FrameCount(); ++i) {
      const sdf::Frame *f = world->FrameByIndex(i);
      Pose p;
      check(f->SemanticPose().Resolve(p, "world"), f->Name());
      std::cout << "frame " << f->Name();
      print(p);
      std::cout << '\n';
    }
  }
  return ok ? 0 : 1;
}
