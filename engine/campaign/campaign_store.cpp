// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/campaign_store.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <map>
#include <tuple>

#include "engine/base/errors.hpp"
#include "engine/base/json_read.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/wire/version.hpp"

namespace xrunlab {

namespace {

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

nlohmann::json record_json(const CampaignRunRecord& r) {
  return {{"index", r.index},
          {"case", r.case_index},
          {"rep", r.rep},
          {"warmup", r.warmup},
          {"folder", r.folder},
          {"status", r.status},
          {"run_dir", r.run_dir},
          {"exit_code", r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json()},
          {"started_utc", r.started_utc},
          {"ended_utc", r.ended_utc},
          {"wall_s", r.wall_s},
          {"detail", r.detail},
          {"figures", r.figures.is_null() ? nlohmann::json::object() : r.figures}};
}

// The first difference between two plans, in words ("" when they are the same).
std::string plan_difference(const nlohmann::json& a, const nlohmann::json& b) {
  for (const char* key : {"cases", "repetitions", "order", "seed", "warmup_s", "runs"}) {
    if (a.value(key, nlohmann::json()) != b.value(key, nlohmann::json())) {
      return std::string(key) == "cases" ? "its cases or their run options" : key;
    }
  }
  return "";
}

using RunKey = std::tuple<std::vector<std::string>, int, bool>;  // case args, rep, warm-up

RunKey key_of(const nlohmann::json& plan, int case_index, int rep, bool warmup) {
  std::vector<std::string> args;
  if (warmup) {
    args = plan.value("warmup_args", std::vector<std::string>{});
  } else {
    for (const auto& c : plan.value("cases", nlohmann::json::array())) {
      if (c.value("index", 0) == case_index) {
        args = c.value("run_args", std::vector<std::string>{});
      }
    }
  }
  return {args, rep, warmup};
}

}  // namespace

std::string run_folder_name(const CampaignPlan& plan, const PlannedRun& run) {
  if (run.warmup) return "warmup";
  return fmt::format("{}-r{:02d}", plan.cases.at(static_cast<size_t>(run.case_index - 1)).label,
                     run.rep);
}

nlohmann::json to_json(const CampaignState& s) {
  nlohmann::json runs = nlohmann::json::array();
  for (const CampaignRunRecord& r : s.runs) runs.push_back(record_json(r));
  return {{"schema_version", s.schema_version},
          {"xrunlab_version", s.xrunlab_version},
          {"created_utc", s.created_utc},
          {"updated_utc", s.updated_utc},
          {"file", s.file},
          {"file_text", s.file_text},
          {"host", s.host},
          {"plan", s.plan},
          {"runs", std::move(runs)}};
}

CampaignState campaign_state_from_json(const nlohmann::json& j, const std::string& path) {
  CampaignState s;
  try {
    const JsonObject o(j, "", "campaign.json");
    if (o.find("plan") == nullptr || o.find("runs") == nullptr) {
      throw JsonRefused("no plan or no runs");
    }
    o.require("schema_version", s.schema_version);
    if (s.schema_version != 1) {
      throw JsonRefused(fmt::format("schema_version {} is not 1", s.schema_version));
    }
    o.get("xrunlab_version", s.xrunlab_version);
    o.get("created_utc", s.created_utc);
    o.get("updated_utc", s.updated_utc);
    o.get("file", s.file);
    o.get("file_text", s.file_text);
    o.get("host", s.host);
    o.get("plan", s.plan);
    o.each("runs", [&](const JsonObject& r) {
      CampaignRunRecord c;
      r.require("index", c.index);
      r.require("case", c.case_index);
      r.require("rep", c.rep);
      r.get("warmup", c.warmup);
      r.get("folder", c.folder);
      r.require("status", c.status);
      r.get("run_dir", c.run_dir);
      r.get("exit_code", c.exit_code);
      r.get("started_utc", c.started_utc);
      r.get("ended_utc", c.ended_utc);
      r.get("wall_s", c.wall_s);
      r.get("detail", c.detail);
      c.figures = nlohmann::json::object();
      r.get("figures", c.figures);
      s.runs.push_back(std::move(c));
    });
  } catch (const std::exception& e) {
    throw Error(ExitCode::kUsage,
                fmt::format("{}: not a campaign state xrunlab can read ({}); move it aside to "
                            "start the campaign anew",
                            path, e.what()));
  }
  return s;
}

std::optional<CampaignState> load_campaign_state(const std::string& dir) {
  const std::string path = dir + "/campaign.json";
  if (!file_exists(path)) return std::nullopt;
  std::string why;
  const std::optional<nlohmann::json> j = read_json_file(path, &why);
  if (!j) throw Error(ExitCode::kUsage, why + "; move it aside to start the campaign anew");
  return campaign_state_from_json(*j, path);
}

void save_campaign_state(const std::string& dir, CampaignState& s) {
  s.updated_utc = utc_now_iso();
  write_output_file(dir + "/campaign.json", to_json(s).dump(2) + "\n");
}

ResumedState resume_campaign(const std::optional<CampaignState>& old, const CampaignPlan& plan,
                             const std::string& dir, bool replan) {
  ResumedState out;
  CampaignState& s = out.state;
  s.xrunlab_version = kVersion;
  s.created_utc = old ? old->created_utc : utc_now_iso();
  s.plan = plan_json(plan);
  for (const PlannedRun& r : plan.runs) {
    CampaignRunRecord c;
    c.index = r.index;
    c.case_index = r.case_index;
    c.rep = r.rep;
    c.warmup = r.warmup;
    c.folder = run_folder_name(plan, r);
    s.runs.push_back(std::move(c));
  }
  if (!old) return out;
  if (const std::string diff = plan_difference(old->plan, s.plan); !diff.empty() && !replan) {
    throw Error(ExitCode::kUsage,
                fmt::format("{}/campaign.json holds this campaign with another plan ({} "
                            "differ); --replan keeps its finished runs whose case and "
                            "repetition are unchanged and plans the rest anew, or give "
                            "another --dir",
                            dir, diff));
  }
  // Completed runs of the old state, by what they ran.
  std::map<RunKey, const CampaignRunRecord*> done;
  for (const CampaignRunRecord& r : old->runs) {
    if (r.status != "completed" || r.run_dir.empty()) continue;
    if (!file_exists(dir + "/" + r.run_dir + "/run.json")) continue;
    done[key_of(old->plan, r.case_index, r.rep, r.warmup)] = &r;
  }
  for (CampaignRunRecord& r : s.runs) {
    const auto it = done.find(key_of(s.plan, r.case_index, r.rep, r.warmup));
    if (it == done.end()) continue;
    const CampaignRunRecord& prev = *it->second;
    r.status = prev.status;
    r.run_dir = prev.run_dir;
    r.folder = prev.folder;
    r.exit_code = prev.exit_code;
    r.started_utc = prev.started_utc;
    r.ended_utc = prev.ended_utc;
    r.wall_s = prev.wall_s;
    r.figures = prev.figures;
    ++out.kept;
  }
  return out;
}

}  // namespace xrunlab
