// SPDX-License-Identifier: GPL-2.0-or-later
// histogram.csv's reader (engine/report/report_csv.hpp parse_histogram_csv, what `xrunlab plot`
// reads back from a run folder). A rejection says why; histograms that read write the same rows
// with format_histogram_csv, which read back and write once more to the same text.
#include <string>

#include "engine/report/report_csv.hpp"
#include "engine/result/result.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

xrunlab::RunResult result_of(std::map<int, xrunlab::ClientHistograms> histograms) {
  xrunlab::RunResult r;
  for (auto& [index, h] : histograms) {
    xrunlab::ClientResult c;
    c.index = index;
    c.delay = std::move(h.delay);
    c.delay_dll = std::move(h.delay_dll);
    c.duration = std::move(h.duration);
    c.cycle = std::move(h.cycle);
    r.client_results.push_back(std::move(c));
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  std::string why;
  auto h = xrunlab::parse_histogram_csv(text, &why);
  if (!h) {
    FUZZ_CHECK(!why.empty());
    return 0;
  }
  const std::string once = xrunlab::format_histogram_csv(result_of(std::move(*h)));
  std::string why2;
  auto back = xrunlab::parse_histogram_csv(once, &why2);
  if (!back) std::fprintf(stderr, "written histogram.csv does not read: %s\n", why2.c_str());
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(xrunlab::format_histogram_csv(result_of(std::move(*back))) == once);
  return 0;
}
