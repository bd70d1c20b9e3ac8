// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/jack_open_error.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

// What libjack printed when 254 clients of one run opened beside another run's 5 (JACK2
// 1.9.21, a 253-client run on 2026-12-03): the metadata database, not the server.
TEST(JackOpenFailure, TheMetadataDatabaseIsNamedWithWhatToDo) {
  const std::string why = jack_open_failure(
      "xrunlab-18568-0", 0x21,
      {"BDB2034 unable to allocate memory for mutex; resize mutex region",
       "Cannot open DB environment: Cannot allocate memory",
       "Cannot open xrunlab-18568-0-c247 client",
       "JackShmReadWritePtr1::~JackShmReadWritePtr1 - Init not done for -1, skipping unlock"},
      1000);
  EXPECT_EQ(why,
            "cannot connect to JACK server 'xrunlab-18568-0' (status 0x21): JACK's metadata "
            "database /dev/shm/jack_db-1000 could not be opened (libjack: 'Cannot open DB "
            "environment: Cannot allocate memory'); every JACK program of this user shares it "
            "and its lock region runs out with too many at once: run fewer clients beside the "
            "other JACK programs, or stop them all so that it is made anew");
  // A BDB line alone names it too.
  EXPECT_NE(jack_open_failure("s", 1, {"x", "BDB0060 other"}, 0).find("(libjack: 'BDB0060 other')"),
            std::string::npos);
}

TEST(JackOpenFailure, OtherwiseLibjacksFirstLineOrTheQuestion) {
  EXPECT_EQ(jack_open_failure("s", 0x11,
                              {"Cannot connect to server socket err = No such file or directory",
                               "jack server is not running or cannot be started"},
                              0),
            "cannot connect to JACK server 's' (status 0x11): libjack: 'Cannot connect to server "
            "socket err = No such file or directory'; is it running?");
  EXPECT_EQ(jack_open_failure("s", 0x11, {}, 0),
            "cannot connect to JACK server 's' (status 0x11); is it running?");
}

}  // namespace
}  // namespace xrunlab
