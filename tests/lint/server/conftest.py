from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import converters, types

from tests.lint.server.lsp import Session

CLIENTS = Path(__file__).parent / "clients"


def capabilities(name: str) -> types.ClientCapabilities:
    """Load a real editor's client capabilities, recorded in clients/<name>.json."""
    data = json.loads((CLIENTS / f"{name}.json").read_text(encoding="utf-8"))
    return converters.get_converter().structure(data["capabilities"], types.ClientCapabilities)


@pytest.fixture(scope="module")
def push_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """A server driven with VS Code 1.65's capabilities: pushed diagnostics, UTF-16."""
    root = tmp_path_factory.mktemp("push")
    session = Session(root, capabilities("visual_studio_code_v1.65.2"))
    yield session
    session.close()
