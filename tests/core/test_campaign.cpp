// Campaign files and their random draws: Philox against Random123's known answers; every
// distribution's moments and Kolmogorov–Smirnov distance against its exact CDF; run i reproduced
// alone; grids full factorial; dispersed values read back from the built simulation equal to the
// values written (what the simulation used, not what was drawn); bad files named by file:line;
// the Wilson interval and percentiles against published values; a merge of hand-made summaries.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/campaign/campaign.hpp"
#include "core/campaign/random.hpp"
#include "core/campaign/results.hpp"
#include "core/math/rotation.hpp"
#include "tests/support/fault_places.hpp"
#include "tests/support/load_files.hpp"

using namespace grapple::core;
using namespace grapple::core::campaign;
using grapple::test::Files;
using grapple::test::loadErrorOf;
namespace fs = std::filesystem;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;
const std::string kBase = kSource + "/scenarios/grasp_rigid.yaml";

// Kolmogorov–Smirnov statistic of a sample against a CDF.
template <typename Cdf>
double ksDistance(std::vector<double> x, Cdf cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}
// Critical value at significance 0.001 (asymptotic: 1.949 / sqrt(n)).
double ksCritical(std::size_t n) { return 1.949 / std::sqrt(static_cast<double>(n)); }

double normalCdf(double z) { return 0.5 * std::erfc(-z / M_SQRT2); }

double mean(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v;
  return s / static_cast<double>(x.size());
}
double stddev(const std::vector<double>& x) {
  const double m = mean(x);
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return std::sqrt(s / static_cast<double>(x.size() - 1));
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr int kDraws = 20000;

}  // namespace

class TestCampaign : public QObject {
  Q_OBJECT

 private:
  Files files_;
  Campaign dist_;  // the distributions' campaign
  std::map<std::string, std::vector<double>> samples_;

  std::string campaignFile(const std::string& name, const std::string& body) {
    return files_.write(name, "format: 1\nscenario: " + kBase + "\n" + body);
  }

 private slots:
  void initTestCase() {
    dist_ = loadCampaign(campaignFile("dist.yaml", R"(seed: 12345
runs: 20000
dispersions:
  - {name: u, distribution: uniform, min: -2, max: 5}
  - {name: n, distribution: normal, mean: 3, sigma: 0.5}
  - {name: t, distribution: truncated_normal, mean: 1, sigma: 2, min: 0, max: 2.5}
  - {name: l, distribution: log_uniform, min: 0.01, max: 100}
  - {name: c, distribution: choice, values: [a, 7, [1, 2]]}
  - {name: v, distribution: unit_vector}
  - {name: r, distribution: rotation, key: chaser.initial.base.attitude}
  - {name: s, distribution: rotation, sigma_deg: 3, key: debris.initial.attitude}
  - {name: i, distribution: integer, min: -3, max: 2}
)"));
    QCOMPARE(dist_.runs, 20000L);
    for (long i = 0; i < kDraws; ++i) {
      const RunValues v = drawRun(dist_, i);
      samples_["u"].push_back(v.drawn[0].numbers[0]);
      samples_["n"].push_back(v.drawn[1].numbers[0]);
      samples_["t"].push_back(v.drawn[2].numbers[0]);
      samples_["l"].push_back(v.drawn[3].numbers[0]);
      samples_["c"].push_back(v.drawn[4].isText() ? 0 : v.drawn[4].numbers.size() == 1 ? 1 : 2);
      for (int k = 0; k < 3; ++k) samples_["v" + std::to_string(k)].push_back(v.drawn[5].numbers[static_cast<std::size_t>(k)]);
      const std::vector<double>& q = v.drawn[6].numbers;
      samples_["r_angle"].push_back(2 * std::acos(std::min(1.0, std::abs(q[0]))));
      samples_["r_norm"].push_back(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]));
      const Vector3 phi = quatLog(Vector4(v.drawn[7].numbers[0], v.drawn[7].numbers[1], v.drawn[7].numbers[2], v.drawn[7].numbers[3]));
      for (int k = 0; k < 3; ++k) samples_["s" + std::to_string(k)].push_back(phi[k] * 180 / M_PI);
      samples_["i"].push_back(v.drawn[8].numbers[0]);
    }
  }

  // Random123's kat_vectors for Philox4x32-10.
  void Philox_KnownAnswers() {
    using A4 = std::array<std::uint32_t, 4>;
    QVERIFY((philox4x32({0, 0, 0, 0}, {0, 0}) == A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
    QVERIFY((philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
             A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
    QVERIFY((philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
             A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  }

  void Uniform_MomentsAndKs() {
    const auto& x = samples_["u"];
    QVERIFY(*std::min_element(x.begin(), x.end()) >= -2 && *std::max_element(x.begin(), x.end()) <= 5);
    const double se = 7 / std::sqrt(12.0) / std::sqrt(kDraws);
    QVERIFY2(std::abs(mean(x) - 1.5) < 4 * se, qPrintable(QString::number(mean(x))));
    QVERIFY(std::abs(stddev(x) - 7 / std::sqrt(12.0)) < 0.02 * 7 / std::sqrt(12.0));
    const double d = ksDistance(x, [](double v) { return (v + 2) / 7; });
    QVERIFY2(d < ksCritical(x.size()), qPrintable(QString::number(d)));
  }

  void Normal_MomentsAndKs() {
    const auto& x = samples_["n"];
    QVERIFY(std::abs(mean(x) - 3) < 4 * 0.5 / std::sqrt(kDraws));
    QVERIFY(std::abs(stddev(x) - 0.5) < 0.02 * 0.5);
    const double d = ksDistance(x, [](double v) { return normalCdf((v - 3) / 0.5); });
    QVERIFY2(d < ksCritical(x.size()), qPrintable(QString::number(d)));
  }

  void TruncatedNormal_MomentsAndKs() {
    const auto& x = samples_["t"];
    QVERIFY(*std::min_element(x.begin(), x.end()) >= 0 && *std::max_element(x.begin(), x.end()) <= 2.5);
    const double a = (0 - 1) / 2.0, b = (2.5 - 1) / 2.0, Z = normalCdf(b) - normalCdf(a);
    auto pdf = [](double z) { return std::exp(-z * z / 2) / std::sqrt(2 * M_PI); };
    const double m = 1 + 2 * (pdf(a) - pdf(b)) / Z;  // mean of the truncated normal
    QVERIFY2(std::abs(mean(x) - m) < 0.01, qPrintable(QString("%1 vs %2").arg(mean(x)).arg(m)));
    const double d = ksDistance(x, [&](double v) { return (normalCdf((v - 1) / 2) - normalCdf(a)) / Z; });
    QVERIFY2(d < ksCritical(x.size()), qPrintable(QString::number(d)));
  }

  void LogUniform_Ks() {
    const auto& x = samples_["l"];
    const double d = ksDistance(x, [](double v) { return (std::log(v) - std::log(0.01)) / (std::log(100) - std::log(0.01)); });
    QVERIFY2(d < ksCritical(x.size()), qPrintable(QString::number(d)));
    std::vector<double> logs;
    for (double v : x) logs.push_back(std::log10(v));
    QVERIFY(std::abs(mean(logs)) < 0.04);  // log10 uniform on [-2, 2]
  }

  void Choice_Frequencies() {
    std::array<int, 3> n{};
    for (double c : samples_["c"]) ++n[static_cast<std::size_t>(c)];
    double chi2 = 0;
    for (int k : n) chi2 += std::pow(k - kDraws / 3.0, 2) / (kDraws / 3.0);
    QVERIFY2(chi2 < 13.8, qPrintable(QString::number(chi2)));  // chi-square, 2 dof, p = 0.001
  }

  // Whole numbers in [min, max], each equally likely.
  void Integer_Frequencies() {
    std::array<int, 6> n{};
    for (double x : samples_["i"]) {
      QVERIFY(x == std::floor(x) && x >= -3 && x <= 2);
      ++n[static_cast<std::size_t>(x + 3)];
    }
    double chi2 = 0;
    for (int k : n) chi2 += std::pow(k - kDraws / 6.0, 2) / (kDraws / 6.0);
    QVERIFY2(chi2 < 20.5, qPrintable(QString::number(chi2)));  // chi-square, 5 dof, p = 0.001
  }

  // The sensors' and actuators' seeds of the realistic capture drawn per run: written as whole
  // numbers, loaded, and what the built simulation holds; two runs, two sets of seeds.
  void Integer_SeedsReachTheSimulation() {
    const Campaign c = loadCampaign(files_.write("seeds.yaml", "format: 1\nscenario: " + kSource +
                                                                   "/scenarios/capture_rigid_realistic.yaml\n" + R"(seed: 5
runs: 2
dispersions:
  - {key: sensors.camera.seed, distribution: integer, min: 1, max: 2147483647}
  - {key: sensors.gyro.seed, distribution: integer, min: 1, max: 2147483647}
  - {key: actuators.seed, distribution: integer, min: 1, max: 2147483647}
)"));
    std::vector<double> first;
    for (long i = 0; i < c.runs; ++i) {
      const RunValues v = drawRun(c, i);
      LoadedScenario loaded = loadScenarioDocument(c.scenario_path, scenarioDocument(c, v));
      QCOMPARE(loaded.scenario.sensors.gyro->seed, static_cast<std::uint64_t>(v.drawn[1].numbers[0]));
      QCOMPARE(loaded.scenario.actuators.seed, static_cast<std::uint64_t>(v.drawn[2].numbers[0]));
      const Simulation sim(std::move(loaded.scenario), std::move(loaded.model));
      for (const auto& [key, assigned] : v.assigned) QCOMPARE(effectiveValue(sim, key).numbers, assigned.numbers);
      for (const Value& x : v.drawn) {
        if (i == 0) first.push_back(x.numbers[0]);
        QVERIFY(x.numbers[0] == std::floor(x.numbers[0]) && x.numbers[0] >= 1);
      }
    }
    QVERIFY(valueCells(drawRun(c, 1)) != valueCells(drawRun(c, 0)));
  }

  // Uniform on the sphere: each component is uniform on [-1, 1] (Archimedes), unit length.
  void UnitVector_UniformOnSphere() {
    for (int k = 0; k < 3; ++k) {
      const auto& x = samples_["v" + std::to_string(k)];
      const double d = ksDistance(x, [](double v) { return (v + 1) / 2; });
      QVERIFY2(d < ksCritical(x.size()), qPrintable(QString("component %1: %2").arg(k).arg(d)));
    }
  }

  // Uniform on SO(3): the rotation angle θ has the CDF (θ - sin θ) / π (Haar measure).
  void Rotation_HaarAngle() {
    const auto& x = samples_["r_angle"];
    const double d = ksDistance(x, [](double t) { return (t - std::sin(t)) / M_PI; });
    QVERIFY2(d < ksCritical(x.size()), qPrintable(QString::number(d)));
    for (double n : samples_["r_norm"]) QVERIFY(std::abs(n - 1) < 1e-12);
  }

  // sigma_deg: the rotation vector's components normal with that deviation.
  void Rotation_NormalRotationVector() {
    for (int k = 0; k < 3; ++k) {
      const auto& x = samples_["s" + std::to_string(k)];
      const double d = ksDistance(x, [](double v) { return normalCdf(v / 3); });
      QVERIFY2(d < ksCritical(x.size()), qPrintable(QString("component %1: %2").arg(k).arg(d)));
    }
  }

  // Run i alone equals run i drawn after the others, from a campaign loaded again, with more
  // runs, or with a dispersion added after it.
  void Runs_ReproducedAlone() {
    const RunValues alone = drawRun(dist_, 7777);
    const Campaign again = loadCampaign(dist_.file);
    QCOMPARE(valueCells(drawRun(again, 7777)), valueCells(alone));
    std::string text = readText(dist_.file);
    text.replace(text.find("runs: 20000"), 11, "runs: 30000");
    text += "  - {name: extra, distribution: normal, mean: 0, sigma: 1}\n";
    const Campaign more = loadCampaign(files_.write("more.yaml", text));
    std::vector<std::string> cells = valueCells(drawRun(more, 7777));
    cells.pop_back();
    QCOMPARE(cells, valueCells(alone));
    QVERIFY(valueCells(drawRun(dist_, 7778)) != valueCells(alone));
    // Another seed, other numbers.
    text = readText(dist_.file);
    text.replace(text.find("seed: 12345"), 11, "seed: 12346");
    QVERIFY(valueCells(drawRun(loadCampaign(files_.write("seed.yaml", text)), 7777)) != valueCells(alone));
  }

  // A grid is full factorial, its last axis fastest; random draws repeat over its points.
  void Grid_FullFactorial() {
    const Campaign c = loadCampaign(campaignFile("grid.yaml", R"(seed: 1
runs: 12
grid:
  - {name: a, values: [1, 2, 3]}
  - {key: "controllers[0].kp", values: [4, 5]}
dispersions:
  - {key: "debris.initial.rate_deg_s[2]", distribution: uniform, min: -1, max: 1}
)"));
    QCOMPARE(c.grid_points, 6L);
    std::map<std::pair<double, double>, int> seen;
    for (long i = 0; i < 12; ++i) {
      const RunValues v = drawRun(c, i);
      ++seen[{v.drawn[0].numbers[0], v.drawn[1].numbers[0]}];
      if (i < 6) {
        QCOMPARE(v.drawn[0].numbers[0], 1.0 + static_cast<double>(i / 2));
        QCOMPARE(v.drawn[1].numbers[0], 4.0 + static_cast<double>(i % 2));
      }
    }
    QCOMPARE(static_cast<int>(seen.size()), 6);
    for (const auto& [point, n] : seen) QCOMPARE(n, 2);
    // The values land in the document at their key paths: a list item and a vector component.
    const YAML::Node doc = scenarioDocument(c, drawRun(c, 3));
    QCOMPARE(doc["controllers"][0]["kp"].as<double>(), 5.0);
    QCOMPARE(doc["debris"]["initial"]["rate_deg_s"][0].as<double>(), 4.0);  // untouched
    QCOMPARE(doc["debris"]["initial"]["rate_deg_s"][2].as<double>(), drawRun(c, 3).drawn[2].numbers[0]);
    QCOMPARE(c.base["controllers"][0]["kp"].as<double>(), 4.0);  // the base is not modified
  }

  // What the simulation uses, read back from the built simulation, equals what was written: the
  // debris rate (deg/s in the file, rad/s inside), its attitude turned about the tumbling axis,
  // its inertia multiplied, the grasp point, the chaser's attitude composed with a rotation, a
  // controller gain.
  void EffectiveValues_MatchTheAssigned() {
    const Campaign c = loadCampaign(campaignFile("eff.yaml", R"(seed: 99
grid:
  - {name: rate, values: [2, 6]}
  - {key: debris.initial.rate_deg_s, name: axis, values: [[1, 0, 0], [1, 1, 1]], normalize: true, scale: rate}
  - {key: debris.initial.attitude, name: phase_deg, rotate_about: axis, values: [0, 135]}
runs: 16
dispersions:
  - {key: debris.inertia.zz, distribution: normal, mean: 1, sigma: 0.05, apply: multiply}
  - {key: "debris.target[1]", distribution: uniform, min: -0.02, max: 0.02, apply: add}
  - {key: chaser.initial.base.attitude, distribution: rotation, sigma_deg: 2}
  - {key: "controllers[0].kd", distribution: log_uniform, min: 2, max: 8}
  - {key: chaser.initial.joints.joint2.position, distribution: uniform, min: 2.0, max: 2.2}
)"));
    const Vector4 q_base(0.7071067811865476, 0, -0.7071067811865476, 0);
    for (long i = 0; i < c.runs; ++i) {
      const RunValues v = drawRun(c, i);
      LoadedScenario loaded = loadScenarioDocument(c.scenario_path, scenarioDocument(c, v));
      const Simulation sim(std::move(loaded.scenario), std::move(loaded.model));
      for (const auto& [key, assigned] : v.assigned) {
        const Value eff = effectiveValue(sim, key);
        QCOMPARE(eff.numbers.size(), assigned.numbers.size());
        Eigen::VectorXd a = Eigen::Map<const Eigen::VectorXd>(assigned.numbers.data(), static_cast<Eigen::Index>(assigned.numbers.size()));
        Eigen::VectorXd e = Eigen::Map<const Eigen::VectorXd>(eff.numbers.data(), static_cast<Eigen::Index>(eff.numbers.size()));
        if (a.size() == 4) {
          a.normalize();
          if (a.dot(e) < 0) e = -e;
        }
        QVERIFY2((a - e).norm() <= 1e-12 * std::max(1.0, a.norm()), qPrintable(QString("run %1, %2").arg(i).arg(key.c_str())));
      }
      // Independently of the campaign's composition: the debris' initial rate has the drawn
      // magnitude, and its attitude differs from the file's by the phase about that axis.
      const DebrisState d = sim.debris();
      const double rate = v.drawn[0].numbers[0], phase = v.drawn[2].numbers[0] * M_PI / 180;
      QVERIFY(std::abs(d.w_B.norm() * 180 / M_PI - rate) < 1e-12 * rate);
      const Matrix3 rel = quatToMatrix(q_base).transpose() * quatToMatrix(d.Q_WB);
      const Vector3 axis = d.w_B.normalized();
      QVERIFY((rel * axis - axis).norm() < 1e-12);
      const Vector4 qr = quatMultiply(quatConjugate(q_base), d.Q_WB);
      QVERIFY(std::abs(2 * std::atan2(qr.tail<3>().norm(), std::abs(qr[0])) - phase) < 1e-12);
      QCOMPARE(sim.scenario().debris.properties.inertia(2, 2), 2250 * v.drawn[3].numbers[0]);
    }
  }

  void BadFiles_NameFileAndLine() {
    struct Case {
      std::string body, where, fragment;
    };
    const std::vector<Case> cases = {
        {"seed: 1\nruns: 3\ndispersionz: []\n", ":5:", "did you mean 'dispersions'"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: uniform, min: 5}\n", ":6:", "missing key 'max'"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: uniform, min: 5, max: 1}\n", ":6:", "expected more than min"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: gaussian, mean: 1, sigma: 1}\n", ":6:", "normal"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: normal, mean: 1, sigma: 1, min: 0}\n", ":6:", "not a parameter"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: \"controllers[3].kp\", distribution: uniform, min: 1, max: 2}\n", ":6:", "no item [3]"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: \"debris..mass\", distribution: uniform, min: 1, max: 2}\n", ":6:", "empty name"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: truncated_normal, mean: 0, sigma: 1, min: 9, max: 10}\n", ":6:", "less than 1e-4"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: log_uniform, min: 0, max: 10}\n", ":6:", "min > 0"},
        {"seed: 1\nruns: 3\ngrid:\n  - {name: a, values: [1, 2]}\n", ":4:", "multiple of the grid"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.target, distribution: unit_vector, scale: nope}\n", ":6:", "'nope' is not the name"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: uniform, min: 1, max: 2}\n  - {key: debris.mass, distribution: uniform, min: 1, max: 2}\n", ":7:", "used twice"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: uniform, min: -2, max: -1}\n", "", "run 0's scenario is refused"},
        {"runs: 3\n", "", "missing key 'seed'"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: integer, min: 1.5, max: 9}\n", ":6:", "min: expected a whole number"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: debris.mass, distribution: integer, min: 9, max: 1}\n", ":6:", "expected at least min"},
        {"seed: 1\nruns: 3\ndispersions:\n  - {key: run.nothing, distribution: uniform, min: 1, max: 2, apply: add}\n", ":6:", "nothing to add"},
        // Every listed value must suit what the entry does with it, not only run 0's.
        {"seed: 1\nruns: 2\ngrid:\n  - {key: debris.mass, values: [2, abc], apply: multiply}\n", ":6:", "values[1]: 'abc' is not a number"},
        {"seed: 1\nruns: 2\ngrid:\n  - {name: axis, values: [[1, 0, 0]]}\n  - {key: debris.initial.attitude, rotate_about: axis, values: [0, [1, 2]]}\n",
         ":7:", "one number (degrees), not 2"},
        {"seed: 1\nruns: 2\ngrid:\n  - {key: debris.target, values: [[1, 0, 0], [0, 0, 0]], normalize: true}\n", ":6:", "zero vector"},
        {"seed: 1\nruns: 2\ndispersions:\n  - {key: debris.target, distribution: choice, values: [[1, 0, 0], 1, [1, 2]], apply: add}\n", ":6:",
         "values[2]: 'debris.target': the value has 2 numbers"},
    };
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const std::string path = campaignFile("bad" + std::to_string(k) + ".yaml", cases[k].body);
      const std::string msg = loadErrorOf([&] { loadCampaign(path); });
      QVERIFY2(msg.find(path + cases[k].where) == 0, qPrintable(QString("case %1: %2").arg(k).arg(msg.c_str())));
      QVERIFY2(msg.find(cases[k].fragment) != std::string::npos, qPrintable(QString("case %1: %2").arg(k).arg(msg.c_str())));
    }
    QVERIFY(loadErrorOf([&] { loadCampaign(files_.dir() + "/missing.yaml"); }).find("missing.yaml") != std::string::npos);
    const std::string no_base = files_.write("nobase.yaml", "scenario: nowhere.yaml\nseed: 1\nruns: 2\n");
    QVERIFY(loadErrorOf([&] { loadCampaign(no_base); }).find(no_base + ":1:") == 0);
  }

  // Against published values (Wilson 1927; Newcombe 1998, Table I) and NumPy's percentile.
  void Statistics_WilsonAndPercentiles() {
    const Interval a = wilsonInterval(81, 263);  // Newcombe's example: 0.2553 - 0.3662
    QVERIFY(std::abs(a.low - 0.2553) < 1e-4 && std::abs(a.high - 0.3662) < 1e-4);
    const Interval b = wilsonInterval(15, 148);  // 0.0624 - 0.1605
    QVERIFY(std::abs(b.low - 0.0624) < 1e-4 && std::abs(b.high - 0.1605) < 1e-4);
    const Interval c = wilsonInterval(0, 20);  // 0 - 0.1611
    QVERIFY(c.low == 0 && std::abs(c.high - 0.1611) < 1e-4);
    const Interval d = wilsonInterval(29, 29);  // 0.8830 - 1
    QVERIFY(std::abs(d.low - 0.8830) < 1e-4 && d.high == 1);
    const std::vector<double> x = {1, 2, 3, 4, 10};
    QCOMPARE(percentile(x, 0.5), 3.0);
    QVERIFY(std::abs(percentile(x, 0.05) - 1.2) < 1e-12);   // numpy.percentile(x, 5)
    QVERIFY(std::abs(percentile(x, 0.95) - 8.8) < 1e-12);   // numpy.percentile(x, 95)
    QVERIFY(std::isnan(percentile({}, 0.5)));
  }

  // Merging summaries: with and without outcomes (those written before outcomes existed fall back
  // on `captured`), a failed run with its error, a missing run.
  void Merge_SummariesOfEveryKind() {
    const std::string dir = files_.dir() + "/merge";
    fs::create_directories(dir + "/runs");
    writeManifest(dir, Manifest{"m", "c.yaml", 5, 3, {"x", "v[0]", "v[1]"}});
    auto summary = [&](long i, const std::string& status, const std::string& metrics, const std::string& x) {
      fs::create_directories(dir + "/" + runFolder(i));
      std::ofstream(dir + "/" + runFolder(i) + "/summary.json")
          << "{\"status\": \"" << status << "\", \"metrics\": {" << metrics << "}, \"campaign\": {\"run\": " << i
          << ", \"values\": {\"x\": " << x << ", \"v[0]\": 0.5, \"v[1]\": -1}}}\n";
    };
    summary(0, "completed", "\"fuel_kg\": 0.25, \"captured\": true", "1.5");
    summary(1, "completed", "\"fuel_kg\": 0.5, \"captured\": false", "2.5");
    summary(2, "completed", "\"outcome\": \"captured_out_of_spec\", \"captured\": false, \"fuel_kg\": 1, "
                            "\"violations\": [{\"requirement\": \"bus_torque\", \"limit\": 5, \"worst\": 6, \"first_time_s\": 3}]", "3");
    fs::create_directories(dir + "/" + runFolder(3));
    std::ofstream(dir + "/" + runFolder(3) + "/summary.json")
        << "{\"status\": \"failed: bad, really\", \"error\": \"bad, really\", \"metrics\": {\"outcome\": \"failed\"}, \"campaign\": {\"run\": 3, \"values\": {\"x\": 4}}}\n";
    const MergeReport r = mergeCampaign(dir);
    QCOMPARE(r.completed, 4L);
    QCOMPARE(r.successes, 1L);
    QCOMPARE(r.failed, 1L);
    QCOMPARE(r.missing, std::vector<long>{4});
    QCOMPARE(r.success_rate, 0.25);
    const std::string csv = readText(dir + "/runs.csv");
    QCOMPARE(csv, std::string("run,x,v[0],v[1],outcome,fuel_kg,captured,violations,error\n"
                              "0,1.5,0.5,-1,captured,0.25,true,,\n"
                              "1,2.5,0.5,-1,missed,0.5,false,,\n"
                              "2,3,0.5,-1,captured_out_of_spec,1,false,bus_torque,\n"
                              "3,4,,,failed,,,,\"bad, really\"\n"));
    const YAML::Node j = YAML::LoadFile(dir + "/campaign.json");
    QCOMPARE(j["completed"].as<int>(), 4);
    QCOMPARE(j["outcomes"]["missed"].as<int>(), 1);
    QCOMPARE(j["failed"][0]["run"].as<int>(), 3);
    QCOMPARE(j["failed"][0]["error"].as<std::string>(), std::string("bad, really"));
    QCOMPARE(j["missing"][0].as<int>(), 4);
    QCOMPARE(j["metrics"]["fuel_kg"]["p50"].as<double>(), 0.5);
    QVERIFY(std::abs(j["success_rate_wilson95"][0].as<double>() - wilsonInterval(1, 4).low) < 1e-15);
  }

  // Merging into a full file system or a read-only folder: mergeCampaign throws, naming the file
  // and the system's reason; the previous results are there byte for byte and no temporary file
  // is left.
  void Merge_IntoAFullOrReadOnlyPlace_KeepsThePreviousResults() {
    const std::string previous = "run,outcome\n0,captured\n";
    auto prepare = [](const std::string& dir) {
      writeManifest(dir, Manifest{"m", "c.yaml", 1, 3, {}});
      fs::create_directories(dir + "/" + runFolder(0));
      std::ofstream(dir + "/" + runFolder(0) + "/summary.json")
          << "{\"status\": \"completed\", \"metrics\": {\"captured\": false}, \"campaign\": {\"run\": 0}}\n";
    };
    auto check = [&](grapple::test::FaultPlace& place) {
      qInfo("%s", place.kind().c_str());
      const std::vector<std::string> before = grapple::test::folderEntries(place.dir());
      std::string message;
      try {
        mergeCampaign(place.dir());
      } catch (const std::runtime_error& e) {
        message = e.what();
      }
      place.restore();
      QVERIFY2(message.find(place.file("runs.csv")) != std::string::npos, message.c_str());
      QVERIFY2(message.find(place.reason()) != std::string::npos, message.c_str());
      QCOMPARE(grapple::test::fileText(place.file("runs.csv")), previous);
      QVERIFY(!fs::exists(place.file("campaign.json")));
      QCOMPARE(grapple::test::folderEntries(place.dir()), before);
    };
    {
      grapple::test::FullPlace full("runs.csv", previous, prepare);
      check(full);
    }
    grapple::test::ReadOnlyFolder readonly("runs.csv", previous, prepare);
    if (!readonly.effective()) QSKIP("root without the right to mount: no folder is read-only to this process");
    check(readonly);
  }
};

QTEST_APPLESS_MAIN(TestCampaign)
#include "test_campaign.moc"
