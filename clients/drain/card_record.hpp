// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The vcard's shared-memory record (engine/wire/vcard_shared.hpp), mapped read-only into the
// client: when jackd woke for each period boundary. Read on the drain thread only, never in the
// process callback (--reference card's "signal" figure: callback entry minus jackd's wake-up).
#include <cstdint>
#include <string>

#include "clients/drain/shm_file.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {

class CardRecord {
 public:
  // Maps the POSIX shared-memory object `name` (--card-shm). Throws std::runtime_error naming
  // the record when it cannot be opened or mapped, is smaller than a vcard record, or is not a
  // record of this version.
  explicit CardRecord(const std::string& name);
  CardRecord(const CardRecord&) = delete;
  CardRecord& operator=(const CardRecord&) = delete;

  // jackd's wake-up for boundary m (CLOCK_MONOTONIC ns), from the capture stream's record: false
  // when its slot holds another boundary (not written yet, or overwritten kWakeSlots later) or is
  // being written. A seqlock read: wait-free.
  bool wake(uint64_t m, int64_t* wake_ns) const;

  const vcard::Shm& shm() const { return *shm_; }

 private:
  ShmMapping mapping_;
  const vcard::Shm* shm_ = nullptr;  // in mapping_
};

}  // namespace xrunlab
