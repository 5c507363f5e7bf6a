#!/usr/bin/env python3
"""Summarises GoogleTest JSON reports by label: passed / failed / skipped, each failure and skip named.

Usage: test-summary.py LABEL:STRICT:FILE [LABEL:STRICT:FILE ...]
  LABEL   the ctest label the tests carry (gpu, multigpu, cpu)
  STRICT  1: a skip is a failure (a GPU machine runs the GPU suite: nothing may skip); 0: skips are listed only
  FILE    a --gtest_output=json report; several files of one label (shards) add up

Exit code 1 when a test failed, a strict label skipped one, or a report is missing or unreadable (a
crashed or killed run writes none), else 0.
"""
import json
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    labels = {}  # label -> {"strict", "passed", "failed": [...], "skipped": [...], "missing": [...]}
    for arg in argv[1:]:
        try:
            label, strict, path = arg.split(":", 2)
        except ValueError:
            print(f"test-summary: '{arg}' is not LABEL:STRICT:FILE", file=sys.stderr)
            return 2
        entry = labels.setdefault(label, {"strict": strict == "1", "passed": 0, "failed": [], "skipped": [], "missing": []})
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            entry["missing"].append(f"{path}: {e}")
            continue
        for suite in report.get("testsuites", []):
            for test in suite.get("testsuite", []):
                name = f"{suite.get('name')}.{test.get('name')}"
                if test.get("failures"):
                    first = test["failures"][0].get("failure", "").strip().splitlines()
                    entry["failed"].append(f"{name}: {first[0] if first else ''}")
                elif test.get("result") == "SKIPPED" or test.get("status") == "NOTRUN":
                    entry["skipped"].append(name)
                else:
                    entry["passed"] += 1
    bad = False
    print(f"{'label':<10} {'passed':>7} {'failed':>7} {'skipped':>8}  verdict")
    for label, e in labels.items():
        label_bad = bool(e["failed"] or e["missing"] or (e["strict"] and e["skipped"]))
        bad = bad or label_bad
        verdict = "FAIL" if label_bad else "ok"
        if e["strict"] and e["skipped"]:
            verdict += " (skips count as failures here)"
        print(f"{label:<10} {e['passed']:>7} {len(e['failed']):>7} {len(e['skipped']):>8}  {verdict}")
    for label, e in labels.items():
        for m in e["missing"]:
            print(f"  {label}: NO REPORT {m}")
        for f in e["failed"]:
            print(f"  {label}: FAILED {f}")
        for s in e["skipped"]:
            print(f"  {label}: SKIPPED {s}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
