// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Reading the JSON documents xrunlab writes (run.json, campaign.json, seconds.jsonl, a
// campaign's records) into typed models, the one way: each member is read by its key and
// converted to its model type; a member that is absent or null keeps the model's default (older
// files lack newer keys); a member of the wrong type refuses the whole document with a
// JsonRefused that names it by its path ("'settings.clients' is not an integer (it is string)").
// Non-realtime.
//
//   const JsonObject o(document, "");      // refused unless an object
//   o.get("rate", r.rate);                 // uint32_t: refused unless a non-negative integer
//   if (auto s = o.object("settings")) ... // a member object, with its path
//   o.each("clients", [&](const JsonObject& c) { ... });
//
// A model type of its own reads by specializing JsonValue<T> (engine/result/run_json.cpp does it
// for RunStatus).
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace xrunlab {

// A document refused: `what()` names the member at fault and what it should have been.
class JsonRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws JsonRefused: "'PATH' is not EXPECTED (it is TYPE)".
[[noreturn]] void json_refuse(const std::string& path, std::string_view expected,
                              const nlohmann::json& v);

// "a.b" from "a" and "b" ("b" at the top); "a[3]".
std::string json_key_path(const std::string& path, std::string_view key);
std::string json_index_path(const std::string& path, size_t i);

// One JSON value converted to a model type; `path` names it in a refusal.
template <typename T>
struct JsonValue;

template <>
struct JsonValue<bool> {
  static bool of(const nlohmann::json& v, const std::string& path) {
    if (!v.is_boolean()) json_refuse(path, "true or false", v);
    return v.get<bool>();
  }
};

template <>
struct JsonValue<std::string> {
  static std::string of(const nlohmann::json& v, const std::string& path) {
    if (!v.is_string()) json_refuse(path, "a string", v);
    return v.get<std::string>();
  }
};

template <>
struct JsonValue<double> {
  static double of(const nlohmann::json& v, const std::string& path) {
    if (!v.is_number()) json_refuse(path, "a number", v);
    return v.get<double>();
  }
};

// Any JSON, kept as it is (a part whose shape belongs to another unit).
template <>
struct JsonValue<nlohmann::json> {
  static nlohmann::json of(const nlohmann::json& v, const std::string&) { return v; }
};

// JSON has one kind of number: 300.0 is the integer 300 (a hand-made or another tool's file may
// write it so); 300.5 is not, nor is a number out of T's range.
template <typename T>
struct JsonInteger {
  static T of(const nlohmann::json& v, const std::string& path) {
    using limits = std::numeric_limits<T>;
    const char* kind = std::is_unsigned_v<T> ? "a non-negative integer" : "an integer";
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!std::isfinite(d) || d != std::trunc(d)) json_refuse(path, kind, v);
      if (std::is_unsigned_v<T> && d < 0) json_refuse(path, kind, v);
      // The range of T, as doubles: 2^64 and 2^63 are exact, their predecessors are not.
      if (d < static_cast<double>(limits::min()) || d >= std::ldexp(1.0, limits::digits)) {
        json_refuse(path, "an integer in range", v);
      }
      return static_cast<T>(d);
    }
    if (!v.is_number_integer()) json_refuse(path, kind, v);  // unsigned JSON numbers included
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() > static_cast<uint64_t>(limits::max())) {
        json_refuse(path, "an integer in range", v);
      }
      return static_cast<T>(v.get<uint64_t>());
    }
    const int64_t i = v.get<int64_t>();
    if (std::is_unsigned_v<T> && i < 0) json_refuse(path, kind, v);
    if (i < static_cast<int64_t>(limits::min()) ||
        (i > 0 && static_cast<uint64_t>(i) > static_cast<uint64_t>(limits::max()))) {
      json_refuse(path, "an integer in range", v);
    }
    return static_cast<T>(i);
  }
};
template <>
struct JsonValue<int> : JsonInteger<int> {};
template <>
struct JsonValue<long> : JsonInteger<long> {};
template <>
struct JsonValue<long long> : JsonInteger<long long> {};
template <>
struct JsonValue<unsigned> : JsonInteger<unsigned> {};
template <>
struct JsonValue<unsigned long> : JsonInteger<unsigned long> {};
template <>
struct JsonValue<unsigned long long> : JsonInteger<unsigned long long> {};

// null is "not known".
template <typename T>
struct JsonValue<std::optional<T>> {
  static std::optional<T> of(const nlohmann::json& v, const std::string& path) {
    if (v.is_null()) return std::nullopt;
    return JsonValue<T>::of(v, path);
  }
};

template <typename T>
struct JsonValue<std::vector<T>> {
  static std::vector<T> of(const nlohmann::json& v, const std::string& path) {
    if (!v.is_array()) json_refuse(path, "an array", v);
    std::vector<T> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      out.push_back(JsonValue<T>::of(v[i], json_index_path(path, i)));
    }
    return out;
  }
};

// An object whose members are all of one type (a count per kind, say).
template <typename T>
struct JsonValue<std::map<std::string, T>> {
  static std::map<std::string, T> of(const nlohmann::json& v, const std::string& path) {
    if (!v.is_object()) json_refuse(path, "an object", v);
    std::map<std::string, T> out;
    for (auto it = v.begin(); it != v.end(); ++it) {
      out.emplace(it.key(), JsonValue<T>::of(it.value(), json_key_path(path, it.key())));
    }
    return out;
  }
};

// An object of a document and where it is (its path names it in a refusal). It refers to the
// document: the document outlives it.
class JsonObject {
 public:
  // `v` must be an object (refused otherwise; `path` "" names it `top`).
  JsonObject(const nlohmann::json& v, std::string path, std::string_view top = "the document");

  // The member `key`; nullptr when absent or null.
  const nlohmann::json* find(std::string_view key) const;
  std::string path(std::string_view key) const { return json_key_path(path_, key); }

  // Sets `out` from the member `key` when it is there (absent or null: `out` keeps its value).
  template <typename T>
  void get(std::string_view key, T& out) const {
    if (const nlohmann::json* v = find(key)) out = JsonValue<T>::of(*v, path(key));
  }
  // As get, but the member must be there (refused when absent or null).
  template <typename T>
  void require(std::string_view key, T& out) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) throw JsonRefused("no '" + path(key) + "'");
    out = JsonValue<T>::of(*v, path(key));
  }
  // The member `key` as an object; nullopt when absent or null.
  std::optional<JsonObject> object(std::string_view key) const;
  // Calls each(JsonObject) for every element of the array `key` (absent or null: none); every
  // element must be an object.
  template <typename F>
  void each(std::string_view key, F each_object) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_array()) json_refuse(path(key), "an array", *v);
    for (size_t i = 0; i < v->size(); ++i) {
      each_object(JsonObject((*v)[i], json_index_path(path(key), i)));
    }
  }

 private:
  const nlohmann::json& v_;
  std::string path_;
};

// A whole file parsed as one JSON document. nullopt with *why (may be null): "cannot read PATH:
// <errno text>" or "PATH: not JSON (<the parser's message>)".
std::optional<nlohmann::json> read_json_file(const std::string& path, std::string* why = nullptr);

}  // namespace xrunlab
