// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab-janitor: see engine/janitor/janitor.hpp.
#include "engine/janitor/janitor.hpp"

int main(int argc, char** argv) {
  return xrunlab::janitor_main(argc, argv);
}
