// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/rt/thread_tid.hpp"

#include <unistd.h>

namespace xrunlab {
namespace {

thread_local pid_t t_tid = 0;

struct ThreadStart {
  void* (*routine)(void*);
  void* arg;
};

void* jack_thread_trampoline(void* p) {
  const ThreadStart start = *static_cast<ThreadStart*>(p);
  delete static_cast<ThreadStart*>(p);
  record_thread_tid();
  return start.routine(start.arg);
}

}  // namespace

void record_thread_tid() {
  t_tid = static_cast<pid_t>(::gettid());
}

pid_t recorded_thread_tid_rt() noexcept {
  return t_tid;
}

int create_jack_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*),
                       void* arg) {
  auto* start = new ThreadStart{routine, arg};
  const int rc = ::pthread_create(thread, attr, jack_thread_trampoline, start);
  if (rc != 0) delete start;
  return rc;
}

}  // namespace xrunlab
