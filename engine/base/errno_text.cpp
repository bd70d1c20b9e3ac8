// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/errno_text.hpp"

#include <string.h>

namespace xrunlab {

std::string errno_text(int err) {
  char buf[256];
  return strerror_r(err, buf, sizeof buf);  // the GNU variant returns the text
}

std::string errno_text_named(int err) {
  const char* name = strerrorname_np(err);
  return name != nullptr ? errno_text(err) + " (" + name + ")" : errno_text(err);
}

}  // namespace xrunlab
