// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A new POSIX shared-memory object that the engine makes for its clients to map (the vcard's
// record, the cycle table): created exclusively (a name in use is an error, never shared),
// readable and writable by this user only, sized and mapped. The clients' side opens it with
// clients/drain/shm_file.hpp. Non-realtime: used at start-up.
#include <cstddef>
#include <string>

namespace xrunlab {

// Creates `name` (shm_open O_CREAT | O_EXCL, mode 0600), sizes it to `bytes`, reserves its pages
// (posix_fallocate: a full /dev/shm is an error here, never a SIGBUS at a later write) and maps it
// read-write, shared; the new object is zero-filled. The caller owns the mapping (munmap) and
// the name (shm_unlink). On failure nothing is left behind (a name it created is removed) and it
// throws Error(kOutput) "cannot create|size|reserve the memory of|map <what> NAME: <errno text>"
// (with "/dev/shm is full" for ENOSPC), `what` naming the object ("the cycle table's shared memory
// object").
void* create_shm_object(const std::string& name, size_t bytes, const std::string& what);

}  // namespace xrunlab
