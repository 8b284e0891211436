"""``jitlint server``: the Language Server Protocol front end of the linter, over stdio."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback
from collections.abc import Sequence
from typing import BinaryIO, NoReturn

LOG_LEVELS = ("error", "warning", "info", "debug")


class _OneLine(logging.Formatter):
    """Format every record, tracebacks included, as one line: logs stay greppable."""

    def formatException(self, ei: object) -> str:
        if isinstance(ei, tuple) and ei[1] is not None:
            return "".join(traceback.format_exception_only(ei[1])).strip()
        return ""

    def format(self, record: logging.LogRecord) -> str:
        # Libraries put dumps and tracebacks into messages: keep their first line.
        record.msg, record.args = record.getMessage().split("\n", 1)[0], None
        return " | ".join(super().format(record).splitlines())


def _configure_logging(level: str, log_file: str | None) -> None:
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler()
    )
    handler.setFormatter(_OneLine("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("jitlint").setLevel(level.upper())
    # pygls reports a bad message at ERROR; its own debug chatter only at debug.
    logging.getLogger("pygls").setLevel("DEBUG" if level == "debug" else "ERROR")


def _protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """Keep stdin/stdout for the protocol alone: stray prints and child processes get stderr.

    Child processes inherit file descriptors 0 and 1; if they kept the protocol's pipes, a
    stray write would corrupt the stream and the client would not see the server end.
    """
    stdin = os.fdopen(os.dup(0), "rb")
    stdout = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stdin, stdout


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"jitlint server: error: {message}\n")  # one line, like the CLI's


def main(argv: Sequence[str] | None = None) -> int:
    """Run the language server on stdin/stdout until the client says ``exit``."""
    parser = _Parser(
        prog="jitlint server",
        description="Run the jitlint language server over stdio (for editors).",
    )
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="info")
    parser.add_argument("--log-file", help="write the log here instead of stderr")
    args = parser.parse_args(argv)
    try:
        _configure_logging(args.log_level, args.log_file)
    except OSError as err:
        print(f"jitlint: error: cannot open log file: {err}", file=sys.stderr)
        return 2

    from jitlint.server.features import build

    stdin, stdout = _protocol_streams()
    server = build()
    try:
        server.start_io(stdin, stdout)
    finally:
        server.worker.close()
        server.project_worker.close()
    # LSP: exit code 0 after `shutdown` then `exit`, 1 when the client ends without shutdown.
    return 0 if server.shutdown_requested else 1


__all__ = ["main"]
