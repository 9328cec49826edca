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

int runExport(const std::vector<std::string>& args) {
  std::string format, path, out;
  std::optional<BaseMode> base;
  InertiaPolicy inertia = InertiaPolicy::kRefuse;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    auto next = [&]() -> std::string {
      if (k + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++k];
    };
    if (a == "-o" || a == "--out") out = next();
    else if (a == "--base") base = parseBaseMode(next());
    else if (a == "--inertia") inertia = parseInertiaPolicy(next());
    else if (a.rfind("-", 0) != 0 && format.empty()) format = a;
    else if (a.rfind("-", 0) != 0 && path.empty()) path = a;
    else throw UsageError("export: unexpected argument '" + a + "'");
  }
  if (format != "urdf") throw UsageError("export: the format must be urdf (export urdf MODEL -o FILE)");
  if (path.empty() || out.empty()) throw UsageError("export urdf needs a MODEL file and -o FILE");
  std::vector<std::string> warnings;
  const Model m = loadModelFile(path, base, &warnings, std::nullopt, inertia);
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
