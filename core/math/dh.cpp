#include "core/math/dh.hpp"

#include "core/math/rotation.hpp"

namespace grapple::core {

Transform dhAdapted(double d, double a, double alpha, double theta) {
  return {rotX(alpha) * rotZ(theta), Vector3(a, 0.0, d)};
}

Transform dhModified(double d, double a, double alpha, double theta) {
  const Matrix3 Rx = rotX(alpha);
  return {Rx * rotZ(theta), Vector3(a, 0.0, 0.0) + Rx * Vector3(0.0, 0.0, d)};
}

Transform dhClassic(double d, double a, double alpha, double theta) {
  const Matrix3 Rz = rotZ(theta);
  return {Rz * rotX(alpha), Rz * Vector3(a, 0.0, d)};
}

}  // namespace grapple::core
