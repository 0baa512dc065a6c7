#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine with Node 20 lacks for building and testing multihead:
# Debian's Emscripten, Eigen, nlohmann-json, CMake, GoogleTest and Chromium, then the npm dependencies.
# Runs before `npm test` and `npm start`; when everything is present it only checks and returns.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(emscripten libeigen3-dev nlohmann-json3-dev cmake g++ libgtest-dev chromium)
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

# npm ci when node_modules is missing or older than the lockfile.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies"
  npm ci --no-audit --no-fund
fi
