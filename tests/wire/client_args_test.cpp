// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab-client's argv contract (engine/wire/client_args.hpp): to_argv and parse_client_args
// are inverse, every refusal is a usage error naming its option, nothing exits the process.
#include "engine/wire/client_args.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xrunlab {
namespace {

struct Parsed {
  std::optional<ClientArgs> args;
  std::string error;
  int exit_code = -1;
};

Parsed parse(const std::vector<std::string>& options) {
  std::vector<const char*> argv{"xrunlab-client"};
  for (const std::string& o : options) argv.push_back(o.c_str());
  Parsed p;
  p.args = parse_client_args(static_cast<int>(argv.size()), argv.data(), &p.error, &p.exit_code);
  return p;
}

ThreadTarget fifo(int prio) {
  ThreadTarget t;
  t.policy = kSchedFifo;
  t.rt_priority = prio;
  return t;
}

// Hand-built arguments; between them every field differs from its default at least once.
std::vector<ClientArgs> samples() {
  std::vector<ClientArgs> v;
  v.emplace_back();  // all defaults

  ClientArgs engine;  // what the engine sends a middle client on the dummy backend
  engine.server = "xrunlab-1234-1";
  engine.name = "xrunlab-c02";
  engine.index = 2;
  engine.ports = 2;
  engine.dsp_load_pct = 12.5;
  engine.telemetry_fd = 3;
  engine.wait_start = true;
  engine.sched_target = fifo(65);
  engine.dsp_ns_per_stage = 2688.309;  // the engine's one calibration for all clients
  v.push_back(engine);

  ClientArgs head = engine;  // the head of an audible chain on the vcard, with a fault
  head.index = 1;
  head.dsp_load_pct = 33.333333;
  head.inject = InjectSpec{2000, 100};
  head.reference = ClientReference::kCard;
  head.clock_port = true;
  head.card_shm = "/xrunlab-vcard-1234";
  head.cycle_table = "/xrunlab-cycles-1234";
  head.check_port = true;
  head.source = true;
  head.source_file = "/home/me/my song.flac";  // a space: argv, never a shell
  v.push_back(head);

  ClientArgs tail;  // the tail, standalone, recording
  tail.index = 7;
  tail.ports = 256;
  tail.dsp_load_pct = 100;
  tail.duration_s = 2.5;
  tail.reference = ClientReference::kDll;
  tail.check_port = true;
  tail.sink = true;
  tail.record_dir = "/tmp/audio dir";  // a space: argv, never a shell
  tail.record_format = "flac";
  tail.telemetry_fd = 0;
  ThreadTarget dl;
  dl.policy = kSchedDeadline;
  dl.dl_runtime_ns = 300000;
  dl.dl_deadline_ns = dl.dl_period_ns = 1333333;
  dl.dl_flags = kSchedFlagReclaim;
  tail.sched_target = dl;
  v.push_back(tail);

  ClientArgs other;
  other.duration_s = 0.1;  // not exact in binary: read back to the same double
  ThreadTarget nice;
  nice.policy = kSchedOther;
  nice.nice = -20;
  other.sched_target = nice;
  other.inject = InjectSpec{1, 1, 0, 7};
  other.dsp_ramp =
      DspRampSpec{0.071428571428571425, 30, 7.1428571428571432};  // 1 % and 100 % of 14
  v.push_back(other);

  ClientArgs calibration;  // what the engine runs once before the clients
  calibration.ports = 4;
  calibration.calibrate_rate = 48000;
  calibration.calibrate_frames = 1024;
  v.push_back(calibration);
  return v;
}

TEST(ClientArgs, RoundTripsThroughArgv) {
  for (const ClientArgs& a : samples()) {
    const std::vector<std::string> argv = to_argv(a);
    std::string joined;
    for (const std::string& s : argv) joined += " " + s;
    const Parsed p = parse(argv);
    ASSERT_TRUE(p.args.has_value()) << joined << ": " << p.error;
    EXPECT_EQ(p.exit_code, 0) << joined;
    EXPECT_EQ(p.error, "") << joined;
    EXPECT_TRUE(*p.args == a) << joined;
    EXPECT_EQ(to_argv(*p.args), argv);
  }
}

TEST(ClientArgs, EveryFieldDiffersFromItsDefaultInSomeSample) {
  const ClientArgs d;
  bool server = false, name = false, index = false, ports = false, dsp = false, inject = false,
       fd = false, wait = false, duration = false, sched = false, reference = false, clock = false,
       shm = false, table = false, check = false, source = false, sink = false, record = false,
       file = false, format = false, ns = false, calibrate = false, ramp = false;
  for (const ClientArgs& a : samples()) {
    server |= a.server != d.server;
    name |= a.name != d.name;
    index |= a.index != d.index;
    ports |= a.ports != d.ports;
    dsp |= a.dsp_load_pct != d.dsp_load_pct;
    inject |= a.inject != d.inject;
    fd |= a.telemetry_fd != d.telemetry_fd;
    wait |= a.wait_start != d.wait_start;
    duration |= a.duration_s != d.duration_s;
    sched |= !(a.sched_target == d.sched_target);
    reference |= a.reference != d.reference;
    clock |= a.clock_port != d.clock_port;
    shm |= a.card_shm != d.card_shm;
    table |= a.cycle_table != d.cycle_table;
    check |= a.check_port != d.check_port;
    source |= a.source != d.source;
    sink |= a.sink != d.sink;
    record |= a.record_dir != d.record_dir;
    file |= a.source_file != d.source_file;
    format |= a.record_format != d.record_format;
    ns |= a.dsp_ns_per_stage != d.dsp_ns_per_stage;
    ramp |= a.dsp_ramp != d.dsp_ramp;
    calibrate |= a.calibrate_rate != d.calibrate_rate && a.calibrate_frames != d.calibrate_frames;
  }
  EXPECT_TRUE(server && name && index && ports && dsp && inject && fd && wait && duration &&
              sched && reference && clock && shm && table && check && source && sink && record &&
              file && format && ns && calibrate && ramp);
}

TEST(ClientArgs, EqualityLooksAtEveryField) {
  const std::vector<ClientArgs> v = samples();
  for (size_t i = 0; i < v.size(); ++i) {
    for (size_t j = 0; j < v.size(); ++j) EXPECT_EQ(v[i] == v[j], i == j) << i << " " << j;
  }
  ClientArgs a, b;
  b.record_format = "flac";  // the last field
  EXPECT_FALSE(a == b);
  b = a;
  b.source_file = "x";
  EXPECT_FALSE(a == b);
  b = a;
  b.server = "x";  // the first
  EXPECT_FALSE(a == b);
}

TEST(ClientArgs, DefaultsNeedNoArgumentAndWriteNone) {
  const Parsed p = parse({});
  ASSERT_TRUE(p.args.has_value());
  EXPECT_TRUE(*p.args == ClientArgs{});
  EXPECT_TRUE(to_argv(ClientArgs{}).empty());
  const ClientArgs& a = *p.args;
  EXPECT_EQ(a.name, "xrunlab-client");
  EXPECT_EQ(a.index, 1);
  EXPECT_EQ(a.ports, 4);
  EXPECT_EQ(a.telemetry_fd, 1);
  EXPECT_EQ(a.reference, ClientReference::kFrames);
  EXPECT_FALSE(a.inject.has_value());
  EXPECT_FALSE(a.sched_target.has_value());
}

TEST(ClientArgs, WritesTheEnginesSpellings) {
  ClientArgs a;
  a.dsp_load_pct = 5;
  a.inject = InjectSpec{2000, 100};
  a.sched_target = fifo(70);
  a.reference = ClientReference::kDll;
  a.wait_start = true;
  EXPECT_EQ(to_argv(a), (std::vector<std::string>{"--dsp-load", "5.000000", "--inject-overrun",
                                                  "2000:100", "--wait-start", "--sched-target",
                                                  "FIFO:70", "--reference", "dll"}));
}

// The command line the engine builds (engine/run/client_fleet.cpp) is accepted as it is,
// including options given at their default value.
TEST(ClientArgs, AcceptsTheEnginesHandBuiltArgv) {
  const Parsed p = parse({"--server",         "xrunlab-99-1",
                          "--name",           "xrunlab-c03",
                          "--index",          "3",
                          "--ports",          "4",
                          "--dsp-load",       "3.333333",
                          "--telemetry-fd",   "3",
                          "--wait-start",     "--sched-target",
                          "FIFO:65",          "--reference",
                          "frames",           "--check-port",
                          "--sink",           "--record-dir",
                          "/r/audio",         "--clock-port",
                          "--card-shm",       "/xrunlab-vcard-99",
                          "--inject-overrun", "2000:50"});
  ASSERT_TRUE(p.args.has_value()) << p.error;
  const ClientArgs& a = *p.args;
  EXPECT_EQ(a.server, "xrunlab-99-1");
  EXPECT_EQ(a.name, "xrunlab-c03");
  EXPECT_EQ(a.index, 3);
  EXPECT_EQ(a.ports, 4);
  EXPECT_EQ(a.dsp_load_pct, 3.333333);
  EXPECT_EQ(a.telemetry_fd, 3);
  EXPECT_TRUE(a.wait_start);
  ASSERT_TRUE(a.sched_target.has_value());
  EXPECT_TRUE(*a.sched_target == fifo(65));
  EXPECT_EQ(a.reference, ClientReference::kFrames);
  EXPECT_TRUE(a.check_port);
  EXPECT_FALSE(a.source);
  EXPECT_TRUE(a.sink);
  EXPECT_EQ(a.record_dir, "/r/audio");
  EXPECT_TRUE(a.clock_port);
  EXPECT_EQ(a.card_shm, "/xrunlab-vcard-99");
  EXPECT_EQ(a.inject, (InjectSpec{2000, 50}));
}

struct Refusal {
  std::vector<std::string> argv;
  std::string names;  // the option the message must name
};

TEST(ClientArgs, EveryRefusalIsAUsageErrorNamingTheOption) {
  const std::vector<Refusal> refusals = {
      {{"--ports", "0"}, "--ports"},
      {{"--ports", "257"}, "--ports"},
      {{"--ports", "four"}, "--ports"},
      {{"--index", "0"}, "--index"},
      {{"--dsp-load", "100.5"}, "--dsp-load"},
      {{"--dsp-load", "-1"}, "--dsp-load"},
      {{"--telemetry-fd", "-1"}, "--telemetry-fd"},
      {{"--duration", "-2"}, "--duration"},
      {{"--duration", "inf"}, "--duration"},
      {{"--duration", "soon"}, "--duration"},
      {{"--reference", "tsc"}, "--reference"},
      {{"--inject-overrun", "2000"}, "--inject-overrun '2000': "},
      {{"--calibrate", "48000"}, "--calibrate '48000': "},
      {{"--calibrate", "48000:0"}, "--calibrate '48000:0': "},
      {{"--calibrate", "48000:1024x"}, "--calibrate '48000:1024x': "},
      {{"--dsp-ns-per-stage", "-1"}, "--dsp-ns-per-stage"},
      {{"--inject-overrun", "0:100"}, "--inject-overrun '0:100': "},
      {{"--inject-overrun", "2000:x"}, "--inject-overrun '2000:x': "},
      {{"--inject-overrun", "spin:0"}, "--inject-overrun 'spin:0': "},
      {{"--inject-overrun", "spin:"}, "--inject-overrun 'spin:': "},
      {{"--sched-target", "FIFO:0"}, "--sched-target 'FIFO:0': "},
      {{"--sched-target", "fast"}, "--sched-target 'fast': "},
      {{"--source"}, "--check-port"},
      {{"--sink"}, "--check-port"},
      {{"--reference", "card"}, "--clock-port"},
      {{"--source-file", "a.flac"}, "--source-file needs --source or --sink"},
      {{"--record-format", "mp3"}, "--record-format"},
      {{"--no-such-flag"}, "--no-such-flag"},
      {{"--name"}, "--name"},
  };
  for (const Refusal& r : refusals) {
    std::string joined;
    for (const std::string& s : r.argv) joined += " " + s;
    const Parsed p = parse(r.argv);
    EXPECT_FALSE(p.args.has_value()) << joined;
    EXPECT_EQ(p.exit_code, 2) << joined;
    EXPECT_NE(p.error.find(r.names), std::string::npos) << joined << ": " << p.error;
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << joined << ": " << p.error;
  }
  // The messages of the checks xrunlab-client makes itself, whole.
  EXPECT_EQ(parse({"--sched-target", "FIFO:0"}).error,
            "--sched-target 'FIFO:0': expected FIFO:PRIO with PRIO 1..99");
  EXPECT_EQ(parse({"--inject-overrun", "2000"}).error,
            "--inject-overrun '2000': expected USEC:EVERY_N_CYCLES, e.g. 2000:100, or "
            "spin:CYCLE, e.g. spin:500");
  EXPECT_EQ(parse({"--sink"}).error, "--source and --sink need --check-port");
  EXPECT_EQ(parse({"--reference", "card"}).error, "--reference card needs --clock-port");
  // The same flags are accepted together with what they need.
  EXPECT_TRUE(parse({"--reference", "card", "--clock-port"}).args.has_value());
  EXPECT_TRUE(parse({"--sink", "--check-port"}).args.has_value());
}

TEST(ClientArgs, HelpAndVersionPrintAndSucceedWithoutArguments) {
  testing::internal::CaptureStdout();
  const Parsed help = parse({"--help"});
  const std::string help_text = testing::internal::GetCapturedStdout();
  EXPECT_FALSE(help.args.has_value());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.error, "");
  for (const char* flag :
       {"--server", "--name", "--index", "--ports", "--dsp-load", "--inject-overrun",
        "--telemetry-fd", "--wait-start", "--duration", "--sched-target", "--reference",
        "--clock-port", "--card-shm", "--check-port", "--source", "--sink", "--record-dir"}) {
    EXPECT_NE(help_text.find(flag), std::string::npos) << flag;
  }
  EXPECT_NE(help_text.find("USEC:EVERY_N_CYCLES"), std::string::npos);

  testing::internal::CaptureStdout();
  const Parsed version = parse({"--version"});
  const std::string version_text = testing::internal::GetCapturedStdout();
  EXPECT_FALSE(version.args.has_value());
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version_text.rfind("xrunlab-client ", 0), 0u) << version_text;
}

TEST(ClientArgs, ReferenceSpellings) {
  for (ClientReference r :
       {ClientReference::kFrames, ClientReference::kDll, ClientReference::kCard}) {
    EXPECT_EQ(parse_client_reference(to_string(r)), r);
  }
  EXPECT_STREQ(to_string(ClientReference::kCard), "card");
  EXPECT_FALSE(parse_client_reference("Card").has_value());
  EXPECT_FALSE(parse_client_reference("").has_value());
}

TEST(InjectSpec, FormatAndParseAreInverse) {
  for (const InjectSpec s :
       {InjectSpec{1, 1}, InjectSpec{2000, 100}, InjectSpec{18446744073709551615ull, 3}}) {
    std::string why;
    EXPECT_EQ(parse_inject_spec(format_inject_spec(s), &why), s) << why;
  }
  EXPECT_EQ(format_inject_spec(InjectSpec{2000, 100}), "2000:100");
  std::string why;
  // From a DSP ramp's step on (--dsp-ramp): a third number, positive.
  EXPECT_EQ(parse_inject_spec("2000:100:3", &why), (InjectSpec{2000, 100, 0, 3}));
  EXPECT_EQ(format_inject_spec(InjectSpec{2000, 100, 0, 3}), "2000:100:3");
  EXPECT_FALSE(parse_inject_spec("2000:100:0", &why).has_value());
  EXPECT_FALSE(parse_inject_spec("2000:100:3:4", &why).has_value());
  EXPECT_FALSE(parse_inject_spec("+5:1", &why).has_value());
  EXPECT_FALSE(parse_inject_spec("18446744073709551616:1", &why).has_value());  // 2^64
  EXPECT_FALSE(parse_inject_spec("5:0", nullptr).has_value());
}

TEST(DspRampSpec, ParsesItsThreeNumbersAndRefusesTheRest) {
  std::string why;
  EXPECT_EQ(parse_dsp_ramp_spec("0.25:30:25", &why), (DspRampSpec{0.25, 30, 25})) << why;
  EXPECT_EQ(format_dsp_ramp_spec(DspRampSpec{0.25, 30, 25}), "0.25:30:25");
  for (const char* bad : {"", "1", "1:2", "0:30:25", "1:0:25", "1:30:0", "1:30:101", "1:30:25x",
                          " 1:30:25", "-1:30:25", "1:+30:25", "nan:30:25"}) {
    EXPECT_FALSE(parse_dsp_ramp_spec(bad, &why).has_value()) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(InjectSpec, SpinAtACycleIsItsOwnForm) {
  std::string why;
  const std::optional<InjectSpec> spin = parse_inject_spec("spin:500", &why);
  ASSERT_TRUE(spin.has_value()) << why;
  EXPECT_EQ(*spin, (InjectSpec{0, 0, 500}));
  EXPECT_EQ(format_inject_spec(*spin), "spin:500");
  EXPECT_NE(*spin, (InjectSpec{0, 0, 501}));
  EXPECT_FALSE(parse_inject_spec("spin:0", &why).has_value());
  EXPECT_EQ(why, "spin:CYCLE needs a positive whole CYCLE");
  EXPECT_FALSE(parse_inject_spec("spin:-3", nullptr).has_value());
  EXPECT_FALSE(parse_inject_spec("spin", nullptr).has_value());
  EXPECT_FALSE(parse_inject_spec("Spin:5", nullptr).has_value());
  // Through the client's argv and back.
  ClientArgs a;
  a.inject = spin;
  const std::vector<std::string> argv = to_argv(a);
  EXPECT_EQ(argv, (std::vector<std::string>{"--inject-overrun", "spin:500"}));
  const Parsed back = parse(argv);
  ASSERT_TRUE(back.args.has_value()) << back.error;
  EXPECT_EQ(back.args->inject, spin);
}

}  // namespace
}  // namespace xrunlab
