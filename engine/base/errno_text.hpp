// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What an errno value means, in words: the one copy. Thread-safe (strerror_r), non-realtime.
#include <string>

namespace xrunlab {

// "No such file or directory".
std::string errno_text(int err);

// With the symbolic name, for messages a user may search for: "Operation not permitted (EPERM)".
// Just the text for a value the C library has no name for.
std::string errno_text_named(int err);

}  // namespace xrunlab
