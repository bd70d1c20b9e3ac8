// SPDX-License-Identifier: GPL-2.0-or-later
// JACK's shared-memory registry (/dev/shm/jack-shm-registry, engine/jack/jack_registry.hpp): a
// file any local user could have written before root reads it. The whole input as a registry
// image through parse_jack_registry and parse_jack_segments, and as a /dev/shm file name through
// xrunlab_server_of_file. An accepted image gives the fixed number of entries, each name and
// segment id bounded and free of NUL; a server named from a file name never holds a '/' (it
// becomes part of paths that are unlinked).
#include <string>

#include "engine/jack/jack_registry.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view image = xrunlab::fuzz::text_of(data, size);
  std::string why;
  if (const auto entries = xrunlab::parse_jack_registry(image, &why)) {
    FUZZ_CHECK(entries->size() == 8);
    for (size_t i = 0; i < entries->size(); ++i) {
      const xrunlab::RegistryEntry& e = (*entries)[i];
      FUZZ_CHECK(e.slot == static_cast<int>(i));
      FUZZ_CHECK(e.name.size() <= 257);  // the field: JACK_SERVER_NAME_SIZE + 1 bytes
      FUZZ_CHECK(e.name.find('\0') == std::string::npos);
    }
  } else {
    FUZZ_CHECK(!why.empty());
  }
  why.clear();
  if (const auto segments = xrunlab::parse_jack_segments(image, &why)) {
    FUZZ_CHECK(segments->size() == 256);
    for (const xrunlab::ShmSegment& s : *segments) {
      FUZZ_CHECK(s.id.find('\0') == std::string::npos);
      FUZZ_CHECK(s.id.size() <= 255);
    }
  } else {
    FUZZ_CHECK(!why.empty());
  }
  if (const auto server = xrunlab::xrunlab_server_of_file(image, 0)) {
    FUZZ_CHECK(server->rfind("xrunlab-", 0) == 0);
    FUZZ_CHECK(server->find('/') == std::string::npos);
  }
  return 0;
}
