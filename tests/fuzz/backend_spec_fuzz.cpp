// SPDX-License-Identifier: GPL-2.0-or-later
// parse_backend (--backend SPEC): it throws only xrunlab::Error(kUsage) (anything else crashes
// the target), and a parsed spec written back as KIND[:DEVICE] parses to the same kind and
// device.
#include <string>

#include "engine/backend/backend.hpp"
#include "engine/base/errors.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using xrunlab::BackendSpec;

std::string kind_name(BackendSpec::Kind k) {
  switch (k) {
    case BackendSpec::Kind::kDummy:
      return "dummy";
    case BackendSpec::Kind::kVcard:
      return "vcard";
    case BackendSpec::Kind::kAlsa:
      return "alsa";
    case BackendSpec::Kind::kAttach:
      return "attach";
    case BackendSpec::Kind::kPipewire:
      return "pipewire";
  }
  return "?";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(xrunlab::fuzz::text_of(data, size));
  BackendSpec spec;
  try {
    spec = xrunlab::parse_backend(text);
  } catch (const xrunlab::Error& e) {
    FUZZ_CHECK(e.code() == xrunlab::ExitCode::kUsage);
    FUZZ_CHECK(std::string(e.what()).rfind("--backend ", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(spec.text == text);
  const std::string again = kind_name(spec.kind) + (spec.device.empty() ? "" : ":" + spec.device);
  const BackendSpec back = xrunlab::parse_backend(again);  // must not throw
  FUZZ_CHECK(back.kind == spec.kind);
  FUZZ_CHECK(back.device == spec.device);
  return 0;
}
