#pragma once
// run.json: the whole RunResult, machine-readable, with schema_version and full context.
#include <nlohmann/json.hpp>

#include "engine/result.hpp"

namespace xrunlab {

nlohmann::json to_json(const MetricSummary& m);
nlohmann::json to_json(const RunResult& r);

}  // namespace xrunlab
