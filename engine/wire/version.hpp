#pragma once
namespace xrunlab {
inline constexpr const char* kVersion = "0.1.0";
inline constexpr int kSchemaVersion = 1;  // run.json schema
}  // namespace xrunlab
