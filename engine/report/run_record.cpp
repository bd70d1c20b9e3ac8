#include "engine/report/run_record.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/report/report_summary.hpp"

namespace xrunlab {
namespace {

namespace fs = std::filesystem;

// Lower case, runs of spaces squeezed: "XRUN Count  " and "xrun count" compare equal.
std::string canonical_label(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::optional<double> to_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::string stem_of(std::string_view path) {
  std::string name = fs::path(std::string(path)).filename().string();
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

// A number from j[a][b]..., nullopt when absent or not a number.
std::optional<double> number_at(const nlohmann::json& j, std::initializer_list<const char*> keys) {
  const nlohmann::json* p = &j;
  for (const char* k : keys) {
    if (!p->is_object()) return std::nullopt;
    const auto it = p->find(k);
    if (it == p->end()) return std::nullopt;
    p = &*it;
  }
  if (!p->is_number()) return std::nullopt;
  return p->get<double>();
}

std::string string_at(const nlohmann::json& j, std::initializer_list<const char*> keys) {
  const nlohmann::json* p = &j;
  for (const char* k : keys) {
    if (!p->is_object()) return {};
    const auto it = p->find(k);
    if (it == p->end()) return {};
    p = &*it;
  }
  return p->is_string() ? p->get<std::string>() : std::string();
}

bool read_whole_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return false;
  out.resize(static_cast<size_t>(size));
  in.seekg(0, std::ios::beg);
  in.read(out.data(), size);
  return static_cast<bool>(in) || in.gcount() == size;
}

void set_why(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
}

// The top-level parts of run.json that a RunRecord needs; the rest (per-client and per-second
// arrays, the host block: most of the file) is skipped.
bool kept_key(std::string_view key) {
  static constexpr std::string_view keep[] = {"spec",     "started_utc", "status", "scheduling",
                                              "settings", "measurement", "totals", "loads"};
  return std::find(std::begin(keep), std::end(keep), key) != std::end(keep);
}

// Fast path for summarizing many runs: scan the top-level object without building it, only
// matching brackets and strings, and parse just the kept members. A full parse of every
// run.json (100-200 KB each) costs ~1.4 ms; this costs a fraction. Returns false on anything
// unexpected (the caller then parses the whole text, which validates it and explains errors).
class TopLevelScanner {
 public:
  explicit TopLevelScanner(std::string_view t) : t_(t) {}

  bool run(nlohmann::json& out) {
    std::string kept = "{";
    skip_space();
    if (!eat('{')) return false;
    skip_space();
    if (eat('}')) return finish(kept, out);
    for (;;) {
      skip_space();
      const size_t key_start = i_;
      if (!skip_string()) return false;
      const std::string_view key = t_.substr(key_start + 1, i_ - key_start - 2);
      skip_space();
      if (!eat(':')) return false;
      skip_space();
      const size_t value_start = i_;
      if (!skip_value()) return false;
      if (key.find('\\') == std::string_view::npos && kept_key(key)) {
        if (kept.size() > 1) kept += ',';
        kept.append(t_.substr(key_start, value_start - key_start));
        kept.append(t_.substr(value_start, i_ - value_start));
      }
      skip_space();
      if (eat(',')) continue;
      if (eat('}')) break;
      return false;
    }
    skip_space();
    if (i_ != t_.size()) return false;
    return finish(kept, out);
  }

 private:
  static bool finish(std::string& kept, nlohmann::json& out) {
    kept += '}';
    out = nlohmann::json::parse(kept, nullptr, /*allow_exceptions=*/false);
    return !out.is_discarded();
  }
  void skip_space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
      ++i_;
  }
  bool eat(char c) {
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // At '"': moves past the closing quote.
  bool skip_string() {
    if (!eat('"')) return false;
    while (i_ < t_.size()) {
      const char c = t_[i_++];
      if (c == '"') return true;
      if (c == '\\') ++i_;
    }
    return false;
  }
  bool skip_value() {
    if (i_ >= t_.size()) return false;
    const char c = t_[i_];
    if (c == '"') return skip_string();
    if (c == '{' || c == '[') {
      size_t depth = 0;
      while (i_ < t_.size()) {
        const char d = t_[i_];
        if (d == '"') {
          if (!skip_string()) return false;
          continue;
        }
        ++i_;
        if (d == '{' || d == '[') {
          ++depth;
        } else if (d == '}' || d == ']') {
          if (--depth == 0) return true;
        }
      }
      return false;
    }
    const size_t start = i_;
    while (i_ < t_.size() && t_[i_] != ',' && t_[i_] != '}' && t_[i_] != ' ' && t_[i_] != '\n' &&
           t_[i_] != '\r' && t_[i_] != '\t')
      ++i_;
    return i_ > start;
  }

  std::string_view t_;
  size_t i_ = 0;
};

bool parse_kept_parts(std::string_view text, nlohmann::json& out) {
  return TopLevelScanner(text).run(out);
}

}  // namespace

const std::vector<RecordField>& record_fields() {
  static const std::vector<RecordField> fields = {
      {"seconds", "Total seconds ran", &RunRecord::seconds},
      {"clients", "Number of clients", &RunRecord::clients},
      {"ports", "Ports per client", &RunRecord::ports},
      {"frames", "Frames per buffer", &RunRecord::frames},
      {"timeout_count", "Timeout Count", &RunRecord::timeout_count},
      {"xrun_count", "XRUN Count", &RunRecord::xrun_count},
      {"delay_over_spare", "Delay Count (>spare time)", &RunRecord::delay_over_spare},
      {"delay_over_1000", "Delay Count (>1000 usecs)", &RunRecord::delay_over_1000},
      {"delay_max_us", "Delay Maximum", &RunRecord::delay_max_us},
      {"cycle_max_us", "Cycle Maximum", &RunRecord::cycle_max_us},
      {"dsp_load_pct", "Average DSP Load", &RunRecord::dsp_load_pct},
      {"cpu_system_pct", "Average CPU System Load", &RunRecord::cpu_system_pct},
      {"cpu_user_pct", "Average CPU User Load", &RunRecord::cpu_user_pct},
      {"cpu_nice_pct", "Average CPU Nice Load", &RunRecord::cpu_nice_pct},
      {"cpu_iowait_pct", "Average CPU I/O Wait Load", &RunRecord::cpu_iowait_pct},
      {"cpu_irq_pct", "Average CPU IRQ Load", &RunRecord::cpu_irq_pct},
      {"cpu_softirq_pct", "Average CPU Soft-IRQ Load", &RunRecord::cpu_softirq_pct},
      {"intr_rate", "Average Interrupt Rate", &RunRecord::intr_rate},
      {"ctxt_rate", "Average Context-Switch Rate", &RunRecord::ctxt_rate},
      {"delay_p99_us", "", &RunRecord::delay_p99_us},
  };
  return fields;
}

std::optional<RunRecord> read_run_folder(const std::string& dir, std::string* why) {
  const std::string path = (fs::path(dir) / "run.json").string();
  std::string text;
  if (!read_whole_file(path, text)) {
    set_why(why, path + ": cannot read");
    return std::nullopt;
  }
  nlohmann::json j;
  if (!parse_kept_parts(text, j)) {
    // Not the plain layout the scanner expects (or broken): the full parser, which also says
    // what is wrong.
    const nlohmann::json::parser_callback_t filter = [](int depth, nlohmann::json::parse_event_t ev,
                                                        nlohmann::json& parsed) {
      if (ev != nlohmann::json::parse_event_t::key || depth != 1) return true;
      return kept_key(parsed.get_ref<const std::string&>());
    };
    try {
      j = nlohmann::json::parse(text, filter);
    } catch (const nlohmann::json::exception& e) {
      set_why(why, path + ": not valid JSON (" + e.what() + ")");
      return std::nullopt;
    }
  }
  if (!j.is_object() || !j.contains("totals") || !j.contains("spec")) {
    set_why(why, path + ": not an xrunlab run.json (no 'spec' or 'totals')");
    return std::nullopt;
  }
  RunRecord r;
  r.label = string_at(j, {"spec", "label"});
  if (r.label.empty()) r.label = fs::path(dir).lexically_normal().parent_path().filename().string();
  r.source = dir;
  r.started_utc = string_at(j, {"started_utc"});
  r.status = string_at(j, {"status"});
  r.policy = string_at(j, {"scheduling", "label"});
  if (const auto it = j.find("loads"); it != j.end() && it->is_array()) {
    for (const auto& l : *it) {
      const std::string spec = string_at(l, {"spec"});
      if (spec.empty()) continue;
      if (!r.loads.empty()) r.loads += '+';
      r.loads += spec;
    }
  }
  r.seconds = number_at(j, {"measurement", "seconds_ran"});
  r.clients = number_at(j, {"settings", "clients"});
  r.ports = number_at(j, {"settings", "ports"});
  r.frames = number_at(j, {"settings", "frames"});
  r.timeout_count = number_at(j, {"totals", "timeout_count"});
  r.xrun_count = number_at(j, {"totals", "xrun_count"});
  r.delay_over_spare = number_at(j, {"totals", "delay_over_spare"});
  r.delay_over_1000 = number_at(j, {"totals", "delay_over_1000us"});
  r.delay_max_us = number_at(j, {"totals", "delay_us", "max"});
  r.cycle_max_us = number_at(j, {"totals", "cycle_us", "max"});
  r.dsp_load_pct = number_at(j, {"totals", "avg_dsp_load_pct"});
  r.cpu_system_pct = number_at(j, {"totals", "avg_cpu_system_pct"});
  r.cpu_user_pct = number_at(j, {"totals", "avg_cpu_user_pct"});
  r.cpu_nice_pct = number_at(j, {"totals", "avg_cpu_nice_pct"});
  r.cpu_iowait_pct = number_at(j, {"totals", "avg_cpu_iowait_pct"});
  r.cpu_irq_pct = number_at(j, {"totals", "avg_cpu_irq_pct"});
  r.cpu_softirq_pct = number_at(j, {"totals", "avg_cpu_softirq_pct"});
  r.intr_rate = number_at(j, {"totals", "avg_interrupt_rate"});
  r.ctxt_rate = number_at(j, {"totals", "avg_context_switch_rate"});
  r.delay_p99_us = number_at(j, {"totals", "delay_us", "p99", "value_us"});
  return r;
}

std::vector<std::string> find_run_folders(const std::vector<std::string>& roots) {
  std::set<std::string> found;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(root) / "run.json", ec)) {
      found.insert(fs::path(root).lexically_normal().string());
      continue;
    }
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    if (ec) continue;
    for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
      if (ec) break;
      if (!it->is_directory(ec)) continue;
      if (fs::is_regular_file(it->path() / "run.json", ec)) {
        found.insert(it->path().lexically_normal().string());
        it.disable_recursion_pending();
      }
    }
  }
  std::vector<std::string> out;
  for (std::string s : found) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<RunRecord> import_jack_test(std::string_view text, const std::string& source,
                                        std::string* why) {
  const std::vector<RecordField>& fields = record_fields();
  std::map<std::string, size_t> by_label;  // canonical label -> index in fields
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].member == &RunRecord::delay_p99_us) {
      by_label.emplace("delay p99", i);  // xrunlab's own summary.txt
    } else {
      by_label.emplace(canonical_label(fields[i].jack_label), i);
    }
  }
  const std::string runs_label = canonical_label("Number of runs");

  struct Section {
    std::string name;
    // Per field (index in fields): the values in file order (run i gets the i-th).
    std::vector<std::vector<std::optional<double>>> values;
    std::vector<std::optional<double>> runs;
  };
  std::vector<Section> sections;
  std::map<std::string, size_t> index;
  auto section = [&](const std::string& name) -> Section& {
    const auto it = index.find(name);
    if (it != index.end()) return sections[it->second];
    index.emplace(name, sections.size());
    sections.push_back(
        Section{name, std::vector<std::vector<std::optional<double>>>(fields.size()), {}});
    return sections.back();
  };
  const std::string default_name = stem_of(source);
  std::string current = default_name;
  bool any_field = false;
  for (const auto& [label, value] : parse_summary_lines(text)) {
    if (label == "#") {
      current = value.empty() ? default_name : value;
      continue;
    }
    if (label == "==>") {
      current = value.empty() ? default_name : stem_of(value);
      continue;
    }
    const std::string key = canonical_label(label);
    if (key == runs_label) {
      section(current).runs.push_back(to_number(value));
      continue;
    }
    const auto it = by_label.find(key);
    if (it == by_label.end()) continue;
    any_field = true;
    section(current).values[it->second].push_back(to_number(value));
  }
  if (!any_field) {
    set_why(why, source + ": not a jack_test summary (no known field such as 'XRUN Count')");
    return {};
  }
  std::vector<RunRecord> out;
  for (const Section& s : sections) {
    size_t n = 0;
    for (const auto& vals : s.values) n = std::max(n, vals.size());
    for (size_t i = 0; i < n; ++i) {
      RunRecord r;
      r.label = s.name;
      r.source = source;
      r.imported = true;
      r.status = "imported";
      for (size_t f = 0; f < fields.size(); ++f) {
        if (i < s.values[f].size()) r.*fields[f].member = s.values[f][i];
      }
      if (i < s.runs.size() && s.runs[i] && *s.runs[i] >= 1 && *s.runs[i] < 1e6) {
        r.runs = static_cast<int>(*s.runs[i]);
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

nlohmann::json to_json(const RunRecord& r) {
  nlohmann::json j = nlohmann::json::object();
  j["label"] = r.label;
  j["source"] = r.source;
  j["imported"] = r.imported;
  j["started_utc"] = r.started_utc;
  j["status"] = r.status;
  j["policy"] = r.policy;
  j["loads"] = r.loads;
  j["runs"] = r.runs;
  for (const RecordField& f : record_fields()) {
    const std::optional<double>& v = r.*f.member;
    j[f.key] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  }
  return j;
}

std::optional<RunRecord> run_record_from_json(const nlohmann::json& j, std::string* why) {
  if (!j.is_object()) {
    set_why(why, "run record: not a JSON object");
    return std::nullopt;
  }
  RunRecord r;
  auto text = [&](const char* key, std::string& out) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return true;
    if (!it->is_string()) {
      set_why(why, std::string("run record: '") + key + "' is not a string");
      return false;
    }
    out = it->get<std::string>();
    return true;
  };
  if (!text("label", r.label) || !text("source", r.source) || !text("started_utc", r.started_utc) ||
      !text("status", r.status) || !text("policy", r.policy) || !text("loads", r.loads)) {
    return std::nullopt;
  }
  if (r.label.empty()) {
    set_why(why, "run record: no 'label'");
    return std::nullopt;
  }
  if (const auto it = j.find("imported"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) {
      set_why(why, "run record: 'imported' is not true/false");
      return std::nullopt;
    }
    r.imported = it->get<bool>();
  }
  if (const auto it = j.find("runs"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1) {
      set_why(why, "run record: 'runs' is not a positive integer");
      return std::nullopt;
    }
    r.runs = static_cast<int>(std::min<int64_t>(it->get<int64_t>(), 1000000));
  }
  for (const RecordField& f : record_fields()) {
    const auto it = j.find(f.key);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_number()) {
      set_why(why, std::string("run record: '") + f.key + "' is not a number");
      return std::nullopt;
    }
    r.*f.member = it->get<double>();
  }
  return r;
}

}  // namespace xrunlab
