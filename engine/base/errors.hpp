// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Typed errors outside realtime code. Each carries the documented exit code of xrunlab;
// main() prints "xrunlab: error: <message>" once and exits with code().
#include <stdexcept>
#include <string>

namespace xrunlab {

enum class ExitCode : int {
  kOk = 0,
  kRunFailed = 1,       // the run happened but failed a check (e.g. a client died)
  kUsage = 2,           // bad flag or value
  kMissingProgram = 3,  // jackd (or another needed program) not found
  kServerFailed = 4,    // jackd did not start or did not accept clients
  kClientsFailed = 5,   // clients failed to start or to activate, or one ran away (RLIMIT_RTTIME)
  kOutput = 6,          // the output folder cannot be written
  kPermission = 7,      // the scheduling policy is not permitted (limits, capabilities)
  kUnsupported = 8,     // the policy does not exist on this kernel/system (SCHED_ISO, RT groups)
  kDevice = 9,          // the sound device is missing, busy or misconfigured (--backend)
  kThreshold = 10,      // a --fail-if threshold failed (the runs completed, results written)
  kHistory = 11,        // the history database cannot be used (corrupt, locked, newer, foreign)
  kDoctorWarn = 20,     // xrunlab doctor: the worst check is WARN (works, but could drop out)
  kDoctorFail = 21,     // xrunlab doctor: at least one check is FAIL (realtime audio will not work)
  kCheckDropsOut = 22,  // xrunlab check: no period tried ran without dropouts
  kInterrupted = 130,   // SIGINT/SIGTERM: results so far were written, marked interrupted
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

}  // namespace xrunlab
