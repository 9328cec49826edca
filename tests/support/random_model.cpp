#include "tests/support/random_model.hpp"

#include "core/math/rotation.hpp"
#include "core/model/model_builder.hpp"

namespace grapple::test {

using namespace grapple::core;

Matrix3 randomInertiaAboutCom(std::mt19937& rng, double mass) {
  // A solid box of random sides, randomly rotated: always physical.
  std::uniform_real_distribution<double> side(0.05, 1.0);
  const double a = side(rng), b = side(rng), c = side(rng);
  const Vector3 d(mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12,
                  mass * (a * a + b * b) / 12);
  std::normal_distribution<double> n(0.0, 1.0);
  const Matrix3 R = expSO3(Vector3(n(rng), n(rng), n(rng)));
  return R * d.asDiagonal() * R.transpose();
}

static Vector3 randomUnit(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  return Vector3(n(rng), n(rng), n(rng)).normalized();
}

Model randomTree(std::mt19937& rng, const RandomTreeOptions& o) {
  std::uniform_real_distribution<double> u(0.0, 1.0), pos(-0.5, 0.5);
  ModelBuilder b("random_tree");
  b.setBaseMode(o.base);
  auto link = [&](const std::string& name, double mass) {
    const Vector3 com(pos(rng), pos(rng), pos(rng));
    b.addLink({name, Inertia::FromCom(mass, com, randomInertiaAboutCom(rng, mass))});
  };
  link("base", 20.0 + 80.0 * u(rng));
  const JointType types[] = {JointType::kRevolute, JointType::kPrismatic, JointType::kCylindrical,
                             JointType::kUniversal, JointType::kSpherical, JointType::kPlanar};
  std::vector<std::string> one_dof;  // joints a mimic may follow
  for (int k = 1; k <= o.links; ++k) {
    const std::string name = "link" + std::to_string(k);
    link(name, 0.5 + 5.0 * u(rng));
    JointSpec j;
    j.name = "joint" + std::to_string(k);
    j.parent = k == 1 ? "base" : (u(rng) < 0.2 ? std::string("base")
                                              : "link" + std::to_string(1 + static_cast<int>(u(rng) * (k - 1))));
    j.child = name;
    j.origin = {expSO3(0.8 * randomUnit(rng)), Vector3(pos(rng), pos(rng), pos(rng))};
    if (!o.all_joint_types) {
      j.type = JointType::kRevolute;
    } else if (u(rng) < o.fixed_fraction) {
      j.type = JointType::kFixed;
    } else {
      j.type = types[static_cast<int>(u(rng) * 6) % 6];
    }
    j.axis = randomUnit(rng);
    Vector3 other = randomUnit(rng);
    j.axis2 = (other - other.dot(j.axis) * j.axis).normalized();
    if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
      if (o.mimic_fraction > 0 && !one_dof.empty() && u(rng) < o.mimic_fraction) {
        j.mimic = one_dof[static_cast<std::size_t>(u(rng) * one_dof.size()) % one_dof.size()];
        j.multiplier = 3.0 * u(rng) - 1.5;
        j.offset = u(rng) - 0.5;
      }
      one_dof.push_back(j.name);
    }
    b.addJoint(j);
  }
  return b.build();
}

Model serialChain(int n, BaseMode base) {
  ModelBuilder b("chain" + std::to_string(n));
  b.setBaseMode(base);
  b.addLink({"base", Inertia::FromCom(100.0, Vector3::Zero(),
                                      Vector3(16.7, 16.7, 16.7).asDiagonal().toDenseMatrix()),
             {}});
  const Vector3 axes[3] = {Vector3::UnitZ(), Vector3::UnitY(), Vector3::UnitX()};
  for (int k = 1; k <= n; ++k) {
    const std::string name = "link" + std::to_string(k);
    const double m = 2.0, l = 0.3;
    b.addLink({name, Inertia::FromCom(m, Vector3(l / 2, 0, 0),
                                      Vector3(0.001, m * l * l / 12, m * l * l / 12)
                                          .asDiagonal()
                                          .toDenseMatrix()),
               {}});
    JointSpec j;
    j.name = "joint" + std::to_string(k);
    j.type = JointType::kRevolute;
    j.parent = k == 1 ? "base" : "link" + std::to_string(k - 1);
    j.child = name;
    j.origin.p = k == 1 ? Vector3(0.5, 0, 0) : Vector3(l, 0, 0);
    j.axis = axes[(k - 1) % 3];
    b.addJoint(j);
  }
  return b.build();
}

Eigen::VectorXd randomVector(std::mt19937& rng, int n, double scale) {
  std::normal_distribution<double> d(0.0, scale);
  Eigen::VectorXd x(n);
  for (int k = 0; k < n; ++k) x[k] = d(rng);
  return x;
}

}  // namespace grapple::test
