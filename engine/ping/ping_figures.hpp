// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The figures run.json keeps of --ping (engine/result/run_records.hpp PingRecord), from the
// pinger's requests (engine/ping/icmp_pinger.hpp), and ping.csv, one row per request. Pure:
// arithmetic and text only. Non-realtime.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ping/icmp_pinger.hpp"
#include "engine/result/run_records.hpp"

namespace xrunlab {

// The nearest-rank percentile `pct` (0 < pct <= 100) of `values`; nullopt when empty.
std::optional<double> nearest_rank(std::vector<double> values, double pct);

// sent, received (answered within the wait), lost (the rest), lost_pct, late_answers,
// duplicates, unmatched, expected_lost (with drop_every: ceil(sent / N)), the round trip's
// p50/p99/max and the requests' send lateness p99/max, in us.
void fill_ping_figures(const std::vector<PingPacket>& packets, uint64_t unmatched,
                       PingRecord& record);

// ping.csv: "request,due_s,late_us,rtt_us,answers", one row per request; rtt_us empty when lost.
std::string ping_csv(const std::vector<PingPacket>& packets);

}  // namespace xrunlab
