// SPDX-License-Identifier: GPL-2.0-or-later
// KCIDB I/O schema v4.4 (kernelci/kcidb-io, kcidb_io/schema/v04_04.py; the fixture
// tests/fixtures/kcidb/kcidb.v4_4.schema.json is that schema): xrunlab's runs as one document.
// Non-realtime.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "engine/base/errors.hpp"
#include "engine/base/text.hpp"
#include "engine/export/exports.hpp"

namespace xrunlab {

namespace {

using nlohmann::ordered_json;

const char* kcidb_status(FigureVerdict v) {
  switch (v) {
    case FigureVerdict::kPass:
      return "PASS";
    case FigureVerdict::kFail:
      return "FAIL";
    case FigureVerdict::kDone:
      return "DONE";
    case FigureVerdict::kError:
      // A run that did not complete (interrupted, failed, killed, or still incomplete) started
      // and stopped before its window ended: KCIDB's ERROR, "the test didn't complete ... and
      // the status of the tested code is unknown". Not MISS ("the test didn't run"): it ran,
      // and what it measured of its window is kept in "number" (KCIDB reads a number of an
      // ERROR test), with misc.run_status saying how it ended.
      return "ERROR";
  }
  return "ERROR";
}

// The kernel a run ran on: KCIDB's checkout (its source) and build. xrunlab knows the release,
// the version string (uname -v, which tells two builds of one release apart) and the machine;
// not the tree, commit or config, which stay out rather than being guessed.
struct Kernel {
  std::string release, version, machine, preempt;
};

Kernel kernel_of(const RunResult& r) {
  Kernel k;
  if (r.host) {
    k.release = r.host->kernel.release;
    k.version = r.host->kernel.version;
    k.machine = r.host->kernel.machine;
    k.preempt = r.host->kernel.preempt;
  }
  return k;
}

std::string checkout_id(const std::string& origin, const Kernel& k) {
  if (k.release.empty() && k.version.empty()) return origin + ":kernel-unknown";
  return fmt::format("{}:kernel-{}-{:016x}", origin, k.release,
                     fnv1a_64(k.release + "\n" + k.version));
}

// KCIDB's architecture: ^[a-z0-9_]*$.
std::string architecture(const std::string& machine) {
  std::string a;
  for (const char c : machine) {
    a += (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'
             ? c
             : ((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : '_');
  }
  return a;
}

std::string build_id(const std::string& origin, const Kernel& k) {
  return checkout_id(origin, k) + (k.machine.empty() ? "" : "-" + architecture(k.machine));
}

ordered_json kernel_misc(const Kernel& k) {
  ordered_json m = ordered_json::object();
  if (!k.release.empty()) m["kernel_release"] = k.release;
  if (!k.version.empty()) m["kernel_version"] = k.version;
  if (!k.preempt.empty()) m["kernel_preempt"] = k.preempt;
  return m;
}

std::string policy_of(const RunResult& r) {
  if (!r.policy_spec.empty()) return r.policy_spec;
  return r.spec ? r.spec->policy : "";
}

// Where and how the run ran: KCIDB's environment takes only "comment", "compatible" and a
// free-form "misc".
ordered_json environment(const ExportRun& e) {
  const RunResult& r = e.run;
  ordered_json misc = ordered_json::object();
  if (r.host && !r.host->hostname.empty()) misc["host"] = r.host->hostname;
  if (r.host && !r.host->kernel.release.empty()) misc["kernel_release"] = r.host->kernel.release;
  if (const std::string p = policy_of(r); !p.empty()) misc["policy"] = p;
  if (!r.scheduling.empty()) misc["scheduling"] = r.scheduling;
  if (r.frames > 0) misc["period_frames"] = r.frames;
  if (r.rate > 0) misc["rate_hz"] = r.rate;
  if (r.clients > 0) misc["clients"] = r.clients;
  if (r.spec && r.spec->dsp_load_pct > 0) misc["dsp_load_pct"] = r.spec->dsp_load_pct;
  if (!r.backend.name.empty()) misc["backend"] = r.backend.name;
  if (r.spec && !r.spec->loads.empty()) misc["loads"] = r.spec->loads;
  if (r.host && !r.host->jackd_version.empty()) misc["jackd_version"] = r.host->jackd_version;
  ordered_json env = ordered_json::object();
  if (r.host && !r.host->hostname.empty()) env["comment"] = "host " + r.host->hostname;
  env["misc"] = misc;
  return env;
}

ordered_json run_misc(const ExportRun& e) {
  ordered_json m = ordered_json::object();
  m["run_id"] = e.id;
  m["label"] = e.label;
  m["run_status"] = run_status_name(e.run.status);
  if (!e.run.status_detail.empty()) m["status_detail"] = e.run.status_detail;
  if (!e.run.xrunlab_version.empty()) m["xrunlab_version"] = e.run.xrunlab_version;
  if (!e.folder.empty()) m["run_folder"] = e.folder;
  return m;
}

}  // namespace

void check_kcidb_origin(const std::string& origin) {
  const bool ok =
      !origin.empty() &&
      origin.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
  if (!ok) {
    throw Error(ExitCode::kUsage, "--origin '" + origin +
                                      "': KCIDB takes lower-case letters, digits and '_' only "
                                      "(e.g. --origin my_lab)");
  }
}

std::string kcidb_path_part(const std::string& label) {
  if (label.empty()) return "unlabelled";
  std::string s;
  for (const char c : label) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    s += ok ? c : '_';
  }
  return s;
}

ordered_json kcidb_json(const std::vector<ExportRun>& runs, const ExportOptions& o) {
  check_kcidb_origin(o.origin);
  ordered_json doc;
  doc["version"] = {{"major", kKcidbMajor}, {"minor", kKcidbMinor}};
  ordered_json checkouts = ordered_json::array();
  ordered_json builds = ordered_json::array();
  ordered_json tests = ordered_json::array();
  std::set<std::string> seen_checkouts, seen_builds;
  for (const ExportRun& e : runs) {
    const Kernel k = kernel_of(e.run);
    const std::string cid = checkout_id(o.origin, k);
    const std::string bid = build_id(o.origin, k);
    if (seen_checkouts.insert(cid).second) {
      ordered_json c;
      c["id"] = cid;
      c["origin"] = o.origin;
      c["comment"] = k.release.empty()
                         ? std::string("the kernel the runs ran on (not recorded in run.json)")
                         : "Linux " + k.release +
                               ", the kernel the runs ran on (its tree and "
                               "commit are not known to xrunlab)";
      c["misc"] = kernel_misc(k);
      checkouts.push_back(c);
    }
    if (seen_builds.insert(bid).second) {
      ordered_json b;
      b["checkout_id"] = cid;
      b["id"] = bid;
      b["origin"] = o.origin;
      if (!k.machine.empty()) b["architecture"] = architecture(k.machine);
      b["comment"] = k.release.empty() ? std::string("kernel not recorded")
                                       : "Linux " + k.release + " " + k.version;
      b["misc"] = kernel_misc(k);
      builds.push_back(b);
    }
    const std::vector<FigureResult> figures = export_figures(e.run, o.fail_if);
    const std::string path = "xrunlab." + kcidb_path_part(e.label);
    const ordered_json env = environment(e);
    // The run itself: its verdict over every figure (and ERROR when it did not complete).
    ordered_json t;
    t["build_id"] = bid;
    t["id"] = o.origin + ":" + e.id;
    t["origin"] = o.origin;
    t["environment"] = env;
    t["path"] = path;
    if (!e.run.status_detail.empty()) t["comment"] = e.run.status_detail;
    t["status"] = kcidb_status(run_verdict(e.run, figures));
    if (!e.run.started_utc.empty()) t["start_time"] = e.run.started_utc;
    if (e.run.seconds_ran > 0) t["duration"] = e.run.seconds_ran;
    t["misc"] = run_misc(e);
    tests.push_back(t);
    for (const FigureResult& f : figures) {
      ordered_json ft;
      ft["build_id"] = bid;
      ft["id"] = o.origin + ":" + e.id + "." + f.metric->name;
      ft["origin"] = o.origin;
      ft["environment"] = env;
      ft["path"] = path + "." + f.metric->name;
      ft["comment"] = f.metric->label;
      ft["status"] = kcidb_status(f.verdict);
      if (f.value && std::isfinite(*f.value)) {
        ordered_json n;
        n["value"] = *f.value;
        if (!f.metric->unit.empty()) n["unit"] = f.metric->unit;
        ft["number"] = n;
      }
      if (!e.run.started_utc.empty()) ft["start_time"] = e.run.started_utc;
      ordered_json misc = run_misc(e);
      if (!f.checks.empty()) {
        ordered_json checks = ordered_json::array();
        for (const ThresholdCheck& c : f.checks) checks.push_back(c.message);
        misc["fail_if"] = checks;
      }
      ft["misc"] = misc;
      tests.push_back(ft);
    }
  }
  doc["checkouts"] = checkouts;
  doc["builds"] = builds;
  doc["tests"] = tests;
  return doc;
}

}  // namespace xrunlab
