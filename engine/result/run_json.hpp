#pragma once
// run.json: the whole RunResult, machine-readable, with schema_version and full context.
#include <nlohmann/json.hpp>

#include "engine/result/result.hpp"

namespace xrunlab {

nlohmann::ordered_json to_json(const MetricSummary& m);
nlohmann::ordered_json to_json(const RunResult& r);  // keys in a readable order

}  // namespace xrunlab
