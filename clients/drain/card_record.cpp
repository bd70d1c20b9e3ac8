// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/card_record.hpp"

#include <string>
#include <utility>

#include "clients/drain/shm_file.hpp"

namespace xrunlab {

CardRecord::CardRecord(const std::string& name) {
  const ShmFile file(name, /*writable=*/false, "the card record '" + name + "'");
  if (file.size() < sizeof(vcard::Shm)) {
    // Mapping it whole would fault on the first read past its end.
    throw file.error("is too small for a vcard record (" + std::to_string(file.size()) + " of " +
                     std::to_string(sizeof(vcard::Shm)) + " bytes)");
  }
  ShmMapping mapping = file.map(sizeof(vcard::Shm));
  const auto* shm = static_cast<const vcard::Shm*>(mapping.data());
  if (shm->magic != vcard::kShmMagic || shm->version != vcard::kShmVersion) {
    throw file.error("is not a vcard record of this version");
  }
  mapping_ = std::move(mapping);
  shm_ = shm;
}

bool CardRecord::wake(uint64_t m, int64_t* wake_ns) const {
  const vcard::StreamRecord& s = shm_->stream[1];
  const vcard::WakeSlot& slot = s.wake[m % vcard::kWakeSlots];
  uint64_t got = 0;
  int64_t ideal = 0;
  return vcard::read_wake(slot, &got, &ideal, wake_ns) && got == m;
}

}  // namespace xrunlab
