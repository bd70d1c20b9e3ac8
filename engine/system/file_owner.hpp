// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Under sudo, the files xrunlab creates belong to the user who typed the command, not to root.
//
// When the process runs as root (euid 0) with SUDO_UID (not 0) and SUDO_GID in its environment,
// every folder and file it records here is given to that user (lchown, never following a
// symbolic link, never by a path that could
// lead elsewhere) at the end of the process: main() holds a HandOverAtExit, whose destructor runs
// on every exit path that returns from main (success, error, Ctrl-C). Only what this process
// created is recorded: folders it made (with everything inside them, which is therefore new too)
// and files it wrote into folders that already existed. What existed before is never touched.
// A plain user's process records nothing; root without SUDO_UID records and changes nothing.
// Non-realtime; thread-safe.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

struct InvokingUser {
  uid_t uid = 0;
  gid_t gid = 0;
};

// The user to give files to, given the effective uid and the values of SUDO_UID and SUDO_GID
// (null when unset): only for euid 0 and a SUDO_UID that is a decimal number other than 0, with
// a decimal SUDO_GID; nullopt otherwise.
std::optional<InvokingUser> invoking_user_from(uid_t euid, const char* sudo_uid,
                                               const char* sudo_gid);
// The same for this process (its euid and environment).
std::optional<InvokingUser> invoking_user();

// Records a folder this process created: it and everything in it are handed over.
void hand_over_folder(const std::string& path);
// Records a file this process created (or replaced by rename) in a folder it did not create.
void hand_over_file(const std::string& path);

// Gives everything recorded so far to `user` and forgets it. A folder is walked depth first
// through fds (O_NOFOLLOW, fchown, fchownat with AT_SYMLINK_NOFOLLOW): its content before itself,
// so its new owner cannot swap a name in it for a link to elsewhere while the walk runs, and a
// link is never followed. Returns one line per path that could not be changed (the first few; a
// path that is gone is not a problem). Paths are handed over in the order recorded.
std::vector<std::string> hand_over_recorded(const InvokingUser& user);

// main()'s guard: at its end, hands over what was recorded to invoking_user(), if any, and
// prints a warning line per problem.
class HandOverAtExit {
 public:
  HandOverAtExit() = default;
  HandOverAtExit(const HandOverAtExit&) = delete;
  HandOverAtExit& operator=(const HandOverAtExit&) = delete;
  ~HandOverAtExit();
};

}  // namespace xrunlab
