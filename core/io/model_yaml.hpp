// Robot descriptions in YAML (format 1): a base and a list of links, each hanging from its parent
// by one joint placed by an origin (xyz, rpy) or by Denavit–Hartenberg parameters. The format is
// documented in scenarios/README.md; the scenario format embeds the same `model` map.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/io/yaml_util.hpp"
#include "core/model/model_builder.hpp"

namespace grapple::core {

// Fills a builder from the `model` map of a YAML document; throws LoadError.
ModelBuilder readModelYaml(const yaml::Reader& reader, const YAML::Node& model_node);
// A whole model file (`format: 1` and `model:`); throws LoadError.
Model loadModelYaml(const std::string& path);
// The same from the text of such a file; `name` names it in messages.
Model loadModelYamlString(const std::string& text, const std::string& name);
// The model of a `model` map inside any document (a robot file's, or a scenario's embedded
// `chaser.model`): errors name the reader's file and the map's lines. `base_mode` and `flex_model`
// override the map's, as in loadModelFile. Throws LoadError.
Model buildModelYaml(const yaml::Reader& reader, const YAML::Node& model_node,
                     std::optional<BaseMode> base_mode = std::nullopt,
                     std::optional<FlexModel> flex_model = std::nullopt);

// Any robot file, by extension: .urdf (URDF) or .yaml/.yml (YAML). `base_mode` overrides the
// file's base mode; URDF warnings (elements read but not modelled) are appended to `warnings`.
// `flex_model` sets the approximate model of every flexible link (YAML robots). `inertia` says
// what to do with a URDF link whose inertia no body can have (a repair is one more warning).
Model loadModelFile(const std::string& path, std::optional<BaseMode> base_mode = std::nullopt,
                    std::vector<std::string>* warnings = nullptr,
                    std::optional<FlexModel> flex_model = std::nullopt,
                    InertiaPolicy inertia = InertiaPolicy::kRefuse);

}  // namespace grapple::core
