// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/app/doctor_command.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "engine/doctor/checks.hpp"
#include "engine/doctor/report.hpp"
#include "engine/run/run_options.hpp"

namespace xrunlab {
namespace {

// The terminal's width when stdout is one (TIOCGWINSZ, else $COLUMNS, else 80); 0 when piped
// (then no wrapping and no colour).
int terminal_width() {
  if (::isatty(STDOUT_FILENO) == 0) return 0;
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    const int n = std::atoi(c);
    if (n > 0) return n;
  }
  return 80;
}

}  // namespace

int run_doctor_command(const DoctorOptions& o) {
  const RunOptions defaults;
  DoctorTargets t;
  t.jackd_priority = o.priority;
  t.clients = defaults.clients;
  t.period = defaults.period;
  t.rate = defaults.rate;
  t.dsp_load_pct = defaults.dsp_load_pct;
  const SystemSnapshot s = collect_snapshot(o.roots, o.priority);
  const std::vector<CheckResult> results = run_checks(s, t);
  if (o.json) {
    std::fputs((doctor_json(results).dump(2) + "\n").c_str(), stdout);
  } else {
    const int width = terminal_width();
    const char* no_color = std::getenv("NO_COLOR");  // https://no-color.org
    const bool color = width > 0 && (no_color == nullptr || *no_color == '\0');
    std::fputs(format_doctor_table(results, width, color).c_str(), stdout);
  }
  std::fflush(stdout);
  return static_cast<int>(doctor_exit_code(results));
}

}  // namespace xrunlab
