// grapple-cli end to end: the probe's numbers obey the equations of motion (checked here with
// plain linear algebra on its output), and every kind of bad input exits with code 2 and a
// message naming the file and line.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <Eigen/Cholesky>

#include "core/io/yaml_util.hpp"
#include "tests/support/compare.hpp"

using namespace grapple::core;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const QString kCli = QStringLiteral(GRAPPLE_BINARY_DIR "/app/grapple-cli");
const std::string kSource = GRAPPLE_SOURCE_DIR;

struct Result {
  int code = -1;
  std::string out, err;
};

Result run(const QStringList& args) {
  QProcess p;
  p.start(kCli, args);
  p.waitForFinished(120000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
          p.readAllStandardOutput().toStdString(), p.readAllStandardError().toStdString()};
}

VectorXd vec(const YAML::Node& n) {
  VectorXd v(n.size());
  for (std::size_t k = 0; k < n.size(); ++k) v[k] = n[k].as<double>();
  return v;
}
MatrixXd mat(const YAML::Node& n) {
  MatrixXd M(n.size(), n[0].size());
  for (std::size_t r = 0; r < n.size(); ++r)
    for (std::size_t c = 0; c < n[r].size(); ++c) M(r, c) = n[r][c].as<double>();
  return M;
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_.path().toStdString() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // A bad state must give exit code 2 and "file:line: ..." with the fragment.
  void expectBadState(const std::string& name, const std::string& text, int line,
                      const std::string& fragment) {
    const std::string path = write(name, text);
    const Result r = run({"probe", "--model", QString::fromStdString(kSource + "/scenarios/robots/mda_deos.yaml"),
                          "--state", QString::fromStdString(path)});
    QCOMPARE(r.code, 2);
    const std::string where = path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": ";
    QVERIFY2(r.err.find(where) != std::string::npos, ("expected '" + where + "' in: " + r.err).c_str());
    QVERIFY2(r.err.find(fragment) != std::string::npos, ("expected '" + fragment + "' in: " + r.err).c_str());
    QVERIFY(r.out.empty());
  }

 private slots:
  void Probe_OutputSatisfiesEquationsOfMotion() {
    const Result r = run({"probe", "--model", QString::fromStdString(kSource + "/scenarios/robots/mda_deos.yaml"),
                          "--state", QString::fromStdString(kSource + "/tests/data/mda_state.json")});
    QVERIFY2(r.code == 0, r.err.c_str());
    const YAML::Node j = yaml::loadString(r.out, "probe output");
    QCOMPARE(j["model"]["nv"].as<int>(), 12);
    QCOMPARE(j["coordinates"]["velocity"][6].as<std::string>(), std::string("joint1"));
    const MatrixXd H = mat(j["mass_matrix"]), C = mat(j["coriolis_matrix"]);
    const VectorXd v = vec(j["v"]), h = vec(j["nonlinear_effects"]);
    EXPECT_MATRIX_NEAR(H, MatrixXd(H.transpose()), 1e-12);
    EXPECT_MATRIX_NEAR(vec(j["coriolis_times_velocity"]), VectorXd(C * v), 1e-12);
    // Forward dynamics: H a + h = τ.
    const VectorXd tau = vec(j["forward_dynamics"]["tau"]);
    const VectorXd a = vec(j["forward_dynamics"]["acceleration"]);
    EXPECT_MATRIX_NEAR(VectorXd(H * a + h), tau, 1e-9);
    // Inverse dynamics: τ = H a + h.
    const VectorXd a_in = vec(j["inverse_dynamics"]["acceleration"]);
    EXPECT_MATRIX_NEAR(vec(j["inverse_dynamics"]["tau"]), VectorXd(H * a_in + h), 1e-9);
    // Floating base: the base row balances with no base wrench.
    const VectorXd ab = vec(j["floating_inverse_dynamics"]["base_acceleration"]);
    VectorXd afull = a_in;
    afull.head<6>() = ab;
    EXPECT_MATRIX_NEAR(VectorXd((H * afull + h).head<6>()), VectorXd::Zero(6), 1e-9);
    EXPECT_MATRIX_NEAR(vec(j["floating_inverse_dynamics"]["joint_torques"]), VectorXd((H * afull + h).tail(6)), 1e-9);
    // Jacobian blocks and the generalized Jacobian.
    const MatrixXd J = mat(j["jacobian"]["J"]), J0 = mat(j["jacobian"]["J0"]), Jm = mat(j["jacobian"]["Jm"]);
    const MatrixXd Jg = mat(j["jacobian"]["generalized"]);
    EXPECT_MATRIX_NEAR(J0, MatrixXd(J.leftCols(6)), 0.0);
    EXPECT_MATRIX_NEAR(Jm, MatrixXd(J.rightCols(6)), 0.0);
    const MatrixXd H0inv = H.topLeftCorner(6, 6).inverse();
    EXPECT_MATRIX_NEAR(Jg, MatrixXd(Jm - J0 * H0inv * H.topRightCorner(6, 6)), 1e-9);
    // Kinetic energy ½ vᵀ H v.
    QVERIFY(std::abs(j["kinetic_energy"].as<double>() - 0.5 * v.dot(H * v)) < 1e-12);
  }

  void Probe_UrdfWithBaseOverride() {
    const std::string state = write("two_arm.json", R"({
      "base": {"position": [0,0,0], "quaternion": [1,0,0,0], "twist": [0,0,0,0,0,0.1], "wrench": [0,0,0,0,0,1]},
      "joints": {"a_shoulder": {"position": 0.3, "velocity": 0}, "a_elbow": {"position": 0, "velocity": 0},
                 "a_wrist": {"position": 0, "velocity": 0}, "b_base": {"position": 0.1, "velocity": 0.2},
                 "b_slide": {"position": 0.2, "velocity": 0}},
      "jacobian": {"link": "camera", "point": [0.1, 0, 0], "frame": "link"}
    })");
    const Result r = run({"probe", "--model", QString::fromStdString(kSource + "/tests/data/two_arm.urdf"),
                          "--base", "flying", "--state", QString::fromStdString(state)});
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY(r.err.find("warning: joint 'a_elbow'") != std::string::npos);
    const YAML::Node j = yaml::loadString(r.out, "probe output");
    QCOMPARE(j["model"]["base_mode"].as<std::string>(), std::string("flying"));
    QVERIFY(!j["floating_inverse_dynamics"].IsDefined());
    QCOMPARE(j["jacobian"]["J"].size(), std::size_t(6));
  }

  void Probe_BadStatesExitWithTwoAndFileLine() {
    const std::string base = R"(  "base": {"position": [0,0,0], "quaternion": [1,0,0,0], "twist": [0,0,0,0,0,0]},
)";
    std::string joints = "  \"joints\": {\n";
    for (int k = 1; k <= 6; ++k) {
      joints += "    \"joint" + std::to_string(k) + "\": {\"position\": 0, \"velocity\": 0}" + (k < 6 ? ",\n" : "\n");
    }
    joints += "  }\n";
    expectBadState("missing_base.json", "{\n" + joints + "}\n", 0, "missing key 'base'");  // the whole file
    expectBadState("nan.json", "{\n" + std::string(R"(  "base": {"position": [0,NaN,0], "quaternion": [1,0,0,0], "twist": [0,0,0,0,0,0]},)") + "\n" + joints + "}\n", 2, "position[1]");
    expectBadState("size.json", "{\n" + std::string(R"(  "base": {"position": [0,0,0], "quaternion": [1,0,0], "twist": [0,0,0,0,0,0]},)") + "\n" + joints + "}\n", 2, "expected 4 numbers, got 3");
    std::string typo = joints;
    typo.replace(typo.find("joint3"), 6, "jiont3");
    expectBadState("unknown_joint.json", "{\n" + base + typo + "}\n", 6, "no joint 'jiont3' (did you mean 'joint3'?)");
    std::string missing = joints;
    missing.erase(missing.find("    \"joint6\""), std::string("    \"joint6\": {\"position\": 0, \"velocity\": 0}\n").size());
    missing.replace(missing.rfind("},"), 2, "}");
    expectBadState("missing_joint.json", "{\n" + base + missing + "}\n", 3, "joint 'joint6' is missing");
    expectBadState("wrench.json", "{\n" + std::string(R"(  "base": {"position": [0,0,0], "quaternion": [1,0,0,0], "twist": [0,0,0,0,0,0], "wrench": [0,0,0,0,0,1]},)") + "\n" + joints + "}\n", 2, "the base is floating (unactuated)");
    expectBadState("key.json", "{\n" + base + joints.substr(0, joints.size() - 4) + "},\n  \"jacobain\": {}\n}\n", 11, "unknown key 'jacobain' (did you mean 'jacobian'?)");
    expectBadState("syntax.json", "{\n" + base + "  \"joints\": {\n", 4, "");  // the end of the file
  }

  void Probe_BadModelAndUsage() {
    const std::string model = write("bad.yaml", "format: 1\nmodel:\n  base: {mode: floting}\n");
    Result r = run({"probe", "--model", QString::fromStdString(model), "--state", "x.json"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find(model + ":3: model.base.mode: 'floting' is not one of") != std::string::npos, r.err.c_str());
    r = run({"probe", "--model", "missing.urdf", "--state", "x.json"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.find("missing.urdf: cannot open the file") != std::string::npos);
    r = run({"frobnicate"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.find("unknown command 'frobnicate'") != std::string::npos);
    r = run({"probe", "--model"});
    QCOMPARE(r.code, 2);
  }

  void Modes_PlanarJson() {
    const Result r = run({"modes", QString::fromStdString(kSource + "/scenarios/robots/planar_2dof_flex.yaml"), "--json"});
    QVERIFY2(r.code == 0, r.err.c_str());
    const YAML::Node j = yaml::loadString(r.out, "modes output");
    QCOMPARE(j["bodies"].size(), std::size_t(2));
    QVERIFY(std::abs(j["bodies"][1]["frequency_rad_s"][0].as<double>() - 13.6869) < 1e-3);
    QCOMPARE(j["coupled"]["frequency_rad_s"].size(), std::size_t(4));
  }

  // design: the thesis' structure (free 3x3 AOCS blocks, decentralized joints) at the thesis' q_m1
  // on the rigid capture scenario: the JSON is complete and consistent (the synthesis itself is
  // checked in test_synthesis); bad input gets exit code 2 and a message.
  void Design_ThesisStructureJson() {
    const QString scenario = QString::fromStdString(kSource + "/scenarios/capture_rigid.yaml");
    const Result r = run({"design", scenario, "--controller", "1", "--joints", "0,0,0,0,0,0", "--structure", "thesis",
                          "--json"});
    QVERIFY2(r.code == 0, r.err.c_str());
    const YAML::Node j = yaml::loadString(r.out, "design output");
    QCOMPARE(j["model"].as<std::string>(), std::string("mono"));
    QCOMPARE(j["joint_kp"].size(), std::size_t(6));
    QCOMPARE(j["kp_rot"].size(), std::size_t(3));
    const double hard = j["gamma_hard"].as<double>();
    QVERIFY(std::abs(j["configurations"][0]["gamma_hard"].as<double>() - hard) < 1e-5 * hard);
    QCOMPARE(j["feasible"].as<bool>(), hard <= 1.001);
    QVERIFY(j["gamma_soft"].as<double>() > 0);
    // Bad input: no such controller, a controller that is not a capture, a wrong joint count.
    Result bad = run({"design", scenario, "--controller", "7"});
    QCOMPARE(bad.code, 2);
    QVERIFY(bad.err.find("no controller 7") != std::string::npos);
    bad = run({"design", scenario, "--controller", "0"});
    QCOMPARE(bad.code, 2);
    QVERIFY(bad.err.find("not a capture controller") != std::string::npos);
    bad = run({"design", scenario, "--controller", "1", "--joints", "0,0"});
    QCOMPARE(bad.code, 2);
    QVERIFY(bad.err.find("6 angles") != std::string::npos);
  }

  // design --rolloff tune --hard-level 1.1: the bandwidths reported, one per joint, within their
  // range, the level met as the JSON says (the synthesis with roll-off is checked in
  // test_rolloff); a wrong count of fixed bandwidths gets exit code 2 and a message.
  void Design_RolloffJson() {
    const QString scenario = QString::fromStdString(kSource + "/scenarios/capture_rigid.yaml");
    const Result r = run({"design", scenario, "--controller", "1", "--joints", "0,0,0,0,0,0", "--structure", "thesis",
                          "--rolloff", "tune", "--hard-level", "1.1", "--restarts", "0", "--json"});
    QVERIFY2(r.code == 0, r.err.c_str());
    const YAML::Node j = yaml::loadString(r.out, "design output");
    QCOMPARE(j["rolloff"].as<std::string>(), std::string("tuned"));
    QCOMPARE(j["joint_rolloff"].size(), std::size_t(6));
    for (std::size_t k = 0; k < 6; ++k) {
      const double w = j["joint_rolloff"][k].as<double>();
      QVERIFY(w >= 0.698 * (1 - 1e-9) && w <= 698 * (1 + 1e-9));
    }
    QCOMPARE(j["hard_level"].as<double>(), 1.1);
    QCOMPARE(j["feasible"].as<bool>(), j["gamma_hard"].as<double>() <= 1.1 * 1.001);
    const Result bad = run({"design", scenario, "--controller", "1", "--rolloff", "2,3"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.find("one roll-off bandwidth, or one per joint (6)") != std::string::npos, bad.err.c_str());
  }

  // robust: the σ2 stability box of the rigid capture scenario's joint PD within the thesis' limits
  // (Table 8.5): the JSON is complete, the box inside the limits and the bounds in order (the
  // bounds themselves are checked in test_robust); bad input gets exit code 2 and a message.
  void Robust_BoxJson() {
    const QString scenario = QString::fromStdString(kSource + "/scenarios/capture_rigid.yaml");
    const Result r = run({"robust", scenario, "--controller", "1", "--limits", "-90,90;-45,180;0,180;-180,45;-90,180;-180,180",
                          "--json"});
    QVERIFY2(r.code == 0, r.err.c_str());
    const YAML::Node j = yaml::loadString(r.out, "robust output");
    QCOMPARE(j["parameterization"].as<std::string>(), std::string("sigma2"));
    QVERIFY(j["nominal_stable"].as<bool>());
    QCOMPARE(j["joints"].size(), std::size_t(6));
    QVERIFY(j["mu_lower"].as<double>() <= j["mu_upper"].as<double>());
    QVERIFY(j["mu_upper"].as<double>() <= j["mu_complex_upper"].as<double>() * (1 + 1e-12));
    for (std::size_t k = 0; k < 6; ++k) {
      const YAML::Node b = j["joints"][k];
      QVERIFY(b["lower_deg"].as<double>() >= b["limit_lower_deg"].as<double>() - 1e-9);
      QVERIFY(b["upper_deg"].as<double>() <= b["limit_upper_deg"].as<double>() + 1e-9);
      QVERIFY(b["lower_deg"].as<double>() < b["upper_deg"].as<double>());
    }
    QCOMPARE(j["joints"][5]["in_analysis"].as<bool>(), false);  // joint 6 does not change D
    QCOMPARE(j["joints"][5]["limit_upper_deg"].as<double>(), 175.0);  // σ2: capped at ±175°
    Result bad = run({"robust", scenario, "--controller", "1", "--parameterization", "sigma3"});
    QCOMPARE(bad.code, 2);
    QVERIFY(bad.err.find("sigma2 or sigma4") != std::string::npos);
    bad = run({"robust", scenario, "--controller", "1", "--limits", "0,1;2,3"});
    QCOMPARE(bad.code, 2);
    QVERIFY(bad.err.find("6 joints expected") != std::string::npos);
    bad = run({"robust", QString::fromStdString(kSource + "/scenarios/capture_flexible.yaml"), "--controller", "1"});
    QCOMPARE(bad.code, 2);
    QVERIFY(bad.err.find("rigid model") != std::string::npos);
  }

  // A flexible robot through the probe: modal coordinates in the state, H a + h = τ holds.
  void Probe_FlexibleChaser() {
    std::string state = R"({"base": {"position": [0,0,0], "quaternion": [1,0,0,0], "twist": [0,0,0,0,0.01,0]},
      "joints": {)";
    for (int k = 1; k <= 6; ++k) {
      state += "\"joint" + std::to_string(k) + "\": {\"position\": 0.2, \"velocity\": 0.01, \"torque\": 1.0}" + (k < 6 ? "," : "");
    }
    state += R"(}, "modes": {"segment2": {"position": [0, 0.01, 0, 0, 0, 0], "velocity": [0, 0, 0.02, 0, 0, 0]}}})";
    const std::string path = write("chaser_state.json", state);
    const Result r = run({"probe", "--model", QString::fromStdString(kSource + "/scenarios/robots/chaser.yaml"),
                          "--state", QString::fromStdString(path)});
    QVERIFY2(r.code == 0, r.err.c_str());
    const YAML::Node j = yaml::loadString(r.out, "probe output");
    QCOMPARE(j["model"]["nv"].as<int>(), 30);
    QCOMPARE(j["coriolis_matrix"].size(), std::size_t(30));
    const MatrixXd H = mat(j["mass_matrix"]);
    const VectorXd h = vec(j["nonlinear_effects"]);
    EXPECT_MATRIX_NEAR(VectorXd(H * vec(j["forward_dynamics"]["acceleration"]) + h), vec(j["forward_dynamics"]["tau"]), 1e-8);
    std::string typo = state;
    typo.replace(typo.find("\"segment2\""), 10, "\"segmnt2\"");
    const std::string bad = write("bad_modes.json", typo);
    const Result rb = run({"probe", "--model", QString::fromStdString(kSource + "/scenarios/robots/chaser.yaml"),
                           "--state", QString::fromStdString(bad)});
    QCOMPARE(rb.code, 2);
    QVERIFY2(rb.err.find("did you mean 'segment2'") != std::string::npos, rb.err.c_str());
  }

  void Summary_DefaultJobRuns() {
    const Result r = run({"summary", "--duration", "2"});
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY(r.out.find("MDA arm on the DEOS-like chaser") != std::string::npos);
    QVERIFY(r.out.find("Momentum  drift") != std::string::npos);
    const Result info = run({"info", QString::fromStdString(kSource + "/scenarios/robots/canadarm.yaml")});
    QCOMPARE(info.code, 0);
    QVERIFY(info.out.find("elbow_pitch") != std::string::npos);
  }

  // export urdf: a DH robot written as URDF that urdfdom's check_urdf accepts and info reads back
  // (12 joints); --inertia repair loads a file that is refused without it, reporting the repairs.
  void ExportUrdfAndInertiaRepair() {
    QTemporaryDir dir;
    const QString out = dir.filePath("mda.urdf");
    Result r = run({"export", "urdf", QString::fromStdString(kSource + "/scenarios/robots/mda_deos.yaml"), "-o", out});
    QVERIFY2(r.code == 0, r.err.c_str());
    QProcess check;
    check.start("check_urdf", {out});
    QVERIFY(check.waitForFinished(60000));
    QCOMPARE(check.exitCode(), 0);
    r = run({"info", out});
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY(r.out.find("nv = 12") != std::string::npos);
    const QString bad = QString::fromStdString(kSource + "/tests/data/urdf/nonphysical.urdf");
    r = run({"info", bad});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.find("nonphysical.urdf:12: link 'placeholder'") != std::string::npos);
    r = run({"info", bad, "--inertia", "repair"});
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY(r.err.find("link 'placeholder': inertia repaired") != std::string::npos);
    QVERIFY(r.err.find("link 'arm': inertia repaired") != std::string::npos);
    QCOMPARE(run({"export", "urdf", bad}).code, 2);  // no -o
  }

  // run: channels.csv with units in its header, one row per recording instant, summary.json with
  // the settings and results; the same run twice gives the same bytes.
  void Run_WritesChannelsAndSummaryDeterministically() {
    const QString scenario = QString::fromStdString(kSource + "/scenarios/planar_free_vibration.yaml");
    std::string csv[2];
    for (int k = 0; k < 2; ++k) {
      const QString out = dir_.path() + "/run" + QString::number(k);
      const Result r = run({"run", scenario, "--out", out, "--duration", "0.5"});
      QVERIFY2(r.code == 0, r.err.c_str());
      QVERIFY(r.out.find("Energy    max |error|") != std::string::npos);
      std::ifstream in((out + "/channels.csv").toStdString());
      csv[k].assign(std::istreambuf_iterator<char>(in), {});
      const YAML::Node summary = YAML::LoadFile((out + "/summary.json").toStdString());
      QCOMPARE(summary["settings"]["integrator"].as<std::string>(), std::string("rk4"));
      QCOMPARE(summary["results"]["simulated_s"].as<double>(), 0.5);
      QCOMPARE(summary["results"]["rows"].as<int>(), 51);  // 100 Hz over 0.5 s, both ends
      QVERIFY(summary["metrics"]["max_energy_error_J"].as<double>() < 1e-6);
    }
    QCOMPARE(csv[0], csv[1]);
    QVERIFY(csv[0].rfind("time [s],", 0) == 0);
    QVERIFY(csv[0].find("energy.total [J]") != std::string::npos);
    QCOMPARE(std::count(csv[0].begin(), csv[0].end(), '\n'), 52L);
    // --set reaches the run settings.
    const QString out = dir_.path() + "/run_set";
    const Result r = run({"run", scenario, "--out", out, "--duration", "0.2", "--quiet", "--set", "run.integrator=rk43"});
    QVERIFY2(r.code == 0, r.err.c_str());
    QCOMPARE(YAML::LoadFile((out + "/summary.json").toStdString())["settings"]["integrator"].as<std::string>(),
             std::string("rk43"));
  }

  // A capture run's summary holds the mission's metrics, consistent with each other.
  void Run_CaptureMetrics() {
    const QString out = dir_.path() + "/grasp";
    const Result r = run({"run", QString::fromStdString(kSource + "/scenarios/grasp_rigid.yaml"), "--out", out,
                          "--duration", "12", "--quiet"});
    QVERIFY2(r.code == 0, r.err.c_str());
    const YAML::Node m = YAML::LoadFile((out + "/summary.json").toStdString())["metrics"];
    for (const char* key : {"captured", "capture_time_s", "ee_error_to_plan_max_m", "ee_error_to_target_max_m",
                            "capture_relative_speed_mps", "base_attitude_drift_max_deg", "base_position_drift_max_m",
                            "base_torque_peak_Nm", "joint_torque_peak_Nm", "fuel_kg", "residual_rate_deg_s",
                            "ee_error_to_plan_rms_m", "ee_error_to_target_rms_m", "joint_torque_rms_Nm", "base_torque_rms_Nm",
                            "base_force_peak_N", "saturated_time_s", "capture_impulse_Ns", "capture_angular_impulse_Nms"}) {
      QVERIFY2(m[key].IsDefined() && !m[key].IsNull(), key);
    }
    // grasp_rigid plans at its start whatever the debris does (no capture window): the gripper
    // closes, but its bus is asked more than 5 N m on the way, so the outcome is honest about it.
    QVERIFY(m["grasped"].as<bool>());
    QCOMPARE(m["outcome"].as<std::string>(), std::string("captured_out_of_spec"));
    QVERIFY(!m["captured"].as<bool>());
    QCOMPARE(m["violations"].size(), std::size_t(1));
    QCOMPARE(m["violations"][0]["requirement"].as<std::string>(), std::string("bus_torque"));
    QVERIFY(m["violations"][0]["worst"].as<double>() > 5);
    QVERIFY(m["violations"][0]["worst"].as<double>() >= m["base_torque_peak_Nm"].as<double>());
    QVERIFY(m["outcome_reason"].as<std::string>().find("bus_torque") != std::string::npos);
    const double plan_max = m["ee_error_to_plan_max_m"].as<double>(), plan_rms = m["ee_error_to_plan_rms_m"].as<double>();
    QVERIFY(plan_rms > 0 && plan_rms <= plan_max);
    QVERIFY(m["ee_error_to_target_rms_m"].as<double>() <= m["ee_error_to_target_max_m"].as<double>());
    QVERIFY(m["joint_torque_rms_Nm"].as<double>() <= m["joint_torque_peak_Nm"].as<double>());
    QVERIFY(m["base_torque_rms_Nm"].as<double>() <= std::sqrt(3.0) * m["base_torque_peak_Nm"].as<double>());
    // The bus torque reaches its 5 N m limit during the approach: some time is spent saturated.
    QVERIFY(m["saturated_time_s"].as<double>() > 0 && m["saturated_time_s"].as<double>() < 12);
    QVERIFY(m["capture_impulse_Ns"].as<double>() > 0 && std::isfinite(m["capture_impulse_Ns"].as<double>()));
  }

  // Every built-in scenario validates and runs its first 0.2 s cleanly.
  void Run_EveryBuiltInScenario() {
    int count = 0;
    for (const auto& e : std::filesystem::directory_iterator(kSource + "/scenarios")) {
      if (e.path().extension() != ".yaml") continue;
      ++count;
      const QString file = QString::fromStdString(e.path().string());
      const Result v = run({"validate", file});
      QVERIFY2(v.code == 0, (e.path().string() + ": " + v.err).c_str());
      const Result r = run({"run", file, "--duration", "0.2", "--quiet"});
      QVERIFY2(r.code == 0, (e.path().string() + ": " + r.err).c_str());
      QVERIFY2(r.out.find("FAILED") == std::string::npos, r.out.c_str());
    }
    QVERIFY(count >= 3);
  }

  // Bad scenarios, options and values: exit code 2 and a message naming the file (and line).
  void Run_BadInputExitsWithTwo() {
    const std::string bad = write("bad.yaml", "format: 1\nchaser:\n  robot: " + kSource +
                                                  "/scenarios/robots/mda_deos.yaml\nrun:\n  duraton: 3\n");
    for (const char* command : {"run", "validate"}) {
      const Result r = run({command, QString::fromStdString(bad)});
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.find(bad + ":5: run: unknown key 'duraton' (did you mean 'duration'?)") != std::string::npos, r.err.c_str());
    }
    const std::string good = kSource + "/scenarios/planar_free_vibration.yaml";
    const std::vector<std::pair<QStringList, std::string>> cases{
        {{"run", "/no/such/file.yaml"}, "/no/such/file.yaml"},
        {{"run", QString::fromStdString(good), "--set", "run.duration"}, "--set expects key=value"},
        {{"run", QString::fromStdString(good), "--set", "run.record_rate=-1"}, "run.record_rate"},
        {{"run", QString::fromStdString(good), "--duration"}, "--duration needs a value"},
        {{"run", QString::fromStdString(good), "--frobnicate"}, "--frobnicate"},
        {{"run", QString::fromStdString(good), "--duration", "0.1", "--out", "/proc/no/such"}, "/proc/no/such: cannot create"},
    };
    for (const auto& [args, fragment] : cases) {
      const Result r = run(args);
      QVERIFY2(r.code == 2, (args.join(' ').toStdString() + " exited with " + std::to_string(r.code)).c_str());
      QVERIFY2(r.err.find(fragment) != std::string::npos, (args.join(' ').toStdString() + ": " + r.err).c_str());
    }
    const Result ok = run({"validate", QString::fromStdString(good)});
    QCOMPARE(ok.code, 0);
    QVERIFY(ok.out.find("planar_free_vibration.yaml") != std::string::npos);
  }

  // Every command answers --help with its own usage and options (exit 0); the program's help
  // lists every command.
  void Help_EveryCommand() {
    for (const QStringList& args : {QStringList{"--help"}, QStringList{"help"}}) {
      const Result r = run(args);
      QVERIFY2(r.code == 0, r.err.c_str());
      for (const char* command : {"run", "validate", "summary", "info", "export", "probe", "modes", "video", "campaign",
                                  "envelope", "design", "robust"}) {
        QVERIFY2(r.out.find(std::string("\n  ") + command + " ") != std::string::npos, (command + (": " + r.out)).c_str());
      }
    }
    const std::vector<std::pair<QStringList, std::vector<std::string>>> commands{
        {{"run"}, {"SCENARIO", "--out DIR", "--set KEY=VALUE", "--duration S", "--quiet"}},
        {{"validate"}, {"SCENARIO", "--set KEY=VALUE", "--duration S"}},
        {{"summary"}, {"MODEL", "--duration S", "--dt S"}},
        {{"info"}, {"MODEL", "--base", "--inertia"}},
        {{"export", "urdf"}, {"MODEL", "--out FILE.urdf", "--base", "--inertia"}},
        {{"probe"}, {"--model MODEL", "--state STATE.json", "--base", "--inertia"}},
        {{"modes"}, {"MODEL", "--json", "--base"}},
        {{"campaign", "run"}, {"CAMPAIGN", "--out DIR", "--jobs N", "--runs A-B", "--shard K/N", "--timeout S", "--channels"}},
        {{"campaign", "merge"}, {"DIR", "--quiet"}},
        {{"campaign", "status"}, {"DIR"}},
        {{"campaign", "slurm"}, {"CAMPAIGN", "--out DIR", "--partition P", "--array-size N", "--jobs J", "--dry-run"}},
        {{"envelope"}, {"SCENARIO", "--out DIR", "--rates", "--threads N", "--set KEY=VALUE"}},
        {{"design"}, {"SCENARIO", "--controller N", "--configurations", "--joints", "--structure", "--rolloff", "--hard-level G",
                      "--restarts K", "--worst-case N", "--json"}},
        {{"robust"}, {"SCENARIO", "--controller N", "--parameterization", "--iterative", "--goal", "--performance-level G",
                      "--limits", "--configuration T", "--design", "--json"}},
        {{"video"}, {"SCENARIO", "--out FILE", "--size WxH", "--fps F", "--frame T", "--camera", "--show LIST", "--time-label",
                     "--set KEY=VALUE", "--duration S"}},
    };
    for (const auto& [command, options] : commands) {
      const Result r = run(QStringList(command) << "--help");
      QVERIFY2(r.code == 0, r.err.c_str());
      if (command.front() == "video" && r.out.find("Not in this build") != std::string::npos) continue;  // no rendering
      const std::string usage = "Usage: grapple-cli " + command.join(' ').toStdString() + " ";
      QVERIFY2(r.out.find(usage) != std::string::npos, r.out.c_str());
      for (const std::string& option : options) QVERIFY2(r.out.find(option) != std::string::npos, (option + ": " + r.out).c_str());
    }
  }

  // Bad arguments of every kind: exit code 2 and a message saying what was expected.
  void Usage_BadArgumentsExitWithTwo() {
    const QString scenario = QString::fromStdString(kSource + "/scenarios/capture_rigid.yaml");
    const QString model = QString::fromStdString(kSource + "/scenarios/robots/mda_deos.yaml");
    const std::vector<std::pair<QStringList, std::string>> cases{
        {{"info"}, "MODEL is required"},
        {{"info", model, "--base", "sideways"}, "base mode 'sideways' is not one of"},
        {{"info", model, "--inertia", "fix"}, "--inertia: expected refuse or repair"},
        {{"info", model, "extra.yaml"}, "extra.yaml"},
        {{"export"}, "subcommand is required"},
        {{"export", "urdf", model}, "--out is required"},
        {{"summary", "--dt", "-1"}, "expected a positive number"},
        {{"summary", "--duration", "abc"}, "expected a positive number, got 'abc'"},
        {{"design", scenario}, "--controller is required"},
        {{"design", scenario, "--controller", "1", "--structure", "mine"}, "scenario or thesis expected"},
        {{"design", scenario, "--controller", "1", "--joints", "0,x"}, "--joints: 'x' is not a number"},
        {{"robust", scenario, "--controller", "-1"}, "--controller"},
        {{"robust", scenario, "--controller", "1", "--performance-level", "0.5"}, "a number >= 1 expected"},
        {{"robust", scenario, "--controller", "1", "--limits", "0,1,2"}, "LOWER,UPPER in degrees"},
        {{"campaign"}, "subcommand is required"},
        {{"campaign", "launch"}, "unknown command 'campaign launch'"},
        {{"campaign", "run", "c.yaml"}, "--out is required"},
        {{"campaign", "run", "c.yaml", "--out", "d", "--shard", "3/2"}, "expected 0 <= K < N"},
        {{"campaign", "run", "c.yaml", "--out", "d", "--runs", "5-2"}, "B is before A"},
        {{"campaign", "run", "c.yaml", "--out", "d", "--jobs", "0"}, "--jobs"},
        {{"envelope", "--out", "d", "--threads", "0"}, "--threads"},
        {{"envelope", "--out", "d", "--rates", "1,-2"}, "each rate must be > 0"},
        {{"run", "--out"}, "--out needs a value"},
    };
    for (const auto& [args, fragment] : cases) {
      const Result r = run(args);
      QVERIFY2(r.code == 2, (args.join(' ').toStdString() + " exited with " + std::to_string(r.code) + ": " + r.err).c_str());
      QVERIFY2(r.err.find(fragment) != std::string::npos, (args.join(' ').toStdString() + ": " + r.err).c_str());
    }
  }

  // --set and --duration apply in command-line order (the last one wins), and the scenario may
  // come after them; an option given twice takes its last value.
  void Run_OverridesInCommandLineOrder() {
    const QString good = QString::fromStdString(kSource + "/scenarios/planar_free_vibration.yaml");
    Result r = run({"validate", "--set", "run.duration=5", "--duration", "0.25", good});
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY2(r.out.find("; 0.25 s)") != std::string::npos, r.out.c_str());
    r = run({"validate", good, "--duration", "5", "--set", "run.duration=0.75"});
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY2(r.out.find("; 0.75 s)") != std::string::npos, r.out.c_str());
    // Any other option given twice: its last value.
    r = run({"info", QString::fromStdString(kSource + "/scenarios/robots/mda_deos.yaml"), "--base", "fixed", "--base", "flying"});
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY2(r.out.find("Base      flying") != std::string::npos, r.out.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
