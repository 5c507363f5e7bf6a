#!/usr/bin/env python3
"""Reads ctest's JUnit file and prints the failed tests whose only fault is LeakSanitizer's own
tracer crashing at exit after the test passed (google/sanitizers#1353: 'Tracer caught signal 11',
no leak reported). Exits 1 if any failed test failed for another reason: those are never retried."""
import sys
import xml.etree.ElementTree as ET


def tracer_flake(out: str) -> bool:
    return ("Tracer caught signal" in out
            and "LeakSanitizer has encountered a fatal error" in out
            and "[  PASSED  ]" in out
            and "[  FAILED  ]" not in out
            and "detected memory leaks" not in out
            and "runtime error" not in out
            and "ERROR: AddressSanitizer" not in out)


def main() -> int:
    root = ET.parse(sys.argv[1]).getroot()
    flakes, others = [], []
    for case in root.iter("testcase"):
        if case.get("status") not in ("fail", "failed") and case.find("failure") is None:
            continue
        out = "".join(e.text or "" for e in case.iter("system-out"))
        (flakes if tracer_flake(out) else others).append(case.get("name"))
    for name in flakes:
        print(name)
    for name in others:
        print(f"failed for its own reasons: {name}", file=sys.stderr)
    return 1 if others or not flakes else 0


if __name__ == "__main__":
    sys.exit(main())
