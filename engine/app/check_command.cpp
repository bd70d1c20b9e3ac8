// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/app/check_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "engine/app/cli.hpp"
#include "engine/base/errors.hpp"
#include "engine/campaign/headroom_runner.hpp"
#include "engine/campaign/sweep.hpp"
#include "engine/campaign/sweep_runner.hpp"
#include "engine/doctor/checks.hpp"
#include "engine/doctor/report.hpp"
#include "engine/doctor/snapshot.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/run/run_options.hpp"
#include "engine/system/atomic_file.hpp"

namespace xrunlab {
namespace {

std::string first_line(const std::string& s) {
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// The doctor's first FAIL, else its first WARN, as the verdict's "Fix first: ...".
std::string fix_first(const std::vector<CheckResult>& results) {
  for (const CheckStatus want : {CheckStatus::kFail, CheckStatus::kWarn}) {
    for (const CheckResult& r : results) {
      if (r.status != want) continue;
      std::string t = fmt::format("{}: {}.", r.title, first_line(r.found));
      if (!r.fix.empty()) t += fmt::format(" Fix: {}.", first_line(r.fix));
      return t + " (See `xrunlab doctor`.)";
    }
  }
  return "";
}

std::string doctor_lines(const std::vector<CheckResult>& results) {
  size_t ok = 0, warn = 0, fail = 0, other = 0;
  for (const CheckResult& r : results) {
    ok += r.status == CheckStatus::kOk;
    warn += r.status == CheckStatus::kWarn;
    fail += r.status == CheckStatus::kFail;
    other += r.status == CheckStatus::kNeedsRoot || r.status == CheckStatus::kSkipped;
  }
  std::string out = fmt::format(
      "Doctor: {} checks: {} OK, {} WARN, {} FAIL, {} skipped or needing root (`xrunlab doctor` "
      "shows each with its fix)\n",
      results.size(), ok, warn, fail, other);
  for (const CheckResult& r : results) {
    if (r.status != CheckStatus::kFail && r.status != CheckStatus::kWarn) continue;
    out += fmt::format("  {:<4}  {}: {}\n", status_label(r.status), r.title, first_line(r.found));
  }
  return out;
}

}  // namespace

CheckSweep check_sweep_options(const CheckOptions& o) {
  CheckSweep plan;
  SweepOptions& so = plan.sweep;
  so.spec.clients = {o.clients};
  so.spec.periods = parse_positive_list("--periods", o.periods, 16, 8192);
  so.spec.duration_s = o.duration_s;
  so.spec.repetitions = o.repetitions;
  so.spec.search = "bisect";
  so.spec.run_args = o.run_args;
  for (const std::string& a : o.run_args) {
    if (a == "--dsp-load" || a.rfind("--dsp-load=", 0) == 0) {
      throw Error(ExitCode::kUsage,
                  "check: give --dsp-load before -- (the check's own option), not after it");
    }
  }
  so.spec.run_args.push_back("--dsp-load");
  so.spec.run_args.push_back(fmt::format("{:g}", o.dsp_load_pct));
  if (const std::optional<RunOptions> run = sweep_run_options(so.spec)) {
    so.spec.rate = run->rate;
    plan.jackd_priority = run->priority;
  }
  so.spec.name = "check-" + default_sweep_name(so.spec).substr(std::string("sweep-").size());
  so.dir = o.dir.empty() ? "results/checks/" + so.spec.name : o.dir;
  so.quiet = o.quiet;
  so.self_exe = o.self_exe;
  return plan;
}

int run_check_command(const CheckOptions& o, const RunArgsCheck& check,
                      const std::atomic<bool>& stop) {
  const CheckSweep plan = check_sweep_options(o);
  const SweepOptions& so = plan.sweep;
  check_sweep_args(so.spec, check);  // bad input is refused before the doctor prints

  // 1. The doctor, by inspection.
  const std::vector<CheckResult> results =
      run_checks(collect_snapshot(DoctorRoots{}, plan.jackd_priority), [&] {
        DoctorTargets t;
        t.jackd_priority = plan.jackd_priority;
        t.clients = o.clients;
        t.period = so.spec.periods.front();
        t.rate = so.spec.rate;
        t.dsp_load_pct = o.dsp_load_pct;
        return t;
      }());
  const std::string doctor = doctor_lines(results);
  std::fputs(doctor.c_str(), stdout);
  std::fputs("\n", stdout);
  std::fflush(stdout);

  // 2. The sweep, by measurement (it checks every run's arguments before anything runs).
  const SweepOutcome sweep = run_sweep(so, check, stop);

  // 3. The headroom at the recommended period: how much DSP the machine carries there.
  const SweepAnswer a = sweep_answer(so.spec, sweep.grid, o.clients);
  std::optional<HeadroomCell> headroom;
  int headroom_code = 0;
  if (sweep.exit_code == 0 && a.clean != nullptr && o.headroom_ramps > 0 && !stop.load()) {
    HeadroomOptions ho;
    ho.spec.clients = {o.clients};
    ho.spec.periods = {a.clean->period};
    ho.spec.repetitions = o.headroom_ramps;
    ho.spec.rate = so.spec.rate;
    // --ports after -- is the check's runs' (headroom sets its own from it).
    for (size_t i = 0; i < o.run_args.size(); ++i) {
      if (o.run_args[i] == "--ports" && i + 1 < o.run_args.size()) {
        ho.spec.ports = std::stoi(o.run_args[++i]);
      } else {
        ho.spec.run_args.push_back(o.run_args[i]);
      }
    }
    ho.spec.name = default_headroom_name(ho.spec);
    ho.dir = so.dir + "/headroom";
    ho.quiet = true;
    ho.self_exe = o.self_exe;
    std::printf("\nHeadroom at %s:\n", period_text(a.clean->period, so.spec.rate).c_str());
    std::fflush(stdout);
    const HeadroomOutcome h = run_headroom(ho, check, stop);
    headroom_code = h.exit_code;
    if (!h.cells.empty() && h.cells.front().ramps > 0) headroom = h.cells.front();
  }

  // 4. The verdict.
  std::string verdict = check_verdict(so.spec, sweep.grid, o.dsp_load_pct, fix_first(results));
  if (headroom) {
    verdict += fmt::format(
        "\nHeadroom there: about {} of the period in DSP load (all clients together) before the "
        "first xrun, in {} ramp(s) (`xrunlab headroom` measures more; the check's runs used {:g} "
        "%).",
        headroom_answer_at(*headroom), headroom->ramps, o.dsp_load_pct);
  }
  std::printf("\n%s\n", verdict.c_str());
  std::fflush(stdout);
  int code = sweep.exit_code != 0 ? sweep.exit_code : headroom_code;
  if (code == 0) code = a.clean ? 0 : static_cast<int>(ExitCode::kCheckDropsOut);
  make_dirs(so.dir);
  write_output_file(so.dir + "/check.txt", doctor + "\n" + verdict + "\n");
  nlohmann::json j = {
      {"schema_version", 1},
      {"verdict", verdict},
      {"exit_code", code},
      {"clients", o.clients},
      {"dsp_load_pct", o.dsp_load_pct},
      {"smallest_clean_period", a.clean ? nlohmann::json(a.clean->period) : nlohmann::json()},
      {"headroom_median_pct", headroom ? nlohmann::json(*headroom->median) : nlohmann::json()},
      {"headroom", headroom ? nlohmann::json("headroom/headroom.json") : nlohmann::json()},
      {"doctor", doctor_json(results)},
      {"sweep", "sweep.json"}};
  write_output_file(so.dir + "/check.json", j.dump(2) + "\n");
  if (!o.quiet) std::printf("Results: %s (check.txt, check.json, sweep.png)\n", so.dir.c_str());
  return code;
}

}  // namespace xrunlab
