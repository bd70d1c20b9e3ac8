#pragma once
// The options of `xrunlab run`: typed, with defaults, validated before anything starts.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

struct RunOptions {
  int clients = 14;
  int ports = 4;
  uint32_t period = 64;   // frames
  uint32_t rate = 48000;  // Hz
  double duration_s = 300;
  double dsp_load_pct = 30;  // total over all clients, percent of the period
  std::string label = "default";
  std::string output = "results";
  int priority = 70;               // jackd -P; clients run 5 below (JACK2)
  bool priority_given = false;     // --priority was on the command line
  std::string policy = "fifo";     // --policy SPEC (policy.hpp)
  std::vector<std::string> loads;  // --load SPEC, repeatable (load_spec.hpp)
  std::string inject;              // USEC:EVERY_N_CYCLES, "" = none
  int inject_client = 1;
  std::string jackd = "jackd";
  std::string client_binary;  // default: xrunlab-client next to the xrunlab binary
  double server_timeout_s = 10;
  std::string backend;  // --backend SPEC (backend.hpp); "" = vcard without a card, alsa with one
  int nperiods = 2;     // periods in the card's buffer (vcard, alsa)
  bool period_given = false;  // --period / --rate were on the command line (attach checks them)
  bool rate_given = false;
  bool plots = true;
  bool audio_check = true;  // the audible chain: a test signal through port 1 of every client
  bool record = false;      // write the received signal and glitch excerpts (audio/*.wav)
  bool quiet = false;
};

nlohmann::json to_json(const RunOptions& o);

// Throws xrunlab::Error(kUsage) naming the option at fault.
void validate(const RunOptions& o);

}  // namespace xrunlab
