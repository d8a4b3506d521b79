#!/usr/bin/env bash
# The Python package's tests: builds the `turnstile` wheel with maturin
# (the dev profile, reusing what `cargo test --workspace` compiled),
# installs it into the project's venv (.ci/python-env.sh) and runs pytest
# on python/tests. Any pytest failure fails CI, and so does its exit 5
# (no test collected): a suite that runs nothing has not passed.
set -euo pipefail
cd "$(dirname "$0")/.."

python=$(bash .ci/python-env.sh)
venv_bin=$(dirname "$python")
target=${CARGO_TARGET_DIR:-target}
wheels="$target/wheels"

rm -rf "$wheels"
"$venv_bin/maturin" build --locked --profile dev -m python/Cargo.toml --out "$wheels" --quiet
"$python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/turnstile-*.whl

# The CLI-interop tests run the `turnstile` binary of this build.
cargo build --locked -p turnstile-cli --quiet

# pytest runs from the repository root so the installed package, not the
# source tree, is imported; no cache is written into the checkout.
status=0
"$venv_bin/pytest" -q -p no:cacheprovider python/tests || status=$?
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests in python/tests" >&2
fi
exit "$status"
