"""The check report the interop scripts print: one line per check, a summary, exit status."""

import sys
from typing import Any, Callable


class Report:
    """Collects passed and failed checks; prints as it goes."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.passed = 0
        self.failures: list[str] = []

    def ok(self, what: str) -> None:
        self.passed += 1
        print(f"ok   {what}", flush=True)

    def fail(self, what: str) -> None:
        self.failures.append(what)
        print(f"FAIL {what}", flush=True)

    def check(self, condition: bool, what: str, detail: Callable[[], str] | Any = "") -> None:
        """`detail` says what was seen instead: a value, or a function making it only on failure."""
        if condition:
            self.ok(what)
        else:
            self.fail(f"{what}: {detail() if callable(detail) else detail}")

    def equal(self, what: str, got: Any, expected: Any) -> None:
        self.check(got == expected, what, lambda: f"got {got!r}, expected {expected!r}")

    def finish(self) -> int:
        print(f"{self.label}: {self.passed} checks held, {len(self.failures)} mismatched", flush=True)
        if self.failures:
            print(f"{self.label}: mismatches:", *(f"  - {f}" for f in self.failures), sep="\n", file=sys.stderr)
            return 1
        return 0
