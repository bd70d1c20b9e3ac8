// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The private X server of the x11 load: the display number Xvfb chose itself (-displayfd), and
// what a server killed with SIGKILL leaves behind (its socket /tmp/.X11-unix/X<n>, its lock
// /tmp/.X<n>-lock) removed, only when it is provably that server's. Non-realtime.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>

// Internal to the loads library: the parts of the xrunlab-load program.
namespace xrunlab::load_tool {

// Reads the display number an X server started with -displayfd writes to `fd` ("N\n") once it
// accepts connections. -1 and *why (one line) when the server closed `fd` without one, wrote
// something else, or `timeout` passed first.
int read_display_number(int fd, std::chrono::milliseconds timeout, std::string* why);

// The socket and lock file of display `display` under `tmp` ("/tmp"; another folder in tests).
std::string x_socket_path(const std::string& tmp, int display);
std::string x_lock_path(const std::string& tmp, int display);

// The file in the x11 load's scratch folder that names its X server's display and pid, for the
// run's janitor: a server the janitor kills with SIGKILL (the engine died) cannot remove its
// socket, so the janitor does, with remove_stale_x_files, before it removes the scratch folder.
inline constexpr const char* kXDisplayFile = "x11-display";
// Its content, "N PID\n".
std::string x_display_record(int display, pid_t server);
// False when `text` is not "N PID" (a trailing newline allowed).
bool parse_x_display_record(std::string_view text, int* display, pid_t* server);

// After the server `server` of display `display` has ended: removes its socket when it is still
// there, is a socket owned by this user and refuses connections (no server listens on it any
// more), and its lock file when it is a regular file owned by this user that names `server`.
// "" or one line per file it could not remove.
std::string remove_stale_x_files(const std::string& tmp, int display, pid_t server);

}  // namespace xrunlab::load_tool
