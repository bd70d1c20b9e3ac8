// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/report_html.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/base64.hpp"
#include "engine/report/run_answer.hpp"
#include "tests/support/sample_result.hpp"

namespace xrunlab {
namespace {

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// A PNG as far as is_plot_file and the page care: the signature and a few bytes.
const std::string kPng = std::string("\x89PNG\r\n\x1a\n", 8) + "IHDR-and-more";
const std::string kSvg =
    "<?xml version=\"1.0\"?>\n<svg width=\"1280\" height=\"800\"><text>t</text></svg>\n";

std::vector<ReportPlot> png_plots() {
  return {{"plots/timeline.png", kPng}, {"plots/latency.png", kPng}, {"plots/cycles.png", kPng}};
}

TEST(HtmlEscape, EscapesMarkupAndControlCharacters) {
  EXPECT_EQ(html_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(html_escape("tab\tline\nbell\a del\x7f"), "tab\tline\nbell  del ");
  EXPECT_EQ(html_escape("plain text, 1.33 ms"), "plain text, 1.33 ms");
  EXPECT_EQ(html_escape(""), "");
}

// Every text from the model is escaped: a warning, a client name and the command line that
// hold markup show as text, never as elements.
TEST(ReportHtml, ModelTextIsEscaped) {
  RunResult r = testing_support::sample_result();
  r.warnings.push_back("evil <script>alert(1)</script> & more");
  r.client_results[0].name = "<img src=x onerror=alert(1)>";
  r.command_line = {"xrunlab", "run", "--label", "<b>bold</b>"};
  const std::string html = format_report_html(r, png_plots());
  EXPECT_EQ(count_of(html, "<script>"), 1u) << "only the page's own script";
  EXPECT_NE(html.find("evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; more"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_NE(html.find("--label &lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
}

// The page leads with the verdict as its heading, then the figures with their definitions; it
// has every section, and nothing it loads comes from elsewhere.
TEST(ReportHtml, LeadsWithTheVerdictAndHasEverySection) {
  const RunResult r = testing_support::sample_result();
  const RunAnswer a = run_answer(r);
  const std::string html = format_report_html(r, png_plots());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
  const size_t h1 = html.find("<h1 id=\"verdict\" class=\"dirty\">" + html_escape(a.verdict));
  ASSERT_NE(h1, std::string::npos) << html.substr(0, 2000);
  EXPECT_EQ(html.find("<h2"), html.find("<h2", h1)) << "no section before the verdict";
  for (const AnswerFigure& f : a.figures) {
    EXPECT_NE(html.find("<td>" + html_escape(f.definition) + "</td>"), std::string::npos)
        << f.label;
  }
  for (const char* id : {"plots", "clients", "hops", "xrun-sources", "worst-cycles", "xrun-events",
                         "warnings", "context"}) {
    EXPECT_NE(html.find(std::string("<h2 id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(html.find("xrunlab-c2"), std::string::npos);
  EXPECT_NE(html.find("c02 did not run"), std::string::npos);
  EXPECT_NE(html.find("2 xruns in 3 seconds"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_TRUE(html.size() > 16 && html.substr(html.size() - 8) == "</html>\n");
}

// One <img> per plot, its bytes as a data: URI of the plot's format.
TEST(ReportHtml, EmbedsEachPlot) {
  const RunResult r = testing_support::sample_result();
  const std::string png = format_report_html(r, png_plots());
  EXPECT_EQ(count_of(png, "<img "), 3u);
  EXPECT_EQ(count_of(png, "src=\"data:image/png;base64," + base64_encode(kPng) + "\""), 3u);
  EXPECT_NE(png.find("alt=\"plots/latency.png\""), std::string::npos);

  const std::string svg = format_report_html(
      r, {{"plots/timeline.svg", kSvg}, {"plots/latency.svg", kSvg}, {"plots/cycles.svg", kSvg}});
  EXPECT_EQ(count_of(svg, "src=\"data:image/svg+xml;base64," + base64_encode(kSvg) + "\""), 3u);
}

// A missing plot, or a file that is not one, is said in words instead of a broken image; so
// are plots not drawn on purpose.
TEST(ReportHtml, SaysWhichPlotIsMissing) {
  const RunResult r = testing_support::sample_result();
  std::vector<ReportPlot> plots = png_plots();
  plots[1].bytes.reset();
  plots[2].bytes = "not a png";
  const std::string html = format_report_html(r, plots);
  EXPECT_EQ(count_of(html, "<img "), 1u);
  EXPECT_NE(html.find("<p class=\"missing\">plots/latency.png: not drawn (see the warnings)</p>"),
            std::string::npos);
  EXPECT_NE(html.find("<p class=\"missing\">plots/cycles.png: not a png file"), std::string::npos);

  for (ReportPlot& p : plots) p.bytes.reset();
  const std::string none = format_report_html(r, plots, "the run was asked for none");
  EXPECT_EQ(count_of(none, "<img "), 0u);
  EXPECT_EQ(count_of(none, ": not drawn: the run was asked for none</p>"), 3u);
}

// The xrun events: at most kHtmlXrunEvents rows, and the true total beside them.
TEST(ReportHtml, BoundedXrunEventsSayTheirTotal) {
  RunResult r = testing_support::sample_result();
  r.xruns.events.clear();
  for (uint32_t i = 0; i < 150; ++i) r.xruns.events.push_back({0.5 + i * 0.01, i * 256, 1});
  r.xruns.monitor_events = 3120;
  const std::string html = format_report_html(r, png_plots());
  EXPECT_NE(html.find("The first 100 of 3120 event(s)"), std::string::npos);
  const size_t at = html.find("<h2 id=\"xrun-events\"");
  const std::string events = html.substr(at, html.find("<h2", at + 1) - at);
  EXPECT_EQ(count_of(events, "<tr>"), 1u + kHtmlXrunEvents);  // the header and the rows

  r.xruns.events.clear();
  r.xruns.monitor_events = 0;
  EXPECT_NE(format_report_html(r, png_plots()).find("No xrun event reached the monitor."),
            std::string::npos);
}

// The causes of the xrun events, the events outside the chain and the audible glitches, each
// with its own section.
TEST(ReportHtml, CausesOutsideEventsAndGlitchesHaveTheirSections) {
  RunResult r = testing_support::sample_result();  // one event outside the chain, by c02
  std::string html = format_report_html(r, png_plots());
  EXPECT_NE(html.find("<h2 id=\"causes\""), std::string::npos);
  EXPECT_NE(html.find("<h2 id=\"outside-events\""), std::string::npos);
  EXPECT_NE(html.find("The first 1 of 1 xrun event(s) JACK reported"), std::string::npos);
  EXPECT_NE(html.find("xrunlab-c02 (the run&#39;s client)"), std::string::npos)
      << html.substr(html.find("<h2 id=\"causes\""), 1500);
  EXPECT_EQ(html.find("<h2 id=\"glitches\""), std::string::npos) << "no audio check";
  AudioResult a;
  GlitchResult g;
  g.t_s = 1.25;
  g.report.kind = "dropped";
  g.report.jump = 256;
  g.report.length = 256;
  g.matched = true;
  g.xrun_t_s = 1.24;
  g.late_clients = {"c03"};
  a.glitches = {g, g};
  a.totals.glitches = 7;
  r.audio = a;
  html = format_report_html(r, png_plots());
  EXPECT_NE(html.find("The first 2 of 7 glitch(es) the tail heard (run.json lists the first "
                      "ones only)."),
            std::string::npos);
  EXPECT_NE(html.find("<td>1.240 s (late: c03)</td>"), std::string::npos);
}

// --explain's lines are the worst cycles when present; without them, the table's worst rows.
TEST(ReportHtml, WorstCyclesWithTheirExplanations) {
  RunResult r = testing_support::sample_result();
  const std::string rows = format_report_html(r, png_plots());
  EXPECT_NE(rows.find("<td>c01 "), std::string::npos) << "each client's entry-exit";
  r.explain = ExplainRecord{};
  ExplainedCycle c;
  c.cycle = 1002;
  c.t_s = 0.011;
  c.slack_ns = -312000;
  c.line = "slack -312 us: c02's DSP held by <kworker/0:1> for 300 us";
  r.explain->cycles.push_back(c);
  const std::string explained = format_report_html(r, png_plots());
  EXPECT_NE(explained.find("<td>slack -312 us: c02&#39;s DSP held by &lt;kworker/0:1&gt; for 300 "
                           "us</td>"),
            std::string::npos);
  EXPECT_NE(explained.find("<td class=\"n\">1002</td>"), std::string::npos);
}

}  // namespace
}  // namespace xrunlab
