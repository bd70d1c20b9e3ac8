// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The scratch folder of a load (xrunlab-load --scratch DIR): checked before the load starts
// (absent, or an empty folder that is not a symbolic link), created, and removed with
// everything in it when the load stops, never following a symbolic link out of it.
// Non-realtime.
#include <optional>
#include <string>

#include "engine/base/remove_tree.hpp"  // remove_tree: how the folder is removed

namespace xrunlab {

// Internal to the loads library: the parts of the xrunlab-load program.
namespace load_tool {

// "" or why DIR cannot be used as the scratch folder (it is removed at the end); *exists says
// whether anything is at DIR.
std::string check_scratch(const std::string& dir, bool* exists);

// Creates DIR and each missing folder above it (mode 0755); "" or the first that could not be.
std::string mkdir_p(const std::string& dir);

// The absolute path without symbolic links, "." or ".." (realpath(3)); nullopt when `path`
// cannot be resolved (it, or a folder on the way, does not exist).
std::optional<std::string> canonical(const std::string& path);

}  // namespace load_tool
}  // namespace xrunlab
