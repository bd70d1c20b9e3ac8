// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/teardown.hpp"

#include <exception>

namespace xrunlab {

std::vector<std::string> Teardown::run(
    const std::function<void(const std::string&)>& after) noexcept {
  std::vector<std::string> failures;
  if (done_) return failures;
  done_ = true;
  for (auto& [what, step] : steps_) {
    std::string failure;
    try {
      step();
    } catch (const std::exception& e) {
      failure = e.what();
    } catch (...) {
      failure = "unknown error";
    }
    if (!failure.empty()) {
      try {
        failures.push_back("while stopping (" + what + "): " + failure);
      } catch (...) {  // out of memory: the step's failure goes unreported, the next runs
      }
    }
    if (after) {
      try {
        after(what);
      } catch (...) {  // the hook only records: its failure never skips a step
      }
    }
  }
  return failures;
}

}  // namespace xrunlab
