// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// The machine context every result carries (kernel, CPU, memory, JACK version).
// Non-realtime: called once per run, before or after the measurement.

#include <string>
#include <string_view>

#include "engine/result/host_record.hpp"

namespace xrunlab {

// The hostname; the kernel (uname, its preemption model, /proc/cmdline); the CPU model, count
// and governors; the memory; jackd's version.
// Unreadable sources give "unknown", 0 or an empty list; never throws for missing files.
// Texts are made valid UTF-8 (invalid bytes become '?') so run.json always serialises them.
// jackd_version is the first line of `jackd --version` (fork+execvp, no shell), or "unknown".
HostRecord collect_host_context();

// "PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT" or "none", from the flag words of a
// `uname -v` string such as "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)".
// Old -rt kernels that print "PREEMPT RT" count as PREEMPT_RT.
std::string detect_preempt_model(std::string_view uname_version);

// The first "model name" value of /proc/cpuinfo text; on CPUs without that key, the first of
// "Processor", "cpu model" or "cpu". Empty when none is present.
std::string parse_cpu_model(std::string_view cpuinfo_text);

}  // namespace xrunlab
