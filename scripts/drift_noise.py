#!/usr/bin/env python3
"""The drift of a stable workload: how far `lakeaudit drift` reads between
two weeks that run the same queries, each query's run count perturbed by
one run (issue 32.7; the measurement behind DEFAULT_DRIFT_THRESHOLD and
DEFAULT_DRIFT_SETTLE, README "Drift").

For each week of samples/weekly (real pyspark 4.0.1 logs; schedule.json
names the query of every execution) and each seed: the week as logged,
and seven days later a copy of it with each query's run count + d, d
drawn from {-1, 0, +1} (at least one run: the same queries, counts within
one run of each other, as weeks 1 and 2 of the sample are). The records are the week's own (`lakeaudit queries
--format parquet`): a query's extra run repeats one of its logged runs, a
dropped run is left out, the setup executions are kept. `lakeaudit drift
--records` then measures the pair with its defaults (7d windows,
--normalize max). Prints each drift and the distribution per week and
over all.

    python scripts/drift_noise.py --lakeaudit target/release/lakeaudit --seeds 25

Needs pyarrow.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WEEK_MS = 7 * 86_400_000


def perturbed(rows, setup, runs, counts, rng, spread):
    """One copy of a week: setup rows, then each query's runs, its count
    moved by -spread..+spread (at least 1), in the logged round-robin order."""
    new = {q: max(1, c + rng.randint(-spread, spread)) for q, c in counts.items()}
    by_query = {}
    for r in runs:
        by_query.setdefault(r["query"], []).extend(r["execution_ids"])
    order = list(setup)
    # Round-robin as the logs ran: the k-th run of each query in turn.
    k = 0
    while any(k < n for n in new.values()):
        for q in counts:
            if k < new[q]:
                ids = by_query[q]
                order.append(ids[k % len(ids)])
        k += 1
    return order, new


def copy(rows, order, app_suffix, shift_ms):
    """The rows of `order` (execution ids, repeats allowed) renumbered
    0..n-1 as one new application, times shifted by `shift_ms`."""
    by_id = {r["execution_id"]: r for r in rows}
    out = []
    for i, e in enumerate(order):
        r = dict(by_id[e])
        r["app_id"] += app_suffix
        r["log"] += app_suffix
        r["execution_id"] = r["root_execution_id"] = i
        r["start_ms"] += shift_ms
        r["end_ms"] += shift_ms
        out.append(r)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lakeaudit", default=os.path.join(ROOT, "target", "release", "lakeaudit"))
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--weeks", default="week1,week2,week3,week4")
    ap.add_argument(
        "--spread", type=int, default=1, help="runs a count moves by at most (0: the control, drift 0)"
    )
    a = ap.parse_args(argv)
    weekly = os.path.join(ROOT, "samples", "weekly")
    schedule = json.load(open(os.path.join(weekly, "schedule.json")))
    with tempfile.TemporaryDirectory() as tmp:
        records = os.path.join(tmp, "queries.parquet")
        subprocess.run(
            [a.lakeaudit, "queries", weekly, "--format", "parquet", "-o", records],
            check=True,
            stderr=subprocess.DEVNULL,
        )
        all_rows = pq.read_table(records)
        results = {}
        for app in schedule["applications"]:
            week = app["week"]
            if week not in a.weeks.split(","):
                continue
            rows = [r for r in all_rows.to_pylist() if r["app_id"] == app["app_id"]]
            values = []
            for seed in range(a.seeds):
                rng = random.Random(f"{week}-{seed}")
                ta, ca = perturbed(rows, app["setup_execution_ids"], app["runs"], app["query_counts"], rng, 0)
                tb, cb = perturbed(rows, app["setup_execution_ids"], app["runs"], app["query_counts"], rng, a.spread)
                pair = pa.Table.from_pylist(
                    copy(rows, ta, f"-s{seed}a", 0) + copy(rows, tb, f"-s{seed}b", WEEK_MS),
                    schema=all_rows.schema,
                )
                f = os.path.join(tmp, f"{week}-{seed}.parquet")
                pq.write_table(pair, f)
                out = subprocess.run(
                    [a.lakeaudit, "drift", "--records", f, "--format", "jsonl"],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                drift = [json.loads(l) for l in out.splitlines() if l.strip()]
                assert len(drift) == 1 and drift[0]["gap_windows"] == 0, out
                values.append(drift[0]["drift"])
                print(f"{week} seed {seed:2d}: {ca} -> {cb}: drift {drift[0]['drift']:.3f}")
            results[week] = values
    def summary(v):
        v = sorted(v)
        q = lambda p: v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
        return (
            f"n {len(v)}, min {v[0]:.3f}, median {statistics.median(v):.3f}, "
            f"p90 {q(0.9):.3f}, p95 {q(0.95):.3f}, max {v[-1]:.3f}"
        )
    print()
    for week, v in results.items():
        print(f"{week}: {summary(v)}")
    print(f"all:   {summary([x for v in results.values() for x in v])}")


if __name__ == "__main__":
    main()
