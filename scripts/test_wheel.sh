#!/usr/bin/env bash
# `make test-wheel`: install the lakeaudit wheel into a fresh venv and run
# its binary on the samples, as a notebook user would after
# `%pip install lakeaudit`; every output must equal the cargo-built
# binary's, byte for byte.
#
# Usage: scripts/test_wheel.sh WHEEL_DIR LAKEAUDIT
set -euo pipefail
cd "$(dirname "$0")/.."
wheels="$1"
bin="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

wheel=$(ls "$wheels"/lakeaudit-*.whl | head -1)
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --no-index "$wheel"
echo "test-wheel: installed $(basename "$wheel") into a fresh venv"
installed="$tmp/venv/bin/lakeaudit"
[ -x "$installed" ] || { echo "test-wheel: FAILED: the wheel put no lakeaudit in the venv's bin/"; exit 1; }
"$installed" --version

set +e
"$installed" analyze samples --tables samples/warehouse --out "$tmp/wheel" 2> "$tmp/wheel.err"
w=$?
"$bin" analyze samples --tables samples/warehouse --out "$tmp/cargo" 2> "$tmp/cargo.err"
c=$?
set -e
fail=0
if [ "$w" != "$c" ]; then
  echo "test-wheel: FAILED: exit code $w from the wheel, $c from cargo's binary"
  fail=1
fi
n=0
for f in "$tmp/cargo"/*; do
  name=$(basename "$f")
  n=$((n + 1))
  if ! cmp -s "$f" "$tmp/wheel/$name"; then
    echo "test-wheel: FAILED: $name differs"
    fail=1
  fi
done
if ! diff -q <(ls -A "$tmp/cargo") <(ls -A "$tmp/wheel") >/dev/null; then
  echo "test-wheel: FAILED: the two runs wrote different files"
  fail=1
fi
if [ "$fail" = 0 ]; then
  echo "test-wheel: passed: $n outputs of analyze on the samples are identical ($(tail -1 "$tmp/wheel.err"))"
fi
exit "$fail"
