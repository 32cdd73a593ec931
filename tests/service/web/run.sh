#!/bin/sh
# service_web_page: skips (77) with the reason when Chromium, node or
# puppeteer-core (install.sh) is missing.
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
    echo "SKIPPED: no Chromium at $chromium (apt-get install chromium)"
    exit 77
fi
if ! command -v node >/dev/null 2>&1; then
    echo "SKIPPED: node is not installed"
    exit 77
fi
if [ ! -d "$here/node_modules/puppeteer-core" ]; then
    echo "SKIPPED: puppeteer-core is not installed (run tests/service/web/install.sh)"
    exit 77
fi
CHROMIUM=$chromium exec python3 "$here/test_web.py"
