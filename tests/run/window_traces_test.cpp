// SPDX-License-Identifier: GPL-2.0-or-later
// The window's kernel traces (engine/run/window_traces.hpp) where a test can reach them without
// tracefs: a run that asks for neither trace touches nothing and writes nothing, and run.json's
// "explain" section carries the trace's completeness as the trace gave it.
#include "engine/run/window_traces.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

TEST(WindowTraces, ARunWithoutTracesTouchesNothingAndWritesNothing) {
  TempDir dir("traces");
  SysJournal journal(dir.file("journal"));
  WindowTraces traces(journal, 0, false);
  traces.check_available();  // nothing asked: nothing to check, even without tracefs
  EXPECT_TRUE(traces.start().empty());
  EXPECT_FALSE(traces.waiting_for_xrun());
  traces.freeze(123);
  LiveResult live;
  traces.explain(live, 0);
  EXPECT_EQ(traces.save_xrun_trace(live, dir.str()), "");
  traces.stop();
  EXPECT_FALSE(live.owned().explain);
  EXPECT_FALSE(live.owned().trace_on_xrun);
  EXPECT_TRUE(live.owned().warnings.empty());
}

TEST(WindowTraces, TheExplainSectionSaysHowCompleteTheTraceWas) {
  TraceStats st;
  st.events = 1200;
  st.lost_kernel = 3;
  st.dropped_store = 0;
  st.unparsed_lines = 1;
  st.unseen_switches = 2;
  ExplainedCycle cycle;
  cycle.cycle = 7;
  const ExplainRecord j =
      explain_section(4, "xrunlab-123", st, TraceCoverage{1000, 9000}, {0.5, 1.25}, {cycle});
  EXPECT_EQ(j.requested, 4);
  EXPECT_EQ(j.trace.instance, "xrunlab-123");
  EXPECT_EQ(j.trace.events, 1200u);
  EXPECT_EQ(j.trace.lost_kernel, 3u);
  EXPECT_EQ(j.trace.unparsed_lines, 1u);
  EXPECT_EQ(j.trace.unseen_switches, 2u);
  EXPECT_EQ(j.trace.coverage_ns, (std::pair<int64_t, int64_t>{1000, 9000}));
  EXPECT_EQ(j.trace.cpu_steal_pct, (std::vector<double>{0.5, 1.25}));
  ASSERT_EQ(j.cycles.size(), 1u);
  EXPECT_EQ(j.cycles[0].cycle, 7u);
}

}  // namespace
}  // namespace xrunlab
