// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sched/sys_journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "engine/base/errno_text.hpp"
#include "engine/base/file.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/system/atomic_file.hpp"

namespace xrunlab {

namespace {

constexpr const char* kFormat = "xrunlab-sys-journal";
constexpr int kVersion = 1;

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes a value to a kernel file (sysctl, cgroup knob) in one write(), as `echo` would: the
// kernel parses each write separately. False with *err set on failure.
bool write_text(const std::string& path, const std::string& value, int* err) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return false;
  }
  ssize_t n;
  do {
    n = ::write(fd, value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0 || static_cast<size_t>(n) != value.size()) {
    *err = n < 0 ? errno : EIO;
    ::close(fd);
    return false;
  }
  if (::close(fd) != 0) {
    *err = errno;
    return false;
  }
  return true;
}

std::string strip_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// For comparing kernel values: whitespace runs collapsed, ends trimmed.
std::string normalized(const std::string& s) {
  std::string out;
  bool space = false;
  for (const char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}

// A value as shown in a one-line message.
std::string shown(const std::string& v) {
  std::string out = "'";
  for (const char c : v) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + "'";
}

void fsync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

std::string current_boot_id() {
  return normalized(read_file("/proc/sys/kernel/random/boot_id").value_or(""));
}

// Alive: the pid exists, is not a zombie, and (when known) started at the recorded time, so
// that a pid reused by an unrelated process does not keep a stale journal alive.
bool owner_alive(pid_t pid, std::optional<uint64_t> start_time) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno != EPERM) return false;
  const auto st = read_proc_pid_stat(pid);
  if (!st) return true;  // exists, but /proc says nothing more: assume alive
  if (st->state == 'Z' || st->state == 'X') return false;
  if (start_time && *start_time != st->starttime) return false;
  return true;
}

// Makes the journal folder (mode 0700) and checks that it is ours: a folder in /tmp made by
// another user must not decide what root writes into /proc/sys.
void ensure_private_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    const int err = errno;
    throw SysChangeError("cannot create the journal folder " + dir + ": " + errno_text(err), err);
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    const int err = errno;
    throw SysChangeError("cannot use the journal folder " + dir + ": " + errno_text(err), err);
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & S_IWOTH) != 0) {
    throw SysChangeError(
        "the journal folder " + dir + " is not a folder owned by this user and closed to others",
        EPERM);
  }
}

nlohmann::json entry_to_json(const JournalEntry& e) {
  return {
      {"kind", e.kind}, {"path", e.path}, {"old_value", e.old_value}, {"new_value", e.new_value}};
}

struct StaleJournal {
  pid_t pid = 0;
  std::optional<uint64_t> start_time;
  std::string boot_id;
  std::vector<JournalEntry> entries;
};

// Throws std::exception (nlohmann or runtime_error) when the file is not a valid journal.
StaleJournal parse_journal(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  if (j.at("format").get<std::string>() != kFormat) throw std::runtime_error("not a journal");
  if (j.at("version").get<int>() != kVersion) throw std::runtime_error("unknown version");
  StaleJournal s;
  const auto& owner = j.at("owner");
  s.pid = owner.at("pid").get<pid_t>();
  if (owner.contains("start_time")) s.start_time = owner.at("start_time").get<uint64_t>();
  if (owner.contains("boot_id")) s.boot_id = owner.at("boot_id").get<std::string>();
  for (const auto& e : j.at("entries")) {
    JournalEntry entry;
    entry.kind = e.at("kind").get<std::string>();
    entry.path = e.at("path").get<std::string>();
    entry.old_value = e.value("old_value", "");
    entry.new_value = e.value("new_value", "");
    if ((entry.kind != "write" && entry.kind != "mkdir" && entry.kind != "mount" &&
         entry.kind != "netns") ||
        entry.path.empty() || entry.path[0] != '/') {
      throw std::runtime_error("bad entry " + e.dump());
    }
    s.entries.push_back(std::move(entry));
  }
  return s;
}

// True when the text names an owner (pid, start time) that is alive: then the journal is not
// stale, and its entries are not read. False when the owner cannot be read.
bool live_owner(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    const auto& owner = j.at("owner");
    const pid_t pid = owner.at("pid").get<pid_t>();
    if (pid == ::getpid()) return false;  // ours: the caller decides
    std::optional<uint64_t> start;
    if (owner.contains("start_time")) start = owner.at("start_time").get<uint64_t>();
    const std::string boot = owner.value("boot_id", std::string());
    if (!boot.empty() && boot != current_boot_id()) return false;
    return owner_alive(pid, start);
  } catch (const std::exception&) {
    return false;
  }
}

enum class Outcome { kRestored, kNothingToDo, kRetryLater, kGaveUp };

Outcome restore_write(const JournalEntry& e, std::string* problem) {
  const std::optional<std::string> text = read_file(e.path);
  if (!text) {
    const int err = errno;
    *problem = "cannot restore " + e.path + " to " + shown(e.old_value) + ": " + errno_text(err);
    return err == ENOENT ? Outcome::kGaveUp : Outcome::kRetryLater;
  }
  const std::string current = normalized(*text);
  if (current == normalized(e.old_value)) return Outcome::kNothingToDo;
  if (current != normalized(e.new_value)) {
    *problem = "left " + e.path + " as it is: it holds " + shown(current) + ", not the " +
               shown(e.new_value) + " this run set (changed by someone else since); it was " +
               shown(e.old_value) + " before";
    return Outcome::kGaveUp;
  }
  int err = 0;
  if (!write_text(e.path, e.old_value, &err)) {
    *problem = "cannot restore " + e.path + " to " + shown(e.old_value) + ": " + errno_text(err);
    return Outcome::kRetryLater;
  }
  return Outcome::kRestored;
}

std::vector<std::string> read_ids(const std::string& path) {
  std::vector<std::string> ids;
  std::istringstream in(read_file(path).value_or(""));
  std::string id;
  while (in >> id) ids.push_back(id);
  return ids;
}

// Moves every task listed in dir/<file> to parent/<file>. Returns the problems met (a task
// that exited meanwhile is not one).
std::string move_tasks(const std::string& dir, const std::string& parent, const std::string& file) {
  std::string problems;
  for (const auto& id : read_ids(dir + "/" + file)) {
    int err = 0;
    if (!write_text(parent + "/" + file, id, &err) && err != ESRCH) {
      problems += (problems.empty() ? "" : ", ") + std::string("cannot move ") + id + " to " +
                  parent + ": " + errno_text(err);
    }
  }
  return problems;
}

// A cgroup made by the run: its tasks go back to the parent group, its RT runtime to 0, then
// rmdir. A task that is exiting can keep the group busy for a moment, hence the retries (about
// 2 s in all).
Outcome restore_mkdir(const JournalEntry& e, std::string* problem) {
  struct stat st {};
  if (::lstat(e.path.c_str(), &st) != 0 && errno == ENOENT) return Outcome::kNothingToDo;
  const std::string parent = dir_of(e.path);
  const bool cgroup = ::access((e.path + "/cgroup.procs").c_str(), F_OK) == 0;
  std::string move_problems;
  int err = 0;
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (cgroup) {
      move_problems = move_tasks(e.path, parent, "cgroup.procs");
      const std::string threads = move_tasks(e.path, parent, "tasks");  // v1: lone threads
      if (!threads.empty()) move_problems += (move_problems.empty() ? "" : ", ") + threads;
    }
    if (cgroup) {
      // Hand the group's RT share back to its parent now: after rmdir the kernel frees it only
      // some milliseconds later (RCU), and a group made meanwhile would be refused (EINVAL).
      // Refused (EBUSY) while realtime tasks are still inside: then rmdir fails too, and retries.
      int ignored = 0;
      const std::string rt_runtime = e.path + "/cpu.rt_runtime_us";
      if (::access(rt_runtime.c_str(), F_OK) == 0) write_text(rt_runtime, "0", &ignored);
    }
    if (::rmdir(e.path.c_str()) == 0) return Outcome::kRestored;
    err = errno;
    if (err == ENOENT) return Outcome::kNothingToDo;
    if (err != EBUSY) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  *problem = "cannot remove " + e.path + ": " + errno_text(err);
  if (cgroup) {
    const auto left = read_ids(e.path + "/cgroup.procs");
    if (!left.empty()) {
      std::string pids;
      for (const auto& p : left) pids += (pids.empty() ? "" : " ") + p;
      *problem += " (processes still in it: " + pids + ")";
    }
  }
  if (!move_problems.empty()) *problem += "; " + move_problems;
  return Outcome::kRetryLater;
}

// Names in `dir` other than "." and "..".
std::vector<std::string> dir_names(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* ent = ::readdir(d)) {
    const std::string name = ent->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

// A file system the run mounted (tracefs): umount, unless another run's trace instance is in it
// (that run did not mount it and would lose its trace); then it stays, and that is said.
Outcome restore_mount(const JournalEntry& e, std::string* problem) {
  const std::vector<std::string> others = dir_names(e.path + "/instances");
  if (!others.empty()) {
    std::string names;
    for (const auto& n : others) names += (names.empty() ? "" : " ") + n;
    *problem = "left " + e.path + " mounted: trace instances of other runs are in it (" + names +
               "); umount it when they are done";
    return Outcome::kGaveUp;
  }
  if (::umount2(e.path.c_str(), 0) == 0) return Outcome::kRestored;
  const int err = errno;
  if (err == EINVAL || err == ENOENT) return Outcome::kNothingToDo;  // not mounted (any more)
  *problem = "cannot umount " + e.path + ": " + errno_text(err);
  return err == EBUSY ? Outcome::kRetryLater : Outcome::kGaveUp;
}

// A network namespace the run made: what `ip netns del` does. The lazy umount drops the mount's
// reference at once; the kernel frees the namespace (and the veth pair with an end in it) when
// no process is left inside.
Outcome restore_netns(const JournalEntry& e, std::string* problem) {
  struct stat st {};
  if (::lstat(e.path.c_str(), &st) != 0 && errno == ENOENT) return Outcome::kNothingToDo;
  if (::umount2(e.path.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
    const int err = errno;
    *problem = "cannot umount the network namespace " + e.path + ": " + errno_text(err);
    return err == EBUSY ? Outcome::kRetryLater : Outcome::kGaveUp;
  }
  if (::unlink(e.path.c_str()) != 0 && errno != ENOENT) {
    *problem = "cannot remove " + e.path + ": " + errno_text(errno);
    return Outcome::kGaveUp;
  }
  return Outcome::kRestored;
}

bool inside(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

struct RestoreResult {
  std::vector<JournalEntry> kept;  // to try again later, in journal order
  std::vector<std::string> restored;
  std::vector<std::string> problems;
  bool any_failure = false;
};

// Undoes `entries` in reverse order. "write" entries inside a directory the journal made are
// skipped: they disappear with it (and a cgroup with RT tasks would refuse runtime 0 anyway).
RestoreResult restore_entries(const std::vector<JournalEntry>& entries, const std::string& suffix) {
  RestoreResult r;
  std::vector<bool> keep(entries.size(), false);
  std::vector<bool> failed_dir(entries.size(), false);
  for (size_t i = entries.size(); i-- > 0;) {
    const JournalEntry& e = entries[i];
    bool skipped = false;
    if (e.kind == "write") {
      for (size_t k = 0; k < i; ++k) {
        if (entries[k].kind == "mkdir" && inside(e.path, entries[k].path)) skipped = true;
      }
    }
    if (skipped) continue;
    std::string problem;
    const Outcome o = e.kind == "mkdir"   ? restore_mkdir(e, &problem)
                      : e.kind == "mount" ? restore_mount(e, &problem)
                      : e.kind == "netns" ? restore_netns(e, &problem)
                                          : restore_write(e, &problem);
    switch (o) {
      case Outcome::kRestored:
        if (e.kind == "mkdir") {
          r.restored.push_back("restored " + e.path + ": removed the directory" + suffix);
        } else if (e.kind == "mount") {
          r.restored.push_back("restored " + e.path + ": unmounted the " + e.old_value + suffix);
        } else if (e.kind == "netns") {
          r.restored.push_back("restored " + e.path + ": removed the network namespace" + suffix);
        } else {
          r.restored.push_back("restored " + e.path + " to " + shown(e.old_value) + " (was " +
                               shown(e.new_value) + ")" + suffix);
        }
        break;
      case Outcome::kNothingToDo:
        break;
      case Outcome::kRetryLater:
        keep[i] = true;
        failed_dir[i] = e.kind == "mkdir";
        r.any_failure = true;
        r.problems.push_back(problem + suffix);
        break;
      case Outcome::kGaveUp:
        r.any_failure = true;
        r.problems.push_back(problem + suffix);
        break;
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    // Settings inside a directory that could not be removed stay journalled with it.
    if (entries[i].kind == "write") {
      for (size_t k = 0; k < i; ++k) {
        if (failed_dir[k] && inside(entries[i].path, entries[k].path)) keep[i] = true;
      }
    }
    if (keep[i]) r.kept.push_back(entries[i]);
  }
  return r;
}

// "journal-<uid>-<digits>.json"
bool is_journal_name(const std::string& name, const std::string& prefix) {
  const std::string ext = ".json";
  if (name.size() <= prefix.size() + ext.size()) return false;
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  if (name.compare(name.size() - ext.size(), ext.size(), ext) != 0) return false;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - ext.size());
  return std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::string uid_prefix() {
  return "journal-" + std::to_string(::geteuid()) + "-";
}

// Recovers one journal file whose owner is dead (see recover_stale); `by` says whose it was in
// the lines ("left by a crashed run"). The caller holds the folder's recovery lock.
void recover_file(const std::string& file, const std::string& boot_id,
                  std::optional<uint64_t> my_start, const std::string& by,
                  std::vector<std::string>* lines) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0) return;  // recovered by another run meanwhile
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
    lines->push_back("ignored " + file + ": not a regular file owned by this user");
    return;
  }
  const std::optional<std::string> text = read_file(file);
  if (!text) {
    lines->push_back("cannot read the journal " + file + ": " + errno_text(errno));
    return;
  }
  // A journal whose owner still runs is its owner's, whatever this version makes of its
  // entries (a newer xrunlab may journal kinds this one does not know): left alone unread.
  if (live_owner(*text)) return;
  StaleJournal j;
  try {
    j = parse_journal(*text);
  } catch (const std::exception& ex) {
    std::string why = ex.what();
    if (why.size() > 120) why = why.substr(0, 120) + "...";
    const std::string aside = file + ".corrupt";
    if (::rename(file.c_str(), aside.c_str()) == 0) {
      lines->push_back("the journal " + file + " cannot be read (" + why +
                       "): nothing restored from it, kept as " + aside);
    } else {
      lines->push_back("the journal " + file + " cannot be read (" + why +
                       ") nor be set aside: " + errno_text(errno));
    }
    return;
  }
  if (j.pid == ::getpid() && (!j.start_time || j.start_time == my_start)) return;  // ours
  if (!j.boot_id.empty() && !boot_id.empty() && j.boot_id != boot_id) {
    ::unlink(file.c_str());
    lines->push_back("discarded the journal " + file + " of pid " + std::to_string(j.pid) +
                     ": written before the last reboot, which reset its settings");
    return;
  }
  if (owner_alive(j.pid, j.start_time)) return;  // another run, still going
  RestoreResult r = restore_entries(j.entries, " " + by + " (pid " + std::to_string(j.pid) + ")");
  lines->insert(lines->end(), r.restored.begin(), r.restored.end());
  lines->insert(lines->end(), r.problems.begin(), r.problems.end());
  if (!r.any_failure) {
    ::unlink(file.c_str());
  } else {
    const std::string aside = file + ".failed";
    ::rename(file.c_str(), aside.c_str());
    lines->push_back("the journal of the crashed run (pid " + std::to_string(j.pid) +
                     ") is kept as " + aside + "; restore the settings above by hand");
  }
}

}  // namespace

std::string SysJournal::journal_path_in(const std::string& dir) {
  return dir + "/" + uid_prefix() + std::to_string(::getpid()) + ".json";
}

std::string SysJournal::default_journal_path() {
  const uid_t uid = ::geteuid();
  std::string dir;
  if (uid == 0) {
    dir = "/run/xrunlab";
  } else if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg != nullptr && xdg[0] == '/') {
    dir = std::string(xdg) + "/xrunlab";
  } else {
    dir = "/tmp/xrunlab-" + std::to_string(uid);
  }
  return journal_path_in(dir);
}

SysJournal::SysJournal(std::string journal_path)
    : path_(std::move(journal_path)), owner_pid_(::getpid()) {}

// restore_all reports each failure as a line rather than throwing (the journal's own write
// errors included); what could still escape (std::bad_alloc, a failed mutex lock) ends the
// program, as it would anywhere else in a destructor.
SysJournal::~SysJournal() {  // NOLINT(bugprone-exception-escape)
  if (::getpid() != owner_pid_) return;
  bool pending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending = !entries_.empty();
  }
  if (!pending) return;
  for (const auto& line : restore_all()) std::fprintf(stderr, "xrunlab: %s\n", line.c_str());
}

void SysJournal::save_locked() {
  const std::string dir = dir_of(path_);
  ensure_private_dir(dir);
  nlohmann::json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  nlohmann::json owner = {{"pid", owner_pid_}, {"boot_id", current_boot_id()}};
  if (const auto st = read_proc_pid_stat(owner_pid_)) owner["start_time"] = st->starttime;
  j["owner"] = owner;
  j["entries"] = nlohmann::json::array();
  for (const auto& e : entries_) j["entries"].push_back(entry_to_json(e));
  try {
    write_file_atomic(path_, j.dump(2) + "\n");
  } catch (const Error& ex) {
    throw SysChangeError(std::string("cannot write the journal of system changes: ") + ex.what(),
                         0);
  }
  fsync_dir(dir);
}

void SysJournal::sync_locked() {
  if (!entries_.empty()) return save_locked();
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) {
    const int err = errno;
    throw SysChangeError("cannot remove the journal " + path_ + ": " + errno_text(err), err);
  }
  fsync_dir(dir_of(path_));
}

void SysJournal::write_setting(const std::string& path, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (::getpid() != owner_pid_) {
    throw SysChangeError(
        "cannot change " + path + ": this journal belongs to pid " + std::to_string(owner_pid_), 0);
  }
  const std::optional<std::string> old_value = read_file(path);
  if (!old_value) {
    const int err = errno;
    throw SysChangeError("cannot read " + path + " (to journal its value): " + errno_text(err),
                         err);
  }
  entries_.push_back({"write", path, strip_newlines(*old_value), value});
  int err = 0;
  try {
    save_locked();
  } catch (...) {
    entries_.pop_back();
    throw;
  }
  if (!write_text(path, value, &err)) {
    entries_.pop_back();
    try {
      sync_locked();
    } catch (const Error&) {
      // The journal keeps an entry for a change that did not happen: restoring it is harmless.
    }
    throw SysChangeError("cannot write " + shown(value) + " to " + path + ": " + errno_text(err),
                         err);
  }
  // The kernel may show a value otherwise than it was written ("1" -> "1\n", lists ...):
  // journal what it shows, so that restore recognises it as ours.
  const std::optional<std::string> now = read_file(path);
  if (now && normalized(*now) != normalized(value)) {
    entries_.back().new_value = strip_newlines(*now);
    try {
      save_locked();
    } catch (const Error&) {
      // Keeps the written value; restore then reports a mismatch instead of restoring.
    }
  }
}

void SysJournal::make_dir(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (::getpid() != owner_pid_) {
    throw SysChangeError(
        "cannot create " + path + ": this journal belongs to pid " + std::to_string(owner_pid_), 0);
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    throw SysChangeError("cannot create " + path + ": it exists already", EEXIST);
  }
  entries_.push_back({"mkdir", path, "", ""});
  try {
    save_locked();
  } catch (...) {
    entries_.pop_back();
    throw;
  }
  if (::mkdir(path.c_str(), 0755) != 0) {
    const int err = errno;
    entries_.pop_back();
    try {
      sync_locked();
    } catch (const Error&) {
      // A journalled mkdir that did not happen restores as "nothing to do".
    }
    throw SysChangeError("cannot create " + path + ": " + errno_text(err), err);
  }
}

void SysJournal::mount_fs(const std::string& type, const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (::getpid() != owner_pid_) {
    throw SysChangeError(
        "cannot mount " + path + ": this journal belongs to pid " + std::to_string(owner_pid_), 0);
  }
  entries_.push_back({"mount", path, type, ""});
  try {
    save_locked();
  } catch (...) {
    entries_.pop_back();
    throw;
  }
  if (::mount("nodev", path.c_str(), type.c_str(), 0, nullptr) != 0) {
    const int err = errno;
    entries_.pop_back();
    try {
      sync_locked();
    } catch (const Error&) {
      // A journalled mount that did not happen restores as "nothing to do" (EINVAL).
    }
    throw SysChangeError("cannot mount " + type + " at " + path + ": " + errno_text(err), err);
  }
}

void SysJournal::make_netns(const std::string& path, const std::function<void()>& make) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (::getpid() != owner_pid_) {
    throw SysChangeError(
        "cannot make " + path + ": this journal belongs to pid " + std::to_string(owner_pid_), 0);
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    throw SysChangeError("cannot make the network namespace " + path + ": it exists already",
                         EEXIST);
  }
  entries_.push_back({"netns", path, "", ""});
  try {
    save_locked();
  } catch (...) {
    entries_.pop_back();
    throw;
  }
  try {
    make();
  } catch (...) {
    std::string ignored;
    restore_netns(entries_.back(), &ignored);
    entries_.pop_back();
    try {
      sync_locked();
    } catch (const Error&) {
      // Restored already: the entry left behind restores as "nothing to do".
    }
    throw;
  }
}

std::vector<std::string> SysJournal::restore_all() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (::getpid() != owner_pid_) {
    return {"not restoring the journal " + path_ + " of pid " + std::to_string(owner_pid_) +
            " from pid " + std::to_string(::getpid())};
  }
  RestoreResult r = restore_entries(entries_, "");
  entries_ = r.kept;
  if (entries_.empty()) {
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT) {
      r.problems.push_back("cannot remove the journal " + path_ + ": " + errno_text(errno));
    } else {
      fsync_dir(dir_of(path_));
    }
  } else {
    try {
      save_locked();
      r.problems.push_back(std::to_string(entries_.size()) +
                           " change(s) not restored stay in the journal " + path_ +
                           "; the next xrunlab start tries again");
    } catch (const Error& ex) {
      r.problems.push_back(ex.what());
    }
  }
  return r.problems;
}

std::vector<JournalEntry> SysJournal::entries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_;
}

std::vector<std::string> SysJournal::recover_stale() {
  std::vector<std::string> lines;
  const std::string dir = dir_of(path_);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return lines;  // no folder: nothing was ever journalled here
  std::vector<std::string> candidates;
  const std::string prefix = uid_prefix();
  while (const dirent* ent = ::readdir(d)) {
    const std::string name = ent->d_name;
    if (is_journal_name(name, prefix)) candidates.push_back(dir + "/" + name);
  }
  ::closedir(d);
  if (std::find(candidates.begin(), candidates.end(), path_) == candidates.end() &&
      ::access(path_.c_str(), F_OK) == 0) {
    candidates.push_back(path_);
  }
  std::sort(candidates.begin(), candidates.end());
  if (candidates.empty()) return lines;

  // Two runs starting together must not both recover (and one delete) the same journal.
  const std::string lock_path = dir + "/." + prefix + "recover.lock";
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX) != 0) {
    lines.push_back("cannot lock " + lock_path +
                    " to recover stale journals: " + errno_text(errno));
    if (lock_fd >= 0) ::close(lock_fd);
    return lines;
  }
  const std::string boot_id = current_boot_id();
  std::optional<uint64_t> my_start;
  if (const auto st = read_proc_pid_stat(::getpid())) my_start = st->starttime;
  for (const auto& file : candidates) {
    recover_file(file, boot_id, my_start, "left by a crashed run", &lines);
  }
  fsync_dir(dir);
  ::flock(lock_fd, LOCK_UN);
  ::close(lock_fd);
  return lines;
}

std::optional<std::vector<JournalEntry>> SysJournal::read_entries(const std::string& file) {
  const std::optional<std::string> text = read_file(file);
  if (!text) return std::nullopt;
  try {
    return parse_journal(*text).entries;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> SysJournal::recover_dead_owner(const std::string& file,
                                                        const std::string& by) {
  std::vector<std::string> lines;
  if (::access(file.c_str(), F_OK) != 0) return lines;  // nothing journalled, or restored
  const std::string dir = dir_of(file);
  const std::string lock_path = dir + "/." + uid_prefix() + "recover.lock";
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX) != 0) {
    lines.push_back("cannot lock " + lock_path + " to recover " + file + ": " + errno_text(errno));
    if (lock_fd >= 0) ::close(lock_fd);
    return lines;
  }
  std::optional<uint64_t> my_start;
  if (const auto st = read_proc_pid_stat(::getpid())) my_start = st->starttime;
  recover_file(file, current_boot_id(), my_start, by, &lines);
  fsync_dir(dir);
  ::flock(lock_fd, LOCK_UN);
  ::close(lock_fd);
  return lines;
}

}  // namespace xrunlab
