#include "core/flex/beam_modes.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>

namespace grapple::core {
namespace {

// Gauss–Legendre nodes and weights on [-1, 1] (Newton on P_n), computed once.
struct GaussLegendre {
  static constexpr int kN = 16;
  double x[kN], w[kN];
  GaussLegendre() {
    for (int i = 0; i < kN; ++i) {
      double z = std::cos(M_PI * (i + 0.75) / (kN + 0.5)), dp = 0;
      for (int it = 0; it < 100; ++it) {
        double p0 = 1, p1 = z;
        for (int k = 2; k <= kN; ++k) {
          const double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
          p0 = p1;
          p1 = p2;
        }
        dp = kN * (z * p1 - p0) / (z * z - 1);
        const double dz = p1 / dp;
        z -= dz;
        if (std::abs(dz) < 1e-16) break;
      }
      x[i] = z;
      w[i] = 2 / ((1 - z * z) * dp * dp);
    }
  }
};

// ∫_0^l f(s) ds, composite Gauss–Legendre (enough panels for the mode's oscillations).
void integrate(double l, int panels, const std::function<void(double s, double weight)>& f) {
  static const GaussLegendre gl;
  const double h = l / panels;
  for (int p = 0; p < panels; ++p) {
    const double mid = (p + 0.5) * h;
    for (int i = 0; i < GaussLegendre::kN; ++i) f(mid + 0.5 * h * gl.x[i], 0.5 * h * gl.w[i]);
  }
}

// The first n roots of g on x > 0, by scanning for sign changes and bisecting.
std::vector<double> roots(const std::function<double(double)>& g, int n, double step) {
  std::vector<double> out;
  double x0 = 1e-9, g0 = g(x0);
  for (double x1 = step; static_cast<int>(out.size()) < n; x1 += step) {
    const double g1 = g(x1);
    if (g1 == 0.0) {
      out.push_back(x1);
    } else if ((g0 < 0) != (g1 < 0)) {
      double a = x0, b = x1, ga = g0;
      for (int it = 0; it < 200 && b - a > 1e-15 * b; ++it) {
        const double m = 0.5 * (a + b), gm = g(m);
        if ((gm < 0) == (ga < 0)) {
          a = m;
          ga = gm;
        } else {
          b = m;
        }
      }
      out.push_back(0.5 * (a + b));
    }
    x0 = x1;
    g0 = g1;
    if (x1 > 1e4) throw std::runtime_error("beam modes: characteristic equation has no more roots");
  }
  return out;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("flexible segment: " + what);
}

}  // namespace

double BeamMode::shape(double s, int derivative) const {
  const double ks = k * s;
  if (family == ModeFamily::kTraction || family == ModeFamily::kTorsion) {
    switch (derivative) {
      case 0: return a * std::sin(ks);
      case 1: return a * k * std::cos(ks);
      default: return -a * k * k * std::sin(ks);
    }
  }
  const double c = std::cos(ks), sn = std::sin(ks), ch = std::cosh(ks), sh = std::sinh(ks);
  switch (derivative) {
    case 0: return a * (c - ch) + b * (sn - sh);
    case 1: return k * (a * (-sn - sh) + b * (c - ch));
    default: return k * k * (a * (-c - ch) + b * (-sn - sh));
  }
}

Eigen::MatrixXd SegmentModes::Phi(double s) const {
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(3, static_cast<Eigen::Index>(modes.size()));
  for (std::size_t j = 0; j < modes.size(); ++j) {
    const BeamMode& md = modes[j];
    if (md.family == ModeFamily::kTraction) P(0, j) = md.shape(s);
    if (md.family == ModeFamily::kBendingY) P(1, j) = md.shape(s);
    if (md.family == ModeFamily::kBendingZ) P(2, j) = md.shape(s);
  }
  return P;
}

Eigen::MatrixXd SegmentModes::Delta(double s) const {
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(3, static_cast<Eigen::Index>(modes.size()));
  for (std::size_t j = 0; j < modes.size(); ++j) {
    const BeamMode& md = modes[j];
    if (md.family == ModeFamily::kTorsion) D(0, j) = md.shape(s);        // ψx
    if (md.family == ModeFamily::kBendingZ) D(1, j) = -md.shape(s, 1);  // ψy = -u_z'
    if (md.family == ModeFamily::kBendingY) D(2, j) = md.shape(s, 1);   // ψz = u_y'
  }
  return D;
}

SegmentModes computeSegmentModes(const BeamProperties& beam, const TipLoad& load,
                                 const ModeCounts& counts) {
  const double l = beam.length, rho = beam.density, S = beam.area, E = beam.young, G = beam.shear;
  const double Ip = beam.Iy + beam.Iz;
  require(l > 0 && std::isfinite(l), "length must be > 0");
  require(rho > 0 && std::isfinite(rho), "density must be > 0");
  require(S > 0 && std::isfinite(S), "section area must be > 0");
  require(counts.traction >= 0 && counts.bending_y >= 0 && counts.bending_z >= 0 &&
              counts.torsion >= 0, "mode counts must be >= 0");
  require(counts.traction == 0 || E > 0, "traction modes need Young's modulus E > 0");
  require((counts.bending_y == 0 || (E > 0 && beam.Iz > 0)), "Y-bending modes need E > 0 and Iz > 0");
  require((counts.bending_z == 0 || (E > 0 && beam.Iy > 0)), "Z-bending modes need E > 0 and Iy > 0");
  require(counts.torsion == 0 || (G > 0 && Ip > 0), "torsion modes need G > 0 and Iy + Iz > 0");
  require(load.mass >= 0 && load.Jx >= 0 && load.Jy >= 0 && load.Jz >= 0,
          "tip loads must be >= 0");
  const double mu = rho * S;  // mass per unit length [kg/m]

  SegmentModes out;
  out.counts = counts;
  out.mass = mu * l;

  // Traction and torsion: φ = sin(k s), cos(kl) - c k sin(kl) = 0 (B.5, B.6), one root in each
  // (nπ, nπ + π/2).
  auto axial = [&](ModeFamily fam, int n, double c_load, double wave_speed) {
    for (int i = 0; i < n; ++i) {
      const double lo = i * M_PI, hi = i * M_PI + M_PI / 2;
      auto g = [&](double x) { return std::cos(x) - c_load * (x / l) * std::sin(x); };
      double a = lo + 1e-12, b = hi;
      if (g(b) != 0.0) {
        for (int it = 0; it < 200 && b - a > 1e-15 * b; ++it) {
          const double m = 0.5 * (a + b);
          if ((g(m) < 0) == (g(a) < 0)) a = m; else b = m;
        }
      }
      BeamMode md{fam, 0, 0.5 * (a + b) / l, 1.0, 0.0};
      md.omega = md.k * wave_speed;
      out.modes.push_back(md);
    }
  };
  // Bending (B.7), scaled by 1/cosh(kl) to stay finite; shape coefficients from the tip moment.
  auto bending = [&](ModeFamily fam, int n, double EI, double J) {
    const double M = load.mass;
    auto g = [&](double x) {
      const double k = x / l, c = std::cos(x), s = std::sin(x), ich = 1 / std::cosh(x),
                   th = std::tanh(x);
      return (-ich - c) + (M * J / (mu * mu)) * std::pow(k, 4) * (-ich + c) +
             (J / mu) * std::pow(k, 3) * (s + c * th) + (M / mu) * k * (s - c * th);
    };
    for (double x : roots(g, n, 0.002)) {
      const double k = x / l, c = std::cos(x), s = std::sin(x), ch = std::cosh(x),
                   sh = std::sinh(x);
      const double beta = J * k * k * k / mu;  // EI φ''(l) = J ω² φ'(l), ω² = EI k⁴ / (ρS)
      BeamMode md{fam, k * k * std::sqrt(EI / mu), k, 1.0, 0.0};
      md.b = (-(c + ch) + beta * (s + sh)) / ((s + sh) + beta * (c - ch));
      out.modes.push_back(md);
    }
  };
  axial(ModeFamily::kTraction, counts.traction, load.mass / mu, std::sqrt(E / rho));
  bending(ModeFamily::kBendingY, counts.bending_y, E * beam.Iz, load.Jz);
  bending(ModeFamily::kBendingZ, counts.bending_z, E * beam.Iy, load.Jy);
  axial(ModeFamily::kTorsion, counts.torsion, Ip > 0 ? load.Jx / (rho * Ip) : 0,
        std::sqrt(G / rho));

  // Scale each mode: load-augmented generalized mass = m, ∫φ > 0.
  const int panels = 16;
  for (BeamMode& md : out.modes) {
    const bool tor = md.family == ModeFamily::kTorsion;
    const double line = tor ? rho * Ip : mu;  // inertia per unit length of the family
    double gm = 0, sum = 0;
    integrate(l, panels, [&](double s, double w) {
      const double f = md.shape(s);
      gm += w * line * f * f;
      sum += w * f;
    });
    const double fe = md.shape(l), de = md.shape(l, 1);
    if (md.family == ModeFamily::kTraction) gm += load.mass * fe * fe;
    if (md.family == ModeFamily::kTorsion) gm += load.Jx * fe * fe;
    if (md.family == ModeFamily::kBendingY) gm += load.mass * fe * fe + load.Jz * de * de;
    if (md.family == ModeFamily::kBendingZ) gm += load.mass * fe * fe + load.Jy * de * de;
    double scale = std::sqrt(out.mass / gm);
    if ((sum != 0 ? sum : fe) < 0) scale = -scale;
    md.a *= scale;
    md.b *= scale;
  }

  // Modal integrals (B.19–B.27) and stiffness (5.20).
  const int nf = counts.total();
  out.omega.resize(nf);
  for (int j = 0; j < nf; ++j) out.omega[j] = out.modes[j].omega;
  out.Phi_e = out.Phi(l);
  out.Delta_e = out.Delta(l);
  out.Vu = out.Wu = out.Vpsi = Eigen::MatrixXd::Zero(3, nf);
  out.Zuu = out.Zuu_bar = out.Ypsi = out.Zpsi_bar = out.K = Eigen::MatrixXd::Zero(nf, nf);
  Eigen::Matrix3d JS = Eigen::Matrix3d::Zero();
  JS.diagonal() << Ip, beam.Iy, beam.Iz;
  integrate(l, panels, [&](double s, double w) {
    const Eigen::MatrixXd P = out.Phi(s), D = out.Delta(s);
    Eigen::VectorXd phi_u = Eigen::VectorXd::Zero(nf), phi_psi = Eigen::VectorXd::Zero(nf),
                    strain = Eigen::VectorXd::Zero(nf), stiff = Eigen::VectorXd::Zero(nf);
    for (int j = 0; j < nf; ++j) {
      const BeamMode& md = out.modes[j];
      switch (md.family) {
        case ModeFamily::kTraction:
          phi_u[j] = md.shape(s);
          strain[j] = md.shape(s, 1);
          stiff[j] = E * S;
          break;
        case ModeFamily::kBendingY:
          phi_u[j] = md.shape(s);
          phi_psi[j] = md.shape(s, 1);
          strain[j] = md.shape(s, 2);
          stiff[j] = E * beam.Iz;
          break;
        case ModeFamily::kBendingZ:
          phi_u[j] = md.shape(s);
          phi_psi[j] = -md.shape(s, 1);
          strain[j] = md.shape(s, 2);
          stiff[j] = E * beam.Iy;
          break;
        case ModeFamily::kTorsion:
          phi_psi[j] = md.shape(s);
          strain[j] = md.shape(s, 1);
          stiff[j] = G * Ip;
          break;
      }
    }
    out.Vu += w * mu * P;
    out.Wu += w * mu * s * P;
    out.Vpsi += w * rho * D;
    out.Zuu += w * mu * phi_u * phi_u.transpose();
    out.Zuu_bar += w * mu * P.transpose() * P;
    out.Ypsi += w * rho * phi_psi * phi_psi.transpose();
    out.Zpsi_bar += w * rho * D.transpose() * JS * D;
    // Strain energy couples only modes of one family.
    for (int i = 0; i < nf; ++i) {
      for (int j = 0; j < nf; ++j) {
        if (out.modes[i].family == out.modes[j].family) {
          out.K(i, j) += w * stiff[i] * strain[i] * strain[j];
        }
      }
    }
  });
  return out;
}

}  // namespace grapple::core

namespace grapple::core {

namespace {
std::string modeName(ModeFamily f, int index) {
  const char* base = f == ModeFamily::kTraction ? "traction" : f == ModeFamily::kBendingY ? "bend_y"
                     : f == ModeFamily::kBendingZ ? "bend_z" : "torsion";
  return base + std::to_string(index);
}

}  // namespace

Eigen::MatrixXd modalDamping(const Eigen::MatrixXd& K, const Eigen::VectorXd& omega,
                             const Eigen::VectorXd& xi) {
  // D_jj = 2 ξ_j ω_j m_j with the modal mass m_j = K_jj / ω_j².
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(K.rows(), K.cols());
  for (Eigen::Index j = 0; j < K.rows(); ++j) {
    if (omega[j] > 0) D(j, j) = 2 * xi[j] * K(j, j) / omega[j];
  }
  return D;
}

FlexibleBody beamFlexibleBody(const SegmentModes& sm, const BeamProperties& beam,
                              const Vector3& root, const Matrix3& R, double damping_ratio,
                              bool rotary_inertia, bool segment_modal_mass) {
  const int nf = sm.counts.total();
  const double mu = beam.density * beam.area, l = beam.length;
  FlexibleBody f;
  f.nf = nf;
  f.beam = true;
  f.frequency = sm.omega;
  int counters[4] = {0, 0, 0, 0};
  for (const BeamMode& md : sm.modes) {
    f.mode_names.push_back(modeName(md.family, ++counters[static_cast<int>(md.family)]));
  }
  // Link-frame integrals, then rotated into the body frame.
  Eigen::Matrix3d JS = Eigen::Matrix3d::Zero();
  JS.diagonal() << beam.Iy + beam.Iz, beam.Iy, beam.Iz;
  Eigen::MatrixXd Hru = Eigen::MatrixXd::Zero(3, nf), Hrpsi = Eigen::MatrixXd::Zero(3, nf);
  std::vector<Matrix3> C(nf, Matrix3::Zero()), Q(nf * nf, Matrix3::Zero());
  std::vector<Vector3> X(nf * nf, Vector3::Zero());
  integrate(l, 16, [&](double s, double w) {
    const Eigen::MatrixXd P = sm.Phi(s), Dl = sm.Delta(s);
    const Vector3 pc = root + s * Vector3::UnitX();
    for (int k = 0; k < nf; ++k) {
      const Vector3 phik = P.col(k);
      Hru.col(k) += w * mu * pc.cross(phik);
      Hrpsi.col(k) += w * beam.density * JS * Dl.col(k);
      C[k] += w * mu * phik * pc.transpose();
      for (int j = 0; j < nf; ++j) {
        const Vector3 phij = P.col(j);
        Q[j * nf + k] += w * mu * phij * phik.transpose();
        X[j * nf + k] += w * mu * phij.cross(phik);
      }
    }
  });
  if (!rotary_inertia) Hrpsi.setZero();
  f.Vu = R * sm.Vu;
  f.M_td.resize(6, nf);
  if (nf > 0) {  // (no modes: 6 x 0, whose empty blocks would point past no data)
    f.M_td.topRows<3>() = f.Vu;
    f.M_td.bottomRows<3>() = R * (Hru + Hrpsi);
  }
  f.M_dd = rotary_inertia ? Eigen::MatrixXd(sm.Zuu_bar + sm.Zpsi_bar) : sm.Zuu_bar;
  if (segment_modal_mass) f.M_dd = sm.mass * Eigen::MatrixXd::Identity(nf, nf);
  f.Zuu = sm.Zuu_bar;
  f.Hrpsi = R * Hrpsi;
  f.K = sm.K;
  f.D = modalDamping(sm.K, sm.omega, Eigen::VectorXd::Constant(nf, damping_ratio));
  for (int k = 0; k < nf; ++k) f.C.push_back(R * C[k] * R.transpose());
  for (int k = 0; k < nf * nf; ++k) {
    f.Q.push_back(R * Q[k] * R.transpose());
    f.X.push_back(R * X[k]);
  }
  f.X_body_link = {R, Vector3::Zero()};
  f.p_tip = root + l * Vector3::UnitX();
  f.has_tip = true;
  f.Phi_e = sm.Phi_e;
  f.Delta_e = sm.Delta_e;
  return f;
}

FlexibleBody modalFlexibleBody(const Eigen::MatrixXd& L, const Eigen::VectorXd& omega,
                               const Eigen::VectorXd& xi, const Matrix3& R,
                               const Eigen::MatrixXd& modal_mass, const Eigen::MatrixXd& stiffness) {
  const int nf = static_cast<int>(L.rows());
  FlexibleBody f;
  f.nf = nf;
  f.frequency = omega;
  for (int k = 0; k < nf; ++k) f.mode_names.push_back("mode" + std::to_string(k + 1));
  f.M_td.resize(6, nf);
  f.M_td.topRows<3>() = R * L.leftCols<3>().transpose();
  f.M_td.bottomRows<3>() = R * L.rightCols<3>().transpose();
  f.M_dd = modal_mass.size() > 0 ? modal_mass : Eigen::MatrixXd::Identity(nf, nf);
  if (stiffness.size() > 0) {
    f.K = stiffness;
  } else {
    f.K = Eigen::MatrixXd::Zero(nf, nf);
    for (int k = 0; k < nf; ++k) f.K(k, k) = omega[k] * omega[k] * f.M_dd(k, k);
  }
  f.D = modalDamping(f.K, omega, xi);
  f.X_body_link = {R, Vector3::Zero()};
  return f;
}

}  // namespace grapple::core
