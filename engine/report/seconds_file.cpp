// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/seconds_file.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/output_error.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/file_owner.hpp"
#include "engine/system/output_folder.hpp"

namespace xrunlab {
namespace {

constexpr int kFormat = 1;

[[noreturn]] void refuse(const std::string& path, size_t line, const std::string& why) {
  throw Error(ExitCode::kUsage, fmt::format("{}:{}: {}", path, line, why));
}

void append_rows(std::string& out, const RunResult& r) {
  for (const ClientResult& c : r.client_results) {
    for (const ClientSecond& s : c.seconds) {
      out += nlohmann::ordered_json{{"client", c.index}, {"row", client_second_row(s)}}.dump();
      out += '\n';
    }
  }
  for (const SystemSecond& s : r.system) {
    out += nlohmann::ordered_json{{"system", system_second_json(s)}}.dump();
    out += '\n';
  }
}

}  // namespace

std::string seconds_file_header() {
  return nlohmann::ordered_json{{"xrunlab_seconds", kFormat},
                                {"client_columns", client_second_columns()}}
             .dump() +
         "\n";
}

std::string format_seconds_rows(const RunResult& r) {
  std::string out;
  append_rows(out, r);
  return out;
}

std::string format_seconds_file(const RunResult& r) {
  std::string out = seconds_file_header();
  append_rows(out, r);
  return out;
}

std::string take_seconds_rows(RunResult& r) {
  std::string out = format_seconds_rows(r);
  for (ClientResult& c : r.client_results) {
    r.client_rows_flushed += c.seconds.size();
    c.seconds.clear();
    c.seconds.shrink_to_fit();
  }
  for (const SystemSecond& s : r.system) add_to(r.system_flushed, s);
  r.system.clear();
  r.system.shrink_to_fit();
  return out;
}

SecondsRows parse_seconds_file(std::string_view text, const std::string& path) {
  SecondsRows out;
  std::vector<std::string> columns;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    ++line_no;
    if (end == std::string_view::npos) {
      out.cut = fmt::format(
          "{}: its last line (line {}, {} bytes) does not end: the run stopped while writing it "
          "(killed, or the disk was full); the rows before it are read",
          path, line_no, text.size() - pos);
      break;
    }
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) refuse(path, line_no, "not a JSON object");
    if (line_no == 1) {
      const auto format = j.find("xrunlab_seconds");
      if (format == j.end()) {
        refuse(path, line_no, "no \"xrunlab_seconds\": not the header of an xrunlab seconds.jsonl");
      }
      if (!format->is_number_integer() || format->get<int64_t>() != kFormat) {
        refuse(path, line_no,
               fmt::format("\"xrunlab_seconds\" is {}, this xrunlab reads {}", format->dump(),
                           kFormat));
      }
      const auto cols = j.find("client_columns");
      if (cols == j.end() || !cols->is_array()) {
        refuse(path, line_no, "\"client_columns\" is not an array");
      }
      for (const auto& c : *cols) {
        if (!c.is_string()) refuse(path, line_no, "\"client_columns\" holds a non-string");
        columns.push_back(c.get<std::string>());
      }
      continue;
    }
    std::string why;
    if (const auto client = j.find("client"); client != j.end()) {
      const auto row = j.find("row");
      if (!client->is_number_integer()) refuse(path, line_no, "\"client\" is not an integer");
      const int64_t index = client->get<int64_t>();
      if (index < 0 || index > 100000) refuse(path, line_no, "\"client\" is out of range");
      if (row == j.end()) refuse(path, line_no, "a client row without \"row\"");
      std::optional<ClientSecond> s = client_second_from_row(*row, columns, "row", &why);
      if (!s) refuse(path, line_no, why);
      out.clients[static_cast<int>(index)].push_back(*s);
      ++out.client_rows;
    } else if (const auto sys = j.find("system"); sys != j.end()) {
      std::optional<SystemSecond> s = system_second_from_json(*sys, "system", &why);
      if (!s) refuse(path, line_no, why);
      out.system.push_back(*s);
    } else {
      refuse(path, line_no, "neither a \"client\" nor a \"system\" row");
    }
  }
  if (line_no == 0) {
    throw Error(ExitCode::kUsage, path + ": empty (not even the header line)");
  }
  return out;
}

std::vector<std::string> put_seconds_rows(RunResult& r, SecondsRows rows, const std::string& path) {
  std::vector<std::string> warnings;
  const uint64_t counted_clients = r.client_rows_flushed;
  const uint64_t counted_system = r.system_flushed.n;
  for (auto& [index, seconds] : rows.clients) {
    ClientResult* client = nullptr;
    for (ClientResult& c : r.client_results) {
      if (c.index == index) client = &c;
    }
    if (client == nullptr) {
      throw Error(ExitCode::kUsage,
                  fmt::format("{}: rows of client {}, which run.json does not have", path, index));
    }
    client->seconds.insert(client->seconds.end(), seconds.begin(), seconds.end());
  }
  r.system.insert(r.system.end(), rows.system.begin(), rows.system.end());
  r.client_rows_flushed = 0;
  r.system_flushed = SystemSums{};
  r.seconds_appended = true;
  if (!rows.cut.empty()) warnings.push_back(rows.cut);
  if (rows.client_rows < counted_clients || rows.system.size() < counted_system) {
    warnings.push_back(fmt::format(
        "{}: holds {} client and {} system rows, run.json counted {} and {}: rows are missing",
        path, rows.client_rows, rows.system.size(), counted_clients, counted_system));
  }
  return warnings;
}

SecondsAppender::SecondsAppender(std::string path) : path_(std::move(path)) {
  fd_ = open_output_file(path_, /*append=*/true);
  if (fd_ < 0) throw OutputError("create", path_, errno);
  hand_over_file(path_);
  append(seconds_file_header());
}

SecondsAppender::~SecondsAppender() {
  if (fd_ >= 0) ::close(fd_);
}

void SecondsAppender::append(std::string_view lines) {
  if (lines.empty()) return;
  if (!write_all(fd_, lines)) {
    const int err = errno;
    // Half a line in the middle of the file would make every later row unreadable: cut back
    // to the last whole line (should even that fail, the half line is the last one, which the
    // reader drops with a warning).
    const int cut = ::ftruncate(fd_, static_cast<off_t>(size_));
    static_cast<void>(cut);
    throw OutputError("write", path_, err);
  }
  size_ += lines.size();
}

}  // namespace xrunlab
