#!/usr/bin/env python3
"""The denial-of-service attacks of issue 11 against a server's HTTP transport, on loopback,
each with the server's peak and final RSS, and whether a normal request from another address
(127.0.0.2) is still served while the attack holds.

    python3 bench/attacks.py PATH/TO/calculator [attack ...]

Attacks: slow-bodies, slow-bodies-4mib, idle-connections, sessions, unread-sse. Each starts a fresh server
(`calculator --http 127.0.0.1:PORT`), so figures do not mix. Every loop is bounded in count and
time and the script stops by itself. Only loopback addresses are used.
"""

import json
import os
import socket
import subprocess
import sys
import time

HOST = "127.0.0.1"
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class Server:
    def __init__(self, binary):
        self.port = free_port()
        self.proc = subprocess.Popen([binary, "--http", f"{HOST}:{self.port}"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection((HOST, self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start listening")

    def rss(self):
        return rss_kib(self.proc.pid, "VmRSS") / 1024, rss_kib(self.proc.pid, "VmHWM") / 1024

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def connect(port, source="127.0.0.1", timeout=5.0):
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(timeout)
    s.connect((HOST, port))
    return s


def request(path, body, headers=(), close=True):
    head = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
            "Accept: application/json, text/event-stream", f"Content-Length: {len(body)}"]
    if close:
        head.append("Connection: close")
    head.extend(headers)
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def read_all(s):
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data


def status_of(raw):
    try:
        return int(raw.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def normal_request(port, source="127.0.0.2"):
    """A 2026-07-28 tools/list from another address: (status, seconds)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                       "params": {"_meta": MODERN}}).encode()
    started = time.time()
    try:
        s = connect(port, source, timeout=15)
        s.sendall(request("/mcp", body, ["MCP-Protocol-Version: 2026-07-28",
                                         "Mcp-Method: tools/list"]))
        raw = read_all(s)
        s.close()
        return status_of(raw), round(time.time() - started, 3)
    except OSError as error:
        return f"failed: {error}", round(time.time() - started, 3)


def slow_bodies(server, body_size=15 * 1024 * 1024):
    """40 connections, each declaring a 15 MiB body and sending all of it but one byte."""
    chunk = b"[" + b"0," * (1024 * 1024 // 2) + b"0"
    held, statuses = [], {}
    for _ in range(40):
        s = connect(server.port, timeout=30)
        head = request("/mcp", b"", ["MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call"])
        head = head.replace(b"Content-Length: 0", f"Content-Length: {body_size}".encode())
        s.sendall(head)
        sent = 0
        try:
            while sent < body_size - 1:
                part = chunk[: min(len(chunk), body_size - 1 - sent)]
                s.sendall(part)
                sent += len(part)
        except OSError:
            pass
        held.append(s)
    time.sleep(1)
    during = server.rss()
    served = normal_request(server.port)
    for s in held:
        s.settimeout(0.2)
        raw = b""
        try:
            raw = s.recv(200)
        except OSError:
            pass
        statuses[status_of(raw)] = statuses.get(status_of(raw), 0) + 1
    return {"rss_during_mib": round(during[0], 1), "peak_mib": round(during[1], 1),
            "attacker_answers": statuses, "normal_request": served}, held


def idle_connections(server):
    """1,100 connections that send nothing."""
    held = []
    for _ in range(1100):
        try:
            held.append(connect(server.port, timeout=5))
        except OSError:
            break
    time.sleep(0.5)
    during = server.rss()
    served = normal_request(server.port)
    return {"connections_opened": len(held), "rss_during_mib": round(during[0], 1),
            "peak_mib": round(during[1], 1), "normal_request": served}, held


def sessions(server):
    """One client opens 10,001 legacy sessions; then another address opens one."""
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "attack", "version": "0"}}}).encode()
    statuses = {}
    for _ in range(10_001):
        s = connect(server.port)
        s.sendall(request("/mcp", init, ["MCP-Protocol-Version: 2025-11-25"]))
        code = status_of(read_all(s))
        s.close()
        statuses[code] = statuses.get(code, 0) + 1
    during = server.rss()
    s = connect(server.port, "127.0.0.2")
    s.sendall(request("/mcp", init, ["MCP-Protocol-Version: 2025-11-25"]))
    other = status_of(read_all(s))
    s.close()
    return {"attacker_initialize": statuses, "other_client_initialize": other,
            "rss_during_mib": round(during[0], 1), "peak_mib": round(during[1], 1)}, []


def unread_sse(server):
    """An HTTP+SSE session whose stream is never read, and 60,000 POSTed calls."""
    stream = connect(server.port, timeout=10)
    stream.sendall(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    data = b""
    while b"sessionId=" not in data or b"\n\n" not in data.split(b"sessionId=", 1)[1]:
        data += stream.recv(4096)
    path = data.split(b"data: ", 1)[1].split(b"\n", 1)[0].decode()
    # Keep-alive connections for the POSTs, so the attack is not bounded by ports.
    sock = connect(server.port, timeout=10)

    def post(message):
        nonlocal sock
        for _ in range(2):
            try:
                sock.sendall(request(path, json.dumps(message).encode(), close=False))
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = sock.recv(4096)
                    if not chunk:
                        raise OSError("closed")
                    head += chunk
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                rest = head.split(b"\r\n\r\n", 1)[1]
                while len(rest) < length:
                    rest += sock.recv(4096)
                return status_of(head)
            except OSError:
                sock = connect(server.port, timeout=10)
        return None

    post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "attack", "version": "0"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    before = server.rss()
    statuses = {}
    for i in range(60_000):
        code = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                     "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
        statuses[code] = statuses.get(code, 0) + 1
    time.sleep(1)
    during = server.rss()
    served = normal_request(server.port)
    return {"posts": statuses, "rss_before_mib": round(before[0], 1),
            "rss_after_mib": round(during[0], 1), "peak_mib": round(during[1], 1),
            "normal_request": served}, [stream, sock]


def slow_bodies_within_limit(server):
    """As slow-bodies, with bodies just under the 4 MiB default limit."""
    return slow_bodies(server, 4 * 1024 * 1024 - 1)


ATTACKS = {"slow-bodies": slow_bodies, "slow-bodies-4mib": slow_bodies_within_limit, "idle-connections": idle_connections,
           "sessions": sessions, "unread-sse": unread_sse}


def main():
    binary = sys.argv[1]
    chosen = sys.argv[2:] or list(ATTACKS)
    for name in chosen:
        server = Server(binary)
        try:
            idle = server.rss()[0]
            result, held = ATTACKS[name](server)
            result["rss_idle_mib"] = round(idle, 1)
            for s in held:
                s.close()
            print(json.dumps({"attack": name, **result}), flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
