// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The historical jack_test summaries of tests/fixtures/jack_test, imported as run records.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/report/run_record.hpp"
#include "tests/support/files.hpp"

namespace xrunlab::testing_support {

// The records of tests/fixtures/jack_test/NAME; an import that finds nothing fails the test.
inline std::vector<RunRecord> import_fixture(const std::string& name) {
  std::string why;
  std::vector<RunRecord> v = import_jack_test(fixture_text("jack_test/" + name), name, &why);
  EXPECT_FALSE(v.empty()) << why;
  return v;
}

}  // namespace xrunlab::testing_support
