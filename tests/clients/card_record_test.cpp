// SPDX-License-Identifier: GPL-2.0-or-later
// The client's read-only view of the vcard's shared-memory record (clients/drain/card_record.hpp),
// on a record this test writes itself with the card's own writer (vcard::write_wake).
#include "clients/drain/card_record.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace xrunlab {
namespace {

// A POSIX shared-memory object of `size` bytes, removed again at the end of the test.
class ShmObject {
 public:
  explicit ShmObject(size_t size)
      : name_("/xrunlab-card-record-test-" + std::to_string(::getpid())), size_(size) {
    ::shm_unlink(name_.c_str());
    const int fd = ::shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) throw std::runtime_error("shm_open " + name_);
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
      ::close(fd);
      throw std::runtime_error("ftruncate " + name_);
    }
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) throw std::runtime_error("mmap " + name_);
    base_ = p;
  }
  ~ShmObject() {
    ::munmap(base_, size_);
    ::shm_unlink(name_.c_str());
  }
  ShmObject(const ShmObject&) = delete;
  ShmObject& operator=(const ShmObject&) = delete;

  const std::string& name() const { return name_; }
  vcard::Shm* shm() const { return static_cast<vcard::Shm*>(base_); }

 private:
  std::string name_;
  size_t size_;
  void* base_ = nullptr;
};

// A record as the card leaves it: this version, zeroed (no wake-up recorded).
ShmObject* make_record(ShmObject* o) {
  o->shm()->magic = vcard::kShmMagic;
  o->shm()->version = vcard::kShmVersion;
  o->shm()->rate = 48000;
  o->shm()->frames = 64;
  return o;
}

void expect_refused(const std::string& name, const std::string& part) {
  try {
    CardRecord r(name);
    ADD_FAILURE() << name << " was accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the card record '" + name + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

TEST(CardRecord, ReadsTheCaptureStreamsWakeUpOfEachBoundary) {
  ShmObject o(sizeof(vcard::Shm));
  vcard::Shm* shm = make_record(&o)->shm();
  vcard::write_wake(shm->stream[1].wake[7], 7, 1000, 1234);
  vcard::write_wake(shm->stream[1].wake[8 % vcard::kWakeSlots], 8 + vcard::kWakeSlots, 2000,
                    2345);                                   // slot 8 now holds a later boundary
  vcard::write_wake(shm->stream[0].wake[9], 9, 3000, 3456);  // playback: not what is read
  const CardRecord r(o.name());
  EXPECT_EQ(r.shm().rate, 48000u);
  int64_t wake = -1;
  ASSERT_TRUE(r.wake(7, &wake));
  EXPECT_EQ(wake, 1234);
  EXPECT_FALSE(r.wake(7 + vcard::kWakeSlots, &wake));  // same slot, another boundary
  EXPECT_FALSE(r.wake(8, &wake));                      // overwritten
  ASSERT_TRUE(r.wake(8 + vcard::kWakeSlots, &wake));
  EXPECT_EQ(wake, 2345);
  EXPECT_FALSE(r.wake(9, &wake));   // only on the playback stream
  EXPECT_FALSE(r.wake(10, &wake));  // never written
  // A slot being written (seq 0) is not read.
  shm->stream[1].wake[7].seq.store(0);
  EXPECT_FALSE(r.wake(7, &wake));
}

TEST(CardRecord, RefusesWhatIsNotARecordOfThisVersion) {
  expect_refused("/xrunlab-card-record-test-missing", "cannot open");
  {
    ShmObject o(sizeof(vcard::Shm));
    make_record(&o)->shm()->version = vcard::kShmVersion + 1;
    expect_refused(o.name(), "not a vcard record of this version");
  }
  {
    ShmObject o(sizeof(vcard::Shm));
    make_record(&o)->shm()->magic = 0;
    expect_refused(o.name(), "not a vcard record of this version");
  }
  {
    ShmObject o(4096);  // a mapping of the whole record would fault past its end
    make_record(&o);
    expect_refused(o.name(), "too small");
  }
}

}  // namespace
}  // namespace xrunlab
