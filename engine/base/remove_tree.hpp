// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Removing a folder and everything below it without being turned against the machine: relative
// to directory descriptors, never following a symbolic link (a link is removed, not its target),
// never leaving the folder, never crossing into another file system. A load's scratch folder
// (engine/loads/scratch_folder.hpp) and the folders xrunlab makes in /tmp (the PipeWire runtime
// folder, engine/backend/pipewire.hpp and engine/janitor) go this way. Non-realtime.
#include <sys/types.h>

#include <string>

namespace xrunlab {

// Removes `dir` and everything below it. A missing `dir` is not an error. Returns "" or what
// could not be removed.
std::string remove_tree(const std::string& dir);

// The same for a folder found by its name in a folder others can write to (/tmp), where anyone
// can make a folder or a link of that name first: removed only when it is a folder, not a
// symbolic link, owned by `owner` (the user that made it: the effective uid), else left as it is
// and the returned line says so ("not removing 'DIR': it belongs to uid 65534, not to uid 0;
// remove it by hand if it is not in use"). A missing `dir` is not an error.
std::string remove_owned_tree(const std::string& dir, uid_t owner);

// Unlinks `path` only when it is a file (not a folder) of `owner`, never following a link (a
// link of `owner` is removed itself): for a name read from a place every user can write
// (/dev/shm, JACK's registry), which must never remove another user's file. True when removed.
bool remove_owned_file(const std::string& path, uid_t owner);

}  // namespace xrunlab
