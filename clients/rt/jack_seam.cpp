// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/rt/jack_seam.hpp"

namespace xrunlab {

JackSeam real_jack_seam() noexcept {
  JackSeam s;
  s.get_time = &jack_get_time;
  s.frames_since_cycle_start = &jack_frames_since_cycle_start;
  s.last_frame_time = &jack_last_frame_time;
  s.get_cycle_times = &jack_get_cycle_times;
  s.port_get_buffer = &jack_port_get_buffer;
  s.clock_gettime = &::clock_gettime;
  return s;
}

}  // namespace xrunlab
