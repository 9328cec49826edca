// grapple-cli modes: the natural frequencies of the flexible bodies, each alone (clamped-loaded)
// and coupled in the whole model linearized at its neutral configuration.
#include "app/grapple-cli/commands.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/analysis/modal.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/io/json.hpp"
#include "core/io/model_yaml.hpp"

namespace grapple::cli {

using namespace grapple::core;

int runModes(const ModesArgs& a) {
  const std::string& path = a.model.path;
  const bool json = a.json;
  std::vector<std::string> warnings;
  const Model m = loadModelFile(path, a.model.base, &warnings, std::nullopt, a.model.inertia);
  for (const std::string& w : warnings) std::cerr << w << '\n';
  const ModalAnalysis modal = coupledModes(m, neutralConfiguration(m));
  const std::vector<std::string> names = m.velocityNames();
  // The coordinate that moves most in each coupled mode (by its share of kinetic energy).
  auto dominant = [&](int k) {
    Eigen::Index best = 0;
    modal.shape.col(k).cwiseAbs().maxCoeff(&best);
    return names[best];
  };
  if (json) {
    Json bodies = Json::array();
    for (int i = 0; i < m.nbodies; ++i) {
      const FlexibleBody& f = m.flex[i];
      if (f.nf == 0) continue;
      bodies.push_back({{"body", m.body_name[i]},
                        {"model", flexModelName(f.model)},
                        {"kind", f.beam ? "segment (clamped-loaded)" : "appendage (modal participation)"},
                        {"modes", f.mode_names},
                        {"frequency_rad_s", jsonArray(f.frequency)}});
    }
    std::vector<std::string> dom;
    for (int k = 0; k < modal.frequency.size(); ++k) dom.push_back(dominant(k));
    writeJson(std::cout, Json{{"model", m.name},
                              {"file", path},
                              {"bodies", bodies},
                              {"coupled",
                               {{"frequency_rad_s", jsonArray(modal.frequency)},
                                {"damping_ratio", jsonArray(modal.damping_ratio)},
                                {"dominant_coordinate", dom}}}});
    return 0;
  }
  char line[256];
  std::cout << "Robot     " << m.name << "  (" << path << ")\n";
  if (m.nflex == 0) {
    std::cout << "          no flexible bodies\n";
    return 0;
  }
  std::cout << "\nEach flexible body alone (segments: clamped at the root, loaded by the bodies at the tip)\n";
  std::cout << "  body              mode          ω [rad/s]      f [Hz]\n";
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& f = m.flex[i];
    for (int k = 0; k < f.nf; ++k) {
      std::snprintf(line, sizeof line, "  %-17s %-10s %12.4f %11.4f\n", k == 0 ? m.body_name[i].c_str() : "",
                    f.mode_names[k].c_str(), f.frequency[k], f.frequency[k] / (2 * M_PI));
      std::cout << line;
    }
  }
  std::cout << "\nCoupled modes of the whole model, linearized at the neutral configuration (D(q0) q'' + K q = 0)\n";
  std::cout << "     #     ω [rad/s]      f [Hz]    damping   dominant coordinate\n";
  for (int k = 0; k < modal.frequency.size(); ++k) {
    std::snprintf(line, sizeof line, "  %4d  %12.4f %11.4f %10.5f   %s\n", k + 1, modal.frequency[k],
                  modal.frequency[k] / (2 * M_PI), modal.damping_ratio[k], dominant(k).c_str());
    std::cout << line;
  }
  return 0;
}

}  // namespace grapple::cli
