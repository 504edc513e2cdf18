#!/usr/bin/python3
"""A stand-in for the backends flamebpf --push sends to, for the tests.

POST /ingest (Grafana Pyroscope's ingest API: query name, from, until,
format=pprof, the pprof as the multipart form's "profile" file) and POST
/v1development/profiles (OTLP profiles over HTTP, a protobuf body). Each
upload N is kept as DIR/N.bin (the profile's bytes) and DIR/N.json (path,
query, content type, authorization), N counting from 0 in arrival order.

  push_receiver.py DIR PORT_FILE [--port P] [--status CODE]

--port P listens on P (default: a free port); the port is written to
PORT_FILE once listening. --status CODE answers CODE to every upload
(stored all the same), as a backend that refuses or fails would.
"""
import email.parser
import email.policy
import gzip
import http.server
import json
import os
import sys
import urllib.parse


def profile_part(content_type, body):
    """The "profile" file of a multipart/form-data body, or None."""
    head = b"Content-Type: " + content_type.encode() + b"\r\n\r\n"
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not msg.is_multipart():
        return None
    for part in msg.iter_parts():
        if part.get_param("name", header="content-disposition") == "profile":
            return part.get_payload(decode=True)
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, text):
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        ctype = self.headers.get("Content-Type", "")
        if url.path == "/ingest":
            data = profile_part(ctype, body)
            if data is None:
                self.answer(400, "no profile field in a multipart/form-data body")
                return
        elif url.path == "/v1development/profiles":
            data = body
            if self.headers.get("Content-Encoding", "") == "gzip":
                data = gzip.decompress(body)
        else:
            self.answer(404, "no such endpoint: " + url.path)
            return
        n = self.server.count
        self.server.count += 1
        meta = {
            "path": url.path,
            "query": dict(urllib.parse.parse_qsl(url.query)),
            "content_type": ctype,
            "content_encoding": self.headers.get("Content-Encoding", ""),
            "bytes": len(body),
            "authorization": self.headers.get("Authorization", ""),
        }
        with open(os.path.join(self.server.dir, "%d.bin" % n), "wb") as f:
            f.write(data)
        with open(os.path.join(self.server.dir, "%d.json" % n), "w") as f:
            json.dump(meta, f)
        code = self.server.status
        self.answer(code, "ok" if code < 300 else "refused by the test")


def main():
    args = sys.argv[1:]
    port, status = 0, 200
    if "--port" in args:
        i = args.index("--port")
        port = int(args[i + 1])
        del args[i:i + 2]
    if "--status" in args:
        i = args.index("--status")
        status = int(args[i + 1])
        del args[i:i + 2]
    out_dir, port_file = args
    server = http.server.HTTPServer(("127.0.0.1", port), Handler)
    server.dir, server.count, server.status = out_dir, 0, status
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
