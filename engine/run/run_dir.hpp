// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The run folder's place: OUTPUT/LABEL/<UTC timestamp>/, made before anything is measured.
// Non-realtime.
#include <cstdint>
#include <optional>
#include <string>

#include "engine/system/clock.hpp"  // utc_now, utc_now_iso: the run folder's and run.json's times

namespace xrunlab {

// mkdir -p `path`, then checks it is writable. Throws OutputError (Error(kOutput)) naming the
// folder and --output, and saying "the disk is full" for ENOSPC. The folders it makes are
// recorded for the hand-over to the user who ran sudo (engine/system/file_owner.hpp). As root,
// the path is checked before and after (engine/system/output_folder.hpp: a folder another user
// can change is refused with Error(kOutput)).
void make_dirs(const std::string& path);

// Creates OUTPUT/LABEL/<UTC timestamp>/ (with -2, -3 ... when that exists already) and its
// clients/ folder; returns its path. Two runs in the same second (even started together) get
// two folders: each mkdir either creates its name or fails with EEXIST and tries the next.
// Throws Error(kOutput) as make_dirs. The run folder is recorded for the hand-over.
std::string create_run_dir(const std::string& output, const std::string& label);

// The bytes an unprivileged writer may still use on the file system holding `path` (statvfs),
// or nullopt when it cannot be asked.
std::optional<uint64_t> free_bytes(const std::string& path);
// Below this, the run says its disk was (nearly) full: a log line may not have fitted.
inline constexpr uint64_t kDiskNearlyFullBytes = uint64_t{64} * 1024;

}  // namespace xrunlab
