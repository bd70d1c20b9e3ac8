// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/json_read.hpp"

#include <fmt/core.h>

#include "engine/base/file.hpp"

namespace xrunlab {

void json_refuse(const std::string& path, std::string_view expected, const nlohmann::json& v) {
  throw JsonRefused(fmt::format("'{}' is not {} (it is {})", path, expected, v.type_name()));
}

std::string json_key_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string json_index_path(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

JsonObject::JsonObject(const nlohmann::json& v, std::string path, std::string_view top)
    : v_(v), path_(std::move(path)) {
  if (!v_.is_object()) json_refuse(path_.empty() ? std::string(top) : path_, "an object", v_);
}

const nlohmann::json* JsonObject::find(std::string_view key) const {
  const auto it = v_.find(key);
  return it == v_.end() || it->is_null() ? nullptr : &*it;
}

std::optional<JsonObject> JsonObject::object(std::string_view key) const {
  if (const nlohmann::json* v = find(key)) return JsonObject(*v, path(key));
  return std::nullopt;
}

std::optional<nlohmann::json> read_json_file(const std::string& path, std::string* why) {
  const std::optional<std::string> text = read_file(path, why);
  if (!text) return std::nullopt;
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    // The parser's words without its exception's id ("[json.exception.parse_error.101] ").
    std::string_view words = e.what();
    if (const size_t id_end = words.find("] ");
        words.rfind('[', 0) == 0 && id_end != std::string_view::npos) {
      words.remove_prefix(id_end + 2);
    }
    if (why != nullptr) *why = fmt::format("{}: not JSON ({})", path, words);
    return std::nullopt;
  }
}

}  // namespace xrunlab
