// The debris seen by a camera in the simulation (sensors.camera): the capture planned and the
// grasp decided from the filter's estimate, its errors within their 3σ bounds, seeded runs,
// events when the grasp point leaves the view, and the loader's checks. (Without the section
// nothing changes: the expectations of test_simulation and test_envelope hold as before.)
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/io/scenario_yaml.hpp"
#include "core/estimation/debris_sensing.hpp"
#include "core/sim/channels.hpp"
#include "core/sim/mission.hpp"
#include "core/sim/simulation.hpp"
#include "tests/support/load_files.hpp"
#include "tests/support/simulate.hpp"

using namespace grapple::core;
using grapple::test::Files;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;
using grapple::test::column;
using grapple::test::Overrides;
using grapple::test::simulate;

const SimulationEvent* firstEvent(const Simulation& sim, const std::string& kind) {
  for (const SimulationEvent& e : sim.events()) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

double at(const Simulation& sim, const char* name, double t) {
  const auto& time = column(sim, "time");
  const auto& v = column(sim, name);
  std::size_t k = 0;
  while (k + 1 < time.size() && time[k] < t - 1e-9) ++k;
  return v[k];
}

}  // namespace

class TestSensing : public QObject {
  Q_OBJECT

 private slots:
  // The whole capture from the estimate (capture_rigid_camera.yaml): the grasp face hidden behind
  // the debris until 51 s (the window searched on the prior's prediction), the plan corrected onto
  // the estimate when the images resume (no replan: the file switches them off); captured with
  // every requirement met; the estimate's errors inside
  // their 3σ bounds while the images come; the grasp closed within the tolerance of the true grasp
  // point too.
  void CaptureFromEstimate() {
    const auto sim = simulate("capture_rigid_camera.yaml");
    const MissionMetrics m = missionMetrics(*sim);
    qInfo("%s", m.outcome_reason.c_str());
    QVERIFY(m.captured());
    const SimulationEvent* grasp = firstEvent(*sim, "capture");
    QVERIFY(grasp && grasp->detail.find("on the estimate") != std::string::npos);
    const double true_distance = at(*sim, "distance.ee_target", grasp->time);
    QVERIFY(true_distance < 0.01);
    const SimulationEvent* hidden = firstEvent(*sim, "measurement_lost");
    const SimulationEvent* seen = firstEvent(*sim, "measurement_regained");
    QVERIFY(hidden && hidden->time == 0 && hidden->detail.find("occluded") != std::string::npos);
    QVERIFY(seen && seen->time > 50 && seen->time < 52);
    QVERIFY(!firstEvent(*sim, "replan"));
    // Errors against their bounds from 1 s after the images resume to the grasp, per axis and the
    // grasp point.
    const auto& time = column(*sim, "time");
    long inside = 0, rows = 0;
    double worst = 0;
    for (std::size_t k = 0; k < time.size() && time[k] < grasp->time; ++k) {
      if (time[k] < seen->time + 1) continue;
      for (const char* c : {"x", "y", "z"}) {
        const double e = column(*sim, (std::string("estimate.error.") + c).c_str())[k];
        const double s3 = column(*sim, (std::string("estimate.sigma3.") + c).c_str())[k];
        inside += std::abs(e) <= s3;
        ++rows;
      }
      worst = std::max(worst, column(*sim, "estimate.error.target")[k]);
      QVERIFY(column(*sim, "estimate.error.target")[k] <= column(*sim, "estimate.sigma3.target")[k]);
      QCOMPARE(column(*sim, "camera.visible")[k], 1.0);
    }
    qInfo("position errors inside 3σ: %ld of %ld; grasp point error at most %.2f mm; hand %.2f mm from the true "
          "grasp point at the grasp", inside, rows, 1e3 * worst, 1e3 * true_distance);
    QVERIFY(inside >= 0.99 * rows);
    QVERIFY(worst > 0);  // the controllers saw an estimate, not the truth
    // After the grasp the filter stops: the estimate channels are empty.
    QVERIFY(std::isnan(column(*sim, "estimate.error.target").back()));
  }

  // The thesis' bench case (umetani_yoshida_capture.yaml: 11 °/s cylinder, Table 9.2's noise,
  // 80 ms): captured within the tolerance of the true grasp point, and the filter's error on the
  // camera-to-grasp-point distance below the raw images' (E|N(0, σ_depth)| = 0.798 x 14.5 mm;
  // the bench reports 33.4 mm for its camera, §9.2.3).
  void BenchCase() {
    const auto sim = simulate("umetani_yoshida_capture.yaml");
    const MissionMetrics m = missionMetrics(*sim);
    const SimulationEvent* grasp = firstEvent(*sim, "capture");
    QVERIFY(m.grasped && grasp);
    const double true_distance = at(*sim, "distance.ee_target", grasp->time);
    qInfo("grasped at %.2f s, hand %.1f mm from the true grasp point; estimated range error %.2f mm (raw images "
          "%.1f mm, the thesis' bench 33.4 mm)", grasp->time, 1e3 * true_distance, 1e3 * m.range_error_mean,
          0.798 * 14.5);
    QVERIFY(true_distance < 0.01);
    QVERIFY(m.range_error_mean > 0 && m.range_error_mean < 0.5 * 0.798 * 0.0145);
  }

  // A camera that sees nothing (turned away): the controllers fly on the prior alone, and the
  // gripper closes on the estimated grasp point, which is not the true one: the hand ends where
  // the estimate said, the true distance there being the estimate's error.
  void GraspOnTheEstimate() {
    const Overrides blind{{"sensors.camera", "{rpy_deg: [0, -90, 0], filter: {sigma_position: 0.03, sigma_velocity: "
                                             "0.0001, sigma_attitude_deg: 0.5, sigma_rate_deg_s: 0.001}}"}};
    const auto sim = simulate("grasp_rigid.yaml", blind);
    const SimulationEvent* lost = firstEvent(*sim, "measurement_lost");
    QVERIFY(lost && lost->time == 0 && lost->detail.find("out of the field of view") != std::string::npos);
    QVERIFY(!firstEvent(*sim, "measurement_regained"));
    const SimulationEvent* grasp = firstEvent(*sim, "capture");
    QVERIFY(grasp);
    const double t = grasp->time - 0.02;  // the last row with the estimate
    const double true_distance = at(*sim, "distance.ee_target", t);
    const double estimate_error = at(*sim, "estimate.error.target", t);
    qInfo("at the grasp: hand %.1f mm from the true grasp point, estimate %.1f mm off", 1e3 * true_distance,
          1e3 * estimate_error);
    QVERIFY(true_distance > 0.01);  // a decision on the truth would not have closed
    QVERIFY(std::abs(true_distance - estimate_error) < 0.01);
  }

  // Replanning in the loop (umetani_yoshida_capture.yaml), forced by a test set to fire on nearly
  // any parting (false-alarm probability 0.9, no tolerance): the plan is made anew from the
  // estimate at most `max` times, only while tracking before the meeting, with the meeting time
  // kept; the capture after it still grasps within the tolerance of the true grasp point. With the
  // defaults the test does not fire on this consistent filter: no replan.
  void Replan_InTheLoopStillGrasps() {
    const auto sim = simulate("umetani_yoshida_capture.yaml",
                              {{"controllers[1].replan", "{false_alarm: 0.9, tolerance: 0, min_images: 20, max: 2}"}});
    const SimulationEvent* plan = firstEvent(*sim, "plan");
    const SimulationEvent* grasp = firstEvent(*sim, "capture");
    QVERIFY(plan && grasp);
    int replans = 0;
    for (const SimulationEvent& e : sim->events()) {
      if (e.kind != "replan") continue;
      ++replans;
      qInfo("t = %.2f s: %s", e.time, e.detail.c_str());
      QVERIFY(e.time > plan->time && e.time < grasp->time);
      QVERIFY(e.detail.find("the plan and the estimate parted") != std::string::npos);
    }
    QCOMPARE(replans, 2);
    QCOMPARE(sim->plans(), 3);
    const double true_distance = at(*sim, "distance.ee_target", grasp->time);
    qInfo("grasped at %.2f s, %.1f mm from the true grasp point", grasp->time, 1e3 * true_distance);
    QVERIFY(true_distance < 0.01);
    const auto defaults = simulate("umetani_yoshida_capture.yaml");
    QVERIFY(!firstEvent(*defaults, "replan"));
    QCOMPARE(defaults->plans(), 1);
  }

  // The plan corrected onto the estimate: capture_rigid_camera.yaml at 3 px (depth σ scaled
  // alike). When the images resume at 51 s the estimate puts the grasp point centimetres from the
  // plan's prediction; riding that prediction the hand never came within the gripper's 1 cm of
  // the estimate and the attempt was aborted, and replanning from the state then asked the bus
  // 6 N m. With the correction blended in over the plan, captured with every requirement met,
  // the reference continuous (the hand within 1 cm of it throughout), the gripper closing within
  // 1 cm of the true grasp point.
  void PlanEnd_CorrectedOntoTheEstimate() {
    const auto sim = simulate("capture_rigid_camera.yaml", {{"sensors.camera.pixel_noise", "3"},
                                                            {"sensors.camera.depth_noise", "0.0435"},
                                                            {"run.duration", "85"}});
    const MissionMetrics m = missionMetrics(*sim);
    const SimulationEvent* grasp = firstEvent(*sim, "capture");
    QVERIFY2(grasp, m.outcome_reason.c_str());
    const double true_distance = at(*sim, "distance.ee_target", grasp->time);
    qInfo("%s; hand %.1f mm from the plan at worst, %.1f mm from the true grasp point at the grasp",
          m.outcome_reason.c_str(), 1e3 * m.plan_error, 1e3 * true_distance);
    QVERIFY2(m.captured(), m.outcome_reason.c_str());
    QVERIFY(m.plan_error < 0.01);
    QVERIFY(true_distance < 0.01);
    QVERIFY(!firstEvent(*sim, "abort"));
  }

  // The same seed gives the same run bit for bit; another seed another one.
  void Seeded() {
    const Overrides a{{"run.duration", "3"}};
    const auto one = simulate("capture_rigid_camera.yaml", a);
    const auto two = simulate("capture_rigid_camera.yaml", a);
    Overrides b = a;
    b.emplace_back("sensors.camera.seed", "2");
    const auto other = simulate("capture_rigid_camera.yaml", b);
    for (int c = 0; c < one->recorder().channels(); ++c) {
      const auto& x = one->recorder().column(c);
      const auto& y = two->recorder().column(c);
      QVERIFY(x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0);
    }
    QVERIFY(column(*one, "estimate.error.x") != column(*other, "estimate.error.x"));
    // Without the section: no estimate channels.
    const auto truth = simulate("capture_rigid.yaml", a);
    QCOMPARE(truth->recorder().find("estimate.error.x"), -1);
    QCOMPARE(truth->recorder().find("camera.visible"), -1);
  }

  // The channels the app draws the estimated debris from: estimate.cov.* equal the δr block of
  // the filter's covariance (predicted by the filter itself to each recording instant, not by the
  // path that fills the channels), their diagonal matches the 3σ channels, and estimate.q* is the
  // attitude whose angle to the true one is estimate.error.attitude.
  void CovarianceAndAttitudeChannels_AreTheFilters() {
    // (The debris spun the other way: its grasp face turned to the camera from the start.)
    LoadedScenario l = loadScenario(kSource + "/scenarios/capture_rigid_camera.yaml",
                                    {{"run.duration", "4"}, {"debris.initial.rate_deg_s", "[0, -4, 0]"}});
    Simulation sim(std::move(l.scenario), std::move(l.model));
    const Recorder& r = sim.recorder();
    const int cov = r.find(channel::kEstimateCovariance[0]), qw = r.find(channel::kEstimateAttitude[0]);
    const int truth_qw = r.find(channel::kDebrisAttitude[0]);
    QVERIFY(cov >= 0 && qw >= 0 && truth_qw >= 0 && sim.sensing() != nullptr);
    int checked = 0;
    while (sim.step()) {
      const int row = r.rows() - 1;
      const double t = r.at(row, 0);
      const Matrix12 P = sim.sensing()->filter().estimate(t).P;
      const double scale = P.topLeftCorner<3, 3>().norm();
      for (int k = 0; k < 6; ++k) {
        const auto [i, j] = channel::kEstimateCovarianceEntry[k];
        QCOMPARE(r.info(cov + k).name, std::string(channel::kEstimateCovariance[k]));
        const double recorded = r.at(row, cov + k);
        QVERIFY2(std::abs(recorded - P(i, j)) <= 1e-9 * scale, qPrintable(QString::number(t)));
      }
      for (int k = 0; k < 3; ++k) {
        const double sigma3 = r.at(row, r.find(channel::kEstimateSigma3[k]));
        const auto& entries = channel::kEstimateCovarianceEntry;
        const auto diagonal = std::find(entries.begin(), entries.end(), std::array<int, 2>{k, k}) - entries.begin();
        const double variance = r.at(row, cov + static_cast<int>(diagonal));
        QVERIFY(std::abs(3 * std::sqrt(variance) - sigma3) <= 1e-12 * sigma3);
      }
      Vector4 q_est, q_true;
      for (int k = 0; k < 4; ++k) {
        q_est[k] = r.at(row, qw + k);
        q_true[k] = r.at(row, truth_qw + k);
      }
      QVERIFY(std::abs(q_est.norm() - 1) < 1e-12);
      const double angle_deg = 2 * std::acos(std::min(1.0, std::abs(q_est.dot(q_true)))) * 180 / M_PI;
      QVERIFY2(std::abs(angle_deg - r.at(row, r.find(channel::kEstimateAttitudeError))) < 1e-5,
               qPrintable(QString("%1 deg against %2").arg(angle_deg).arg(r.at(row, r.find(channel::kEstimateAttitudeError)))));
      ++checked;
    }
    QVERIFY(checked > 50);
    // The covariance shrinks as the images come: the prior's σ² at first, less at the end.
    const double prior = sim.scenario().sensors.camera->sigma_position;
    QCOMPARE(r.at(0, cov), prior * prior);
    QVERIFY(r.at(r.rows() - 1, cov) < 0.5 * prior * prior);
  }

  void Loader_NamesFileLineAndExpectation() {
    const std::string path = kSource + "/scenarios/capture_rigid_camera.yaml";
    {
      // In a file: its line.
      std::stringstream text;
      text << std::ifstream(path).rdbuf();
      std::string yaml = text.str();
      const std::size_t where = yaml.find("    pixel_noise: 1\n");
      QVERIFY(where != std::string::npos);
      yaml.replace(where, 18, "    pixel_noise: -1");
      const int line = 1 + static_cast<int>(std::count(yaml.begin(), yaml.begin() + static_cast<long>(where), '\n'));
      Files f;
      const std::string bad = f.write("bad.yaml", yaml);
      // (the robot file is relative to the scenario)
      EXPECT_LOAD_ERROR(loadScenario(bad, {{"chaser.robot", kSource + "/scenarios/robots/mda_deos.yaml"}}), bad, line,
                        "sensors.camera.pixel_noise");
    }
    // Through --set (no line).
    const std::string base = kSource + "/scenarios/capture_rigid.yaml";
    EXPECT_LOAD_ERROR(loadScenario(path, {{"sensors.camera.pixel_noise", "-1"}}), path, 0, "sensors.camera.pixel_noise");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"sensors.camera.resolution", "[1024.5, 768]"}}), path, 0, "whole pixels");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"sensors.camera.frame", "tol"}}), path, 0, "did you mean 'tool'");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"sensors.camera.latncy", "0.1"}}), path, 0, "latency");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"sensors.camera.filter.step", "0"}}), path, 0, "sensors.camera.filter.step");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"sensors.camera.occlusion_tolerance", "-0.1"}}), path, 0,
                      "sensors.camera.occlusion_tolerance");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"controllers[1].replan.false_alarm", "1"}}), path, 0, "false_alarm");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"controllers[1].replan.mx", "1"}}), path, 0, "max");
    EXPECT_LOAD_ERROR(loadScenario(base, {{"sensors.camera", "{}"}, {"debris", "null"}}), base, 0, "");
    // Written and read back: the same settings.
    const LoadedScenario l = loadScenario(path, {{"sensors.camera.frame", "tool"}, {"sensors.camera.seed", "7"}});
    const LoadedScenario r = loadScenarioText(scenarioToYaml(l.scenario), path);
    const DebrisCameraSpec& x = *l.scenario.sensors.camera;
    const DebrisCameraSpec& y = *r.scenario.sensors.camera;
    QCOMPARE(y.frame, std::string("tool"));
    QCOMPARE(y.camera.seed, std::uint64_t{7});
    QVERIFY((y.mount.R - x.mount.R).norm() < 1e-14 && y.mount.p == x.mount.p);
    QCOMPARE(y.camera.width, 1024);
    QCOMPARE(y.camera.latency, x.camera.latency);
    QCOMPARE(y.sigma_rate_deg_s, x.sigma_rate_deg_s);
    // The replan settings: written only when not the defaults, read back the same.
    const LoadedScenario tuned = loadScenario(path, {{"controllers[1].replan", "{max: 5, false_alarm: 0.01, tolerance: 0.02}"}});
    const std::string yaml = scenarioToYaml(tuned.scenario);
    const LoadedScenario defaults = loadScenario(path, {{"controllers[1].replan", "{max: 3}"}});  // (the file: max 0)
    QVERIFY(yaml.find("replan") != std::string::npos && scenarioToYaml(defaults.scenario).find("replan") == std::string::npos);
    const LoadedScenario back = loadScenarioText(yaml, path);
    const ControllerSpec::Capture::Replan& rp = back.scenario.controllers[1].capture.replan;
    QVERIFY(rp == tuned.scenario.controllers[1].capture.replan && rp.max == 5 && rp.false_alarm == 0.01);
  }
};

QTEST_APPLESS_MAIN(TestSensing)
#include "test_sensing.moc"
