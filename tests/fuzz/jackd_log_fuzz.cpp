// SPDX-License-Identifier: GPL-2.0-or-later
// jackd's log (engine/jack/jackd_log.hpp): every line of the input through parse_jackd_line and
// one JackdXrunCounter (arrival times derived from the lines, so grouping by gap is exercised).
// A recognised line is well formed (a client line names a client; a driver line has a finite
// delay >= 0); the counter's totals agree with the lines and with the events it keeps.
#include <cmath>
#include <set>
#include <string>

#include "engine/jack/jackd_log.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  using xrunlab::JackdLineKind;
  xrunlab::JackdXrunCounter counter(500);
  uint64_t lines = 0, client_lines = 0, driver_lines = 0;
  std::set<std::string> clients;
  int64_t arrival_us = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++lines;
    arrival_us += static_cast<int64_t>(line.size() % 7) * 200;

    const xrunlab::JackdLine parsed = xrunlab::parse_jackd_line(line);
    switch (parsed.kind) {
      case JackdLineKind::kOther:
        FUZZ_CHECK(parsed.client.empty() && parsed.state.empty());
        break;
      case JackdLineKind::kClientNotFinished:
        FUZZ_CHECK(!parsed.state.empty());
        [[fallthrough]];
      case JackdLineKind::kClientFinishedLate:
        FUZZ_CHECK(!parsed.client.empty());
        FUZZ_CHECK(line.find(parsed.client) != std::string_view::npos);
        clients.insert(parsed.client);
        ++client_lines;
        break;
      case JackdLineKind::kDriverXrun:
        FUZZ_CHECK(std::isfinite(parsed.driver_delay_us) && parsed.driver_delay_us >= 0);
        ++driver_lines;
        break;
    }
    counter.add(line, arrival_us);
  }
  FUZZ_CHECK(counter.client_lines() == client_lines);
  FUZZ_CHECK(counter.driver_xruns() == driver_lines);
  FUZZ_CHECK(counter.client_events() <= counter.client_lines());
  FUZZ_CHECK(counter.timed_out_lines() <= lines);
  FUZZ_CHECK(counter.late_clients() == clients);
  FUZZ_CHECK(std::isfinite(counter.driver_max_delay_us()) && counter.driver_max_delay_us() >= 0);
  FUZZ_CHECK(counter.line_arrivals().size() == client_lines + driver_lines);
  uint64_t kept_client_events = 0, kept_driver_events = 0, named = 0;
  for (const auto& e : counter.events()) {
    if (e.driver) {
      FUZZ_CHECK(e.clients.empty());
      ++kept_driver_events;
    } else {
      FUZZ_CHECK(!e.clients.empty());
      const std::set<std::string> distinct(e.clients.begin(), e.clients.end());
      FUZZ_CHECK(distinct.size() == e.clients.size());  // a repeat starts a new event
      ++kept_client_events;
      named += e.clients.size();
    }
  }
  FUZZ_CHECK(kept_driver_events == driver_lines);
  FUZZ_CHECK(kept_client_events == counter.client_events());
  FUZZ_CHECK(named == client_lines);
  return 0;
}
