#!/usr/bin/env bash
# The full-size ordered-delivery test: 1,000,000 messages from this process to a child node process
# on 127.0.0.1 must arrive complete and in order (CI runs the same test in debug with 20,000).
# Release build; not part of .ci/run because building zenoh in release takes several minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
MOTET_REMOTE_MESSAGES=${MOTET_REMOTE_MESSAGES:-1000000} \
    cargo test --release -p motet-remote --test multiprocess -- --test-threads=1
echo "motet-remote release stress: $((SECONDS - start)) s"
