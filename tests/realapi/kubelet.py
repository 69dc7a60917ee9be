#!/usr/bin/env python3
"""A small loopback HTTPS "kubelet" for the real-apiserver test tier.

The real kube-apiserver proxies pods/log (follow included) to the kubelet named by the
node's status.addresses and status.daemonEndpoints.kubeletEndpoint.Port. This program
stands in for that kubelet: it serves GET /containerLogs/NS/POD/CONTAINER from log files
in the CRI format the real kubelet reads (``<RFC3339Nano> stdout F <text>``), over TLS
with its own serving certificate, and only to clients presenting a certificate signed by
the kubelet-client CA (the apiserver's --kubelet-client-certificate).

Log files: LOGDIR/<ns>_<pod>_<container>.log (current) and .previous.log (previous=true).
A container has exited when LOGDIR/<ns>_<pod>_<container>.exited exists: follow=true
streams new lines as they are appended and ends once that marker exists and every line
has been sent, as the kubelet does when a container terminates.

Usage: kubelet.py --cert C --key K --client-ca CA --logs LOGDIR --port-file F
Binds 127.0.0.1 only, port 0 (the chosen port is written to --port-file).
"""
import argparse
import datetime
import os
import re
import signal
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOGS = "."
STOP = threading.Event()
NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


def parse_ts(text):
    """RFC3339 with up to nanoseconds -> aware datetime (microsecond precision)."""
    m = re.match(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$", text)
    if not m:
        raise ValueError("bad timestamp %r" % text)
    frac = (m.group(2) or ".0")[1:7].ljust(6, "0")
    tz = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.datetime.fromisoformat("%s.%s%s" % (m.group(1), frac, tz))


def parse_cri(line):
    """'<ts> <stream> <P|F> <text>' -> (ts_text, ts, tag, text)."""
    parts = line.split(" ", 3)
    if len(parts) < 3:
        raise ValueError("bad CRI log line %r" % line)
    text = parts[3] if len(parts) == 4 else ""
    return parts[0], parse_ts(parts[0]), parts[2], text


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "realapi-kubelet/1"

    def log_message(self, fmt, *args):
        sys.stderr.write("kubelet: %s %s\n" % (self.address_string(), fmt % args))

    def plain(self, code, text):
        body = (text + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(url.query)
        if url.path == "/healthz":
            return self.plain(200, "ok")
        parts = url.path.split("/")
        if len(parts) != 5 or parts[1] != "containerLogs":
            return self.plain(404, "404 page not found")
        ns, pod, container = parts[2], parts[3], parts[4]
        if not all(NAME_RE.match(x) for x in (ns, pod, container)):
            return self.plain(400, "invalid namespace, pod or container name")

        def flag(name):
            return q.get(name, ["false"])[-1] in ("true", "1", "True")

        def number(name):
            if name not in q:
                return None
            try:
                v = int(q[name][-1])
            except ValueError:
                raise ValueError("%s must be an integer" % name)
            if v < 0:
                raise ValueError("%s must not be negative" % name)
            return v

        try:
            follow, timestamps, previous = flag("follow"), flag("timestamps"), flag("previous")
            tail, limit, since_s = number("tailLines"), number("limitBytes"), number("sinceSeconds")
            since = None
            if "sinceTime" in q:
                since = parse_ts(q["sinceTime"][-1])
            elif since_s is not None:
                since = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=since_s)
        except ValueError as e:
            return self.plain(400, str(e))

        base = os.path.join(LOGS, "%s_%s_%s" % (ns, pod, container))
        path = base + (".previous.log" if previous else ".log")
        if not os.path.exists(path):
            if previous:
                return self.plain(400, 'previous terminated container "%s" in pod "%s" not found' % (container, pod))
            return self.plain(400, 'container "%s" in pod "%s" is waiting to start: ContainerCreating' % (container, pod))
        exited = lambda: previous or os.path.exists(base + ".exited")

        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = 0
        try:
            with open(path, "rb") as f:
                def read_lines():
                    lines = []
                    while True:
                        pos = f.tell()
                        raw = f.readline()
                        if not raw:
                            break
                        if not raw.endswith(b"\n"):  # an incomplete write: re-read it later
                            f.seek(pos)
                            break
                        lines.append(raw[:-1].decode("utf-8", "replace"))
                    return lines

                def emit(lines):
                    nonlocal sent
                    out = []
                    for line in lines:
                        if not line:
                            continue
                        ts_text, ts, tag, text = parse_cri(line)
                        if since is not None and ts < since:
                            continue
                        piece = (ts_text + " " if timestamps else "") + text + ("" if tag == "P" else "\n")
                        out.append(piece.encode())
                    data = b"".join(out)
                    if limit is not None:
                        data = data[: max(0, limit - sent)]
                    sent += len(data)
                    self.chunk(data)
                    return limit is not None and sent >= limit

                first = read_lines()
                if tail is not None:
                    first = first[-tail:] if tail > 0 else []
                done = emit(first)
                while follow and not done and not STOP.is_set():
                    was_exited = exited()  # checked before reading: no line written before exit is lost
                    more = read_lines()
                    if more:
                        done = emit(more)
                    elif was_exited:
                        break
                    else:
                        time.sleep(0.05)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True
        except ValueError as e:  # a corrupt log file: end the stream, say why on stderr
            sys.stderr.write("kubelet: %s: %s\n" % (path, e))
            self.close_connection = True


def main():
    global LOGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--client-ca", required=True)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    LOGS = a.logs
    os.makedirs(LOGS, exist_ok=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(a.cert, a.key)
    ctx.load_verify_locations(a.client_ca)
    ctx.verify_mode = ssl.CERT_REQUIRED  # only the apiserver's kubelet-client cert gets in

    class Server(ThreadingHTTPServer):
        daemon_threads = True

    httpd = Server(("127.0.0.1", a.port), Handler)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True, do_handshake_on_connect=False)

    def stop(*_):
        STOP.set()
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(httpd.server_address[1]))
    os.rename(tmp, a.port_file)
    sys.stderr.write("kubelet: serving https://127.0.0.1:%d, logs from %s\n" % (httpd.server_address[1], LOGS))
    httpd.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    main()
