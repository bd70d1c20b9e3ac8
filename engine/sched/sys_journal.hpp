// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A crash-safe journal of the system settings a run changes (sysctl and cgroup files, cgroups it
// creates). Every change is written to the journal (atomically, fsync'd) BEFORE it is made, and
// undone at exit by restore_all(). If the engine dies without restoring (SIGKILL, crash), the
// next start finds the journal of the dead run and restores it: recover_stale().
//
// Files: one journal per engine process, "<dir>/journal-<uid>-<pid>.json", so that several runs
// can work at once. <dir> is /run/xrunlab for root, $XDG_RUNTIME_DIR/xrunlab (else
// /tmp/xrunlab-<uid>) for other users: on a tmpfs a reboot clears both the journal and the
// settings it protects. The journal holds the owner (pid, its start time, the boot id) and the
// entries in the order they were made. A journal is stale when its owner is not alive: no such
// pid, a zombie, or a pid reused by another process (start time differs), or it was written
// before the last reboot (then it is discarded: the reboot reset the settings).
//
// Not for realtime code: every call does file I/O. One SysJournal per process.
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"

namespace xrunlab {

struct JournalEntry {
  // "write": a file such as a sysctl or cgroup knob; restored by writing old_value back.
  // "mkdir": a directory (cgroup) made by this run; restored by moving its tasks to the parent
  //          group, setting its cpu.rt_runtime_us (if any) to 0 so that the parent gets the RT
  //          share back at once, and removing it. "write" entries inside it are not restored:
  //          they go with it. A tracefs instance (engine/trace) is one too: its rmdir stops its
  //          tracing and frees its ring buffer.
  // "mount": a file system this run mounted at `path` (tracefs, old_value = its type); restored
  //          by umount, unless another run still has a trace instance in it (then it is left
  //          mounted for that run, and that is said).
  std::string kind;
  std::string path;
  std::string old_value;  // "write": the file's content before the change (trailing \n removed)
  std::string new_value;  // "write": what this run wrote
};

// The Error thrown when a change fails; carries the errno of the failed system call (0 if none)
// so that callers can explain kernel rules (EINVAL, EBUSY ...).
class SysChangeError : public Error {
 public:
  SysChangeError(const std::string& message, int error_number)
      : Error(ExitCode::kRunFailed, message), error_number_(error_number) {}
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

class SysJournal {
 public:
  // The journal file of this process in the default folder (see above).
  static std::string default_journal_path();
  // The journal file of this process in `dir` (tests; or another folder on a tmpfs).
  static std::string journal_path_in(const std::string& dir);

  // Nothing is written until the first change.
  explicit SysJournal(std::string journal_path = default_journal_path());
  // Restores what is still journalled (see restore_all) and prints any problem to stderr, but
  // only in the process that made the changes (a forked child never restores its parent's).
  ~SysJournal();  // NOLINT(bugprone-exception-escape): see the definition
  SysJournal(const SysJournal&) = delete;
  SysJournal& operator=(const SysJournal&) = delete;

  // Call at start, before changing anything. Scans the journal's folder for journals of this
  // uid ("journal-<uid>-<pid>.json", plus this object's own path) whose owner is not alive,
  // restores each one's entries (LIFO), and deletes it. Returns one printable line per restored
  // entry ("restored <path> to <old> (was <new>) left by a crashed run (pid N)") and per problem
  // (a journal that cannot be read is renamed <file>.corrupt; one whose entries could not all
  // be restored is renamed <file>.failed). Journals of live owners are left alone. A lock file
  // in the folder keeps two starting runs from recovering the same journal. Never throws.
  std::vector<std::string> recover_stale();

  // The journal `file` of another process (the engine a janitor watches, engine/janitor) once
  // its owner is dead: restored exactly as recover_stale() restores one journal (under the same
  // lock), the lines saying `by` whom it was left ("left by the killed engine"). Nothing when
  // the file does not exist or its owner lives. Never throws.
  static std::vector<std::string> recover_dead_owner(const std::string& file,
                                                     const std::string& by);
  // The entries of the journal `file`, in the order made; nullopt when it cannot be read or is
  // not a journal. Never throws.
  static std::optional<std::vector<JournalEntry>> read_entries(const std::string& file);

  // Records the change (journal written atomically and fsync'd) BEFORE making it, then makes
  // it. write_setting reads the old value first. If the change fails, its entry is taken out of
  // the journal again and SysChangeError (ExitCode::kRunFailed) is thrown naming the path.
  void write_setting(const std::string& path, const std::string& value);
  // mkdir (for a cgroup). The directory must not exist yet.
  void make_dir(const std::string& path);
  // mount(2) of a pseudo file system without a device (tracefs): `type` at `path`, which must
  // exist and not be a mount point yet.
  void mount_fs(const std::string& type, const std::string& path);
  // A named network namespace: journalled as "netns" at `path` (/run/netns/NAME), then `make`
  // is called, which makes it (`ip netns add NAME`). When `make` throws, the entry is restored
  // at once (whatever part of the namespace was made goes) and taken out, and the exception
  // passes on.
  void make_netns(const std::string& path, const std::function<void()>& make);

  // Restores everything this run changed, LIFO, then removes its journal file. A "write" is put
  // back only if the file still holds what this run wrote (someone else's later change is not
  // overwritten; that is reported). Entries that could not be restored stay in the journal, so
  // the next start tries again. Never throws; returns problems as printable lines.
  std::vector<std::string> restore_all();

  std::vector<JournalEntry> entries() const;
  const std::string& journal_path() const { return path_; }

 private:
  void save_locked();  // writes the journal; throws SysChangeError
  void sync_locked();  // save_locked(), or removes the file when no entry is left

  std::string path_;
  int owner_pid_;
  mutable std::mutex mutex_;
  std::vector<JournalEntry> entries_;
};

}  // namespace xrunlab
