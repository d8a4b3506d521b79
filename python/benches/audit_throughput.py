"""`audit` from Python next to `turnstile audit` on the same traces and
threads, in one sitting (BENCHMARKS.md, "Python"): each bundle over its
vendored tau2 traces, the median of five runs of each, in traces and events
per second. Run with a release wheel installed and the release CLI built:
`python python/benches/audit_throughput.py target/release/turnstile`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

import turnstile

REPO = Path(__file__).resolve().parents[2]
RUNS = 5


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    binary = sys.argv[1]
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    print(f"{'bundle':<8} {'traces':>6} {'events':>7} {'python':>10} {'cli':>10} {'python/cli':>10}")
    for domain in ("retail", "airline", "telecom"):
        bundle = turnstile.Bundle.load(REPO / "bundles" / domain)
        files = sorted(str(p) for p in (REPO / "data" / "tau2" / "traces").glob(f"{domain}_*.json.zst"))
        run = turnstile.audit(bundle, files, threads=threads)
        reports = list(run)
        events = sum(r.events for r in reports)
        python = statistics.median(
            timed(lambda: list(turnstile.audit(bundle, files, threads=threads))) for _ in range(RUNS)
        )
        command = [binary, "audit", "--bundle", str(REPO / "bundles" / domain), *files,
                   "--format", "json", "--quiet", "--threads", str(threads)]
        cli = statistics.median(
            timed(lambda: subprocess.run(command, stdout=subprocess.DEVNULL, check=False)) for _ in range(RUNS)
        )
        print(
            f"{domain:<8} {len(reports):>6} {events:>7} {len(reports) / python:>7.0f} t/s "
            f"{len(reports) / cli:>6.0f} t/s {python / cli:>10.2f}"
        )


if __name__ == "__main__":
    main()
