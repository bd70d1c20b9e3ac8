// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The C source tree of the compile load, which xrunlab-load builds again and again: a Makefile,
// units.h, main.c and 299 units u001.c ... u299.c of about 55 lines of arithmetic each, every
// unit with its own constants and operators. Generated from fixed seeds: every load compiles
// the same code. Non-realtime.
#include <string>

// Internal to the loads library: the parts of the xrunlab-load program.
namespace xrunlab::load_tool {

inline constexpr int kCompileFiles = 300;  // main.c + 299 units

// Creates the folder `src` (its parent must exist, `src` must not) and writes the tree into it.
// "" or what went wrong.
std::string generate_source_tree(const std::string& src);

}  // namespace xrunlab::load_tool
