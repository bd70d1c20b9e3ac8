// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/x_display.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab::load_tool {
namespace {

using namespace std::chrono_literals;
using testing_support::path_exists;
using testing_support::TempDir;

// The display number read from a pipe that `written` was written to (the write end closed when
// `close` says so).
int read_from_pipe(const std::string& written, bool close, std::string* why,
                   std::chrono::milliseconds timeout = 2000ms) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  EXPECT_EQ(::write(fds[1], written.data(), written.size()), static_cast<ssize_t>(written.size()));
  if (close) ::close(fds[1]);
  const int display = read_display_number(fds[0], timeout, why);
  ::close(fds[0]);
  if (!close) ::close(fds[1]);
  return display;
}

TEST(XDisplay, ReadsTheNumberTheServerWrites) {
  std::string why;
  EXPECT_EQ(read_from_pipe("0\n", false, &why), 0) << why;
  EXPECT_EQ(read_from_pipe("17\n", true, &why), 17) << why;
  EXPECT_EQ(read_from_pipe("1024\n", false, &why), 1024) << why;
}

TEST(XDisplay, NoNumberIsOneLineSayingWhy) {
  std::string why;
  EXPECT_EQ(read_from_pipe("", true, &why), -1);
  EXPECT_NE(why.find("ended before it named its display"), std::string::npos) << why;
  EXPECT_EQ(read_from_pipe("x1\n", true, &why), -1);
  EXPECT_NE(why.find("'x1'"), std::string::npos) << why;
  EXPECT_EQ(read_from_pipe("\n", true, &why), -1);
  EXPECT_EQ(read_from_pipe("123456789\n", true, &why), -1);
  EXPECT_EQ(read_from_pipe("3", false, &why, 100ms), -1) << "no newline, pipe still open";
  EXPECT_NE(why.find("within 100 ms"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
}

TEST(XDisplay, TheRecordForTheJanitorRoundTrips) {
  EXPECT_EQ(x_display_record(3, 4242), "3 4242\n");
  int display = -1;
  pid_t server = -1;
  ASSERT_TRUE(parse_x_display_record(x_display_record(3, 4242), &display, &server));
  EXPECT_EQ(display, 3);
  EXPECT_EQ(server, 4242);
  ASSERT_TRUE(parse_x_display_record("0 17", &display, &server));
  EXPECT_EQ(display, 0);
  for (const char* bad :
       {"", "3", "3 ", " 3 4242", "3 4242 5", "-1 4242", "3 0", "3 -5", "x 1", "3 4242\n\n"}) {
    EXPECT_FALSE(parse_x_display_record(bad, &display, &server)) << bad;
  }
}

// A unix socket bound at `path`; listening unless `listen` is false. Returns its descriptor.
int bind_socket(const std::string& path, bool listen) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_GE(s, 0);
  EXPECT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0) << path;
  if (listen) {
    EXPECT_EQ(::listen(s, 1), 0);
  }
  return s;
}

TEST(XDisplay, RemovesOnlyAStaleSocketAndItsServersLock) {
  const TempDir tmp("xdisplay");
  ASSERT_EQ(::mkdir(tmp.file(".X11-unix").c_str(), 0755), 0);
  EXPECT_EQ(x_socket_path(tmp.str(), 7), tmp.str() + "/.X11-unix/X7");
  EXPECT_EQ(x_lock_path(tmp.str(), 7), tmp.str() + "/.X7-lock");

  // Display 7: its server is gone (the socket is bound, nobody listens), its lock names it.
  ::close(bind_socket(x_socket_path(tmp.str(), 7), false));
  tmp.write(".X7-lock", "      4242\n");
  EXPECT_EQ(remove_stale_x_files(tmp.str(), 7, 4242), "");
  EXPECT_FALSE(path_exists(x_socket_path(tmp.str(), 7)));
  EXPECT_FALSE(path_exists(x_lock_path(tmp.str(), 7)));
  EXPECT_EQ(remove_stale_x_files(tmp.str(), 7, 4242), "") << "nothing there: fine";

  // Display 8: a server listens (another one took the display), and the lock names another pid.
  const int live = bind_socket(x_socket_path(tmp.str(), 8), true);
  tmp.write(".X8-lock", "      5000\n");
  EXPECT_EQ(remove_stale_x_files(tmp.str(), 8, 4242), "");
  EXPECT_TRUE(path_exists(x_socket_path(tmp.str(), 8)));
  EXPECT_TRUE(path_exists(x_lock_path(tmp.str(), 8)));
  ::close(live);

  // Display 9: not a socket, and a lock that is a symlink: both kept.
  tmp.write(".X11-unix/X9", "a file");
  tmp.write("target", "      4242\n");
  ASSERT_EQ(::symlink(tmp.file("target").c_str(), x_lock_path(tmp.str(), 9).c_str()), 0);
  EXPECT_EQ(remove_stale_x_files(tmp.str(), 9, 4242), "");
  EXPECT_TRUE(path_exists(x_socket_path(tmp.str(), 9)));
  EXPECT_TRUE(path_exists(tmp.file("target")));
}

}  // namespace
}  // namespace xrunlab::load_tool
