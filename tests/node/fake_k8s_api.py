#!/usr/bin/env python3
"""A fake Kubernetes API server for `hipwire node labels --apply` in a pod.

Serves HTTPS with a test certificate, accepts one request, checks it is
PATCH /api/v1/nodes/<node> with `Authorization: Bearer <token>`, content type
application/merge-patch+json and a body of exactly {"metadata":{"labels":
<expected>}}, and answers as the API server would (200 with the Node, or the
status given by --status with a Status object). Writes "ok" or the first
mismatch to --verdict. Usage:
  fake_k8s_api.py --cert C --key K --port-file F --verdict V --node N
                  --token T --labels L.json [--status 403]
"""
import argparse
import http.server
import json
import ssl
import sys


def main():
    ap = argparse.ArgumentParser()
    for a in ("cert", "key", "port-file", "verdict", "node", "token", "labels"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--status", type=int, default=200)
    args = ap.parse_args()
    with open(args.labels) as f:
        expected = json.load(f)

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def answer(self, code, obj):
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def check(self):
            if self.command != "PATCH":
                return "method %s, not PATCH" % self.command
            if self.path != "/api/v1/nodes/" + args.node:
                return "path %s" % self.path
            if self.headers.get("Authorization") != "Bearer " + args.token:
                return "Authorization header %r" % self.headers.get("Authorization")
            ctype = self.headers.get("Content-Type", "")
            if ctype.split(";")[0].strip() != "application/merge-patch+json":
                return "Content-Type %r" % ctype
            n = int(self.headers.get("Content-Length", "0"))
            try:
                body = json.loads(self.rfile.read(n))
            except ValueError as e:
                return "body is not JSON: %s" % e
            if body != {"metadata": {"labels": expected}}:
                return "body %s" % json.dumps(body, sort_keys=True)
            return "ok"

        def handle_any(self):
            verdict = self.check()
            with open(args.verdict, "w") as f:
                f.write(verdict + "\n")
            if verdict != "ok":
                self.answer(400, {"kind": "Status", "status": "Failure", "message": verdict})
            elif args.status != 200:
                self.answer(args.status, {"kind": "Status", "status": "Failure",
                                          "message": 'nodes "%s" is forbidden: test' % args.node,
                                          "code": args.status})
            else:
                self.answer(200, {"kind": "Node", "apiVersion": "v1",
                                  "metadata": {"name": args.node, "labels": expected}})

        do_PATCH = do_GET = do_POST = do_PUT = handle_any

    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.timeout = 30
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    srv.handle_request()  # one request (a TLS failure ends it too)
    return 0


if __name__ == "__main__":
    sys.exit(main())
