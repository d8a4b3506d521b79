"""`audit` from Python against `turnstile audit --format json` on the
vendored tau2 traces: the same reports, and the same aggregate byte for
byte; and the audit run where the data lives, as Ray tasks."""

from __future__ import annotations

import json
import subprocess

import pytest

import turnstile
from conftest import BUNDLES, REPO

TRACES = REPO / "data" / "tau2" / "traces"
RETAIL = sorted(str(p) for p in TRACES.glob("retail_*.json.zst"))


def cli_audit(turnstile_bin, paths):
    out = subprocess.run(
        [str(turnstile_bin), "audit", "--bundle", str(BUNDLES / "retail"), *paths, "--format", "json", "--quiet"],
        capture_output=True,
        text=True,
    )
    assert out.returncode in (0, 1), out.stderr
    traces, summary = out.stdout.rsplit('\n],"summary":', 1)
    return json.loads(out.stdout)["traces"], summary.rstrip()[:-1]


@pytest.fixture(scope="module")
def cli(turnstile_bin):
    return cli_audit(turnstile_bin, RETAIL)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_reports_and_aggregate_are_the_clis(retail, cli, threads):
    reports, summary = cli
    run = turnstile.audit(retail, RETAIL, threads=threads)
    assert [r.to_dict() for r in run] == reports
    assert run.summary_json == summary
    assert run.summary["audited"] == len(reports) > 0


def test_a_directory_is_walked_like_the_cli_walks_it(retail, turnstile_bin):
    reports, summary = cli_audit(turnstile_bin, [str(TRACES)])
    run = turnstile.audit(retail, TRACES)
    assert len(list(run)) == len(reports)
    assert run.summary_json == summary


def test_a_missing_file_is_a_rejection_in_the_summary(retail, tmp_path):
    run = turnstile.audit(retail, [tmp_path / "missing.jsonl"])
    assert list(run) == []
    assert run.summary["rejected"] == 1


def test_an_unknown_judge_raises(retail):
    with pytest.raises(turnstile.JudgeError):
        turnstile.audit(retail, RETAIL, judge="oracle")


def test_audit_runs_where_the_data_lives_as_ray_tasks(retail, cli):
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:

        @ray.remote
        def audit_file(bundle_dir, path):
            import turnstile as ts

            return list(ts.audit(ts.Bundle.load(bundle_dir), [path], threads=1))

        tasks = [audit_file.remote(str(BUNDLES / "retail"), path) for path in RETAIL]
        reports = [report for chunk in ray.get(tasks) for report in chunk]
    finally:
        ray.shutdown()
    cli_reports, cli_summary = cli
    assert [r.to_dict() for r in reports] == cli_reports
    assert json.dumps(turnstile.summarize(reports, RETAIL), separators=(",", ":")) == cli_summary
