// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The seam between the process callback and the outside world: every JACK and clock call the
// callback makes goes through one of these function pointers. The client fills them with the
// real functions (real_jack_seam); a unit test fills them with fakes and runs the callback
// without a JACK server.
//
// Cost: one indirect call each, through a pointer the callback loads from its configuration
// (in cache, since it is read every cycle). A direct call costs about the same: the JACK
// functions live in libjack.so and clock_gettime in libc.so, so the client reaches each of them
// through the PLT, an indirect jump, already. Nothing is inlined either way.
//
// Realtime: the seam itself is plain data (trivially copyable, never changed after activation);
// the functions it points to must be realtime-safe where the callback calls them: JACK's own
// are (they read the client's shared memory and the clock), and fakes must not allocate, lock
// or log either.
#include <jack/jack.h>
#include <time.h>

#include <type_traits>

namespace xrunlab {

// Each member stands for jack_<member>; clock_gettime for ::clock_gettime.
struct JackSeam {
  jack_time_t (*get_time)();
  jack_nframes_t (*frames_since_cycle_start)(const jack_client_t*);
  jack_nframes_t (*last_frame_time)(const jack_client_t*);
  int (*get_cycle_times)(const jack_client_t*, jack_nframes_t* current_frames,
                         jack_time_t* current_usecs, jack_time_t* next_usecs, float* period_usecs);
  void* (*port_get_buffer)(jack_port_t*, jack_nframes_t);
  int (*clock_gettime)(clockid_t, timespec*);  // the callback asks for CLOCK_MONOTONIC only
};
static_assert(std::is_trivially_copyable_v<JackSeam>, "the callback reads it as plain data");

// The real JACK functions and ::clock_gettime.
JackSeam real_jack_seam() noexcept;

}  // namespace xrunlab
