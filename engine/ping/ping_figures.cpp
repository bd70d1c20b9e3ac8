// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/ping/ping_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace xrunlab {

std::optional<double> nearest_rank(std::vector<double> values, double pct) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(pct / 100.0 * static_cast<double>(values.size()));
  const size_t index = static_cast<size_t>(std::max(1.0, rank)) - 1;
  return values[std::min(index, values.size() - 1)];
}

void fill_ping_figures(const std::vector<PingPacket>& packets, uint64_t unmatched,
                       PingRecord& record) {
  std::vector<double> rtt_us, late_us;
  rtt_us.reserve(packets.size());
  late_us.reserve(packets.size());
  record.sent = packets.size();
  record.received = record.late_answers = record.duplicates = 0;
  for (const PingPacket& p : packets) {
    late_us.push_back(static_cast<double>(p.late_ns) / 1000.0);
    if (p.answers > 1) record.duplicates += p.answers - 1;
    if (p.rtt_ns >= 0) {
      ++record.received;
      rtt_us.push_back(static_cast<double>(p.rtt_ns) / 1000.0);
    } else if (p.answers > 0) {
      ++record.late_answers;
    }
  }
  record.lost = record.sent - record.received;
  record.lost_pct = record.sent == 0 ? 0
                                     : std::round(1000.0 * static_cast<double>(record.lost) /
                                                  static_cast<double>(record.sent)) /
                                           10.0;
  record.unmatched = unmatched;
  if (record.drop_every > 0) {
    const auto n = static_cast<uint64_t>(record.drop_every);
    record.expected_lost = (record.sent + n - 1) / n;
  }
  auto rounded = [](std::optional<double> v) -> std::optional<double> {
    if (v) v = std::round(*v * 10.0) / 10.0;
    return v;
  };
  record.rtt_p50_us = rounded(nearest_rank(rtt_us, 50));
  record.rtt_p99_us = rounded(nearest_rank(rtt_us, 99));
  record.rtt_max_us = rounded(nearest_rank(rtt_us, 100));
  record.send_late_p99_us = rounded(nearest_rank(late_us, 99));
  record.send_late_max_us = rounded(nearest_rank(late_us, 100));
}

std::string ping_csv(const std::vector<PingPacket>& packets) {
  std::string out = "request,due_s,late_us,rtt_us,answers\n";
  out.reserve(out.size() + packets.size() * 36);
  for (size_t k = 0; k < packets.size(); ++k) {
    const PingPacket& p = packets[k];
    out += fmt::format("{},{:.6f},{:.1f},{},{}\n", k, static_cast<double>(p.due_ns) / 1e9,
                       static_cast<double>(p.late_ns) / 1000.0,
                       p.rtt_ns >= 0 ? fmt::format("{:.1f}", static_cast<double>(p.rtt_ns) / 1000.0)
                                     : std::string(),
                       p.answers);
  }
  return out;
}

}  // namespace xrunlab
