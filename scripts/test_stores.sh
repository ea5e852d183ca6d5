#!/usr/bin/env bash
# `make test-stores`: event logs read from real object-store servers on
# loopback. Installs (once) moto's standalone S3 server and the uploaders
# (boto3, azure-storage-blob) into .venv/stores and Azurite into
# .venv/azurite (npm; its tests are skipped when npm is absent), starts both
# on free 127.0.0.1 ports, uploads samples/ (with its warehouse),
# tests/data/spark-logs/tpch-default and the table fixtures tests/data/tables
# and tests/data/skipping under s3://logs/runs/ and az://logs/runs/, runs
# tests/it/stores.rs against them (logs: outputs equal to the local runs
# except the `log` field; missing bucket and prefix, wrong credentials, an
# object deleted between listing and reading, a connection dropped
# mid-object by scripts/stores/cutting_proxy.py; tables: `tables`,
# `analyze --tables`, `edges --tables` and `whatif --tables` equal to the
# local runs except the location fields, and the same faults), then stops
# the S3 server and checks that a run names the unreachable URL, still
# reads the local input and exits 2. The servers are stopped on exit.
#
# Usage: scripts/test_stores.sh LAKEAUDIT   (the debug binary)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$1"
venv=.venv/stores
az=.venv/azurite

if [ ! -x "$venv/bin/moto_server" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'moto[server]==5.2.5' boto3==1.44.8 azure-storage-blob==12.31.1
fi
if [ ! -x "$az/node_modules/.bin/azurite-blob" ] && command -v npm >/dev/null 2>&1; then
  mkdir -p "$az"
  (cd "$az" && npm install --silent --no-audit --no-fund azurite@3.35.0 >/dev/null)
fi

tmp="$(mktemp -d)"
pids=()
stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap stop EXIT

free_port() { "$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 100); do
    "$venv/bin/python" -c "import socket,sys; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "test-stores: $2 did not start on port $1" >&2
  return 1
}

# No test may dial outside 127.0.0.0/8: the cloud metadata lookups
# (instance credentials) are pointed at a closed loopback port, and the EC2
# one turned off, for every process started below.
export AWS_EC2_METADATA_DISABLED=true AWS_METADATA_ENDPOINT=http://127.0.0.1:9 \
  AZURE_MSI_ENDPOINT=http://127.0.0.1:9/metadata/identity/oauth2/token \
  GCE_METADATA_HOST=127.0.0.1:9 GCE_METADATA_IP=127.0.0.1:9

s3_port=$(free_port)
"$venv/bin/moto_server" -H 127.0.0.1 -p "$s3_port" >"$tmp/moto.log" 2>&1 &
moto_pid=$!
pids+=("$moto_pid")
wait_port "$s3_port" moto_server
s3="http://127.0.0.1:$s3_port"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
"$venv/bin/python" scripts/stores/upload.py s3 "$s3" logs runs samples tests/data/spark-logs/tpch-default \
  tests/data/tables tests/data/skipping
echo "test-stores: moto S3 server at $s3, samples uploaded to s3://logs/runs/"
export LAKEAUDIT_TEST_S3_ENDPOINT="$s3"
# A proxy that drops the connection once in the middle of a GET body.
cut_port=$(free_port)
"$venv/bin/python" scripts/stores/cutting_proxy.py "$cut_port" "$s3_port" 300000 "$tmp/cuts.log" >"$tmp/proxy.log" 2>&1 &
pids+=("$!")
wait_port "$cut_port" cutting_proxy
export LAKEAUDIT_TEST_S3_CUTTING_ENDPOINT="http://127.0.0.1:$cut_port" LAKEAUDIT_TEST_CUT_LOG="$tmp/cuts.log"
export LAKEAUDIT_TEST_STORES_UPLOAD="$venv/bin/python scripts/stores/upload.py"

if [ -x "$az/node_modules/.bin/azurite-blob" ]; then
  az_port=$(free_port)
  "$az/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$az_port" \
    --location "$tmp/azurite" --silent --skipApiVersionCheck >"$tmp/azurite.log" 2>&1 &
  pids+=("$!")
  wait_port "$az_port" azurite-blob
  blob="http://127.0.0.1:$az_port"
  # Azurite's well-known development account and key.
  conn="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=$blob/devstoreaccount1;"
  "$venv/bin/python" scripts/stores/upload.py az "$conn" logs runs samples tests/data/spark-logs/tpch-default \
    tests/data/tables tests/data/skipping
  echo "test-stores: Azurite Blob server at $blob, samples uploaded to az://logs/runs/"
  export LAKEAUDIT_TEST_AZURITE_URL="$blob" LAKEAUDIT_TEST_AZURITE_CONNECTION="$conn"
else
  echo "test-stores: no npm, so no Azurite: the Azure tests are skipped"
fi

${CARGO:-cargo} test --workspace --test it stores:: -- --test-threads=2

# The S3 server stopped: the URL is named (after the bounded retries), the
# local input is still read, exit 2.
kill "$moto_pid"
wait "$moto_pid" 2>/dev/null || true
set +e
AWS_ENDPOINT_URL="$s3" AWS_ALLOW_HTTP=true "$bin" queries --format jsonl \
  s3://logs/runs/samples samples/spark4-lz4 >"$tmp/out.jsonl" 2>"$tmp/err.txt"
rc=$?
set -e
cat "$tmp/err.txt"
[ "$rc" = 2 ] || { echo "test-stores: FAILED: server stopped: exit $rc, not 2" >&2; exit 1; }
grep -q '^lakeaudit: s3://logs/runs/samples: .*Connection refused' "$tmp/err.txt" ||
  { echo "test-stores: FAILED: server stopped: the URL is not named" >&2; exit 1; }
[ -s "$tmp/out.jsonl" ] || { echo "test-stores: FAILED: server stopped: the local input was not read" >&2; exit 1; }
echo "test-stores: server stopped: named, exit 2, the local log still read"
# The same for tables: the warehouse URL is named, the local table read.
set +e
AWS_ENDPOINT_URL="$s3" AWS_ALLOW_HTTP=true "$bin" tables --format jsonl \
  s3://logs/runs/samples/warehouse samples/warehouse/shop.db/nation >"$tmp/tables.jsonl" 2>"$tmp/err.txt"
rc=$?
set -e
cat "$tmp/err.txt"
[ "$rc" = 2 ] || { echo "test-stores: FAILED: server stopped: tables: exit $rc, not 2" >&2; exit 1; }
grep -q '^lakeaudit: s3://logs/runs/samples/warehouse: .*Connection refused' "$tmp/err.txt" ||
  { echo "test-stores: FAILED: server stopped: tables: the URL is not named" >&2; exit 1; }
grep -q '"table":"nation"' "$tmp/tables.jsonl" ||
  { echo "test-stores: FAILED: server stopped: the local table was not read" >&2; exit 1; }
echo "test-stores: server stopped: tables: named, exit 2, the local table still read"
echo "test-stores: ok"
