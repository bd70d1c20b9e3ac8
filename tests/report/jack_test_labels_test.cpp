// SPDX-License-Identifier: GPL-2.0-or-later
// jack_test's field names (engine/report/jack_test_labels.hpp): every leader is a well-formed
// jack_test line for its label, names are unique, and the record's fields are the table's.
#include "engine/report/jack_test_labels.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/report/report_summary.hpp"
#include "engine/report/run_record.hpp"

namespace xrunlab {
namespace {

using jack_test_field::kAll;

// A leading space, the label, a dot leader of spaces and dots only, ':' in column 32.
TEST(JackTestLabels, LeaderIsTheLabelWithItsDots) {
  for (const JackTestField* f : kAll) {
    const std::string_view leader = f->leader;
    ASSERT_FALSE(f->label.empty()) << leader;
    EXPECT_EQ(leader.size(), kSummaryColonIndex + 1) << leader;
    EXPECT_EQ(leader.front(), ' ') << leader;
    EXPECT_EQ(leader.back(), ':') << leader;
    EXPECT_EQ(leader.substr(1, f->label.size()), f->label) << leader;
    const std::string_view dots = leader.substr(1 + f->label.size());
    EXPECT_EQ(dots.find_first_not_of(" .:"), std::string_view::npos) << leader;
    EXPECT_EQ(dots.find(':'), dots.size() - 1) << leader;
    EXPECT_NE(dots.find(". "), std::string_view::npos) << leader;
  }
}

// parse_summary_lines reads each leader back as its label: import and the SUMMARY readers find
// the fields summary.txt writes.
TEST(JackTestLabels, LeaderParsesBackToItsLabel) {
  for (const JackTestField* f : kAll) {
    const auto lines = parse_summary_lines(std::string(f->leader) + "     1\n");
    ASSERT_EQ(lines.size(), 1u) << f->leader;
    EXPECT_EQ(lines[0].label, f->label);
    EXPECT_EQ(lines[0].value, "1") << f->leader;
  }
}

// The generic leader rule gives every leader but jack_test's one hand-written oddity.
TEST(JackTestLabels, OnlyAverageDspLoadBreaksTheLeaderRule) {
  for (const JackTestField* f : kAll) {
    const std::string generic = summary_field_line(f->label, "");
    const std::string leader = std::string(f->leader) + "\n";
    if (f == &jack_test_field::kDspLoad) {
      EXPECT_NE(generic, leader);
    } else {
      EXPECT_EQ(generic, leader);
    }
  }
}

TEST(JackTestLabels, NamesAreUnique) {
  std::set<std::string_view> keys, labels, leaders;
  for (const JackTestField* f : kAll) {
    EXPECT_TRUE(keys.insert(f->key).second) << "key '" << f->key << "' twice";
    EXPECT_TRUE(labels.insert(f->label).second) << f->label;
    EXPECT_TRUE(leaders.insert(f->leader).second) << f->leader;
  }
}

// The record's numeric fields are the table's, with their names; of the others, only "Delta
// Maximum" (not kept) has no key and "Number of runs" is the record's `runs`.
TEST(JackTestLabels, RecordFieldsAreTheTable) {
  std::set<std::string_view> in_record;
  for (const RecordField& r : record_fields()) {
    in_record.insert(r.field.key);
    bool found = false;
    for (const JackTestField* f : kAll) {
      found = found ||
              (f->key == r.field.key && f->label == r.field.label && f->leader == r.field.leader);
    }
    EXPECT_TRUE(found) << r.field.key;
  }
  for (const JackTestField* f : kAll) {
    const bool outside = f == &jack_test_field::kRuns || f == &jack_test_field::kDeltaMax;
    EXPECT_EQ(in_record.count(f->key), outside ? 0u : 1u) << f->label;
    EXPECT_EQ(f->key.empty(), f == &jack_test_field::kDeltaMax) << f->label;
  }
  EXPECT_EQ(record_fields().size() + 2, kAll.size());
}

}  // namespace
}  // namespace xrunlab
