// SPDX-License-Identifier: GPL-2.0-or-later
// report.html in a real browser: a short real run (PNG plots, then SVG plots), its report
// rendered by Debian's headless Chromium (package chromium-headless-shell) to a screenshot and to
// its DOM after the load event. The page must load without a console message (Chromium logs
// every console message, uncaught exceptions included, as an "INFO:CONSOLE" line on stderr with
// --enable-logging=stderr), show the verdict of summary.txt as its heading, and every embedded
// image must decode (the page's own script sets <body data-images-ok="N/M"> on load). A copy
// of the page with one image's bytes cut and a script error must be found broken on both
// counts, so the check can fail. A campaign's report.html is checked the same way.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/base/text.hpp"
#include "engine/report/report_html.hpp"
#include "tests/support/files.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
namespace fs = std::filesystem;

constexpr const char* kChromium = "chromium-headless-shell";  // Debian 12's package and binary

struct Rendered {
  int exit_code = -1;
  std::string output;  // stdout (the DOM with --dump-dom) and stderr (the log) together
};

// Chromium on `page` with `mode` ("--dump-dom" or "--screenshot=FILE"), a private profile in
// `dir`, no sandbox (the tests run as root), no GPU.
Rendered chromium(const std::string& page, const std::string& mode, const TempDir& dir) {
  static int calls = 0;
  const std::string log = dir.file("chromium-" + std::to_string(++calls) + ".out");
  SpawnSpec spec;
  spec.argv = {kChromium,
               "--no-sandbox",
               "--disable-gpu",
               "--headless",
               "--enable-logging=stderr",
               "--v=0",
               "--user-data-dir=" + dir.file("profile"),
               "--window-size=1200,3000",
               mode,
               "file://" + page};
  spec.output_path = log;
  Rendered out;
  Child c;
  try {
    c = Child::spawn(spec);
  } catch (const Error& e) {
    ADD_FAILURE() << kChromium << " cannot run (" << e.what()
                  << "): install Debian's package chromium-headless-shell (scripts/setup.sh does)";
    return out;
  }
  if (!c.wait_for(std::chrono::seconds(90))) {
    ADD_FAILURE() << kChromium << " did not finish " << page;
    return out;
  }
  const int status = *c.wait_status();
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  out.output = read_text_or_empty(log);
  return out;
}

size_t count_substr(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// `s` as Chromium's DOM serializer writes text: & < > (and no-break spaces) escaped.
std::string as_dom_text(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

// What is wrong with `page` in the browser: its console messages, its images that did not
// decode, a missing `verdict` heading. Empty: nothing.
std::vector<std::string> page_problems(const std::string& page, const std::string& verdict,
                                       size_t images, const TempDir& dir) {
  std::vector<std::string> problems;
  const Rendered dom = chromium(page, "--dump-dom", dir);
  if (dom.exit_code != 0) problems.push_back("exit " + std::to_string(dom.exit_code));
  for (const std::string_view line : lines(dom.output)) {
    if (contains(line, ":CONSOLE")) problems.push_back("console: " + std::string(line));
  }
  const std::string ok =
      "data-images-ok=\"" + std::to_string(images) + "/" + std::to_string(images) + "\"";
  if (!contains(dom.output, ok)) {
    const size_t at = dom.output.find("data-images-ok=\"");
    const size_t end = at == std::string::npos ? at : dom.output.find('"', at + 16);
    problems.push_back("images: " + (end == std::string::npos
                                         ? std::string("no count")
                                         : dom.output.substr(at, end + 1 - at)));
  }
  if (!contains(dom.output, "<h1 id=\"verdict\"") ||
      !contains(dom.output, ">" + as_dom_text(verdict) + "</h1>")) {
    problems.push_back("no verdict heading: " + verdict);
  }
  return problems;
}

// summary.txt's verdict: its first line, " Result: <verdict>".
std::string verdict_of(const std::string& run_dir) {
  const std::string summary = read_text_or_empty(run_dir + "/summary.txt");
  const std::string head = " Result: ";
  EXPECT_EQ(summary.rfind(head, 0), 0u) << summary.substr(0, 200);
  return summary.substr(head.size(), summary.find('\n') - head.size());
}

// A real run's report: loads cleanly, shows the verdict, its `format` images decode, and its
// screenshot is a PNG with more in it than an empty page's.
void check_run_report(const std::string& format) {
  const TempDir dir("report-html-" + format);
  XrunlabRun run;
  ASSERT_EQ(
      run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration", "2",
                  "--label", "html", "--output", dir.str(), "--plot-format", format, "-q"},
                 &run),
      0)
      << run.log();
  const std::string page = run.run_dir() + "/report.html";
  const std::string html = read_text_or_empty(page);
  ASSERT_FALSE(html.empty()) << page;
  EXPECT_EQ(count_substr(html, "src=\"data:image/" +
                                   std::string(format == "svg" ? "svg+xml" : "png") + ";base64,"),
            3u);
  const std::string verdict = verdict_of(run.run_dir());
  EXPECT_EQ(page_problems(page, verdict, 3, dir), std::vector<std::string>{}) << page;

  const std::string shot = dir.file("report.png");
  const std::string empty_page = dir.write("empty.html", "<!DOCTYPE html><title>e</title>");
  const std::string empty_shot = dir.file("empty.png");
  EXPECT_EQ(chromium(page, "--screenshot=" + shot, dir).exit_code, 0);
  EXPECT_EQ(chromium(empty_page, "--screenshot=" + empty_shot, dir).exit_code, 0);
  const std::string png = read_text_or_empty(shot);
  EXPECT_EQ(png.rfind("\x89PNG\r\n\x1a\n", 0), 0u) << shot;
  EXPECT_GT(png.size(), 4 * read_text_or_empty(empty_shot).size()) << shot;

  // The same page with the first image's bytes cut short and a script error: found broken on
  // both counts (and the verdict still found).
  std::string broken = html;
  const size_t data = broken.find(";base64,") + 8;
  broken.replace(data, broken.find('"', data) - data, "iVBORw0KGgoAAAA");
  broken.insert(broken.rfind("</body>"), "<script>undefined_function();</script>\n");
  const std::string broken_page = dir.write("broken.html", broken);
  const std::vector<std::string> problems = page_problems(broken_page, verdict, 3, dir);
  ASSERT_EQ(problems.size(), 2u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("Uncaught ReferenceError: undefined_function"), std::string::npos)
      << problems[0];
  EXPECT_EQ(problems[1], "images: data-images-ok=\"2/3\"");
}

// A campaign's report.html: 2 cases x 2 short runs, then its page in the browser: no console
// message, its headline as the heading, the campaign plot decoded.
TEST(ReportHtmlChromium, Campaign) {
  const TempDir dir("report-html-campaign");
  const std::string file = dir.write("c.toml",
                                     "name = \"html\"\nrepetitions = 2\nseed = 3\n[run]\n"
                                     "clients = 2\nports = 1\nperiod = 256\nduration = 1\n"
                                     "plots = false\n[axes]\npolicy = [\"fifo\", \"other\"]\n");
  const std::string cdir = dir.file("c");
  XrunlabRun run;
  ASSERT_EQ(run_to_end({"campaign", file, "--dir", cdir, "-q"}, &run), 0) << run.log();
  const std::string page = cdir + "/report.html";
  const std::string html = read_text_or_empty(page);
  ASSERT_FALSE(html.empty()) << page;
  EXPECT_EQ(count_substr(html, "src=\"data:image/png;base64,"), 1u);
  const std::string summary = read_text_or_empty(cdir + "/campaign-summary.txt");
  ASSERT_FALSE(summary.empty());
  // The heading is the campaign's headline ("campaign html: 2 cases, 4 finished runs; ...").
  const size_t h1 = html.find("<h1 id=\"verdict\">") + 17;
  const std::string headline = html.substr(h1, html.find("</h1>", h1) - h1);
  EXPECT_EQ(headline.rfind("campaign html: 2 cases, 4 finished runs; ", 0), 0u) << headline;
  EXPECT_EQ(page_problems(page, headline, 1, dir), std::vector<std::string>{}) << page;
}

TEST(ReportHtmlChromium, PngRun) {
  check_run_report("png");
}

TEST(ReportHtmlChromium, SvgRun) {
  check_run_report("svg");
}

}  // namespace
}  // namespace xrunlab
