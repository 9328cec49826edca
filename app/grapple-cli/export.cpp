// grapple-cli export urdf MODEL -o FILE: any Grapple robot written as URDF.
#include <fstream>
#include <iostream>

#include "app/grapple-cli/commands.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/load_error.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/urdf.hpp"

namespace grapple::cli {

using namespace grapple::core;

InertiaPolicy parseInertiaPolicy(const std::string& word) {
  if (word == "refuse") return InertiaPolicy::kRefuse;
  if (word == "repair") return InertiaPolicy::kRepair;
  throw UsageError("--inertia: expected refuse or repair, got '" + word + "'");
}

int runExportUrdf(const ExportArgs& a) {
  const std::string& path = a.model.path;
  const std::string& out = a.out;
  std::vector<std::string> warnings;
  const Model m = loadModelFile(path, a.model.base, &warnings, std::nullopt, a.model.inertia);
  for (const std::string& w : warnings) std::cerr << w << '\n';
  std::string text;
  try {
    text = writeUrdf(m);
  } catch (const ModelError& e) {
    throw LoadError(path, 0, e.message());
  }
  writeFileAtomically(out, text);
  std::cerr << "grapple-cli: wrote " << out << " (" << m.nbodies << " bodies, " << m.nv
            << " velocity coordinates)\n";
  return 0;
}

}  // namespace grapple::cli
