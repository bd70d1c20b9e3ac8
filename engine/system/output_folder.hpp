// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Where a root run may write: never into a folder another local user can change.
//
// Root (and sudo) writes its results by path. If a folder on that path can be written by a user
// other than root and the invoking user (SUDO_UID), that user can swap a folder or file name
// for a symbolic link between two of root's steps, and root then creates or truncates a file
// of their choosing (`jackd.log -> /etc/shadow`). So, for a process with euid 0, every folder
// on an output path is checked, from / down, symbolic links resolved as the kernel does:
//   * its owner is root, the invoking user or this process's user;
//   * nobody else can write to it: no write bit for others, nor for a group other than root's;
//     a sticky folder (like /tmp, mode 1777) is fine, since others cannot rename or remove
//     what root creates there;
//   * a symbolic link on the way is owned by one of those users too.
// A folder that passes cannot be changed afterwards by anyone untrusted, so the check holds for
// the whole run. Inside such a folder files are still created with O_NOFOLLOW and O_EXCL
// (open_output_file), as a second line. A plain user's process is not checked: another user
// could only make it overwrite its own files. Non-realtime.
#include <sys/types.h>

#include <string>
#include <vector>

namespace xrunlab {

// Who may own or write a folder on an output path.
struct FolderTrust {
  std::vector<uid_t> users;  // root, the invoking user, this process's user
};

// The trust of this process: root, its euid and the invoking user (file_owner.hpp).
FolderTrust output_trust();

// The first problem on PATH's way (PATH absolute, or relative to the working folder): the
// folders that exist are checked, the first missing one ends the walk. "" when none. The text
// names the folder, its owner and mode, e.g. "folder '/tmp/x' (owner uid 65534, mode 0777) can
// be changed by a user other than root and you".
std::string untrusted_output_folder(const std::string& path, const FolderTrust& trust);

// For euid 0: throws Error(ExitCode::kOutput) with one line naming the folder at fault and what
// to do, when untrusted_output_folder finds one. Does nothing for other users.
void check_output_folder(const std::string& path);

// Creates the output file PATH for writing (O_NOFOLLOW, O_CLOEXEC, mode 0644; O_APPEND when
// `append`). A new file is created with O_EXCL. A name that exists is reused (truncated) only
// when it is a regular file of this process's user with one link - one this program wrote before
// (a retried start) - or a character device of root's (/dev/null), never a symbolic link, a hard
// link to another file or someone else's file. Returns the fd, or -1 with errno set (ELOOP for a
// link, EEXIST for a name that is not ours).
int open_output_file(const std::string& path, bool append = false);

}  // namespace xrunlab
