#!/usr/bin/env bash
# Property-based API testing of `turnstile serve` against its own OpenAPI
# description (/openapi.json): schemathesis generates valid and invalid
# requests for every route, with a bounded number of examples, and fails
# on any 5xx. The server runs on a loopback port with a throwaway store and
# is stopped at the end. Called by .ci/run after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
EXAMPLES=${SCHEMATHESIS_EXAMPLES:-100}
target=${CARGO_TARGET_DIR:-target}
venv="$target/schemathesis-venv"

if [ ! -x "$venv/bin/st" ] || ! "$venv/bin/pip" show schemathesis 2>/dev/null | grep -qx "Version: $SCHEMATHESIS_VERSION"; then
    # --clear: a venv copied or moved from another path has stale
    # interpreter paths; rebuild it rather than run it.
    python3 -m venv --clear "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

cargo build --quiet --locked -p turnstile-cli
work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

"$target/debug/turnstile" serve --bundles bundles --listen 127.0.0.1:0 \
    --store "$work/store.db" --timeout-ms 10000 >"$work/out" 2>"$work/err" &
server_pid=$!
for _ in $(seq 1 100); do
    if grep -q '^listening on ' "$work/out"; then break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/err" >&2; exit 1; fi
    sleep 0.1
done
base=$(sed -n 's/^listening on //p' "$work/out")
if [ -z "$base" ]; then
    echo "schemathesis.sh: the server did not start" >&2
    cat "$work/err" >&2
    exit 1
fi

# A real session, so the event routes are exercised past the 404.
session=$(python3 - "$base" <<'PY'
import json, sys, urllib.request
request = urllib.request.Request(sys.argv[1] + "/v1/sessions", data=b'{"bundle":"retail"}', method="POST")
print(json.load(urllib.request.urlopen(request, timeout=30))["id"])
PY
)

printf '[parameters]\n"path.id" = "%s"\n' "$session" >"$work/schemathesis.toml"

timeout 300 "$venv/bin/st" --config-file "$work/schemathesis.toml" run "$base/openapi.json" \
    --url "$base" \
    --checks not_a_server_error \
    --max-examples "$EXAMPLES" \
    --no-color
echo "schemathesis: no server error on $base"
