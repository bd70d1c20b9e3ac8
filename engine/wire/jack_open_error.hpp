// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Why jack_client_open failed, in words. Its status bits say little (0x21: a failure and a
// server error), libjack's own error lines during the open say more; the one failure that has
// nothing to do with the server is JACK2's metadata database (common/JackMetadata.cpp), a
// Berkeley DB environment at /dev/shm/jack_db-<uid> that every JACK program of the user opens
// and whose lock region runs out with many at once ("BDB2034 unable to allocate memory for
// mutex; resize mutex region", then "Cannot open DB environment: Cannot allocate memory"). Used
// by xrunlab-client and the engine's monitor. Pure; non-realtime.
#include <string>
#include <vector>

namespace xrunlab {

// "cannot connect to JACK server 'NAME' (status 0xNN)" and what libjack's error lines
// (`errors`, as printed during the open, in order) say: the metadata database's path and what
// to do, or the first line and "is it running?". `uid` names the database's path.
std::string jack_open_failure(const std::string& server, unsigned status,
                              const std::vector<std::string>& errors, unsigned uid);

}  // namespace xrunlab
