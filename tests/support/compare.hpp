// Matrix comparison for QtTest, in the spirit of Drake's CompareMatrices: a relative-or-absolute
// tolerance and a message that says where and by how much two matrices differ.
#pragma once

#include <cmath>
#include <sstream>
#include <string>

#include <Eigen/Core>

namespace grapple::test {

// Empty when |A - B| <= tol * max(1, |B|_max) entrywise; otherwise a description.
template <typename A, typename B>
std::string compareMatrices(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b,
                            double tol) {
  std::ostringstream os;
  if (a.rows() != b.rows() || a.cols() != b.cols()) {
    os << "sizes differ: " << a.rows() << "x" << a.cols() << " vs " << b.rows() << "x" << b.cols();
    return os.str();
  }
  if (!a.allFinite() || !b.allFinite()) return "non-finite entries";
  const double scale = std::max(1.0, b.cwiseAbs().maxCoeff());
  Eigen::Index r = 0, c = 0;
  const double err = (a - b).cwiseAbs().maxCoeff(&r, &c);
  if (err <= tol * scale) return {};
  os << "max difference " << err << " (tolerance " << tol * scale << ") at (" << r << "," << c
     << "): " << a(r, c) << " vs " << b(r, c);
  return os.str();
}

}  // namespace grapple::test

// QVERIFY2 with the comparison's message.
#define EXPECT_MATRIX_NEAR(a, b, tol)                                       \
  do {                                                                       \
    const std::string grapple_msg_ = ::grapple::test::compareMatrices((a), (b), (tol)); \
    QVERIFY2(grapple_msg_.empty(), grapple_msg_.c_str());                   \
  } while (false)
