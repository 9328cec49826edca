// The recorded channels against the state they record: each channel, found by its name as typed
// here (not from core/sim/channels.hpp), holds the quantity its name says, recomputed from the
// simulation's state with the dynamics functions; the units are those the name's quantity has; the
// identities between channels (energy balance, the system's energy parts, the estimate's error)
// hold row by row. A channel table whose names, units and values fell out of step fails here.
#include <QtTest>

#include <cmath>
#include <map>
#include <string>

#include "core/dynamics/energy.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/math/rotation.hpp"
#include "core/sim/channels.hpp"
#include "core/sim/simulation.hpp"

using namespace grapple::core;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;
constexpr double kDeg = 180 / M_PI;

// The last row's value of a channel; fails the test if there is no such channel.
double last(const Simulation& sim, const std::string& name) {
  const int c = sim.recorder().find(name);
  if (c < 0) qFatal("no channel %s", name.c_str());
  return sim.recorder().column(c).back();
}

bool close(double a, double b, double scale = 1) { return std::abs(a - b) <= 1e-12 * std::max(scale, std::abs(b)); }

#define EXPECT_CHANNEL(sim, name, value)                                                                    \
  do {                                                                                                      \
    const double got_ = last(sim, name), want_ = (value);                                                   \
    QVERIFY2(close(got_, want_), qPrintable(QString("t = %1: %2 = %3, expected %4")                         \
                                                .arg(sim.time()).arg(QString::fromStdString(name))           \
                                                .arg(got_, 0, 'g', 17).arg(want_, 0, 'g', 17)));             \
  } while (0)

// Each row's channels against the state the simulation holds after recording it (rows where the
// grasp changed the velocities after the row are skipped: none in these short runs).
void checkRow(const Simulation& sim, double energy0) {
  const Model& m = sim.model();
  const Eigen::VectorXd& q = sim.q();
  const Eigen::VectorXd& v = sim.v();
  Data data(m, m.hasFlexibleBodies());
  EXPECT_CHANNEL(sim, std::string("time"), sim.time());
  if (m.hasFreeBase()) {
    const char* axes[] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k) {
      EXPECT_CHANNEL(sim, std::string("base.") + axes[k], q[k]);
      EXPECT_CHANNEL(sim, std::string("base.v") + axes[k], v[k]);
      EXPECT_CHANNEL(sim, std::string("base.w") + axes[k], v[3 + k] * kDeg);
    }
    const Vector3 rpy = matrixToRpy(quatToMatrix(Vector4(q.segment<4>(3)).normalized())) * kDeg;
    EXPECT_CHANNEL(sim, std::string("base.roll"), rpy[0]);
    EXPECT_CHANNEL(sim, std::string("base.yaw"), rpy[2]);
  }
  for (int i = 1; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    if (j.nv != 1) continue;
    const std::string name = "joint." + j.name;
    EXPECT_CHANNEL(sim, name + ".position", q[j.idx_q]);
    EXPECT_CHANNEL(sim, name + ".velocity", v[j.idx_v]);
    const int ref = sim.recorder().find(name + ".reference");
    if (ref >= 0 && !std::isnan(last(sim, name + ".reference"))) {
      EXPECT_CHANNEL(sim, name + ".error", last(sim, name + ".reference") - q[j.idx_q]);
    }
  }
  for (int i = 0; i < m.nbodies; ++i) {
    for (int k = 0; k < m.flex[i].nf; ++k) {
      EXPECT_CHANNEL(sim, "mode." + m.body_name[i] + "." + m.flex[i].mode_names[k], q[m.flex[i].idx_q + k]);
    }
  }
  const Vector3 com = centerOfMass(m, data, q);
  forwardKinematics(m, data, q, v);
  const int ee = endEffectorFrame(m, sim.scenario());
  const Transform hand = framePose(m, data, ee);
  const Vector3 hand_v = pointVelocityWorld(m, data, ee).head<3>();
  const double ek = kineticEnergy(m, data, q, v), ep = potentialEnergy(m, data, q);
  const char* xyz[] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k) {
    EXPECT_CHANNEL(sim, std::string("com.") + xyz[k], com[k]);
    EXPECT_CHANNEL(sim, std::string("ee.") + xyz[k], hand.p[k]);
  }
  EXPECT_CHANNEL(sim, std::string("ee.speed"), hand_v.norm());
  EXPECT_CHANNEL(sim, std::string("energy.kinetic"), ek);
  EXPECT_CHANNEL(sim, std::string("energy.potential"), ep);
  const double total = last(sim, "energy.kinetic") + last(sim, "energy.elastic") + last(sim, "energy.potential");
  EXPECT_CHANNEL(sim, std::string("energy.total"), total);
  EXPECT_CHANNEL(sim, std::string("energy.error"),
                 total + last(sim, "energy.dissipated") - last(sim, "energy.input_work") - last(sim, "energy.external_work") -
                     energy0);
  if (!sim.scenario().debris.enabled) {
    EXPECT_CHANNEL(sim, std::string("energy.system"), total);
    return;
  }
  const DebrisState d = sim.debris();
  const PointKinematics target = targetKinematics(sim.scenario().debris.properties, d);
  for (int k = 0; k < 3; ++k) {
    EXPECT_CHANNEL(sim, std::string("debris.") + xyz[k], d.r_W[k]);
    EXPECT_CHANNEL(sim, std::string("debris.w") + xyz[k], d.w_B[k] * kDeg);
    EXPECT_CHANNEL(sim, std::string("target.") + xyz[k], target.position[k]);
    EXPECT_CHANNEL(sim, std::string("target.v") + xyz[k], target.velocity[k]);
  }
  EXPECT_CHANNEL(sim, std::string("debris.qw"), d.Q_WB.normalized()[0]);
  EXPECT_CHANNEL(sim, std::string("debris.qz"), d.Q_WB.normalized()[3]);
  EXPECT_CHANNEL(sim, std::string("debris.rotational_energy"), debrisRotationalEnergy(sim.scenario().debris.properties, d));
  EXPECT_CHANNEL(sim, std::string("distance.ee_target"), (target.position - hand.p).norm());
  EXPECT_CHANNEL(sim, std::string("distance.ee_target_relative_speed"), (target.velocity - hand_v).norm());
  EXPECT_CHANNEL(sim, std::string("energy.system"), last(sim, "energy.chaser") + last(sim, "energy.debris"));
  if (sim.recorder().find("estimate.x") >= 0 && !std::isnan(last(sim, "estimate.x"))) {
    for (int k = 0; k < 3; ++k) {
      EXPECT_CHANNEL(sim, std::string("estimate.error.") + xyz[k],
                     last(sim, std::string("estimate.") + xyz[k]) - d.r_W[k]);
      // The 3σ bound and the covariance's diagonal.
      EXPECT_CHANNEL(sim, std::string("estimate.sigma3.") + xyz[k],
                     3 * std::sqrt(last(sim, std::string("estimate.cov.") + xyz[k] + xyz[k])));
    }
  }
  if (sim.recorder().find("plan.x") >= 0 && !std::isnan(last(sim, "plan.x"))) {
    const Vector3 plan(last(sim, "plan.x"), last(sim, "plan.y"), last(sim, "plan.z"));
    EXPECT_CHANNEL(sim, std::string("plan.ee_error"), (plan - hand.p).norm());
  }
}

// The unit a channel's name implies (by its group and quantity), as a reader of channels.csv
// would take it; "" where the name alone does not say (joint and mode channels: checked apart).
std::string unitOf(const std::string& n) {
  static const std::map<std::string, std::string> exact{
      {"time", "s"}, {"base.position_error", "m"}, {"base.attitude_error", "deg"}, {"base.fuel", "kg"},
      {"ee.speed", "m/s"}, {"debris.rotational_energy", "J"}, {"distance.ee_target", "m"},
      {"distance.ee_target_rate", "m/s"}, {"distance.ee_target_relative_speed", "m/s"}, {"plan.ee_error", "m"},
      {"capture.phase", "1"}, {"base.torque_demand", "N m"}, {"arm.torque_demand", "N m"},
      {"limits.saturated", "1"}, {"camera.visible", "1"}, {"estimate.error.attitude", "deg"},
      {"estimate.sigma3.attitude", "deg"}, {"estimate.error.rate", "deg/s"}, {"estimate.sigma3.rate", "deg/s"}};
  if (auto it = exact.find(n); it != exact.end()) return it->second;
  auto starts = [&](const char* p) { return n.rfind(p, 0) == 0; };
  const std::string tail = n.substr(n.rfind('.') + 1);
  if (starts("energy.")) return "J";
  if (starts("momentum.p")) return "kg m/s";
  if (starts("momentum.L")) return "kg m^2/s";
  if (starts("base.") || starts("ee.") || starts("debris.") || starts("target.")) {
    if (tail == "x" || tail == "y" || tail == "z") return "m";
    if (tail == "vx" || tail == "vy" || tail == "vz") return "m/s";
    if (tail == "wx" || tail == "wy" || tail == "wz") return "deg/s";
    if (tail == "roll" || tail == "pitch" || tail == "yaw") return "deg";
    if (tail == "fx" || tail == "fy" || tail == "fz") return "N";
    if (tail == "tx" || tail == "ty" || tail == "tz") return "N m";
    if (tail.size() == 2 && tail[0] == 'q') return "1";
  }
  if (starts("estimate.cov.")) return "m^2";
  if (starts("estimate.") && tail.size() == 2 && tail[0] == 'q') return "1";
  if (starts("com.") || starts("plan.") || starts("estimate.")) return "m";
  return "";
}

}  // namespace

class TestChannels : public QObject {
  Q_OBJECT

 private slots:
  void ChannelsHoldTheQuantitiesTheirNamesSay_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("duration");
    // Free base with thrusters, a joint path (reference channels), debris, camera, capture.
    QTest::newRow("capture_rigid_camera") << "capture_rigid_camera" << "0.4";
    // Flexible appendages (mode channels), a fixed-base arm.
    QTest::newRow("planar_free_vibration") << "planar_free_vibration" << "0.4";
    QTest::newRow("canadarm_pick_and_place") << "canadarm_pick_and_place" << "0.4";
  }
  void ChannelsHoldTheQuantitiesTheirNamesSay() {
    QFETCH(QString, scenario);
    QFETCH(QString, duration);
    LoadedScenario l = loadScenario(kSource + "/scenarios/" + scenario.toStdString() + ".yaml",
                                    {{"run.duration", duration.toStdString()}});
    Simulation sim(std::move(l.scenario), std::move(l.model));
    const Recorder& r = sim.recorder();
    const double energy0 = last(sim, "energy.total");
    checkRow(sim, energy0);
    int rows = 1;
    while (sim.step()) {
      checkRow(sim, energy0);
      ++rows;
    }
    QCOMPARE(r.rows(), rows);
    QVERIFY(sim.failure().empty());
    // Every channel: a unit its name implies; joints and modes by the joint's type.
    const Model& m = sim.model();
    for (int c = 0; c < r.channels(); ++c) {
      const ChannelInfo& info = r.info(c);
      std::string want = unitOf(info.name);
      if (info.name.rfind("mode.", 0) == 0) want = "1";
      for (int i = 1; i < m.nbodies && info.name.rfind("joint.", 0) == 0; ++i) {
        const Joint& j = m.joint[i];
        if (info.name.rfind("joint." + j.name + ".", 0) != 0 && info.name.rfind("joint." + j.name + "[", 0) != 0) continue;
        const bool linear = j.type == JointType::kPrismatic;
        const std::string q = info.name.substr(info.name.rfind('.') + 1);
        want = q == "velocity" ? (linear ? "m/s" : "rad/s") : q == "torque" ? (linear ? "N" : "N m") : (linear ? "m" : "rad");
      }
      QVERIFY2(!want.empty(), info.name.c_str());
      QVERIFY2(info.unit == want, qPrintable(QString::fromStdString(info.name + " [" + info.unit + "], expected " + want)));
    }
  }

  // The names other layers look channels up by (core/sim/channels.hpp) are channels a run records.
  void ExportedNames_AreRecorded() {
    LoadedScenario l = loadScenario(kSource + "/scenarios/capture_rigid_camera.yaml", {{"run.duration", "0.1"}});
    Simulation sim(std::move(l.scenario), std::move(l.model));
    const Recorder& r = sim.recorder();
    namespace ch = channel;
    for (ch::Name n : {ch::kTime, ch::kBasePositionError, ch::kBaseAttitudeError, ch::kBaseFuel, ch::kEnergyError,
                       ch::kEnergyTotal, ch::kEnergySystem, ch::kEnergyChaser, ch::kEnergyDebris, ch::kEnergyImpactLoss,
                       ch::kHandTargetDistance, ch::kHandTargetRelativeSpeed, ch::kEstimateRangeError, ch::kCameraVisible,
                       ch::kPlanHandError, ch::kCapturePhase, ch::kBaseTorqueDemand, ch::kArmTorqueDemand,
                       ch::kLimitsSaturated}) {
      QVERIFY2(r.find(n) >= 0, std::string(n).c_str());
    }
    for (const ch::Xyz& v : {ch::kBasePosition, ch::kBaseRate, ch::kBaseForce, ch::kBaseTorque, ch::kLinearMomentum,
                             ch::kAngularMomentum, ch::kCom, ch::kHandPosition, ch::kPlanPosition, ch::kEstimateError}) {
      // A vector's components are consecutive (the 3-D view reads the first and the next two).
      QVERIFY2(r.find(v[0]) >= 0, std::string(v[0]).c_str());
      QCOMPARE(r.find(v[1]), r.find(v[0]) + 1);
      QCOMPARE(r.find(v[2]), r.find(v[0]) + 2);
    }
    const Model& m = sim.model();
    for (int i = 1; i < m.nbodies; ++i) {
      const Joint& j = m.joint[i];
      for (int k = 0; k < j.nv; ++k) QVERIFY(r.find(ch::joint(j.name, k, j.nv, ch::kTorque)) >= 0);
    }
    QVERIFY(ch::isJoint("joint.a.error", ch::kError));
    QVERIFY(ch::isJoint("joint.a[2].error", ch::kError));
    QVERIFY(!ch::isJoint("joint.a.reference", ch::kError));
    QVERIFY(!ch::isJoint("base.error", ch::kError));
    QVERIFY(ch::joint("ball", 1, 3, ch::kVelocity) == "joint.ball[1].velocity");
  }
};

QTEST_APPLESS_MAIN(TestChannels)
#include "test_channels.moc"
