#!/usr/bin/env bash
# npm test's steps after pretest has installed and built what they need, each timed, so a slow CI
# run says where its minutes went: the native tests under ASan and UBSan, the fuzzers, the WASM
# tests, the type checks, then Jest twice (on every core, then on one).
set -euo pipefail
cd "$(dirname "$0")/.."

step() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "npm test: ${name} took $((SECONDS - start)) s"
}

step 'native tests (ASan, UBSan)' ctest --test-dir build/native-sanitize --output-on-failure --parallel 2
step 'fuzzers' node tools/fuzz.js
step 'WASM tests' ctest --test-dir build/wasm --output-on-failure --parallel 2
step 'types' bash -c 'tsc -p tests/types && tsc -p tests/types/tsconfig.page.json'
step 'Jest' npm run -s jest
step 'Jest on one core' env MULTIHEAD_ONE_CORE=1 npm run -s jest
