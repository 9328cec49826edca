// The camera and the debris filter: the pinhole against the thesis' eq. 9.3 (as corrected), the
// filter's Jacobians against finite differences, its convergence to the truth without noise, its
// consistency (NEES of a Monte Carlo of seeds within the 95 % χ² bounds), the delay handling
// against a filter that ignores the delay, and late images inserted in their place.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/campaign/random.hpp"
#include "core/estimation/debris_filter.hpp"
#include "core/math/rotation.hpp"
#include "tests/support/compare.hpp"

using namespace grapple::core;

namespace {

constexpr double kDeg = M_PI / 180;

// The thesis' bench target (§9.2.3): a 50 kg cylinder of radius 0.75 m (length 1.5 m: ours),
// grasp point on an end face, tumbling at 11 °/s about a non-principal axis, 2 m in front of a
// camera at the origin looking along +z.
DebrisProperties cylinder() {
  DebrisProperties p;
  p.mass = 50;
  const double r = 0.75, h = 1.5;
  const double it = p.mass * (3 * r * r + h * h) / 12;
  p.inertia = Vector3(it, it, 0.5 * p.mass * r * r).asDiagonal();
  p.target_B = Vector3(0.2, 0, 0.75);
  return p;
}

DebrisState tumbling() {
  DebrisState s;
  s.r_W = Vector3(0.05, -0.1, 2.75);
  s.v_W = Vector3(0.01, -0.005, 0.002);
  s.Q_WB = quatExp(Vector3(M_PI, 0, 0));  // grasp face towards the camera
  s.w_B = Vector3(0.3, 0.5, 1).normalized() * (11 * kDeg);
  return s;
}

CameraSettings camera() {
  CameraSettings c;
  c.pixel_noise = 2;
  c.depth_noise = 0.0145;
  c.attitude_noise_deg = 1;
  return c;
}

Matrix12 priorCovariance() {
  Vector12 sigma;
  sigma << Vector3::Constant(0.05), Vector3::Constant(0.01), Vector3::Constant(5 * kDeg), Vector3::Constant(1 * kDeg);
  return sigma.cwiseAbs2().asDiagonal();
}

// A draw of N(0, P).
Vector12 draw(campaign::RandomStream& rng, const Matrix12& P) {
  Vector12 n;
  for (int k = 0; k < 12; ++k) n[k] = rng.normal();
  return Matrix12(P.llt().matrixL()) * n;
}

// The truth on a grid of `step`, with the white accelerations the filter assumes (a velocity
// increment of σ √h per step).
std::vector<DebrisState> truthRun(const DebrisProperties& p, DebrisState s, double duration, double step,
                                  const DebrisFilterSettings& f, campaign::RandomStream& rng) {
  std::vector<DebrisState> out{s};
  const int n = static_cast<int>(std::lround(duration / step));
  for (int k = 0; k < n; ++k) {
    s = stepDebris(p, s, step);
    s.Q_WB.normalize();
    for (int i = 0; i < 3; ++i) s.v_W[i] += f.accel_noise * std::sqrt(step) * rng.normal();
    for (int i = 0; i < 3; ++i) s.w_B[i] += f.angular_accel_noise * std::sqrt(step) * rng.normal();
    out.push_back(s);
  }
  return out;
}

// Wilson–Hilferty: the p quantile of χ² with k degrees of freedom (z: the normal quantile).
double chiSquareQuantile(double k, double z) {
  const double a = 2 / (9 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

double graspPointError(const DebrisProperties& p, const DebrisState& a, const DebrisState& b) {
  return (targetKinematics(p, a).position - targetKinematics(p, b).position).norm();
}

}  // namespace

class TestEstimation : public QObject {
  Q_OBJECT

 private slots:
  // Eq. 9.3 as corrected: x = z ρ/f (u - u_c); at 2 m a pixel is 2 · 4.65e-6 / 2.5e-3 = 3.72 mm.
  void Pinhole_MatchesEquation93() {
    const CameraSettings c = camera();
    const Vector3 p_C(0.1, -0.05, 2);
    const Vector3 uvz = projectPinhole(c, p_C);
    QCOMPARE(uvz.x(), 512 + 0.1 / 2 * 2.5e-3 / 4.65e-6);
    QVERIFY(std::abs(uvz.y() - (384 - 0.05 / 2 * 2.5e-3 / 4.65e-6)) < 1e-9);
    EXPECT_MATRIX_NEAR(backProjectPinhole(c, uvz), p_C, 1e-14);
    const Vector3 one_pixel = backProjectPinhole(c, uvz + Vector3(1, 0, 0)) - p_C;
    QVERIFY(std::abs(one_pixel.x() - 3.72e-3) < 1e-12);
    // Field of view: the sensor's 1024 × 768 pixels, in front of the lens.
    QVERIFY(inFieldOfView(c, p_C));
    QVERIFY(!inFieldOfView(c, Vector3(0, 0, -2)));
    QVERIFY(!inFieldOfView(c, Vector3(2.0, 0, 2)));   // 26 px beyond the right edge (1.905 m)
    QVERIFY(inFieldOfView(c, Vector3(1.8, 0, 2)));
    QVERIFY(!inFieldOfView(c, Vector3(0, 1.5, 2)));   // below the bottom edge (1.43 m)
  }

  // Same seed, same images bit for bit; the noise has the σ it was given; out of view, nothing.
  void Camera_SeededNoiseAndFieldOfView() {
    const DebrisProperties p = cylinder();
    const DebrisState s = tumbling();
    CameraSettings c = camera();
    Camera a(c), b(c);
    c.seed = 2;
    Camera other(c);
    const Vector3 exact = projectPinhole(c, s.r_W + quatToMatrix(s.Q_WB) * p.target_B);
    double su = 0, sz = 0, sa = 0;
    const int n = 20000;
    bool differ = false;
    for (int k = 0; k < n; ++k) {
      const auto ma = a.capture(k * 0.05, p, s, Transform{});
      const auto mb = b.capture(k * 0.05, p, s, Transform{});
      const auto mo = other.capture(k * 0.05, p, s, Transform{});
      QVERIFY(ma && mb && mo);
      QVERIFY(ma->uvz == mb->uvz && ma->Q_CB == mb->Q_CB);
      differ = differ || mo->uvz != ma->uvz;
      QCOMPARE(ma->arrival, k * 0.05 + 0.08);
      su += std::pow(ma->uvz.x() - exact.x(), 2);
      sz += std::pow(ma->uvz.z() - exact.z(), 2);
      sa += quatLog(quatMultiply(quatConjugate(s.Q_WB), ma->Q_CB)).squaredNorm() / 3;
    }
    QVERIFY(differ);
    qInfo("sample σ: u %.3f px (2), depth %.2f mm (14.5), attitude %.3f deg (1)", std::sqrt(su / n),
          1e3 * std::sqrt(sz / n), std::sqrt(sa / n) / kDeg);
    QVERIFY(std::abs(std::sqrt(su / n) / 2 - 1) < 0.03);
    QVERIFY(std::abs(std::sqrt(sz / n) / 0.0145 - 1) < 0.03);
    QVERIFY(std::abs(std::sqrt(sa / n) / kDeg - 1) < 0.03);
    // The camera turned away: no image.
    QVERIFY(!a.capture(0, p, s, Transform{rotY(M_PI / 2), Vector3::Zero()}));
  }

  // Φ over 0.5 s and H against central differences of the propagation and the residual.
  void Jacobians_MatchFiniteDifferences() {
    const DebrisProperties p = cylinder();
    const DebrisState s = tumbling();
    DebrisFilterSettings fs;
    const double dt = 0.5, eps = 1e-6;
    const Matrix12 Phi = debrisTransition(p, fs, s, dt);
    auto propagate = [&](const DebrisState& x) {
      DebrisEstimate e;
      e.state = x;
      predictDebris(p, fs, e, dt);
      return e.state;
    };
    const DebrisState ref = propagate(s);
    Matrix12 fd;
    for (int i = 0; i < 12; ++i) {
      const Vector12 d = Vector12::Unit(i) * eps;
      fd.col(i) = (boxMinus(propagate(boxPlus(s, d)), ref) - boxMinus(propagate(boxPlus(s, -d)), ref)) / (2 * eps);
    }
    EXPECT_MATRIX_NEAR(Phi, fd, 1e-7);
    // The measurement: an image from a camera turned and offset, so that every block is exercised.
    const CameraSettings c = camera();
    CameraMeasurement m;
    m.X_WC = Transform{rpyToMatrix(Vector3(0.1, -0.2, 0.3)), Vector3(0.2, 0.1, -0.3)};
    m.uvz = Vector3(500, 400, 2.9);
    // (The attitude residual's Jacobian is -I where the residual is small, as in the filter: the
    // image agrees with the state.)
    m.Q_CB = quatMultiply(matrixToQuat(m.X_WC.R.transpose()), s.Q_WB);
    const Eigen::MatrixXd H = cameraJacobian(p, c, s, m);
    Eigen::MatrixXd Hfd(6, 12);
    for (int i = 0; i < 12; ++i) {
      const Vector12 d = Vector12::Unit(i) * eps;
      Hfd.col(i) = -(cameraResidual(p, c, boxPlus(s, d), m) - cameraResidual(p, c, boxPlus(s, -d), m)) / (2 * eps);
    }
    EXPECT_MATRIX_NEAR(H, Hfd, 1e-5);
  }

  // Exact images (the filter told of a noise 10⁻⁶ of the bench's, and of a process noise as small)
  // of the exact torque-free motion: from a prior 5 cm, 1 cm/s, 5° and 1 °/s off, the estimate
  // converges to the truth (the 12 errors together: 0.03 at the start).
  void ZeroNoise_ConvergesToTruth() {
    const DebrisProperties p = cylinder();
    CameraSettings c = camera();
    c.pixel_noise = 1e-6;
    c.depth_noise = 1e-9;
    c.attitude_noise_deg = 1e-6;
    DebrisFilterSettings fs;
    fs.accel_noise = fs.angular_accel_noise = 1e-6;
    Vector12 off;
    off << 0.05, -0.03, 0.02, 0.01, 0, -0.01, 5 * kDeg, -3 * kDeg, 2 * kDeg, kDeg, -kDeg, 0.5 * kDeg;
    DebrisEstimate prior;
    prior.state = boxPlus(tumbling(), off);
    prior.P = priorCovariance();
    DebrisFilter f(p, c, fs, prior);
    Camera cam(c);
    DebrisState truth = tumbling();
    double err = 0;
    for (int k = 0; k <= 200; ++k) {  // 10 s at 20 Hz
      const double t = k * 0.05;
      if (k > 0) truth = stepDebris(p, truth, 0.05);
      const auto m = cam.capture(t, p, truth, Transform{});
      QVERIFY(m);
      f.addMeasurement(*m);
      err = boxMinus(truth, f.estimate(t).state).norm();
    }
    qInfo("error after 10 s of exact images: %.2e", err);
    QVERIFY(err < 1e-6);
  }

  // NEES ε = δxᵀ P⁻¹ δx at each image over 50 runs (truth drawn from the prior, the process noise
  // the filter assumes, the camera's noise): the average over the runs, times 50, is χ² with 600
  // degrees of freedom for a consistent filter, within [533, 670] 95 % of the time.
  void Nees_WithinChiSquareBounds() {
    const DebrisProperties p = cylinder();
    const CameraSettings c0 = camera();
    DebrisFilterSettings fs;
    fs.accel_noise = 1e-4;
    fs.angular_accel_noise = 1e-4;
    const int runs = 50, images = 300;  // 15 s at 20 Hz
    std::vector<double> nees(images, 0.0);
    double nis = 0;
    for (int run = 0; run < runs; ++run) {
      campaign::RandomStream rng(7, static_cast<std::uint64_t>(run), 1);
      CameraSettings c = c0;
      c.seed = 100 + static_cast<std::uint64_t>(run);
      Camera cam(c);
      DebrisEstimate prior;
      prior.state = tumbling();
      prior.P = priorCovariance();
      const DebrisState truth0 = boxPlus(prior.state, draw(rng, prior.P));
      const std::vector<DebrisState> truth = truthRun(p, truth0, images * 0.05, 0.01, fs, rng);
      DebrisFilter f(p, c, fs, prior);
      for (int k = 0; k < images; ++k) {
        const DebrisState& x = truth[static_cast<std::size_t>(5 * k)];
        const auto m = cam.capture(k * 0.05, p, x, Transform{});
        QVERIFY(m);
        f.addMeasurement(*m);
        nis += f.lastNis();
        const DebrisEstimate& e = f.posterior();
        const Vector12 d = boxMinus(x, e.state);
        nees[static_cast<std::size_t>(k)] += d.dot(e.P.ldlt().solve(d)) / runs;
      }
    }
    const double lo = chiSquareQuantile(12.0 * runs, -1.959964) / runs;
    const double hi = chiSquareQuantile(12.0 * runs, 1.959964) / runs;
    const long inside = std::count_if(nees.begin(), nees.end(), [&](double e) { return e >= lo && e <= hi; });
    double mean = 0;
    for (double e : nees) mean += e / images;
    qInfo("average NEES %.2f (12 expected), bounds [%.2f, %.2f]: %ld of %d instants inside; mean NIS %.2f (6)",
          mean, lo, hi, inside, images, nis / (runs * images));
    QVERIFY(inside >= 0.9 * images);
    QVERIFY(std::abs(mean / 12 - 1) < 0.1);
    QVERIFY(std::abs(nis / (runs * images) / 6 - 1) < 0.05);
  }

  // The images arrive 80 ms late: applied at their time and predicted forward, the grasp point's
  // estimate at each arrival is better than a filter's that takes them as taken on arrival.
  void Delay_HandledBeatsIgnored() {
    const DebrisProperties p = cylinder();
    const CameraSettings c = camera();
    DebrisFilterSettings fs;
    fs.accel_noise = fs.angular_accel_noise = 1e-4;
    DebrisEstimate prior;
    prior.state = tumbling();
    prior.P = priorCovariance();
    DebrisFilter handled(p, c, fs, prior), ignored(p, c, fs, prior);
    Camera cam(c);
    DebrisState truth = tumbling();
    std::vector<DebrisState> truths{truth};
    double e_handled = 0, e_ignored = 0;
    int n = 0;
    for (int k = 0; k < 400; ++k) {  // 20 s
      if (k > 0) truths.push_back(truth = stepDebris(p, truth, 0.05));
      const auto m = cam.capture(k * 0.05, p, truth, Transform{});
      QVERIFY(m);
      handled.addMeasurement(*m);
      CameraMeasurement late = *m;
      late.time = m->arrival;
      ignored.addMeasurement(late);
      // The truth at the arrival time (80 ms after the image: 1.6 steps of 50 ms).
      const DebrisState at_arrival = stepDebris(p, truth, c.latency);
      if (k >= 200) {
        e_handled += std::pow(graspPointError(p, handled.predictState(m->arrival), at_arrival), 2);
        e_ignored += std::pow(graspPointError(p, ignored.predictState(m->arrival), at_arrival), 2);
        ++n;
      }
    }
    e_handled = std::sqrt(e_handled / n);
    e_ignored = std::sqrt(e_ignored / n);
    qInfo("grasp point error at arrival, RMS over 10 s: %.2f mm with the delay handled, %.2f mm ignored",
          1e3 * e_handled, 1e3 * e_ignored);
    QVERIFY(e_handled < 0.5 * e_ignored);
  }

  // Images fed out of order (within the history) give the same estimate as in order.
  void LateImages_InsertedInPlace() {
    const DebrisProperties p = cylinder();
    const CameraSettings c = camera();
    DebrisFilterSettings fs;
    DebrisEstimate prior;
    prior.state = tumbling();
    prior.P = priorCovariance();
    Camera cam(c);
    std::vector<CameraMeasurement> images;
    DebrisState truth = tumbling();
    for (int k = 0; k < 40; ++k) {
      if (k > 0) truth = stepDebris(p, truth, 0.05);
      images.push_back(*cam.capture(k * 0.05, p, truth, Transform{}));
    }
    DebrisFilter ordered(p, c, fs, prior), shuffled(p, c, fs, prior);
    for (const auto& m : images) ordered.addMeasurement(m);
    for (std::size_t k = 0; k + 1 < images.size(); k += 2) {  // pairs swapped
      shuffled.addMeasurement(images[k + 1]);
      shuffled.addMeasurement(images[k]);
    }
    QCOMPARE(shuffled.measurements(), 40);
    EXPECT_MATRIX_NEAR(boxMinus(shuffled.posterior().state, ordered.posterior().state), Vector12::Zero().eval(), 1e-12);
    EXPECT_MATRIX_NEAR(shuffled.posterior().P, ordered.posterior().P, 1e-12);
    // Older than the history: refused.
    CameraMeasurement old = images.front();
    QVERIFY(!shuffled.addMeasurement(old));
  }
};

QTEST_APPLESS_MAIN(TestEstimation)
#include "test_estimation.moc"
