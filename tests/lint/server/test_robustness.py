"""The server answers or logs one line, and keeps serving, whatever the client sends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lint.server.rawrpc import RawServer

# Each test starts its own server (a few seconds on two busy cores) to damage it alone.
pytestmark = pytest.mark.slow

BUG = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        x = -x\n    return x\n"


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawServer]:
    server = RawServer(tmp_path)
    server.initialize(tmp_path)
    yield server
    server.kill()


def _open(raw: RawServer, uri: str, text: str, version: int = 1) -> None:
    item = {"uri": uri, "languageId": "python", "version": version, "text": text}
    raw.notify("textDocument/didOpen", {"textDocument": item})


def _change(raw: RawServer, uri: str, text: str, version: int) -> None:
    raw.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    )


def _published(uri: str, version: int | None = None) -> Any:
    def match(m: dict[str, Any]) -> bool:
        return (
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and (version is None or m["params"].get("version") == version)
        )

    return match


def _still_serving(raw: RawServer, tmp_path: Path) -> None:
    uri = (tmp_path / "alive.py").as_uri()
    _open(raw, uri, BUG)
    diags = raw.wait(_published(uri))["params"]["diagnostics"]
    assert [d["code"] for d in diags] == ["JIT101"]


def _one_line_errors(log: str) -> list[str]:
    assert "Traceback" not in log
    return [line for line in log.splitlines() if " ERROR " in line or " WARNING " in line]


def test_malformed_json_rpc(raw: RawServer, tmp_path: Path):
    raw.send_bytes(b"{this is not json")
    raw.send_bytes(b'{"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": 7}')
    reply = raw.response(99)
    assert reply["error"]["code"] in (-32602, -32603)  # invalid params / internal error
    _still_serving(raw, tmp_path)
    assert _one_line_errors(raw.log())


def test_change_to_unopened_document(raw: RawServer, tmp_path: Path):
    _change(raw, (tmp_path / "never.py").as_uri(), BUG, 2)
    _still_serving(raw, tmp_path)
    lines = _one_line_errors(raw.log())
    assert any("not open" in line for line in lines), lines


def test_document_that_crashes_the_parser(raw: RawServer, tmp_path: Path):
    # Deep enough nesting overflows the native parser's stack: the process doing the analysis
    # dies, the server reports it on the file and starts a new one.
    uri = (tmp_path / "deep.py").as_uri()
    _open(raw, uri, "import jax\nx = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    diags = raw.wait(_published(uri))["params"]["diagnostics"]
    assert len(diags) == 1 and diags[0]["severity"] == 1
    _still_serving(raw, tmp_path)


def test_burst_of_changes(raw: RawServer, tmp_path: Path):
    uri = (tmp_path / "burst.py").as_uri()
    _open(raw, uri, BUG)
    for version in range(2, 102):
        body = BUG if version % 2 else BUG.replace("if x > 0:", "if True:")
        _change(raw, uri, body + f"# edit {version}\n", version)
    final = raw.wait(_published(uri, 101))["params"]["diagnostics"]
    assert [d["code"] for d in final] == ["JIT101"]
    stale = [m for m in raw.seen if m.get("method") == "textDocument/publishDiagnostics"]
    assert len(stale) < 50  # versions overtaken by newer ones were never linted


def test_cancelled_request(raw: RawServer, tmp_path: Path):
    uri = (tmp_path / "cancel.py").as_uri()
    _open(raw, uri, BUG * 50)
    msg_id = raw.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    raw.notify("$/cancelRequest", {"id": msg_id})
    reply = raw.response(msg_id)
    assert reply.get("error", {}).get("code") == -32800 or "result" in reply
    _still_serving(raw, tmp_path)


def test_shutdown_then_exit_is_code_0(raw: RawServer):
    assert raw.response(raw.request("shutdown"))["result"] is None
    raw.notify("exit")
    assert raw.exit_code() == 0


def test_exit_without_shutdown_is_code_1(raw: RawServer):
    raw.notify("exit")
    assert raw.exit_code() == 1
