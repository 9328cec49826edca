#include "core/sim/modal_stiffness.hpp"

#include <stdexcept>

#include <Eigen/Cholesky>

#include "core/dynamics/mass_matrix.hpp"

namespace grapple::core {

struct ModalStiffness::Impl {
  const Model& model;
  Data& data;
  int iq, iv;
  double g = 1;
  Eigen::MatrixXd H, A;
  Eigen::LLT<Eigen::MatrixXd> llt;
  Eigen::VectorXd q, rhs;

  Impl(const Model& m, Data& d, int q, int v)
      : model(m), data(d), iq(q), iv(v), H(m.nv, m.nv), A(m.nv, m.nv), llt(m.nv), q(m.nq), rhs(m.nv) {}
};

ModalStiffness::ModalStiffness(const Model& model, Data& data, int iq, int iv)
    : impl_(std::make_unique<Impl>(model, data, iq, iv)) {}

ModalStiffness::~ModalStiffness() = default;

void ModalStiffness::jacobian(double, const Eigen::VectorXd& x) {
  Impl& s = *impl_;
  s.q = x.segment(s.iq, s.model.nq);
  s.H = massMatrix(s.model, s.data, s.q);
}

void ModalStiffness::factor(double g) {
  Impl& s = *impl_;
  s.g = g;
  s.A = g * s.H;
  for (const FlexibleBody& fb : s.model.flex) {
    if (fb.nf == 0) continue;
    s.A.block(fb.idx_v, fb.idx_v, fb.nf, fb.nf) += fb.D + fb.K / g;
  }
  s.llt.compute(s.A);
  if (s.llt.info() != Eigen::Success) {
    throw std::runtime_error("the mass matrix is not positive definite (Rosenbrock-W step)");
  }
}

void ModalStiffness::solve(Eigen::VectorXd& r) {
  Impl& s = *impl_;
  const Model& m = s.model;
  const double g = s.g;
  auto r_v = r.segment(s.iv, m.nv);
  s.rhs.noalias() = s.H * r_v;
  for (const FlexibleBody& fb : m.flex) {
    if (fb.nf == 0) continue;
    s.rhs.segment(fb.idx_v, fb.nf).noalias() -= fb.K * r.segment(s.iq + fb.idx_q, fb.nf) / g;
  }
  s.llt.solveInPlace(s.rhs);
  // every coordinate but v: u = r/g; then the modal coordinates get Eᵀ u_v / g, v gets u_v
  r /= g;
  for (const FlexibleBody& fb : m.flex) {
    if (fb.nf == 0) continue;
    r.segment(s.iq + fb.idx_q, fb.nf) += s.rhs.segment(fb.idx_v, fb.nf) / g;
  }
  r.segment(s.iv, m.nv) = s.rhs;
}

}  // namespace grapple::core
