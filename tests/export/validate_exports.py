#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks the files `xrunlab export` writes (docs/exports.md).

Run with Debian's /usr/bin/python3 and its python3-jsonschema package. Commands:

  validate_exports.py --schema S kcidb FILE
      FILE validates against the KCIDB schema S (tests/fixtures/kcidb/kcidb.v4_4.schema.json),
      with jsonschema's Draft 7 validator and format checker, as kcidb-io validates
  validate_exports.py squad DIR
      DIR/tests.json, metrics.json and metadata.json have SQUAD's submit format: objects;
      names "xrunlab/CASE/NAME" with no '/' in NAME; tests "pass", "fail" or "skip"; metrics a
      number or a non-empty list of numbers; metadata strings (suite_versions an object of
      strings), with job_id
  validate_exports.py openmetrics FILE
      FILE parses as OpenMetrics text: families of # TYPE gauge with their # HELP and # UNIT
      (the name ends in _UNIT) before their samples, each family's samples together, names and
      label names of the allowed characters, label values escaped, finite values, no sample
      twice, "# EOF" last
  validate_exports.py --schema S broken KCIDB_FILE SQUAD_DIR OPENMETRICS_FILE
      each check above rejects copies of the files made wrong on purpose: the check that the
      tests using them can fail
  validate_exports.py --schema S export XRUNLAB RUN_FOLDER...
      runs `XRUNLAB export RUN_FOLDER... --kcidb --squad --openmetrics` into a temporary folder
      (with --fail-if xruns>0, so PASS/FAIL appear), then every check above on what it wrote

Exit code 0: all checks passed; 1: a check failed (each failure on its own line); 2: bad usage.
"""
import copy
import json
import math
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


# ---- KCIDB

# RFC 3339 date-time, the schema's "format": "date-time". jsonschema checks it only when the
# optional rfc3339-validator package is installed; without it, this regular expression does.
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def format_checker():
    checker = copy.deepcopy(jsonschema.Draft7Validator.FORMAT_CHECKER)
    if "date-time" not in checker.checkers:
        checker.checks("date-time")(lambda v: not isinstance(v, str) or bool(RFC3339.match(v)))
    return checker


def kcidb_errors(schema, doc):
    validator = jsonschema.Draft7Validator(schema, format_checker=format_checker())
    out = ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message[:300])
           for e in validator.iter_errors(doc)]
    # What the schema cannot say: every test's build and every build's checkout is in the
    # document, and the version is the one with test numbers.
    if not out:
        checkouts = {c["id"] for c in doc.get("checkouts", [])}
        builds = {b["id"] for b in doc.get("builds", [])}
        for b in doc.get("builds", []):
            if b["checkout_id"] not in checkouts:
                out.append("build %s: checkout %s is not in the document" % (b["id"],
                                                                             b["checkout_id"]))
        for t in doc.get("tests", []):
            if t["build_id"] not in builds:
                out.append("test %s: build %s is not in the document" % (t["id"], t["build_id"]))
        if doc["version"] != {"major": 4, "minor": 4}:
            out.append("version is %s, not 4.4" % doc["version"])
        if not doc.get("tests"):
            out.append("no tests")
    return out


def kcidb_broken(doc):
    """Copies of a valid document, each wrong in one way the schema (or the checks above) see."""
    cases = []

    def variant(name, change):
        d = copy.deepcopy(doc)
        change(d)
        cases.append((name, d))

    variant("version 3.0", lambda d: d["version"].update(major=3))
    variant("a test without id", lambda d: d["tests"][0].pop("id"))
    variant("an unknown status", lambda d: d["tests"][0].update(status="OK"))
    variant("an id without origin", lambda d: d["tests"][0].update(id="no-origin"))
    variant("an origin with a capital", lambda d: d["tests"][0].update(origin="XrunLab"))
    variant("a path with a space", lambda d: d["tests"][0].update(path="xrunlab.a b"))
    variant("a number as text", lambda d: d["tests"][-1].update(number={"value": "1"}))
    variant("an unknown number member",
            lambda d: d["tests"][-1].update(number={"value": 1, "units": "us"}))
    variant("an unknown test member", lambda d: d["tests"][0].update(figure="x"))
    variant("a start time that is no date", lambda d: d["tests"][0].update(start_time="today"))
    variant("a test of a build not in the document",
            lambda d: d["tests"][0].update(build_id="xrunlab:elsewhere"))
    return cases


# ---- SQUAD

NAME = re.compile(r"^xrunlab/[^/\[\]\s]+/[^/\s]+$")


def squad_errors(tests, metrics, metadata):
    out = []
    for what, obj in (("tests", tests), ("metrics", metrics), ("metadata", metadata)):
        if not isinstance(obj, dict):
            out.append("%s: not an object" % what)
    if out:
        return out
    for name, value in tests.items():
        if not NAME.match(name):
            out.append("tests: %r is not xrunlab/CASE/TEST" % name)
        if value not in ("pass", "fail", "skip"):
            out.append("tests: %s: %r is not pass, fail or skip" % (name, value))
    for name, value in metrics.items():
        if not NAME.match(name):
            out.append("metrics: %r is not xrunlab/CASE/METRIC" % name)
        values = value if isinstance(value, list) else [value]
        if not values:
            out.append("metrics: %s: an empty list" % name)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                out.append("metrics: %s: %r is not a number" % (name, v))
    for key, value in metadata.items():
        if key == "suite_versions":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                out.append("metadata: suite_versions is not an object of strings")
        elif not isinstance(value, str):
            out.append("metadata: %s: %r is not a string" % (key, value))
    if not isinstance(metadata.get("job_id"), str) or not metadata.get("job_id"):
        out.append("metadata: no job_id")
    if not tests:
        out.append("tests: empty")
    return out


def squad_broken(tests, metrics, metadata):
    cases = []
    t0, m0 = next(iter(tests)), next(iter(metrics))
    cases.append(("a test result that is a number", ({**tests, t0: 1}, metrics, metadata)))
    cases.append(("a test result 'passed'", ({**tests, t0: "passed"}, metrics, metadata)))
    cases.append(("a test name with no suite", ({"alone": "pass"}, metrics, metadata)))
    cases.append(("a metric as text", (tests, {**metrics, m0: "12"}, metadata)))
    cases.append(("a metric that is true", (tests, {**metrics, m0: True}, metadata)))
    cases.append(("an empty metric list", (tests, {**metrics, m0: []}, metadata)))
    cases.append(("a metric name with a slash in it",
                  (tests, {**metrics, "xrunlab/a/b/c": 1}, metadata)))
    cases.append(("a metadata number", (tests, metrics, {**metadata, "runs": 1})))
    md = dict(metadata)
    md.pop("job_id")
    cases.append(("metadata without job_id", (tests, metrics, md)))
    return cases


# ---- OpenMetrics

METRIC = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r"^(%s)(\{(?:%s=%s(?:,%s=%s)*)?\})? (\S+)$" % (METRIC, LABEL, VALUE, LABEL,
                                                                    VALUE))
META = re.compile(r"^# (TYPE|UNIT|HELP) (%s)(?: (.*))?$" % METRIC)


def openmetrics_errors(text):
    out = []
    if not text.endswith("# EOF\n"):
        out.append("the text does not end with '# EOF' and a newline")
    lines = text.split("\n")[:-1]
    if "# EOF" in lines[:-1]:
        out.append("'# EOF' before the end")
    families = {}  # name -> {"type", "unit", "help", "samples"}
    done = set()   # families whose samples ended
    current = None
    seen = set()
    for n, line in enumerate(lines[:-1] if lines and lines[-1] == "# EOF" else lines, 1):
        m = META.match(line)
        if m:
            kind, name, rest = m.group(1), m.group(2), m.group(3) or ""
            if name != current:
                if current is not None:
                    done.add(current)
                if name in done or name in families:
                    out.append("line %d: family %s again" % (n, name))
                current = name
                families[name] = {"samples": 0}
            if kind.lower() in families[name]:
                out.append("line %d: a second # %s for %s" % (n, kind, name))
            if families[name]["samples"]:
                out.append("line %d: # %s of %s after its samples" % (n, kind, name))
            families[name][kind.lower()] = rest
            if kind == "TYPE" and rest != "gauge":
                out.append("line %d: %s is a %r, not a gauge" % (n, name, rest))
            if kind == "UNIT" and not name.endswith("_" + rest):
                out.append("line %d: %s does not end in its unit _%s" % (n, name, rest))
            continue
        m = SAMPLE.match(line)
        if not m:
            out.append("line %d: not a sample or a # TYPE/UNIT/HELP line: %r" % (n, line))
            continue
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        if name != current or "type" not in families.get(name, {}):
            out.append("line %d: sample of %s outside its family (no # TYPE before it)" % (n,
                                                                                          name))
            continue
        if "help" not in families[name]:
            out.append("line %d: %s has no # HELP" % (n, name))
        families[name]["samples"] += 1
        try:
            v = float(value)
            if not math.isfinite(v):
                out.append("line %d: %s is not finite" % (n, value))
        except ValueError:
            out.append("line %d: %r is not a number" % (n, value))
        names = re.findall(r"(%s)=%s" % (LABEL, VALUE), labels)
        if len(names) != len(set(names)):
            out.append("line %d: a label twice" % n)
        if (name, labels) in seen:
            out.append("line %d: %s%s twice" % (n, name, labels))
        seen.add((name, labels))
    if not families:
        out.append("no metric families")
    for name, f in families.items():
        if f["samples"] == 0:
            out.append("%s: a family without samples" % name)
    return out


def openmetrics_broken(text):
    lines = text.split("\n")
    sample = next(i for i, l in enumerate(lines) if l and not l.startswith("#"))
    cases = [("no # EOF", text.replace("# EOF\n", "")),
             ("an unescaped quote in a label value",
              text.replace('case="', 'case="a"b', 1)),
             ("a value that is no number", text.replace(lines[sample],
                                                        lines[sample].rsplit(" ", 1)[0] + " x")),
             ("a counter", text.replace(" gauge\n", " counter\n", 1)),
             ("a sample twice", text.replace(lines[sample] + "\n",
                                             lines[sample] + "\n" + lines[sample] + "\n")),
             ("a sample before its # TYPE", lines[sample] + "\n" + text),
             ("a metric name with a dash", text.replace("xrunlab_", "xrunlab-", 1))]
    unit = next((l for l in lines if l.startswith("# UNIT ")), None)
    if unit:
        cases.append(("a unit the name does not end in",
                      text.replace(unit, unit.rsplit(" ", 1)[0] + " bytes")))
    return cases


# ---- commands

class Run:
    def __init__(self):
        self.failures = 0

    def fail(self, text):
        print("FAIL " + text)
        self.failures += 1

    def expect(self, name, errors):
        if errors:
            for e in errors[:20]:
                self.fail("%s: %s" % (name, e))
        else:
            print("ok   %s" % name)

    def expect_rejected(self, name, errors):
        if errors:
            print("ok   rejected as it should be: %s: %s" % (name, errors[0][:160]))
        else:
            self.fail("%s: the check accepted it" % name)


def squad_load(d):
    return [load_json(os.path.join(d, f)) for f in ("tests.json", "metrics.json",
                                                     "metadata.json")]


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def check_all(run, schema, kcidb, squad, om):
    run.expect("kcidb " + kcidb, kcidb_errors(schema, load_json(kcidb)))
    run.expect("squad " + squad, squad_errors(*squad_load(squad)))
    run.expect("openmetrics " + om, openmetrics_errors(read_text(om)))


def check_broken(run, schema, kcidb, squad, om):
    doc = load_json(kcidb)
    for name, d in kcidb_broken(doc):
        run.expect_rejected("kcidb: " + name, kcidb_errors(schema, d))
    for name, files in squad_broken(*squad_load(squad)):
        run.expect_rejected("squad: " + name, squad_errors(*files))
    for name, t in openmetrics_broken(read_text(om)):
        run.expect_rejected("openmetrics: " + name, openmetrics_errors(t))


def main(argv):
    schema = None
    if len(argv) >= 2 and argv[0] == "--schema":
        schema = load_json(argv[1])
        jsonschema.Draft7Validator.check_schema(schema)
        argv = argv[2:]
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    cmd, args = argv[0], argv[1:]
    run = Run()
    if cmd == "kcidb" and schema and args:
        for f in args:
            run.expect("kcidb " + f, kcidb_errors(schema, load_json(f)))
    elif cmd == "squad" and args:
        for d in args:
            run.expect("squad " + d, squad_errors(*squad_load(d)))
    elif cmd == "openmetrics" and args:
        for f in args:
            run.expect("openmetrics " + f, openmetrics_errors(read_text(f)))
    elif cmd == "broken" and schema and len(args) == 3:
        check_broken(run, schema, *args)
    elif cmd == "export" and schema and len(args) >= 2:
        with tempfile.TemporaryDirectory(prefix="xrunlab-export-") as tmp:
            kcidb, squad, om = (os.path.join(tmp, "kcidb.json"), os.path.join(tmp, "squad"),
                                os.path.join(tmp, "xrunlab.prom"))
            p = subprocess.run([args[0], "export", *args[1:], "--kcidb", kcidb, "--squad",
                                squad, "--openmetrics", om, "--fail-if", "xruns>0"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               check=False)
            if p.returncode not in (0, 10):
                run.fail("xrunlab export exited %d: %s" % (p.returncode, p.stdout))
            else:
                check_all(run, schema, kcidb, squad, om)
                check_broken(run, schema, kcidb, squad, om)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 1 if run.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
