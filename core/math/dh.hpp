// Denavit–Hartenberg placements (thesis App. A.1). Each function returns
// the pose ^{i-1}T_i of frame i in frame i-1 for the given parameters, joint variable included.
#pragma once

#include "core/math/spatial.hpp"

namespace grapple::core {

// Adapted DH of the thesis (eq. 4.21): Trans(d,Z) Trans(a,X) Rot(α,X) Rot(θ,Z). Frame i sits at
// the base of segment i. Revolute joints add their angle to θ (the last factor), so the placement
// of a revolute joint is this transform at its θ offset followed by a rotation about z.
Transform dhAdapted(double d, double a, double alpha, double theta);
// Modified DH (Khalil–Kleinfinger, Craig): Rot(α,X) Trans(a,X) Rot(θ,Z) Trans(d,Z).
Transform dhModified(double d, double a, double alpha, double theta);
// Classic DH: Rot(θ,Z) Trans(d,Z) Trans(a,X) Rot(α,X). Frame i sits at the tip of segment i.
Transform dhClassic(double d, double a, double alpha, double theta);

}  // namespace grapple::core
