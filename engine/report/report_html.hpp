// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// report.html: one run as a single self-contained page, from the result model like the other
// writers. It leads with the answer (engine/report/run_answer.hpp: the verdict as its heading,
// the figures with their definitions, the witnesses, the worst cycle, the floor), then the
// plots embedded as data: URIs (PNG or SVG, base64), the per-client table, the hops of every
// cycle, the xrun sources against the cycle table, the worst cycles with their explanations
// (--explain) or their hops, the xrun events (the first kHtmlXrunEvents, with their true
// total), the warnings and the run's context (versions, times, kernel, CPU, JACK, backend,
// policy, command line).
//
// Nothing is fetched: no external style sheet, font, image or script. Every text from the model
// is escaped (html_escape). One inline script, a few lines, runs on the page's load event and
// only sets <body data-images-ok="N/M">: how many of the page's images decoded (the
// integration test reads it from the rendered DOM). A plot that is missing (--no-plots, gnuplot
// failed, a full disk) or not a plot file is named with a sentence instead of a broken image.
// Non-realtime.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/report/html_page.hpp"
#include "engine/report/plot_format.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// Its name in the run folder.
inline constexpr const char* kReportHtmlFile = "report.html";

// The page lists at most this many xrun events ("the first 100 of 3120").
inline constexpr size_t kHtmlXrunEvents = 100;

// The whole report.html. `plots`: the run's plots in order; `no_plots`: why there are none when
// none were drawn on purpose ("" otherwise), said instead of each missing plot's default text.
std::string format_report_html(const RunResult& r, const std::vector<ReportPlot>& plots,
                               std::string_view no_plots = {});

}  // namespace xrunlab
