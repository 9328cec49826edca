// JSON output through nlohmann::json: objects keep their keys in the order written
// (ordered_json), numbers are written in the shortest form that reads back to the same double,
// non-finite numbers, which JSON cannot hold, as null; strings in UTF-8 (invalid bytes replaced).
#pragma once

#include <ostream>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

namespace grapple::core {

using Json = nlohmann::ordered_json;

// A vector as an array of numbers.
inline Json jsonArray(const Eigen::Ref<const Eigen::VectorXd>& v) { return Json(std::vector<double>(v.begin(), v.end())); }

// A matrix as an array of its rows.
inline Json jsonMatrix(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  Json rows = Json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) rows.push_back(jsonArray(m.row(r).transpose()));
  return rows;
}

// j, indented by two spaces, and a newline.
inline void writeJson(std::ostream& out, const Json& j) {
  out << j.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace grapple::core
