// sin and cos of one angle together, faster than the C library for the joint angles of the
// recursions: Cody–Waite reduction by π/2 with a three-part π/2 (exact for |x| < 1e5), then the
// fdlibm kernel polynomials on [-π/4, π/4] (Sun Microsystems, freely distributable). Within
// 2 ulp of std::sin/std::cos (tested); larger or non-finite angles go to the C library.
#pragma once

#include <cmath>

namespace grapple::core {

inline void sinCos(double x, double& s, double& c) {
  if (!(std::abs(x) < 1e5)) {
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  constexpr double kTwoOverPi = 6.36619772367581382433e-01;
  constexpr double kPio2_1 = 1.57079632673412561417e+00;   // first 33 bits of π/2
  constexpr double kPio2_2 = 6.07710050650619224932e-11;   // next 33 bits
  constexpr double kPio2_3 = 2.02226624871116645580e-21;   // the rest
  const double k = std::nearbyint(x * kTwoOverPi);
  const double r = ((x - k * kPio2_1) - k * kPio2_2) - k * kPio2_3;
  const double z = r * r;
  const double sr = r + r * z * (-1.66666666666666324348e-01 +
                                 z * (8.33333333332248946124e-03 +
                                      z * (-1.98412698298579493134e-04 +
                                           z * (2.75573137070700676789e-06 +
                                                z * (-2.50507602534068634195e-08 +
                                                     z * 1.58969099521155010221e-10)))));
  const double cr = 1.0 - 0.5 * z +
                    z * z * (4.16666666666666019037e-02 +
                             z * (-1.38888888888741095749e-03 +
                                  z * (2.48015872894767294178e-05 +
                                       z * (-2.75573143513906633035e-07 +
                                            z * (2.08757232129817482790e-09 +
                                                 z * -1.13596475577881948265e-11)))));
  switch (static_cast<long>(k) & 3) {
    case 0: s = sr; c = cr; break;
    case 1: s = cr; c = -sr; break;
    case 2: s = -sr; c = -cr; break;
    default: s = -cr; c = sr; break;
  }
}

}  // namespace grapple::core
