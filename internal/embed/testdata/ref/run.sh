#!/usr/bin/env bash
# Dev-only: regenerates ../reference.json. Installs the pinned JavaScript
# packages into a throw-away directory so nothing lands in the repository.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$tmp/"
(cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error)
NODE_PATH="$tmp/node_modules" node "$here/make_ref.js"
