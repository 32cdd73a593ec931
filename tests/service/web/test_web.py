"""The web page at /, driven in headless Chromium (page.js): it lists the
problems and GPU types, submits the problem's starter solution, shows the
events live and ends at CHECKED; the history then lists the submission."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from svc import Service, check  # noqa: E402

svc = Service()
try:
    r = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "page.js"),
                        svc.url("/")], capture_output=True, text=True, timeout=100)
    print(r.stdout + r.stderr)
    check(r.returncode == 0, "page.js failed")
finally:
    svc.stop()
print("service web page: ok")
