#!/usr/bin/env bash
# Runs the whole test suite: every package under the race detector, on the
# real embedded engine. Set INFMEM_TEST_MONGODB_URI to also run the engine
# conformance suite against a real MongoDB.
set -euo pipefail
cd "$(dirname "$0")"
exec go test -race -count=1 -timeout 30m ./... "$@"
