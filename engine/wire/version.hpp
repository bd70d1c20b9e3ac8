// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
namespace xrunlab {
inline constexpr const char* kVersion = "0.1.0";
inline constexpr int kSchemaVersion = 2;  // run.json schema (2: rows in seconds.jsonl)
}  // namespace xrunlab
