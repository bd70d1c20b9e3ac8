// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab-load: one process per background load; see engine/loads/load_tool.hpp.
#include "engine/loads/load_tool.hpp"

int main(int argc, char** argv) {
  return xrunlab::load_tool_main(argc, argv);
}
