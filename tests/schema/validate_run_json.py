#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks run.json files against docs/schema/run.schema.json (JSON Schema draft 2020-12).

Run with Debian's /usr/bin/python3 and its python3-jsonschema package. Commands:

  validate_run_json.py --schema S version HEADER
      the schema's declared version (x-xrunlab-schema-version, its $id and title) is the
      writer's kSchemaVersion in HEADER (engine/wire/version.hpp)
  validate_run_json.py --schema S files FILE...
      every FILE validates
  validate_run_json.py --schema S tree DIR...
      every run.json under each DIR (a *.json object with schema_version, xrunlab_version and
      command_line) validates; at least one of the current version must be among them
  validate_run_json.py --schema S broken FILE
      the validator rejects copies of FILE made wrong on purpose (a required member removed, a
      wrong type, a status that does not exist, ...): the check that this test can fail
  validate_run_json.py --schema S run XRUNLAB [RUN_ARGS...]
      runs `XRUNLAB run RUN_ARGS --output TMP` and validates the run.json it writes

Exit code 0: all checks passed; 1: a check failed (each failure on its own line); 2: bad usage.
"""
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:  # pragma: no cover - a test machine without python3-jsonschema
    sys.stderr.write("python3-jsonschema is not installed (apt-get install python3-jsonschema)\n")
    sys.exit(2)


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Checker:
    def __init__(self, schema_path):
        self.schema = load_json(schema_path)
        jsonschema.Draft202012Validator.check_schema(self.schema)
        self.validator = jsonschema.Draft202012Validator(self.schema)
        self.failures = 0

    def declared_version(self):
        return self.schema["x-xrunlab-schema-version"]

    def errors(self, doc):
        return sorted(self.validator.iter_errors(doc), key=lambda e: list(e.absolute_path))

    def fail(self, text):
        print("FAIL " + text)
        self.failures += 1

    def expect_valid(self, doc, name):
        errors = self.errors(doc)
        if not errors:
            print("ok   %s (schema_version %s)" % (name, doc.get("schema_version")))
            return True
        for e in errors[:20]:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            self.fail("%s: %s: %s" % (name, where, e.message[:300]))
        return False

    def expect_invalid(self, doc, name):
        errors = self.errors(doc)
        if errors:
            e = errors[0]
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print("ok   rejected as it should be: %s: %s: %s" % (name, where, e.message[:160]))
        else:
            self.fail("%s: the validator accepted it" % name)


def is_run_json(doc):
    return isinstance(doc, dict) and all(
        k in doc for k in ("schema_version", "xrunlab_version", "command_line"))


def cmd_version(c, header):
    with open(header, encoding="utf-8") as f:
        m = re.search(r"kSchemaVersion\s*=\s*(\d+)", f.read())
    if not m:
        c.fail("%s: no kSchemaVersion" % header)
        return
    writer = int(m.group(1))
    declared = c.declared_version()
    schema = c.schema
    enum = schema["properties"]["schema_version"]["enum"]
    checks = [
        ("x-xrunlab-schema-version", declared == writer),
        ("$id", ("/%d/" % writer) in schema["$id"]),
        ("title", schema["title"].endswith("schema_version %d" % writer)),
        ("schema_version's enum", max(enum) == writer),
    ]
    for what, good in checks:
        if good:
            print("ok   the schema's %s names schema_version %d (the writer's kSchemaVersion)"
                  % (what, writer))
        else:
            c.fail("the schema's %s does not name the writer's kSchemaVersion %d (%s): bump "
                   "docs/schema/run.schema.json with engine/wire/version.hpp" % (what, writer, header))


def cmd_files(c, paths):
    if not paths:
        c.fail("no files given")
    for p in paths:
        c.expect_valid(load_json(p), p)


def cmd_tree(c, dirs):
    current = 0
    found = 0
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, "**", "*.json"), recursive=True)):
            try:
                doc = load_json(p)
            except ValueError:
                continue
            if not is_run_json(doc):
                continue
            found += 1
            if c.expect_valid(doc, p) and doc["schema_version"] == c.declared_version():
                current += 1
    if found == 0:
        c.fail("no run.json files under %s" % ", ".join(dirs))
    elif current == 0:
        c.fail("no run.json of schema_version %d under %s" % (c.declared_version(), ", ".join(dirs)))


def mutations(doc):
    """(name, broken copy) pairs; each breaks a rule the schema states."""
    out = []

    def mutate(name, fn):
        d = copy.deepcopy(doc)
        fn(d)
        out.append((name, d))

    mutate("without the required member 'status'", lambda d: d.pop("status"))
    mutate("without the required member 'clients'", lambda d: d.pop("clients"))
    mutate("'schema_version' a string", lambda d: d.__setitem__("schema_version", "2"))
    mutate("'schema_version' 3 (not a version this schema describes)",
           lambda d: d.__setitem__("schema_version", 3))
    mutate("'status' \"finished\" (not a status xrunlab writes)",
           lambda d: d.__setitem__("status", "finished"))
    mutate("'settings.frames' a string",
           lambda d: d["settings"].__setitem__("frames", "256"))
    mutate("'totals.xrun_count' negative",
           lambda d: d["totals"].__setitem__("xrun_count", -1))
    mutate("'totals.delay_us.p99' without 'exact'",
           lambda d: d["totals"]["delay_us"].__setitem__("p99", {"value_us": 5}))
    if doc.get("clients"):
        mutate("'clients[0].cycles' a number with a fraction",
               lambda d: d["clients"][0].__setitem__("cycles", 1.5))
    if doc.get("jack_test"):
        mutate("'jack_test.delay_max_us' a string",
               lambda d: d["jack_test"].__setitem__("delay_max_us", "12"))
    if doc.get("schema_version") == 2:
        mutate("schema 2 with schema 1's 'system_per_second'",
               lambda d: d.__setitem__("system_per_second", []))
        mutate("schema 2 without 'per_second'", lambda d: d.pop("per_second"))
    return out


def cmd_broken(c, path):
    doc = load_json(path)
    if not c.expect_valid(doc, path + " (as it is)"):
        return
    docs = [doc]
    if doc.get("schema_version") != c.declared_version():
        # The same document as the current version writes it, so the current rules are tried.
        d = copy.deepcopy(doc)
        d["schema_version"] = c.declared_version()
        for clients in d.get("clients") or []:
            clients.pop("per_second", None)
        d.pop("system_per_second", None)
        d["per_second"] = {"file": "seconds.jsonl", "client_rows": 0, "system_rows": 0}
        for k in ("loads", "baseline", "dma_latency", "affinity", "explain", "trace_on_xrun",
                  "rt_time_limit", "runaway", "logs", "jack_test", "cycles", "xrun_cycles",
                  "audio", "scheduling"):
            d.setdefault(k, None if k != "scheduling" else {})
        if not c.expect_valid(d, path + " (as schema_version %d)" % c.declared_version()):
            return
        docs.append(d)
    for d in docs:
        for name, broken in mutations(d):
            c.expect_invalid(broken, "%s (schema_version %s) %s" % (
                os.path.basename(path), d.get("schema_version"), name))


def cmd_run(c, xrunlab, run_args):
    with tempfile.TemporaryDirectory(prefix="xrunlab-schema-") as tmp:
        argv = [xrunlab, "run"] + list(run_args) + ["--output", tmp]
        print("running: " + " ".join(argv))
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=180)
        found = glob.glob(os.path.join(tmp, "**", "run.json"), recursive=True)
        if len(found) != 1:
            c.fail("the run (exit code %d) left %d run.json files; its output:\n%s"
                   % (p.returncode, len(found), p.stdout[-4000:]))
            return
        doc = load_json(found[0])
        print("the run exited with %d, status %s" % (p.returncode, doc.get("status")))
        if doc.get("schema_version") != c.declared_version():
            c.fail("the run wrote schema_version %s, the schema describes %d"
                   % (doc.get("schema_version"), c.declared_version()))
        c.expect_valid(doc, "run.json of the real run")


def main(argv):
    args = list(argv[1:])
    if len(args) < 3 or args[0] != "--schema":
        sys.stderr.write(__doc__)
        return 2
    c = Checker(args[1])
    command, rest = args[2], args[3:]
    if command == "version" and len(rest) == 1:
        cmd_version(c, rest[0])
    elif command == "files":
        cmd_files(c, rest)
    elif command == "tree" and rest:
        cmd_tree(c, rest)
    elif command == "broken" and len(rest) == 1:
        cmd_broken(c, rest[0])
    elif command == "run" and rest:
        cmd_run(c, rest[0], rest[1:])
    else:
        sys.stderr.write(__doc__)
        return 2
    if c.failures:
        print("%d check(s) failed" % c.failures)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
