// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The kernel tid of JACK's process thread, known to the callback without a system call: the
// thread records its tid once as it starts (libjack creates it through create_jack_thread), and
// the callback reads it back from a thread-local variable.
#include <pthread.h>
#include <sys/types.h>

#include <atomic>

namespace xrunlab {

static_assert(std::atomic<pid_t>::is_always_lock_free, "the tid is published to other threads");

// Records the calling thread's kernel tid (one gettid system call). Not realtime: thread
// start-up, or a test's thread before it plays the process thread.
void record_thread_tid();

// The tid record_thread_tid recorded on the calling thread; 0 if it never ran on this thread.
// Realtime: wait-free, a thread-local read.
pid_t recorded_thread_tid_rt() noexcept;

// A jack_set_thread_creator hook: creates libjack's threads exactly as libjack asks (same
// attributes, same routine), only through a trampoline that calls record_thread_tid first.
// Not realtime: runs on the thread that creates (it allocates the trampoline's arguments).
int create_jack_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*),
                       void* arg);

}  // namespace xrunlab
