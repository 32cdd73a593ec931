#!/bin/sh
# Installs puppeteer-core into tests/service/web/node_modules (git-ignored)
# for the service_web_page test; CI runs it before ctest. Without npm it
# says so and succeeds: the test then skips.
set -e
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v npm >/dev/null 2>&1; then
    echo "install.sh: npm is not installed; service_web_page will skip"
    exit 0
fi
if [ -d "$here/node_modules/puppeteer-core" ]; then
    exit 0
fi
cd "$here"
npm install --no-audit --no-fund --loglevel=error --no-save puppeteer-core@22
