// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Some top-level members of a large JSON object, without building the rest: what
// `xrunlab summary` needs of a run.json (a few small parts of a ~1 MB file). Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

// The object `text` holds, with only the top-level members named in `keep` (the others are
// skipped, not built). A fast scanner matches brackets and strings to find the members and
// parses only the kept ones; on anything it does not expect, the full parser (with a filter)
// reads the whole text, which also validates the skipped parts and explains errors. A text
// that is not an object gives what it holds (the caller checks). nullopt with *why (may be
// null) = "not valid JSON (<parser message>)" when the text is not JSON.
std::optional<nlohmann::json> parse_json_members(std::string_view text,
                                                 const std::vector<std::string_view>& keep,
                                                 std::string* why);

}  // namespace xrunlab
