# lakeaudit — common tasks. `make ci` is what CI runs (.ci/run calls it).
CARGO ?= cargo
LOG ?= samples
OUT ?= analysis
# Table directories or warehouses to audit with the logs (`--tables`). The
# bundled samples come with the warehouse their `shop` log read; other logs
# get none unless TABLES is given.
TABLES ?= $(if $(filter samples samples/,$(LOG)),samples/warehouse,)
# Logs for the end-to-end benchmark (the largest real log we have is built
# by scripts/make_bench_log.py with real pyspark when missing).
BENCH_LOG ?= target/bench/big-eventlog

.PHONY: analyze test test-public bench bench-tables bench-skipping bench-whatif ci fmt clippy planner-eval build spark-venv tables-venv test-spark report-check iceberg-venv test-sql-spark wheel wheel-dev test-wheel maturin-venv test-stores

build:
	$(CARGO) build --release --bin lakeaudit

## Run the whole pipeline on LOG (default: the bundled samples, with their
## warehouse) into OUT/; TABLES=DIR adds a table audit to your own logs.
analyze: build
	$${CARGO_TARGET_DIR:-target}/release/lakeaudit analyze $(LOG) $(if $(TABLES),--tables $(TABLES)) --out $(OUT)

## The test suite (unit, snapshot and binary-level tests on real logs), and
## no two files of a crate importing each other (scripts/check_circles.py).
test:
	python3 scripts/check_circles.py
	$(CARGO) test --workspace

## The tests on NVIDIA/spark-rapids-tools' public logs (Photon, RAPIDS,
## Spark 2.2, EMR, JDBC, RDD scans; tests/PUBLIC_LOGS.md), which are not in
## the repository: LAKEAUDIT_PUBLIC_LOGS names the folder holding their
## spark-events-profiling/ and spark-events-qualification/.
test-public:
	@test -n "$$LAKEAUDIT_PUBLIC_LOGS" || { echo "make test-public: set LAKEAUDIT_PUBLIC_LOGS to the folder of the public logs (tests/PUBLIC_LOGS.md)" >&2; exit 2; }
	$(CARGO) test --workspace --test it public::

fmt:
	$(CARGO) fmt --all -- --check

## --all-features: the planner's `synth` targets (planner-eval, its bench) too.
clippy:
	$(CARGO) clippy --workspace --all-targets --all-features -- -D warnings

## What CI runs: formatting, lints, tests.
ci: fmt clippy test

## Speed as a ratio to `zstd -dc` on the same text (1 and 2 threads, wall
## and CPU, MB/s per core, peak RSS), on a task-heavy and a plan-heavy real
## log (both made with pyspark when missing; the plan-heavy one from TPC-H
## SF 1 tables) in three encodings each: Spark's zstd, plain, and `zstd -3`
## of the plain log; end-to-end throughput, then the criterion benches.
bench:
	scripts/bench.sh $(BENCH_LOG)
	$(CARGO) bench -p lakeaudit-parsers
	$(MAKE) bench-tables

## File skipping on real writers and a real engine (scripts/skipping/README.md):
## TPC-H at BENCH_SKIPPING_SF as Delta tables (deltalake) in three layouts,
## the 22 queries on DuckDB's delta extension (files read per scan) and on
## pyspark (event logs for lakeaudit); summary in
## BENCH_SKIPPING_OUT/sf<SF>/summary.md. Makes .venv/skipping when missing.
## SF 1 takes about 6 minutes on 2 cores; its data is generated, not kept.
BENCH_SKIPPING_SF ?= 1
BENCH_SKIPPING_OUT ?= target/bench-skipping
bench-skipping: build
	scripts/skipping/run.sh $(BENCH_SKIPPING_SF) $(BENCH_SKIPPING_OUT)

## `lakeaudit whatif` with every rewriter on TPC-H at BENCH_WHATIF_SF (5
## candidate layouts per table, --threads 1): wall time and peak RSS per
## rewriter in target/rewriters/bench-whatif-sf<SF>.md. Generates the Delta
## and Iceberg tables and their Spark logs when missing (about 15 minutes at
## SF 1 on 2 cores; needs java 17).
BENCH_WHATIF_SF ?= 1
bench-whatif: build
	scripts/skipping/bench_whatif.sh $(BENCH_WHATIF_SF)

TABLES_VENV ?= .venv/tables

## `lakeaudit tables` on a large real Delta table (110,000 files, checkpoint,
## later commits; written by deltalake when missing): audit time, peak RSS.
## BENCH_TABLE=DIR audits another table (a million files:
## `python scripts/make_bench_table.py DIR 990 1000 10`, about 45 min).
bench-tables: $(TABLES_VENV)/bin/python
	PYTHON=$(TABLES_VENV)/bin/python scripts/bench_tables.sh $(BENCH_TABLE)

## A Python venv with the table writers (scripts/make_table_fixtures.py,
## scripts/make_bench_table.py take its interpreter).
tables-venv: $(TABLES_VENV)/bin/python
$(TABLES_VENV)/bin/python:
	python3 -m venv $(TABLES_VENV)
	$(TABLES_VENV)/bin/pip install -q deltalake==1.6.6 pyarrow "pyiceberg[sql-sqlite,pyarrow]==0.12.0"

## report.html in a real browser: headless Chromium (Debian's `chromium`)
## renders the report of the TPC-H SortMergeJoin log and of the xss log to
## PNGs and dumps their DOM into REPORT_CHECK_OUT; the test fails when
## Chromium is missing, anything failed to load or was blocked, the graph
## lacks a planned table or edge, or a name from a log became markup.
REPORT_CHECK_OUT ?= target/report-check
report-check:
	LAKEAUDIT_REQUIRE_BROWSER=1 LAKEAUDIT_REPORT_CHECK_OUT=$(REPORT_CHECK_OUT) \
		$(CARGO) test --workspace --test it reports::browser -- --nocapture
	@ls -l $(REPORT_CHECK_OUT)

include planner/Makefile.fragment

## A Python venv with pyspark 4.0.1 for the scripts that run real Spark
## (scripts/make_*.py take its interpreter: .venv/spark4/bin/python).
SPARK_VENV ?= .venv/spark4
spark-venv: $(SPARK_VENV)/bin/python
$(SPARK_VENV)/bin/python:
	python3 -m venv $(SPARK_VENV)
	$(SPARK_VENV)/bin/pip install -q pyspark==4.0.1

## The map on Spark (pyspark local[2]) and the reduce here give the
## single-machine answers on samples/ (skips when Java is absent). The map
## runs the binary of the lakeaudit wheel installed in the Spark venv, found
## by itself on the executors (no --binary, no --files).
test-spark: spark-venv wheel-dev
	$(CARGO) build --bin lakeaudit
	$(SPARK_VENV)/bin/pip install -q --force-reinstall --no-deps $(WHEEL_DEV_DIR)/lakeaudit-*.whl
	spark/test_spark.sh $(SPARK_VENV)/bin/python $${CARGO_TARGET_DIR:-target}/debug/lakeaudit wheel

## `pip install lakeaudit`: the wheel carrying the release binary
## (maturin's bin bindings; pyproject.toml), into target/wheels/.
MATURIN_VENV ?= .venv/maturin
WHEEL_DIR ?= $${CARGO_TARGET_DIR:-target}/wheels
WHEEL_DEV_DIR ?= $${CARGO_TARGET_DIR:-target}/wheels-dev
maturin-venv: $(MATURIN_VENV)/bin/maturin
$(MATURIN_VENV)/bin/maturin:
	python3 -m venv $(MATURIN_VENV)
	$(MATURIN_VENV)/bin/pip install -q maturin==1.16.0
wheel: maturin-venv
	$(MATURIN_VENV)/bin/maturin build --release --out $(WHEEL_DIR)
## The same wheel around the debug binary (what the tests build anyway).
wheel-dev: maturin-venv
	rm -rf $(WHEEL_DEV_DIR)
	$(MATURIN_VENV)/bin/maturin build --profile dev --out $(WHEEL_DEV_DIR)

## A fresh venv installs the wheel, and its `lakeaudit analyze` on the
## samples writes what the cargo-built binary writes, byte for byte.
test-wheel: wheel-dev
	$(CARGO) build --bin lakeaudit
	scripts/test_wheel.sh $(WHEEL_DEV_DIR) $${CARGO_TARGET_DIR:-target}/debug/lakeaudit

## Event logs read from real object-store servers on loopback (moto's S3
## server, Azurite's Blob server; installed into .venv/ on first use):
## outputs equal the local runs, faults are named (tests/it/stores.rs).
test-stores:
	$(CARGO) build --bin lakeaudit
	scripts/test_stores.sh $${CARGO_TARGET_DIR:-target}/debug/lakeaudit

## A Python venv with pyspark 3.5.6 and Iceberg 1.10.2's Spark runtime jar
## (shipped by the PyPI package snowpark-connect-deps-iceberg): Iceberg's own
## SQL extensions parser, for test-sql-spark.
ICEBERG_VENV ?= .venv/iceberg-spark
iceberg-venv: $(ICEBERG_VENV)/bin/python
$(ICEBERG_VENV)/bin/python:
	python3 -m venv $(ICEBERG_VENV)
	$(ICEBERG_VENV)/bin/pip install -q pyspark==3.5.6 snowpark-connect-deps-iceberg==1.0.3

## lakeaudit's statements parsed by Spark 4.0.1's parser and by Iceberg's
## (skips when Java is absent); Delta's OPTIMIZE/REORG/CONVERT have no parser
## here and are checked by planner/sql's grammar checker in `make test`.
test-sql-spark: spark-venv iceberg-venv
	$(CARGO) build --bin lakeaudit
	spark/test_sql.sh $(SPARK_VENV)/bin/python $(ICEBERG_VENV)/bin/python $${CARGO_TARGET_DIR:-target}/debug/lakeaudit
