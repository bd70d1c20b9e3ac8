// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The kit of xrunlab's HTML pages (a run's report.html, a campaign's): one page with its style
// inline and nothing fetched, escaped text, sections, preformatted blocks, and plots embedded as
// data: URIs. The page's one inline script only sets <body data-images-ok="N/M"> once it has
// loaded: how many of its images decoded (the integration tests read it from the rendered DOM).
// Non-realtime.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/report/plot_format.hpp"

namespace xrunlab {

// `s` as HTML text or attribute value: & < > " ' escaped; control characters other than tab and
// line feed become spaces.
std::string html_escape(std::string_view s);

// One plot of the run folder as the report embeds it.
struct ReportPlot {
  std::string name;                  // "plots/timeline.png" (its extension gives its format)
  std::optional<std::string> bytes;  // the file's content; nullopt: it is not there
};

// The plot files of `format` in the run folder (plot_files(format), each read whole; absent
// ones without bytes).
std::vector<ReportPlot> read_report_plots(const std::string& run_dir, PlotFormat format);

// <h2 id="ID">TITLE</h2>; `title` is HTML already.
std::string html_section(std::string_view id, std::string_view title);
// <p> around HTML, with a class when `cls` is given ("missing": said in red).
std::string html_paragraph(std::string_view text_html, std::string_view cls = {});
// A text block kept as it is (monospaced): the text tables of summaries.
std::string html_pre(std::string_view text);
// One plot as a <figure> with its image inline (base64), or a sentence when it is missing
// (`no_plots`: why none were drawn, when on purpose) or not a plot file.
std::string html_plot(const ReportPlot& p, std::string_view no_plots = {});
// The whole page: the head (title, style, the image check) and `body` (HTML).
std::string html_page(std::string_view title, std::string_view body);

}  // namespace xrunlab
