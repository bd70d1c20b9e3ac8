// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Where xrunlab finds the files it ships, from the folder its own binary is in. Two layouts, no
// environment variable needed for either:
//   installed  <prefix>/bin/xrunlab
//              <prefix>/libexec/xrunlab/{xrunlab-client,xrunlab-load,xrunlab-janitor}
//              <prefix>/<libdir>/xrunlab/libasound_module_pcm_xrunlab.so (the vcard plug-in,
//                named by absolute path in each run's vcard-asound.conf, so alsa-lib's own
//                plug-in folder and every other ALSA program are left alone)
//              <prefix>/share/xrunlab/{scripts,scripts/campaigns,schema}
//   build tree build/bin/ (all programs), build/lib/ (the plug-in), the source tree's scripts/
// The installed folders are relative to bin as configured (GNUInstallDirs: <libdir> is
// lib/<multiarch triplet> under /usr on Debian), so a relocated prefix (DESTDIR, --prefix,
// a staging folder) works. Non-realtime.
#include <string>

namespace xrunlab {

// A helper program: beside the xrunlab binary (build tree), else in the installed libexec
// folder. When neither exists, the installed path (so an error can say where it looked).
std::string helper_program_path(const std::string& exe_dir, const std::string& name);

// The vcard ALSA plug-in: the installed plug-in folder, else the build tree's lib/. "" when
// neither holds it.
std::string vcard_plugin_path(const std::string& exe_dir);

// Both places vcard_plugin_path looks, for an error message ("A or B").
std::string vcard_plugin_places(const std::string& exe_dir);

// <prefix>/share/xrunlab for a binary in <prefix>/bin (it may not exist).
std::string installed_data_dir(const std::string& exe_dir);

}  // namespace xrunlab
