// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/html_page.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "engine/base/base64.hpp"
#include "engine/base/file.hpp"
#include "engine/base/text.hpp"
#include "engine/report/plots.hpp"

namespace xrunlab {
namespace {

// The page's style: readable on a screen, printable (no colours needed to read it).
constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:1.5em auto;max-width:78em;
padding:0 1em;color:#111;line-height:1.35}
h1{font-size:1.5em;padding:.4em .6em;border-left:.4em solid #888}
h1.clean{border-color:#2a7a2a;background:#eef7ee}h1.dirty{border-color:#b00;background:#fbeeee}
h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.2em .5em;vertical-align:top;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
img{max-width:100%;height:auto;border:1px solid #ddd}figure{margin:1em 0}
p.missing{color:#b00}code,.mono{font-family:monospace;word-break:break-all}
pre{font-size:.85em;overflow-x:auto;background:#f7f7f7;padding:.5em;border:1px solid #ddd}
@media print{h2{break-after:avoid}figure,tr{break-inside:avoid}})";

// Sets <body data-images-ok="N/M"> once the page has loaded: N of its M images decoded.
constexpr const char* kImageCheck =
    R"(window.addEventListener("load",function(){var i=document.images,n=0,k;)"
    R"(for(k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0){n++;}})"
    R"(document.body.setAttribute("data-images-ok",n+"/"+i.length);});)";

const char* plot_mime(std::string_view name) {
  return ends_with(name, ".svg") ? "image/svg+xml" : "image/png";
}

}  // namespace

std::string html_section(std::string_view id, std::string_view title) {
  return fmt::format("<h2 id=\"{}\">{}</h2>\n", id, title);
}

std::string html_paragraph(std::string_view text_html, std::string_view cls) {
  return cls.empty() ? fmt::format("<p>{}</p>\n", text_html)
                     : fmt::format("<p class=\"{}\">{}</p>\n", cls, text_html);
}

std::string html_plot(const ReportPlot& p, std::string_view no_plots) {
  const PlotFormat f = ends_with(p.name, ".svg") ? PlotFormat::kSvg : PlotFormat::kPng;
  if (!p.bytes) {
    const std::string why = no_plots.empty() ? std::string("not drawn (see the warnings)")
                                             : "not drawn: " + std::string(no_plots);
    return html_paragraph(fmt::format("{}: {}", html_escape(p.name), html_escape(why)), "missing");
  }
  if (!is_plot_file(*p.bytes, f)) {
    return html_paragraph(fmt::format("{}: not a {} file; the run folder has it as it is",
                                      html_escape(p.name), plot_format_name(f)),
                          "missing");
  }
  return fmt::format(
      "<figure><img alt=\"{0}\" src=\"data:{1};base64,{2}\"><figcaption>{0}</figcaption>"
      "</figure>\n",
      html_escape(p.name), plot_mime(p.name), base64_encode(*p.bytes));
}

std::string html_escape(std::string_view s) {
  return markup_escape(s, ' ');
}

std::vector<ReportPlot> read_report_plots(const std::string& run_dir, PlotFormat format) {
  std::vector<ReportPlot> out;
  for (const std::string& name : plot_files(format)) {
    ReportPlot p;
    p.name = name;
    p.bytes = read_file((std::filesystem::path(run_dir) / name).string());
    out.push_back(std::move(p));
  }
  return out;
}

std::string html_pre(std::string_view text) {
  return "<pre>" + html_escape(text) + "</pre>\n";
}

std::string html_page(std::string_view title, std::string_view body) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>{}</title>\n<style>{}</style>\n", html_escape(title), kStyle);
  out += fmt::format("<script>{}</script>\n</head>\n<body data-images-ok=\"\">\n", kImageCheck);
  out += body;
  return out + "</body>\n</html>\n";
}

}  // namespace xrunlab
