"""A bare JSON-RPC peer for ``jitlint server``: for messages no well-behaved client sends."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.lint.server.lsp import TIMEOUT, server_command


class RawServer:
    """Frame and send bytes, read framed messages back on a thread."""

    def __init__(self, root: Path) -> None:
        self.log_file = root / "raw-server.log"
        self.proc = subprocess.Popen(
            server_command(self.log_file),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._next = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        stream = self.proc.stdout
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            self.inbox.put(json.loads(stream.read(length)))

    def send_bytes(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any = None) -> None:
        self.send_bytes(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode())

    def request(self, method: str, params: Any = None) -> int:
        self._next += 1
        message = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}
        self.send_bytes(json.dumps(message).encode())
        return self._next

    def wait(self, match: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Return the first message (seen before or arriving) for which ``match`` is true."""
        for message in self.seen:
            if match(message):
                self.seen.remove(message)
                return message
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no such message; log:\n{self.log()}")
            try:
                message = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if match(message):
                return message
            self.seen.append(message)

    def response(self, msg_id: int) -> dict[str, Any]:
        return self.wait(lambda m: m.get("id") == msg_id and "method" not in m)

    def initialize(self, root: Path) -> None:
        params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        self.response(self.request("initialize", params))
        self.notify("initialized", {})

    def log(self) -> str:
        try:
            return self.log_file.read_text(encoding="utf-8")
        except OSError:
            return ""

    def exit_code(self, timeout: float = TIMEOUT) -> int:
        return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self._reader.join(TIMEOUT)  # it sees the end of the dead server's output
        if self.proc.stdout is not None:
            self.proc.stdout.close()
