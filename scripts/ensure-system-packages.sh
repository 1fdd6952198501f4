#!/usr/bin/env bash
# Installs the Debian packages CurlBridge builds against, when any is missing:
# libcurl4-openssl-dev (libcurl with OpenSSL and nghttp2), pkg-config (how SwiftPM finds it),
# zlib1g-dev (gzip for the embedded test server), curl (tests run `curlDescription` output).
set -euo pipefail

missing=()
for package in libcurl4-openssl-dev pkg-config zlib1g-dev curl; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing ${missing[*]} with apt-get" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
