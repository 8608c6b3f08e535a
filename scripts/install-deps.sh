#!/usr/bin/env bash
# Installs every Debian package Tempest needs to build, test and benchmark. Idempotent: when all
# packages are present it does nothing (no apt-get update), so repeated runs are instant.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libzmq3-dev cppzmq-dev libmsgpack-cxx-dev libboost-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libspdlog-dev libfmt-dev libcli11-dev libxxhash-dev nlohmann-json3-dev
  jq dpkg-dev file
  curl prometheus  # the CLI test scrapes /metrics and checks it with promtool
  chromium fonts-liberation  # the web UI's browser test (headless)
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
