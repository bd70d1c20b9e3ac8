// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --plot-format png|svg: the file format of every plot xrunlab draws (a run's plots/, `xrunlab
// plot`, compare.png, campaign.png, sweep.png). gnuplot draws PNG with its pngcairo terminal and
// SVG with its svg terminal; the scripts (scripts/*.gp) choose the terminal from the variable
// xrunlab_terminal, which gnuplot_argv sets with -e before the script runs (a script run by hand
// without it draws PNG). Typed once, when the command line is parsed. Pure, header-only.
// Non-realtime.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/errors.hpp"

namespace xrunlab {

enum class PlotFormat { kPng, kSvg };

// "png" | "svg" (what --plot-format takes, and the files' extension without the dot).
inline const char* plot_format_name(PlotFormat f) {
  return f == PlotFormat::kSvg ? "svg" : "png";
}

// The accepted words, for messages and help texts.
inline constexpr const char* kPlotFormatWords = "png or svg";

inline std::optional<PlotFormat> parse_plot_format(std::string_view text) {
  if (text == "png") return PlotFormat::kPng;
  if (text == "svg") return PlotFormat::kSvg;
  return std::nullopt;
}

// --plot-format's value as a type; Error(kUsage) naming the flag and the accepted values.
inline PlotFormat plot_format_flag(const std::string& text) {
  const std::optional<PlotFormat> f = parse_plot_format(text);
  if (!f) {
    throw Error(ExitCode::kUsage, "--plot-format '" + text + "': give " + kPlotFormatWords);
  }
  return *f;
}

// A plot's file name: `stem` ("plots/timeline", "/x/sweep") with the format's extension.
inline std::string plot_file(std::string_view stem, PlotFormat f) {
  return std::string(stem) + "." + plot_format_name(f);
}

// The gnuplot command for one plot: no init files (-d), the terminal chosen (-e sets
// xrunlab_terminal to a fixed word, never to user text), the script and its arguments, each its
// own argument (`gnuplot -c`: no shell, no gnuplot parsing of titles or paths).
inline std::vector<std::string> gnuplot_argv(const std::string& gnuplot, const std::string& script,
                                             PlotFormat f, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      gnuplot, "-d",  "-e", std::string("xrunlab_terminal = \"") + plot_format_name(f) + "\"",
      "-c",    script};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// Whether `content` is a file of format `f` as gnuplot writes it: the PNG signature, or an SVG
// document ("<?xml" prolog or "<svg" first, a "<svg" element and its end).
inline bool is_plot_file(const std::string& content, PlotFormat f) {
  if (f == PlotFormat::kPng) {
    constexpr std::string_view kPngSignature = "\x89PNG\r\n\x1a\n";
    return content.size() > kPngSignature.size() &&
           std::string_view(content).substr(0, kPngSignature.size()) == kPngSignature;
  }
  const std::string_view c(content);
  const bool starts = c.substr(0, 5) == "<?xml" || c.substr(0, 4) == "<svg";
  return starts && c.find("<svg") != std::string_view::npos &&
         c.find("</svg>") != std::string_view::npos;
}

}  // namespace xrunlab
