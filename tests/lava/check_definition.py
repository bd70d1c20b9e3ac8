#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks scripts/lava/xrunlab.yaml (a LAVA test definition) and scripts/lava/job-example.yaml
# (a LAVA job running it), parsed with python3-yaml:
#
#   * the definition: metadata.format "Lava-Test Test Definition 1.0", metadata.name and
#     description, params (each a string), install.deps, run.steps (strings);
#   * its steps, run as LAVA runs them (one /bin/sh script: the params exported, then the
#     steps, in the repository's folder) with XRUNLAB a recorder: exactly one xrunlab call,
#     with --lava and one --fail-if per FAIL_IF word; with the default params (a preset) that
#     call plus --dry-run is accepted by the real xrunlab (exit 0); with PRESET empty it is
#     `xrunlab run` with the params' values;
#   * every repository path the files name exists (scripts/..., the preset's campaign file);
#   * the job: actions with a test whose definition has that path and only the definition's
#     params.
# Then the same checks on broken copies (another format, a step with an unknown option, a
# preset that does not exist, a path that does not exist, a job naming an unknown param): each
# must be rejected. Exit 0: the files pass and every broken copy is rejected.
#
# Usage: check_definition.py REPOSITORY XRUNLAB
#        check_definition.py --run REPOSITORY [PARAM=VALUE...]
#   --run: run the definition's steps as LAVA does (one /bin/sh script in the repository's
#   folder: the params, overridden by the PARAM=VALUEs, then the steps) with this environment;
#   its output through, its exit code returned (tests/lava/check_lava.sh, mode definition).
import copy
import os
import re
import subprocess
import sys
import tempfile

import yaml

RECORDER = """#!/bin/sh
n=$(ls "$REC_DIR" | wc -l)
for a in "$@"; do printf '%s\\0' "$a"; done >"$REC_DIR/call-$n"
"""


def run_steps(definition, params, tmp, repo):
    """The xrunlab argv of each call the steps make (XRUNLAB recorded), or a problem."""
    rec = os.path.join(tmp, "rec")
    os.makedirs(rec, exist_ok=True)
    for f in os.listdir(rec):
        os.remove(os.path.join(rec, f))
    recorder = os.path.join(tmp, "xrunlab-recorder")
    with open(recorder, "w") as f:
        f.write(RECORDER)
    os.chmod(recorder, 0o755)
    path = os.path.join(tmp, "run.sh")
    with open(path, "w") as f:
        f.write(lava_script(definition, params))
    env = dict(os.environ, REC_DIR=rec)
    p = subprocess.run(["/bin/sh", path], cwd=repo, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return None, "the steps exited with %d: %s" % (p.returncode, p.stderr.strip())
    calls = []
    for name in sorted(os.listdir(rec)):
        with open(os.path.join(rec, name)) as f:
            calls.append(f.read().split("\0")[:-1])
    return calls, None


def check(definition, job, repo, xrunlab, tmp):
    problems = []
    if not isinstance(definition, dict):
        return ["the definition is not a mapping"]
    m = definition.get("metadata") or {}
    if m.get("format") != "Lava-Test Test Definition 1.0":
        problems.append("metadata.format is %r" % m.get("format"))
    for k in ("name", "description"):
        if not isinstance(m.get(k), str) or not m[k]:
            problems.append("metadata.%s is not a text" % k)
    params = definition.get("params")
    if not isinstance(params, dict) or not params:
        problems.append("params is not a mapping")
        params = {}
    for k, v in params.items():
        if not isinstance(v, str):
            problems.append("params.%s is not a string" % k)
    if not isinstance((definition.get("install") or {}).get("deps"), list):
        problems.append("install.deps is not a list")
    steps = (definition.get("run") or {}).get("steps")
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        problems.append("run.steps is not a list of command lines")
        return problems
    for s in steps:
        for p in re.findall(r"(?:\./)?scripts/[A-Za-z0-9_./-]+", s):
            if not os.path.exists(os.path.join(repo, p)):
                problems.append("a step names %s, which is not in the repository" % p)
    for k in ("XRUNLAB", "PRESET", "FAIL_IF"):
        if k not in params:
            problems.append("params has no %s" % k)
    if problems:
        return problems

    fail_if = params["FAIL_IF"].split()
    expected_fail_if = [w for t in fail_if for w in ("--fail-if", t)]

    def one_call(p):
        calls, why = run_steps(definition, p, tmp, repo)
        if why:
            problems.append(why)
            return None
        if len(calls) != 1:
            problems.append("the steps call xrunlab %d times, not once" % len(calls))
            return None
        argv = calls[0]
        if "--lava" not in argv:
            problems.append("the xrunlab call has no --lava: %s" % argv)
        got = [w for i, w in enumerate(argv) if w == "--fail-if" or (i > 0 and argv[i - 1] == "--fail-if")]
        if got != expected_fail_if:
            problems.append("FAIL_IF %r became %s, not %s" % (params["FAIL_IF"], got, expected_fail_if))
        return argv

    # The default: a preset, through xrunlab campaign; its preset file and --dry-run accepted.
    preset = params["PRESET"]
    if preset:
        if not os.path.exists(os.path.join(repo, "scripts/campaigns", preset + ".toml")):
            problems.append("PRESET %s: no scripts/campaigns/%s.toml" % (preset, preset))
        argv = one_call(dict(params, XRUNLAB=tmp + "/xrunlab-recorder"))
        if argv is not None:
            if argv[:1] != ["campaign"]:
                problems.append("with PRESET the call is not `xrunlab campaign`: %s" % argv)
            p = subprocess.run([xrunlab] + argv + ["--dry-run", "--dir", os.path.join(tmp, "campaign")],
                               capture_output=True, text=True, cwd=tmp)
            if p.returncode != 0:
                problems.append("xrunlab %s --dry-run exited with %d: %s"
                                % (" ".join(argv), p.returncode, p.stderr.strip()))
    # PRESET empty: one `xrunlab run` with the params' values.
    single = dict(params, PRESET="", XRUNLAB=tmp + "/xrunlab-recorder")
    argv = one_call(single)
    if argv is not None:
        for opt, k in (("--clients", "CLIENTS"), ("--period", "PERIOD"),
                       ("--duration", "DURATION"), ("--label", "LABEL")):
            if k not in params:
                problems.append("params has no %s" % k)
            elif opt not in argv or argv[argv.index(opt) + 1] != params[k]:
                problems.append("without PRESET the run has no %s %s: %s" % (opt, params.get(k), argv))
        if argv[:1] != ["run"]:
            problems.append("without PRESET the call is not `xrunlab run`: %s" % argv)

    # The job example runs this definition with its params only.
    tests = [a["test"] for a in (job or {}).get("actions") or [] if isinstance(a, dict) and "test" in a]
    defs = [d for t in tests for d in t.get("definitions") or []]
    if not defs:
        problems.append("the job has no test definitions")
    for d in defs:
        if not os.path.exists(os.path.join(repo, d.get("path", ""))):
            problems.append("the job's definition path %r is not in the repository" % d.get("path"))
        for k in (d.get("parameters") or {}):
            if k not in params:
                problems.append("the job sets %s, which the definition does not have" % k)
    return problems


def lava_script(definition, params):
    """The script LAVA's test shell runs: the params as exported variables, then the steps."""
    script = ["#!/bin/sh"]
    for k, v in params.items():
        script.append("%s='%s'" % (k, str(v).replace("'", "'\\''")))
        script.append("export %s" % k)
    return "\n".join(script + list(definition["run"]["steps"])) + "\n"


def run_definition(repo, overrides):
    with open(os.path.join(repo, "scripts/lava/xrunlab.yaml")) as f:
        definition = yaml.safe_load(f)
    params = dict(definition["params"])
    for o in overrides:
        k, _, v = o.partition("=")
        if k not in params:
            print("check_definition.py: the definition has no param %s" % k, file=sys.stderr)
            return 2
        params[k] = v
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.sh")
        with open(path, "w") as f:
            f.write(lava_script(definition, params))
        return subprocess.run(["/bin/sh", path], cwd=repo).returncode


def main():
    if sys.argv[1] == "--run":
        return run_definition(sys.argv[2], sys.argv[3:])
    repo, xrunlab = sys.argv[1], sys.argv[2]
    with open(os.path.join(repo, "scripts/lava/xrunlab.yaml")) as f:
        definition = yaml.safe_load(f)
    with open(os.path.join(repo, "scripts/lava/job-example.yaml")) as f:
        job = yaml.safe_load(f)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        problems = check(definition, job, repo, xrunlab, tmp)
        for p in problems:
            print("FAIL " + p)
        if problems:
            failures += 1
        else:
            print("ok   scripts/lava/xrunlab.yaml and job-example.yaml pass")

        def broken(what, change, job_change=None):
            nonlocal failures
            d, j = copy.deepcopy(definition), copy.deepcopy(job)
            change(d)
            if job_change:
                job_change(j)
            found = check(d, j, repo, xrunlab, tmp)
            if found:
                print("ok   rejected: %s (%s)" % (what, found[0]))
            else:
                print("FAIL not rejected: %s" % what)
                failures += 1

        broken("another format", lambda d: d["metadata"].update(format="Lava-Test Shell 2.0"))
        broken("a step with an unknown option",
               lambda d: d["run"].update(steps=[s.replace("--lava", "--lava --no-such-option")
                                                for s in d["run"]["steps"]]))
        broken("a preset that does not exist", lambda d: d["params"].update(PRESET="no-such-preset"))
        broken("a step naming a missing script",
               lambda d: d["run"]["steps"].insert(0, "./scripts/lava/no-such.sh || true"))
        broken("a step without --lava",
               lambda d: d["run"].update(steps=[s.replace("--lava", "") for s in d["run"]["steps"]]))
        broken("a job setting an unknown param", lambda d: None,
               lambda j: [a["test"]["definitions"][0]["parameters"].update(NO_SUCH="1")
                          for a in j["actions"] if "test" in a])
    print("%d check(s) failed" % failures if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
