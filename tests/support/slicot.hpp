// SLICOT's AB13DD (the routine under Matlab's norm(sys, inf)): the reference H∞ norm in the tests
// (link SLICOT, LAPACK and gfortran: tests/CMakeLists.txt).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include <Eigen/Core>

#include "core/analysis/hinf.hpp"

// SLICOT (Fortran 77): L∞ norm of a descriptor system and its peak frequency.
extern "C" void ab13dd_(const char* dico, const char* jobe, const char* equil, const char* jobd, const int* n,
                        const int* m, const int* p, double* fpeak, double* a, const int* lda, double* e, const int* lde,
                        double* b, const int* ldb, double* c, const int* ldc, double* d, const int* ldd, double* gpeak,
                        const double* tol, int* iwork, double* dwork, const int* ldwork, std::complex<double>* cwork,
                        const int* lcwork, int* info, std::size_t, std::size_t, std::size_t, std::size_t);

namespace grapple::test {

struct SlicotNorm {
  double gamma = 0, omega = 0;
  int info = 0;
};

inline SlicotNorm slicotNorm(const core::StateSpace& s) {
  const int n = static_cast<int>(s.A.rows()), m = static_cast<int>(s.B.cols()), p = static_cast<int>(s.C.rows());
  Eigen::MatrixXd A = s.A, B = s.B, C = s.C, D = s.D, E = Eigen::MatrixXd::Identity(n, n);
  double fpeak[2] = {0, 1}, gpeak[2] = {0, 0};
  const double tol = 1e-10;
  const int ldwork = 2 * (15 * n * n + p * p + m * m + (6 * n + 3) * (p + m) + 4 * p * m + n * m + 22 * n + 7 * std::min(p, m)) + 1000;
  const int lcwork = 2 * ((n + m) * (n + p) + 2 * std::min(p, m) + std::max(p, m)) + 100;
  std::vector<int> iwork(static_cast<std::size_t>(n + 10));
  std::vector<double> dwork(static_cast<std::size_t>(ldwork));
  std::vector<std::complex<double>> cwork(static_cast<std::size_t>(lcwork));
  const int lda = std::max(1, n), ldb = std::max(1, n), ldc = std::max(1, p), ldd = std::max(1, p);
  SlicotNorm out;
  ab13dd_("C", "I", "N", "D", &n, &m, &p, fpeak, A.data(), &lda, E.data(), &lda, B.data(), &ldb, C.data(), &ldc,
          D.data(), &ldd, gpeak, &tol, iwork.data(), dwork.data(), &ldwork, cwork.data(), &lcwork, &out.info, 1, 1, 1, 1);
  out.gamma = gpeak[1] == 0 ? INFINITY : gpeak[0] / gpeak[1];
  out.omega = fpeak[1] == 0 ? INFINITY : fpeak[0] / fpeak[1];
  return out;
}

}  // namespace grapple::test
