// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/backend.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

TEST(Backend, ParsesEverySpec) {
  EXPECT_EQ(parse_backend("dummy").kind, BackendSpec::Kind::kDummy);
  EXPECT_EQ(parse_backend("vcard").kind, BackendSpec::Kind::kVcard);
  const BackendSpec a = parse_backend("alsa");
  EXPECT_EQ(a.kind, BackendSpec::Kind::kAlsa);
  EXPECT_EQ(a.device, "");
  const BackendSpec b = parse_backend("alsa:hw:1,0");
  EXPECT_EQ(b.kind, BackendSpec::Kind::kAlsa);
  EXPECT_EQ(b.device, "hw:1,0");  // everything after the first colon
  const BackendSpec c = parse_backend("attach:studio");
  EXPECT_EQ(c.kind, BackendSpec::Kind::kAttach);
  EXPECT_EQ(c.device, "studio");
  EXPECT_EQ(parse_backend("attach").device, "");
}

TEST(Backend, RejectsBadSpecsNamingThem) {
  for (const char* bad : {"", "soundblaster", "vcard:1", "dummy:x", "alsa:", "attach:", "ALSA"}) {
    try {
      parse_backend(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(e.what()).find(std::string("--backend ") + bad), std::string::npos)
          << e.what();
    }
  }
}

TEST(Backend, DefaultIsTheVirtualCardWithoutASoundCard) {
  EXPECT_EQ(default_backend(false), "vcard");
  EXPECT_EQ(default_backend(true), "alsa");
}

BackendSetup setup() {
  BackendSetup s;
  s.rate = 44100;
  s.frames = 128;
  s.ports = 3;
  s.nperiods = 3;
  s.server_name = "xrunlab-1-0";
  return s;
}

TEST(Backend, DummyDriverArgvAndReference) {
  auto b = make_backend(parse_backend("dummy"));
  const std::vector<std::string> want = {"-d",  "dummy", "-r", "44100", "-p",
                                         "128", "-C",    "3",  "-P",    "3"};
  EXPECT_EQ(b->driver_argv(setup()), want);
  EXPECT_EQ(b->reference(), ClientReference::kFrames);
  EXPECT_FALSE(b->reference_exact());
  EXPECT_FALSE(b->driver_xruns_reach_monitor());  // the dummy driver only logs them
  EXPECT_TRUE(b->launches_server());
  ClientArgs a;
  b->add_client_args(a);
  EXPECT_EQ(a, ClientArgs{});
  EXPECT_EQ(b->clock_port(setup()), "");
  EXPECT_FALSE(b->card_xruns_in_window().has_value());
  const BackendRecord d = b->describe();
  EXPECT_EQ(d.name, "dummy");
  EXPECT_FALSE(d.vcard || d.alsa || d.attach || d.pipewire);
}

TEST(Backend, AlsaDriverArgvUsesTheDeviceAndNperiods) {
  auto b = make_backend(parse_backend("alsa:hw:2"));
  EXPECT_EQ(b->reference(), ClientReference::kDll);
  EXPECT_TRUE(b->driver_xruns_reach_monitor());
  EXPECT_TRUE(b->server_verbose());  // the ALSA driver's xrun lines need jackd -v
  const auto argv = b->driver_argv(setup());
  ASSERT_GE(argv.size(), 10u);
  EXPECT_EQ(argv[0], "-d");
  EXPECT_EQ(argv[1], "alsa");
  const auto n = std::find(argv.begin(), argv.end(), "-n");
  ASSERT_NE(n, argv.end());
  EXPECT_EQ(*(n + 1), "3");
  // No channel counts: a real card offers what it has.
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "-i"), argv.end());
}

TEST(Backend, AttachLaunchesNothingAndLeavesTheUsersPortsAlone) {
  auto b = make_backend(parse_backend("attach:studio"));
  EXPECT_FALSE(b->launches_server());
  EXPECT_FALSE(b->wire_system_ports());
  EXPECT_EQ(b->server_name(setup()), "studio");
  EXPECT_TRUE(b->driver_argv(setup()).empty());
  EXPECT_EQ(b->reference(), ClientReference::kDll);
  const BackendRecord d = b->describe();
  EXPECT_EQ(d.name, "attach");
  ASSERT_TRUE(d.attach);
  EXPECT_EQ(d.attach->server, "studio");
  EXPECT_FALSE(d.attach->launched);
}

TEST(Backend, AttachWithoutANameTakesJacksDefault) {
  ::unsetenv("JACK_DEFAULT_SERVER");
  EXPECT_EQ(make_backend(parse_backend("attach"))->server_name(setup()), "default");
  ::setenv("JACK_DEFAULT_SERVER", "other", 1);
  EXPECT_EQ(make_backend(parse_backend("attach"))->server_name(setup()), "other");
  ::unsetenv("JACK_DEFAULT_SERVER");
}

TEST(Backend, VcardIsExactAndGivesTheClientsItsClock) {
  auto b = make_backend(parse_backend("vcard"));
  EXPECT_EQ(b->reference(), ClientReference::kCard);
  EXPECT_TRUE(b->reference_exact());
  // Every client gets the card's clock input (and, once prepare() made it, its record).
  ClientArgs a;
  b->add_client_args(a);
  EXPECT_TRUE(a.clock_port);
}

TEST(Backend, VcardWithoutItsPluginSaysWhatToDo) {
  auto b = make_backend(parse_backend("vcard"));
  BackendSetup s = setup();
  // A folder below one that does not exist, so that no relative install path (../lib/...)
  // leads out of it to an installed xrunlab.
  s.exe_dir = "/nonexistent/bin";
  s.run_dir = "/tmp";
  try {
    b->prepare(s);
    ADD_FAILURE() << "prepared without a plugin";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kMissingProgram);
    EXPECT_NE(std::string(e.what()).find("libasound_module_pcm_xrunlab.so"), std::string::npos);
  }
  b->cleanup();  // nothing was created; must not throw
}

}  // namespace
}  // namespace xrunlab
