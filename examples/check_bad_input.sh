#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# train_digits on bad input: a clear message and exit code 2, never a crash.
set -u
demo=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # name, expected stderr fragment, args...
  local name=$1 want=$2
  shift 2
  local err rc
  err=$("$demo" "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -ne 2 || $err != *"$want"* ]]; then
    echo "FAIL $name: exit $rc, stderr: $err (expected exit 2 and '$want')"
    fail=1
  else
    echo "ok   $name: $err"
  fi
}
expect "missing file" "cannot open" "$tmp/nope.csv.gz"
printf '1,2,3\n' | gzip > "$tmp/short.csv.gz"
expect "short row" "is not a digits row" "$tmp/short.csv.gz"
printf '0,0,5,13,9,1,0,0,0,0,13,15,10,15,5,0,0,3,15,2,0,11,8,0,0,4,12,0,0,8,8,0,0,5,8,0,0,9,8,0,0,4,11,0,1,12,7,0,0,2,14,5,10,12,0,0,0,0,6,13,10,0,0,0,77\n' | gzip > "$tmp/label.csv.gz"
expect "label out of range" "field 65" "$tmp/label.csv.gz"
head -c 20000 "$(dirname "$0")/data/digits.csv.gz" > "$tmp/truncated.csv.gz"
expect "truncated gzip" "corrupt" "$tmp/truncated.csv.gz"
printf 'garbage that is not gzip and not csv\n' > "$tmp/garbage.csv.gz"
expect "garbage" "is not a digits row" "$tmp/garbage.csv.gz"
expect "bad flag" "usage" --bogus
exit $fail
