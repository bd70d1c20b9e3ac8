// SPDX-License-Identifier: GPL-2.0-or-later
// Campaign files (engine/campaign/campaign_spec.hpp): what they say as typed data, and one-line
// errors naming the file, the line and the key.
#include "engine/campaign/campaign_spec.hpp"

#include <gtest/gtest.h>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_campaign(text, "c.toml");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "";
}

TEST(CampaignSpec, ReadsEveryKeyInTheFilesOrder) {
  const CampaignSpec s = parse_campaign(R"(name = "iso-vs-fifo"
repetitions = 3
order = "sequential"
seed = 42
warmup_s = 2.5
[run]
period = 128
dsp_load = 25
load = ["hackbench", "io-write"]
plots = false
clients = 14
[axes]
policy = ["fifo", "iso-emu:70", "other:-20"]
nperiods = [2, 3]
)",
                                        "c.toml");
  EXPECT_EQ(s.name, "iso-vs-fifo");
  EXPECT_EQ(s.repetitions, 3);
  EXPECT_EQ(s.order, "sequential");
  EXPECT_EQ(s.seed, 42u);
  EXPECT_DOUBLE_EQ(s.warmup_s, 2.5);
  ASSERT_EQ(s.fixed.size(), 5u);
  EXPECT_EQ(s.fixed[0].key, "period");
  EXPECT_EQ(s.fixed[0].values, std::vector<std::string>{"128"});
  EXPECT_EQ(s.fixed[1].key, "dsp-load") << "underscores are the flags' dashes";
  EXPECT_EQ(s.fixed[2].values, (std::vector<std::string>{"hackbench", "io-write"}));
  EXPECT_EQ(s.fixed[3].values, std::vector<std::string>{"false"});
  EXPECT_EQ(s.fixed[4].key, "clients") << "the file's order, not the keys' sorted order";
  EXPECT_EQ(s.fixed[4].line, 11);
  ASSERT_EQ(s.axes.size(), 2u);
  EXPECT_EQ(s.axes[0].key, "policy");
  EXPECT_EQ(s.axes[0].values.size(), 3u);
  EXPECT_EQ(s.axes[1].key, "nperiods");
  EXPECT_EQ(s.axes[1].values, (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(s.axes[1].line, 14);
}

TEST(CampaignSpec, DefaultsAreOneShuffledRepetitionWithoutAxes) {
  const CampaignSpec s = parse_campaign("name = \"x\"\n", "c.toml");
  EXPECT_EQ(s.repetitions, 1);
  EXPECT_EQ(s.order, "shuffled");
  EXPECT_FALSE(s.seed);
  EXPECT_TRUE(s.axes.empty());
  EXPECT_TRUE(s.sections.empty());
}

TEST(CampaignSpec, SectionsAreReadOnceEachAndPingIsARunFlag) {
  const CampaignSpec s = parse_campaign(
      "name = \"x\"\nsections = [\"maxima-spread\", \"maxima-spread\"]\n[run]\nping = true\n"
      "ping_rate = 200\n",
      "c.toml");
  EXPECT_EQ(s.sections, std::vector<std::string>{"maxima-spread"});
  ASSERT_EQ(s.fixed.size(), 2u);
  EXPECT_EQ(s.fixed[0].key, "ping");
  EXPECT_EQ(s.fixed[1].key, "ping-rate");
}

TEST(CampaignSpec, ErrorsNameTheFileTheLineAndTheKey) {
  EXPECT_EQ(error_of("name = \"x\"\nrepetitions = 0\n"),
            "c.toml:2: repetitions: expected a whole number from 1 to 1000");
  EXPECT_EQ(error_of("name = \"x\"\norder = \"random\"\n"),
            "c.toml:2: order: expected \"shuffled\" or \"sequential\"");
  EXPECT_EQ(error_of("name = \"x\"\n[run]\nperiod = 64\nlabel = \"a\"\n"),
            "c.toml:4: [run] label: the campaign sets it (each case's label, the campaign "
            "folder)");
  EXPECT_EQ(error_of("name = \"x\"\n[run]\nfrobnicate = 1\n"),
            "c.toml:3: [run] frobnicate: not an option of `xrunlab run` a campaign can set");
  EXPECT_EQ(error_of("name = \"x\"\n[run]\nperiod = [64, 128]\n"),
            "c.toml:3: [run] period: one value (only load may be a list: several loads at "
            "once)");
  EXPECT_EQ(error_of("name = \"x\"\n[axes]\ncolour = [\"red\"]\n"),
            "c.toml:3: [axes] colour: not an axis a campaign can vary (axes: policy, load, "
            "backend, period, clients, dsp-load, ports, nperiods)");
  EXPECT_EQ(error_of("name = \"x\"\n[axes]\npolicy = [\"fifo\", \"fifo\"]\n"),
            "c.toml:3: [axes] policy: 'fifo' is listed twice");
  EXPECT_EQ(error_of("name = \"x\"\n[axes]\npolicy = []\n"),
            "c.toml:3: [axes] policy: an empty list");
  EXPECT_EQ(error_of("name = \"x\"\n[run]\npolicy = \"fifo\"\n[axes]\npolicy = [\"rr\"]\n"),
            "c.toml:5: [axes] policy: also fixed in [run] (line 3): give it in one place");
  EXPECT_EQ(error_of("repetitions = 2\n"),
            "c.toml:1: name: missing: every campaign needs a name (its folder)");
  EXPECT_EQ(error_of("name = \"../up\"\n"),
            "c.toml:1: name: '../up': use letters, digits, '-', '_' and '.' (it names a folder)");
  EXPECT_EQ(error_of("name = \"x\"\ncolour = 1\n"),
            "c.toml:2: colour: not a campaign key (name, repetitions, order, seed, warmup_s, "
            "sections, [run], [axes], [[cases]])");
  EXPECT_EQ(error_of("name = \"x\"\nsections = [\"pie-chart\"]\n"),
            "c.toml:2: sections: expected report sections from: maxima-spread, preempt-2004, "
            "periodic-2001");
  EXPECT_EQ(error_of("name = \"x\"\nsections = \"maxima-spread\"\n"),
            "c.toml:2: sections: expected a list of report sections");
  EXPECT_EQ(error_of("name = \"x\"\n[run]\nping = 1\n"),
            "c.toml:3: [run] ping: expected true or false");
  EXPECT_EQ(error_of("name = \"x\"\n[run]\nplots = \"no\"\n"),
            "c.toml:3: [run] plots: expected true or false");
  EXPECT_EQ(error_of("name = \"x\"\n[[cases]]\nduration = 5\n"),
            "c.toml:3: [[cases]] duration: every run of a campaign is as long: give duration in "
            "[run]");
  EXPECT_EQ(error_of("name = \"x\"\n[[cases]]\nname = \"empty\"\n"),
            "c.toml:2: [[cases]]: a case needs at least one run option");
  EXPECT_EQ(error_of("name = \"x\"\n[[cases]]\nlabel = \"a\"\n"),
            "c.toml:3: [[cases]] label: the campaign sets it (each case's label, the campaign "
            "folder)");
  EXPECT_EQ(error_of("name = \"x\"\ncases = 3\n"), "c.toml:2: cases: expected tables: [[cases]]");
  const std::string toml = error_of("name = \"x\"\n[run\n");
  EXPECT_EQ(toml.rfind("c.toml:2: not valid TOML: ", 0), 0u) << toml;
}

TEST(CampaignSpec, ExtraCasesKeepTheirNameAndOptionsInTheFilesOrder) {
  const CampaignSpec s = parse_campaign(R"(name = "x"
[run]
baseline = "cyclictest"
[axes]
load = ["none", "cpu:1"]
[[cases]]
name = "bench alone"
load = "bench"
baseline = "none"
[[cases]]
load = ["bench", "cpu:2"]
)",
                                        "c.toml");
  ASSERT_EQ(s.extra_cases.size(), 2u);
  EXPECT_EQ(s.extra_cases[0].name, "bench alone");
  EXPECT_EQ(s.extra_cases[0].line, 6);
  ASSERT_EQ(s.extra_cases[0].options.size(), 2u);
  EXPECT_EQ(s.extra_cases[0].options[0].key, "load") << "the file's order, not toml++'s sorted one";
  EXPECT_EQ(s.extra_cases[0].options[1].key, "baseline");
  EXPECT_EQ(s.extra_cases[1].name, "");
  EXPECT_EQ(s.extra_cases[1].options[0].values, (std::vector<std::string>{"bench", "cpu:2"}));
}

TEST(CampaignSpec, ScaleDurationAndRepetitionsShortenACampaign) {
  CampaignSpec s = parse_campaign("name = \"x\"\nwarmup_s = 10\n[run]\nduration = 300\n", "c.toml");
  adjust_campaign(s, 0.05, std::nullopt, 2);
  EXPECT_EQ(s.fixed.at(0).values, std::vector<std::string>{"15"});
  EXPECT_DOUBLE_EQ(s.warmup_s, 1.0) << "0.5 s is raised to the 1 s minimum";
  EXPECT_EQ(s.repetitions, 2);
  CampaignSpec d = parse_campaign("name = \"x\"\n", "c.toml");
  adjust_campaign(d, std::nullopt, 20.0, std::nullopt);
  ASSERT_EQ(d.fixed.size(), 1u) << "no duration in the file: run's default, replaced";
  EXPECT_EQ(d.fixed[0].key, "duration");
  EXPECT_EQ(d.fixed[0].values, std::vector<std::string>{"20"});
  CampaignSpec e = parse_campaign("name = \"x\"\n", "c.toml");
  adjust_campaign(e, 0.1, std::nullopt, std::nullopt);
  EXPECT_EQ(e.fixed.at(0).values, std::vector<std::string>{"30"}) << "300 s, run's default";
  EXPECT_THROW(adjust_campaign(e, 0.0, std::nullopt, std::nullopt), Error);
  EXPECT_THROW(adjust_campaign(e, std::nullopt, 0.5, std::nullopt), Error);
  EXPECT_THROW(adjust_campaign(e, std::nullopt, std::nullopt, 0), Error);
}

// Found by tests/fuzz/campaign_spec_fuzz.cpp: --scale read the file's [run] duration with
// std::stod, so duration = "" (or "abc", true) escaped as std::invalid_argument instead of a
// usage error naming the line; and warmup_s = nan passed the range check.
TEST(CampaignSpec, ScaleRefusesADurationThatIsNotSecondsAndWarmupRefusesNan) {
  for (const char* bad : {"\"\"", "\"abc\"", "true", "\"15s\"", "\"inf\"", "\"1e999\"", "0"}) {
    CampaignSpec s =
        parse_campaign(std::string("name = \"x\"\n[run]\nduration = ") + bad + "\n", "c.toml");
    try {
      adjust_campaign(s, 0.5, std::nullopt, std::nullopt);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_EQ(std::string(e.what()).rfind("c.toml:3: [run] duration: '", 0), 0u) << e.what();
    }
    // --duration replaces it: nothing of the file's value is computed with.
    adjust_campaign(s, std::nullopt, 20.0, std::nullopt);
    EXPECT_EQ(s.fixed.at(0).values, std::vector<std::string>{"20"});
  }
  EXPECT_EQ(error_of("name = \"x\"\nwarmup_s = nan\n"),
            "c.toml:2: warmup_s: expected seconds from 0 to 3600");
}

// Found by tests/fuzz/campaign_spec_fuzz.cpp: --scale 2 made warmup_s = 3000.1 a warm-up of
// 6000.2 s, beyond the 3600 s the file itself may ask for; a scaled run beyond --duration's
// 86400 s likewise. Both are refused, the campaign left as it was.
TEST(CampaignSpec, ScaleKeepsTheWarmupAndDurationInTheirRanges) {
  CampaignSpec s =
      parse_campaign("name = \"x\"\nwarmup-s = 3000.1\n[run]\nduration = 300\n", "c.toml");
  try {
    adjust_campaign(s, 2.0, std::nullopt, std::nullopt);
    ADD_FAILURE() << "scaled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_EQ(std::string(e.what()),
              "--scale 2 makes c.toml's warm-up 6000.2 s, beyond 3600 s (warmup_s): use a "
              "smaller --scale");
  }
  EXPECT_DOUBLE_EQ(s.warmup_s, 3000.1);
  EXPECT_EQ(s.fixed.at(0).values, std::vector<std::string>{"300"});
  adjust_campaign(s, 1.1, std::nullopt, std::nullopt);
  EXPECT_DOUBLE_EQ(s.warmup_s, 3300.11);
  CampaignSpec d = parse_campaign("name = \"x\"\n[run]\nduration = 80000\n", "c.toml");
  EXPECT_THROW(adjust_campaign(d, 2.0, std::nullopt, std::nullopt), Error);
  EXPECT_EQ(d.fixed.at(0).values, std::vector<std::string>{"80000"});
}

TEST(CampaignSpec, AFileThatCannotBeReadIsNamed) {
  try {
    load_campaign("/nonexistent/c.toml");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_EQ(std::string(e.what()),
              "cannot read the campaign file '/nonexistent/c.toml': No such file or directory "
              "(give a campaign TOML file, or --preset NAME)");
  }
}

}  // namespace
}  // namespace xrunlab
