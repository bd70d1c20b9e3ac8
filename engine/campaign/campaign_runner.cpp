// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/campaign_runner.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/campaign/campaign_progress.hpp"
#include "engine/campaign/campaign_report.hpp"
#include "engine/campaign/campaign_spec.hpp"
#include "engine/campaign/campaign_store.hpp"
#include "engine/campaign/periodic_2001.hpp"
#include "engine/report/plots.hpp"
#include "engine/result/run_json.hpp"
#include "engine/run/progress.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/file_owner.hpp"
#include "engine/system/host_context.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kDefaultOverheadS = kRunOverheadEstimateS;

// The picture a report section draws, without its extension.
const char* section_plot_stem(const std::string& section) {
  return section == "periodic-2001" ? "latency-vs-runqueue" : section.c_str();
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The one folder `xrunlab run --output OUT --label LABEL` made: OUT/LABEL/<UTC timestamp>/.
std::string find_run_dir(const std::string& out, const std::string& label) {
  const std::string parent = out + "/" + label;
  std::string found;
  if (DIR* d = ::opendir(parent.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (path_exists(parent + "/" + name + "/run.json") && name > found) found = name;
    }
    ::closedir(d);
  }
  return found.empty() ? "" : label + "/" + found;
}

// A few numbers of a finished run, for the progress line and the closing table (an empty object
// without the run).
nlohmann::json figures_of(const std::optional<RunResult>& run) {
  nlohmann::json f = nlohmann::json::object();
  if (!run) return f;
  f["status"] = run_status_name(run->status);
  f["seconds"] = run->seconds_ran;
  if (run->xrun_cycles.present) {
    f["xrun_events"] = run->xrun_cycles.total_events();
    f["xrun_cycles"] = run->xrun_cycles.cycles;
  }
  f["xrun_count"] = run->xrun_count;
  f["delay_max_us"] =
      run->jack_test.delay_max_us ? nlohmann::json(*run->jack_test.delay_max_us) : nlohmann::json();
  return f;
}

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// <folder>.incomplete-N: what a run that did not finish left, set aside (never deleted).
void set_aside(const std::string& path) {
  if (!path_exists(path)) return;
  for (int n = 1;; ++n) {
    const std::string to = fmt::format("{}.incomplete-{}", path, n);
    if (path_exists(to)) continue;
    if (::rename(path.c_str(), to.c_str()) != 0) {
      throw Error(ExitCode::kOutput, "cannot move " + path + " aside to " + to);
    }
    return;
  }
}

// The running run's xrun events as its last checkpoint gave them (`xrunlab run` rewrites its
// run.json every 5 s, marked incomplete), read again only when the file changed.
class RunCheckpoint {
 public:
  std::optional<uint64_t> xrun_events(const std::string& out, const std::string& label) {
    if (path_.empty()) {
      const std::string found = find_run_dir(out, label);
      if (found.empty()) return events_;
      path_ = out + "/" + found + "/run.json";
    }
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) return events_;
    if (st.st_mtim.tv_sec == seen_.tv_sec && st.st_mtim.tv_nsec == seen_.tv_nsec) return events_;
    seen_ = st.st_mtim;
    // Written atomically: whole or absent.
    if (const std::optional<RunResult> run = read_run_json(path_);
        run && run->xrun_cycles.present) {
      events_ = run->xrun_cycles.total_events();
    }
    return events_;
  }

 private:
  std::string path_;
  timespec seen_{};
  std::optional<uint64_t> events_;
};

class Runner {
 public:
  Runner(const CampaignOptions& o, CampaignPlan plan, CampaignState state, std::string dir,
         const std::atomic<bool>& stop)
      : o_(o),
        plan_(std::move(plan)),
        s_(std::move(state)),
        dir_(std::move(dir)),
        stop_(stop),
        live_(stderr, ProgressLine::wanted(o.quiet, STDERR_FILENO)) {}
  // An error that ends the campaign is printed on a clean line.
  ~Runner() { live_.clear(); }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  int run() {
    const auto t0 = Clock::now();
    make_dirs(dir_ + "/runs");
    save_campaign_state(dir_, s_);
    for (CampaignRunRecord& r : s_.runs) {
      if (r.status == "completed") continue;
      if (stop_.load()) {  // between two runs: none is half done
        say(
            fmt::format("interrupted; {} of {} runs are finished, kept in {}; the same command "
                        "continues",
                        finished(), s_.runs.size(), dir_));
        return static_cast<int>(ExitCode::kInterrupted);
      }
      const int code = run_one(r, t0);
      if (code != 0) return code;
    }
    live_.clear();
    const double total = std::chrono::duration<double>(Clock::now() - t0).count();
    return report(total);
  }

 private:
  const CampaignCase& case_of(const CampaignRunRecord& r) const {
    return plan_.cases.at(static_cast<size_t>(r.case_index - 1));
  }

  void say(const std::string& text) {
    if (o_.quiet) return;
    live_.clear();
    std::fprintf(stderr, "xrunlab: %s\n", text.c_str());
  }

  // Wall time per run beyond its measured seconds, from the runs finished so far.
  double overhead_s() const {
    double sum = 0;
    int n = 0;
    for (const CampaignRunRecord& r : s_.runs) {
      if (r.status != "completed" || r.wall_s <= 0) continue;
      sum += r.wall_s - (r.warmup ? plan_.warmup_s : plan_.duration_s);
      ++n;
    }
    return n > 0 ? std::max(0.0, sum / n) : kDefaultOverheadS;
  }

  double seconds_left(const CampaignRunRecord& current, double current_elapsed) const {
    const double over = overhead_s();
    double left = 0;
    for (const CampaignRunRecord& r : s_.runs) {
      if (r.status == "completed" || &r == &current) continue;
      left += (r.warmup ? plan_.warmup_s : plan_.duration_s) + over;
    }
    const double mine = (current.warmup ? plan_.warmup_s : plan_.duration_s) + over;
    return left + std::max(0.0, mine - current_elapsed);
  }

  uint64_t xrun_events_so_far() const {
    uint64_t n = 0;
    for (const CampaignRunRecord& r : s_.runs) {
      if (r.status == "completed" && !r.warmup) n += r.figures.value("xrun_events", uint64_t{0});
    }
    return n;
  }

  int counted_position(const CampaignRunRecord& r) const {
    int done = 0;
    for (const CampaignRunRecord& x : s_.runs) {
      if (&x == &r) break;
      ++done;
    }
    return done + 1;
  }

  int run_one(CampaignRunRecord& r, Clock::time_point t0) {
    // A kept run may own this folder name (after --replan): take another.
    for (const CampaignRunRecord& x : s_.runs) {
      if (&x != &r && x.folder == r.folder && x.status == "completed") r.folder += "-b";
    }
    const std::string out = dir_ + "/runs/" + r.folder;
    const std::string log = out + ".log";
    set_aside(out);
    set_aside(log);
    const CampaignCase& c = case_of(r);
    const std::string label = r.warmup ? std::string("warmup") : c.label;
    std::vector<std::string> argv = {o_.self_exe, "run"};
    const std::vector<std::string>& args = r.warmup ? plan_.warmup_args : c.run_args;
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* a : {"--label", label.c_str(), "--output", out.c_str(), "-q"}) {
      argv.emplace_back(a);
    }
    const bool own_history = std::any_of(args.begin(), args.end(), [](const std::string& a) {
      return a == "--no-history" || a == "--history" || a.rfind("--history=", 0) == 0;
    });
    // The warm-up is not a measurement of the campaign: never in a history.
    if (r.warmup || (o_.no_history && !own_history)) {
      argv.emplace_back("--no-history");
    } else if (!own_history) {
      argv.emplace_back("--history");
      argv.push_back(o_.history.empty() ? history_beside(dir_) : o_.history);
    }
    if (o_.plot_format) {  // after the run's own arguments: --plot-format's last value counts
      argv.emplace_back("--plot-format");
      argv.emplace_back(plot_format_name(*o_.plot_format));
    }
    const std::string what = r.warmup
                                 ? fmt::format("warm-up ({} s of case {})", plan_.warmup_s, c.name)
                                 : fmt::format("case {} ({}), repetition {} of {}", c.index, c.name,
                                               r.rep, plan_.repetitions);
    if (!o_.as_step)
      say(fmt::format("run {} of {}: {}", counted_position(r), s_.runs.size(), what));
    r.status = "running";
    r.started_utc = utc_now_iso();
    r.ended_utc.clear();
    r.detail.clear();
    r.exit_code.reset();
    r.run_dir.clear();
    save_campaign_state(dir_, s_);

    SpawnSpec spec;
    spec.argv = argv;
    spec.output_path = log;
    Child child = Child::spawn(spec);
    hand_over_file(log);  // the run's own folder it hands over itself
    const auto start = Clock::now();
    bool stopping = false;
    auto next_line = start;
    RunCheckpoint live_run;
    while (child.running()) {
      if (stop_.load() && !stopping) {
        stopping = true;
        live_.clear();
        child.signal(SIGINT);  // `xrunlab run` writes what it measured, marked interrupted
      }
      const auto now = Clock::now();
      if (now >= next_line) {
        const double elapsed = std::chrono::duration<double>(now - start).count();
        const double total = std::chrono::duration<double>(now - t0).count();
        CampaignProgress p;
        p.campaign = plan_.name;
        p.position = static_cast<size_t>(counted_position(r));
        p.runs = s_.runs.size();
        p.label = label;
        p.run_elapsed_s = elapsed;
        p.all_elapsed_s = total;
        p.left_s = seconds_left(r, elapsed);
        p.finished_xrun_events = xrun_events_so_far();
        p.running_xrun_events = live_run.xrun_events(out, label);
        p.warmup = r.warmup;
        live_.show(campaign_progress_text(p), terminal_columns(STDERR_FILENO));
        next_line = now + std::chrono::seconds(1);
      }
      // Returns as the run ends (within 5 ms), so the run's wall time is its own, not the
      // rest of a polling interval.
      child.wait_for(std::chrono::milliseconds(100));
      if (stopping && Clock::now() - start > std::chrono::hours(1))
        child.stop(std::chrono::seconds(5));
    }
    live_.clear();
    r.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    ++session_runs_;
    session_run_wall_s_ += r.wall_s;
    r.ended_utc = utc_now_iso();
    const int status = child.wait_status().value_or(0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const std::string found = find_run_dir(out, label);
    r.run_dir = found.empty() ? "" : "runs/" + r.folder + "/" + found;
    std::string why;
    const std::optional<RunResult> run =
        found.empty() ? std::nullopt : read_run_json(dir_ + "/" + r.run_dir + "/run.json", &why);
    r.figures = figures_of(run);
    const std::string run_status = run ? run_status_name(run->status) : "";
    if (stopping || stop_.load()) {
      r.status = "interrupted";
      save_campaign_state(dir_, s_);
      say(
          fmt::format("interrupted during run {} ({}); {} of {} runs are finished, kept in "
                      "{}; the same command continues",
                      counted_position(r), label, finished(), s_.runs.size(), dir_));
      return static_cast<int>(ExitCode::kInterrupted);
    }
    if (*r.exit_code == 0 && run_status == "completed") {
      r.status = "completed";
      save_campaign_state(dir_, s_);
      return 0;
    }
    r.status = "failed";
    r.detail = fmt::format("xrunlab run {}; run.json status '{}'{}; {}", child.describe_exit(),
                           run_status, why.empty() ? "" : " (" + why + ")", last_line_of(log));
    save_campaign_state(dir_, s_);
    live_.clear();
    std::fputs(fmt::format("xrunlab: error: campaign run {} ({}) failed: {} (its log: {}); the "
                           "same command redoes it and continues\n",
                           counted_position(r), label, r.detail, log)
                   .c_str(),
               stderr);
    return static_cast<int>(ExitCode::kRunFailed);
  }

  size_t finished() const {
    size_t n = 0;
    for (const CampaignRunRecord& r : s_.runs) n += r.status == "completed" ? 1 : 0;
    return n;
  }

  // The closing report: written in full beside campaign.json (campaign-summary.txt/.json), its
  // short block printed (with -q its tables alone), and checked (--fail-if).
  int report(double session_s) const {
    const CampaignReport rep = build_campaign_report(plan_, s_, dir_);
    write_output_file(dir_ + "/campaign-summary.txt", format_campaign_report(rep));
    write_output_file(dir_ + "/campaign-summary.json", campaign_report_json(rep).dump(2) + "\n");
    if (o_.as_step) return 0;  // the sweep draws and prints its own
    const PlotFormat format = o_.plot_format.value_or(PlotFormat::kPng);
    const std::string plot_error =
        draw_campaign_plot(rep, find_script_dir(o_.self_exe), dir_, format);
    if (!plot_error.empty()) {
      std::fprintf(stderr, "xrunlab: warning: no %s: %s\n", plot_file("campaign", format).c_str(),
                   plot_error.c_str());
    }
    // The one page to share, with the plots inside it (after the plots, which it embeds).
    ReportPlot plot{plot_file("campaign", format), std::nullopt};
    if (plot_error.empty()) plot.bytes = read_file(dir_ + "/" + plot.name);
    std::vector<ReportPlot> plots = {plot};
    std::vector<std::string> extra_plots;  // the sections' pictures, named at the end
    // The sections' own pictures.
    const std::string scripts = find_script_dir(o_.self_exe);
    const std::pair<const char*, std::function<std::string()>> section_plots[] = {
        {"maxima-spread", [&] { return draw_maxima_spread_plot(rep, scripts, dir_, format); }},
        {"periodic-2001",
         [&] {
           return draw_periodic_2001_plot(periodic_2001(rep), rep.name, scripts, dir_, format);
         }},
    };
    for (const auto& [section, draw] : section_plots) {
      if (!has_section(rep, section)) continue;
      const std::string error = draw();
      ReportPlot extra{plot_file(section_plot_stem(section), format), std::nullopt};
      if (error.empty()) {
        extra.bytes = read_file(dir_ + "/" + extra.name);
      } else {
        std::fprintf(stderr, "xrunlab: warning: no %s: %s\n", extra.name.c_str(), error.c_str());
      }
      if (extra.bytes) extra_plots.push_back(extra.name);
      plots.push_back(extra);
    }
    write_output_file(dir_ + "/report.html", format_campaign_html(rep, plots));
    if (o_.quiet) {
      std::fputs(format_campaign_brief(rep, true).c_str(), stdout);
    } else {
      print_closing(rep, session_s, plot_error.empty() ? plot_file("campaign", format) : "",
                    extra_plots);
    }
    std::fflush(stdout);
    if (o_.lava) report_lava_cases(campaign_lava_cases(rep, o_.fail_if));
    if (o_.fail_if.empty() && o_.junit.empty()) return 0;
    const std::vector<JunitCase> cases = campaign_threshold_cases(rep, o_.fail_if);
    bool failed = false;
    for (const JunitCase& c : cases) {
      for (const ThresholdCheck& k : c.checks) {
        if (!k.crossed) continue;
        failed = true;
        std::fprintf(stderr, "xrunlab: --fail-if: %s: median %s\n", c.name.c_str(),
                     k.message.c_str());
      }
    }
    if (!o_.junit.empty())
      write_output_file(o_.junit, junit_xml("xrunlab campaign " + plan_.name, cases));
    return failed ? static_cast<int>(ExitCode::kThreshold) : 0;
  }

  // The closing block without -q: what finished, the short report, where the rest is, and the
  // campaign's own time.
  void print_closing(const CampaignReport& rep, double session_s, const std::string& plot,
                     const std::vector<std::string>& extra_plots) const {
    std::printf("Campaign %s: %zu runs finished (%zu cases x %d repetitions%s), in %s\n\n",
                plan_.name.c_str(), finished(), plan_.cases.size(), plan_.repetitions,
                plan_.warmup_s > 0 ? " + a warm-up" : "", dir_.c_str());
    std::fputs(format_campaign_brief(rep).c_str(), stdout);
    std::printf("\nFull summary: %s/campaign-summary.txt\n", dir_.c_str());
    std::printf("One page to share: %s/report.html\n", dir_.c_str());
    if (!plot.empty()) std::printf("Plot: %s/%s\n", dir_.c_str(), plot.c_str());
    for (const std::string& p : extra_plots) std::printf("Plot: %s/%s\n", dir_.c_str(), p.c_str());
    if (session_runs_ > 0) {
      // The campaign measuring itself: its own time beyond the `xrunlab run` processes.
      std::printf(
          "This session ran %zu run(s) in %s; the campaign's own time beyond them: %.3f s per "
          "run\n",
          session_runs_, duration_text(session_s).c_str(),
          std::max(0.0, session_s - session_run_wall_s_) / static_cast<double>(session_runs_));
    }
  }

  const CampaignOptions& o_;
  CampaignPlan plan_;
  CampaignState s_;
  std::string dir_;
  const std::atomic<bool>& stop_;
  ProgressLine live_;
  size_t session_runs_ = 0;        // runs started by this invocation
  double session_run_wall_s_ = 0;  // their `xrunlab run` processes' wall time
};

void print_plan(const CampaignPlan& plan, const CampaignState& s, const std::string& dir,
                size_t kept, bool resumes) {
  const size_t counted = plan.cases.size() * static_cast<size_t>(plan.repetitions);
  std::printf("Campaign %s: %zu case(s) x %d repetition(s) = %zu runs%s, order %s (seed %llu)\n",
              plan.name.c_str(), plan.cases.size(), plan.repetitions, counted,
              plan.warmup_s > 0 ? fmt::format(" + a {} s warm-up", plan.warmup_s).c_str() : "",
              plan.order.c_str(), static_cast<unsigned long long>(plan.seed));
  std::printf("Folder: %s (%s)\n", dir.c_str(),
              resumes ? fmt::format("continues: {} finished run(s) kept", kept).c_str() : "new");
  for (const CampaignCase& c : plan.cases) {
    std::string args;
    for (const std::string& a : c.run_args) args += " " + a;
    std::printf("  %-28s xrunlab run%s\n", c.label.c_str(), args.c_str());
  }
  double left = 0;
  size_t todo = 0;
  for (const CampaignRunRecord& r : s.runs) {
    if (r.status == "completed") continue;
    ++todo;
    left += (r.warmup ? plan.warmup_s : plan.duration_s) + kDefaultOverheadS;
  }
  std::string order;
  for (size_t i = 0; i < s.runs.size(); ++i) {
    const CampaignRunRecord& r = s.runs[i];
    order += (i == 0 ? "" : ", ") +
             (r.warmup ? std::string("warm-up") : fmt::format("{}#{}", r.case_index, r.rep));
    if (i >= 23 && s.runs.size() > 25) {
      order += fmt::format(", ... ({} more)", s.runs.size() - i - 1);
      break;
    }
  }
  std::printf("Order (case#repetition): %s\n", order.c_str());
  std::printf(
      "To run: %zu run(s), about %s (%s measured each + about %.0f s to start and stop "
      "jackd and the clients; an estimate)\n",
      todo, duration_text(left).c_str(), duration_text(plan.duration_s).c_str(), kDefaultOverheadS);
  std::fflush(stdout);
}

// "host, kernel RELEASE" of a host record ("" for a record without either).
std::string machine_of(const nlohmann::json& host) {
  if (!host.is_object()) return "";
  const std::string name = host.value("hostname", "");
  const nlohmann::json k = host.value("kernel", nlohmann::json::object());
  const std::string release = k.is_object() ? k.value("release", "") : "";
  if (name.empty() && release.empty()) return "";
  return fmt::format("{}, kernel {}", name, release);
}

// A campaign's runs come from one machine and kernel: a folder whose runs were made elsewhere
// is not continued there (comparing kernels is two campaigns, in two folders).
void check_same_machine(const nlohmann::json& then, const nlohmann::json& now,
                        const std::string& dir, const std::string& name) {
  const std::string a = machine_of(then), b = machine_of(now);
  if (a.empty() || a == b) return;
  const nlohmann::json k = now.value("kernel", nlohmann::json::object());
  throw Error(ExitCode::kUsage,
              fmt::format("{}/campaign.json's runs were made on {}; this is {}: a campaign's "
                          "runs come from one machine and kernel, so give this one another "
                          "folder (e.g. --dir results/campaigns/{}-{})",
                          dir, a, b, name, k.is_object() ? k.value("release", "") : ""));
}

}  // namespace

namespace {

// `seed_drawn`: nothing fixed the seed (no seed in the file, no --seed, no folder to resume),
// so this process drew it: a dry run says how to get the order it printed.
int run_resumed(const CampaignOptions& o, CampaignPlan plan, const std::string& text,
                const std::string& dir, const std::optional<CampaignState>& old,
                const std::atomic<bool>& stop, bool seed_drawn = false) {
  ResumedState resumed = resume_campaign(old, plan, dir, o.replan);
  resumed.state.file = o.file;
  resumed.state.file_text = text;
  const nlohmann::json here = to_json(collect_host_context());
  resumed.state.host = old ? old->host : here;
  const bool todo = std::any_of(resumed.state.runs.begin(), resumed.state.runs.end(),
                                [](const CampaignRunRecord& r) { return r.status != "completed"; });
  if (old && todo) check_same_machine(old->host, here, dir, plan.name);
  if (o.dry_run) {
    print_plan(plan, resumed.state, dir, resumed.kept, old.has_value());
    if (seed_drawn && plan.order == "shuffled") {
      std::printf(
          "The seed was drawn for this dry run; a start draws another. To run this "
          "order: --seed %llu\n",
          static_cast<unsigned long long>(plan.seed));
    }
    return 0;
  }
  if (!o.quiet && !o.as_step) print_plan(plan, resumed.state, dir, resumed.kept, old.has_value());
  Runner runner(o, std::move(plan), std::move(resumed.state), dir, stop);
  return runner.run();
}

}  // namespace

std::string history_beside(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (!p.empty() && p.filename().empty()) p = p.parent_path();  // a trailing '/'
  std::filesystem::path at = p;
  for (int up = 0; up < 4 && !at.empty() && at.has_filename(); ++up) {
    const std::string name = at.filename().string();
    if (name == "campaigns" || name == "sweeps" || name == "headroom" || name == "checks") {
      const std::filesystem::path root = at.parent_path();
      return (root.empty() ? std::filesystem::path("history.sqlite") : root / "history.sqlite")
          .string();
    }
    at = at.parent_path();
  }
  return (p / "history.sqlite").string();
}

int run_campaign(const CampaignOptions& o, const RunArgsCheck& check,
                 const std::atomic<bool>& stop) {
  CampaignSpec spec = load_campaign(o.file);
  adjust_campaign(spec, o.scale, o.duration, o.repetitions);
  const std::string dir = o.dir.empty() ? "results/campaigns/" + spec.name : o.dir;
  const std::optional<CampaignState> old = load_campaign_state(dir);
  uint64_t seed = 0;
  bool seed_drawn = false;
  if (o.seed) {
    seed = *o.seed;
  } else if (old && old->plan.contains("seed") && old->plan["seed"].is_number_unsigned()) {
    seed = old->plan["seed"].get<uint64_t>();  // the same command resumes the same order
  } else {
    std::random_device rd;
    seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    seed_drawn = !spec.seed.has_value();
  }
  CampaignPlan plan = plan_campaign(spec, seed, o.order, check);
  return run_resumed(o, std::move(plan), spec.text, dir, old, stop, seed_drawn);
}

int run_campaign_plan(const CampaignOptions& o, CampaignPlan plan, const std::string& text,
                      const std::atomic<bool>& stop) {
  return run_resumed(o, std::move(plan), text, o.dir, load_campaign_state(o.dir), stop);
}

}  // namespace xrunlab
