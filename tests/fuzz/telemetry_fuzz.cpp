// SPDX-License-Identifier: GPL-2.0-or-later
// The client's telemetry lines as the engine reads them (engine/wire/telemetry.hpp decode, then
// engine/run/client_telemetry.hpp apply_client_line): every line of the input. A rejected line
// says why; an accepted one re-encodes to a line that decodes again and encodes to the same
// text (decode and encode agree on every field). Applying each line to a two-client result
// with the audible chain either changes it or adds one warning, and never throws.
#include <string>

#include "engine/result/result.hpp"
#include "engine/run/client_telemetry.hpp"
#include "engine/wire/telemetry.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  xrunlab::RunResult r;
  r.client_results.resize(2);
  r.client_results[0].name = "c01";
  r.client_results[1].name = "c02";
  r.audio.emplace();
  size_t start = 0, n = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;

    std::string why;
    const auto m = xrunlab::telemetry::decode(line, &why);
    const size_t warnings = r.warnings.size();
    xrunlab::apply_client_line(r, n % 2, line, n % 3 == 0 ? 0 : 1000000);
    ++n;
    if (!m) {
      FUZZ_CHECK(!why.empty());
      FUZZ_CHECK(r.warnings.size() == warnings + 1);
      continue;
    }
    FUZZ_CHECK(r.warnings.size() == warnings);
    const std::string once = xrunlab::telemetry::encode(*m);
    FUZZ_CHECK(!once.empty() && once.back() == '\n');
    FUZZ_CHECK(once.find('\n') == once.size() - 1);  // one line
    std::string why2;
    const auto back = xrunlab::telemetry::decode(once, &why2);
    if (!back)
      std::fprintf(stderr, "re-encoded line does not decode: %s\n%s", why2.c_str(), once.c_str());
    FUZZ_CHECK(back.has_value());
    FUZZ_CHECK(back->index() == m->index());
    FUZZ_CHECK(xrunlab::telemetry::encode(*back) == once);
  }
  FUZZ_CHECK(r.audio->glitches.size() <= xrunlab::kMaxGlitchesKept);
  return 0;
}
