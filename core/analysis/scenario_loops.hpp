// A scenario's PD loops as the thesis' linearized closed loop sees them (§8.2.2-8.2.3): the bus
// rotation under chaser.attitude_control and the joints under the arm controller's PD, assembled
// into ClosedLoopGains at a configuration. One definition for the GUI's Tuning panel (the pole
// map, Certify ranges) and grapple-cli robust.
#pragma once

#include <optional>
#include <string>

#include <Eigen/Core>

#include "core/analysis/closed_loop.hpp"
#include "core/model/model.hpp"
#include "core/sim/scenario.hpp"

namespace grapple::core {

// The thesis' templates W(s) = (s² + 2ξωs + ω²)/s² (§8.2.3): the bus slow (ω_t, the debris'
// rate), the arm ten times faster.
inline constexpr double kTemplateOmegaBus = 0.0698, kTemplateOmegaArm = 0.698, kTemplateXi = 0.707;

// Whether a controller closes a joint PD loop: a joint path with kp or kd, or the capture law joint_pd.
bool hasJointPd(const ControllerSpec& c);
// The arm controller in charge at t: the last PD loop (hasJointPd) started by then, else the
// first; nullptr if the scenario has none.
const ControllerSpec* jointPdControllerAt(const Scenario& scenario, double t);

struct ScenarioLoops {
  ClosedLoopGains gains;
  std::string description;  // which loops: "bus attitude PD + capture joint PD (centralized)"
};

// The linearized closed loop's gains at configuration q (modal coordinates taken at zero): the
// bus rotation (v[3..5]) under chaser.attitude_control when it is active and the base floats, as
// H_ωω (kp e + kd ω) with H_ωω the locked inertia's rotation block (its translation free); the
// 1-DOF joints (by velocity index) under `arm` if given: the capture law's joint PD (the file's
// gains or the defaults, captureJointGains; decentralized diag(kp), diag(kd) or centralized
// D_mm(q) diag(kp), diag(kd)), or a joint path's kp, kd on its target joints as centralized
// error dynamics ë + kd ė + kp e = 0. Templates: kTemplateOmegaBus on the bus,
// kTemplateOmegaArm on the joints, kTemplateXi on both. nullopt when there is no loop (no bus
// control and no arm). Throws std::invalid_argument if q does not match the model.
std::optional<ScenarioLoops> scenarioLoops(const Scenario& scenario, const Model& model, const Eigen::VectorXd& q,
                                           const ControllerSpec* arm);

}  // namespace grapple::core
