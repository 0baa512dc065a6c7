#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine with Node 20 lacks, for one purpose:
#   bash tools/setup.sh page   building the WASM modules and the page (npm start, npm run build)
#   bash tools/setup.sh bench  that, plus PyTorch, NumPy and SentencePiece, which write the whole-model bench's
#                              checkpoints and export them to ONNX, and the peers of tools/bench/package.json (npm run bench)
#   bash tools/setup.sh test   that, plus the native test tools (GoogleTest; clang 14 with the ASan, UBSan
#                              and libFuzzer runtimes, and llvm-14's symbolizer) and Chromium for the e2e tests (npm test)
# With --list after the purpose it prints the Debian packages and installs nothing.
# Debian's packages go through apt-get (root or sudo), then the npm dependencies through npm ci.
# When everything is present it only checks and returns.
set -euo pipefail
cd "$(dirname "$0")/.."

purpose=${1:-}
page=(emscripten libeigen3-dev nlohmann-json3-dev cmake)
case "$purpose" in
  page) packages=("${page[@]}") ;;
  bench) packages=("${page[@]}" python3-torch python3-numpy python3-sentencepiece) ;;
  # Chromium (about 250 MB) only the tests need. The sanitizer build and the fuzzers need clang's
  # runtime libraries (libclang-rt-14-dev), which emscripten's own clang-14 does not bring.
  test) packages=("${page[@]}" g++ libgtest-dev clang-14 libclang-rt-14-dev llvm-14 chromium) ;;
  *) echo "usage: bash tools/setup.sh page|bench|test [--list]" >&2; exit 2 ;;
esac
if [ "${2:-}" = "--list" ]; then
  echo "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

# npm ci when node_modules is missing or older than the lockfile; for the bench also in
# tools/bench, whose peers (onnxruntime-web, tfjs, about 210 MB) nothing else needs.
install_npm() {
  local dir=$1
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "setup: installing the npm dependencies of $dir"
    (cd "$dir" && npm ci --no-audit --no-fund)
  fi
}
install_npm .
if [ "$purpose" = bench ]; then install_npm tools/bench; fi
