// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Base64 (RFC 4648, the standard alphabet, '=' padding, no line breaks): the plots a run's
// report.html embeds as data: URIs (engine/report/report_html.hpp). The libraries xrunlab links
// (fmt, nlohmann-json) have no encoder, and a dozen lines are less than another dependency.
// Pure.
#include <string>
#include <string_view>

namespace xrunlab {

std::string base64_encode(std::string_view bytes);

}  // namespace xrunlab
