#!/usr/bin/env bash
# The project's one Python environment for the tests that run Python: a
# venv at ${CARGO_TARGET_DIR:-target}/venv with python/requirements-test.txt
# installed. Idempotent: a working venv with the same requirements is kept.
# Prints the venv's python; the tests find it there or in TURNSTILE_PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${CARGO_TARGET_DIR:-target}/venv
requirements=python/requirements-test.txt
stamp="$venv/.requirements"

# A venv copied or moved from another path has stale interpreter paths:
# rebuild it rather than run it.
if ! "$venv/bin/python" -c "" 2>/dev/null; then
    python3 -m venv --clear "$venv"
    rm -f "$stamp"
fi
if ! cmp -s "$requirements" "$stamp"; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
fi
echo "$(cd "$venv" && pwd)/bin/python"
