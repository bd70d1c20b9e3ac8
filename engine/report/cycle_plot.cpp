// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/cycle_plot.hpp"

#include <fmt/format.h>

#include <set>

namespace xrunlab {
namespace {

double us(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

void add_row(const CycleRow& row, size_t index, std::string& out,
             const std::map<uint64_t, std::string>& notes) {
  std::string label = row.slack_ns
                          ? fmt::format("{} @{:.3f}s slack {:.0f}{}", row.id, row.t_s,
                                        us(*row.slack_ns), row.out_of_order ? " out of order" : "")
                          : fmt::format("{} @{:.3f}s incomplete", row.id, row.t_s);
  if (const auto n = notes.find(row.id); n != notes.end()) {
    std::string note = n->second;
    for (char& c : note) c = c == '"' ? '\'' : c;  // the label is a quoted gnuplot string
    label += " | " + note;
  }
  auto segment = [&](int64_t from, int64_t to, int kind) {
    out += fmt::format("{} {:.3f} {:.3f} {} \"{}\"\n", index, us(from), us(to), kind, label);
  };
  int64_t prev = 0;
  bool chain = true;  // the previous hop's end is known
  if (row.jackd_wake_ns) {
    segment(0, *row.jackd_wake_ns, 1);
    prev = *row.jackd_wake_ns;
  } else {
    chain = false;
  }
  for (const CycleClient& c : row.clients) {
    if (!c.ran) {
      segment(prev, prev, 4);  // a marker where the chain stopped
      chain = false;
      continue;
    }
    // Out of chain order (entered before its upstream's exit): no wake-up segment to draw.
    if (chain && c.entry_ns >= prev) segment(prev, c.entry_ns, 2);
    segment(c.entry_ns, c.exit_ns, 3);
    prev = c.exit_ns;
    chain = true;
  }
  if (row.clients.empty() && !row.jackd_wake_ns) segment(0, 0, 4);
}

}  // namespace

CyclePlotData cycle_plot_data(const CycleTableResult& t, size_t worst_rows, size_t missed_rows,
                              const std::map<uint64_t, std::string>& notes) {
  CyclePlotData d;
  if (!t.present) return d;
  std::set<uint64_t> shown;
  for (size_t i = 0; i < t.worst.size() && i < worst_rows; ++i) {
    add_row(t.worst[i], d.rows++, d.text, notes);
    shown.insert(t.worst[i].id);
  }
  size_t missed = 0;
  for (const CycleRow& row : t.missed_rows) {
    if (missed == missed_rows) break;
    if (shown.count(row.id) != 0) continue;
    add_row(row, d.rows++, d.text, notes);
    ++missed;
  }
  return d;
}

}  // namespace xrunlab
