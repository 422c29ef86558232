#!/usr/bin/env bash
# The README's one test command: installs everything the suite needs, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
bash tools/install-browser.sh
python3 -m pytest "$@"
