"""Time `jitlint server` from a didChange to its publishDiagnostics, against the CLI.

Usage: python benchmarks/lsp_latency.py [--edits 30] [--warmup 5] [--cli-runs 5]
                                        [--memory-edits 1000] [--memory-lines 100]

In one run:
1. Latency: a generated 1,000-line JAX module (jitted layers, losses and updates; one JIT101
   per block) is opened in the server, warmed up, then edited ``--edits`` times; each edit
   waits for the diagnostics of its own version. Prints median and p95. The server re-parses
   only the statement an edit changes and re-analyses only the statements linked to it (here
   the edited layer, its loss and its update), replaying the findings of the rest.
   Measured on 2 cores at load 3.3 (`--memory-edits 300`): median 100 ms, p95 128 ms (the
   30 ms debounce included); without the reuse, on the same machine at load 6.5: 670 ms and
   804 ms.
2. Baseline: `jitlint --no-cache FILE` on the same file, ``--cli-runs`` times (median), and the
   in-process `jitlint.lint_source` of the same text (median), the floor for any front end.
   Prints server median / CLI median and server median / lint_source median.
3. Memory: resident memory of the server and its worker process after 10 edits and after
   ``--memory-edits`` edits (each waited for) of a ``--memory-lines`` module; prints the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

import jitlint

BLOCK = '''

@partial(jax.jit, static_argnames=("depth",))
def layer_{i}(params, x, depth=2):
    """Apply residual block {i}."""
    h = x
    for _ in range(depth):
        h = jnp.tanh(h @ params["w"] + params["b"])
    if x.shape[0] > 1:
        h = h + x
    if jnp.sum(h) > 0:
        h = -h
    return h


def loss_{i}(params, batch):
    preds = layer_{i}(params, batch["x"])
    err = preds - batch["y"]
    return jnp.mean(err ** 2)


@jax.jit
def update_{i}(params, batch, lr=0.1):
    grads = jax.grad(loss_{i})(params, batch)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
'''
HEAD = "from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n"


def module(lines: int) -> str:
    """Return a JAX module of at least ``lines`` lines."""
    text, i = HEAD, 0
    while text.count("\n") < lines:
        text += BLOCK.format(i=i)
        i += 1
    return text


def rss_kib(pid: int) -> int:
    """Return the resident memory of ``pid`` and its descendants, in KiB (Linux /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(
                next(ln for ln in status.splitlines() if ln.startswith("VmRSS")).split()[1]
            )
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, StopIteration, ValueError):
            continue
    return total


class Bench:
    """A client that waits for the diagnostics of each version it sends."""

    def __init__(self) -> None:
        self.client = LanguageClient("jitlint-bench", "1")
        self.arrived: dict[tuple[str, int | None], float] = {}
        self.event = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.arrived[(params.uri, params.version)] = time.perf_counter()
            self.event.set()

    async def start(self, root: Path) -> None:
        await self.client.start_io(
            sys.executable, "-m", "jitlint", "server", "--log-level", "error"
        )
        caps = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)
            )
        )
        await self.client.initialize_async(
            types.InitializeParams(capabilities=caps, root_uri=root.as_uri())
        )
        self.client.initialized(types.InitializedParams())

    async def until(self, uri: str, version: int) -> float:
        while (uri, version) not in self.arrived:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), 300)
        return self.arrived[(uri, version)]

    async def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        item = types.TextDocumentItem(uri=uri, language_id="python", version=0, text=text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        await self.until(uri, 0)
        return uri

    async def edit(self, uri: str, text: str, version: int) -> float:
        """Send a whole-document change; return seconds until its diagnostics arrive."""
        start = time.perf_counter()
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return await self.until(uri, version) - start

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def load() -> str:
    """Return the 1-minute load average (the machine is shared: say how busy it was)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


async def measure(args: argparse.Namespace, root: Path) -> None:
    load_at_start = load()
    big = module(1000)
    path = root / "model.py"
    path.write_text(big, encoding="utf-8")
    bench = Bench()
    await bench.start(root)
    server_pid = bench.client._server.pid if bench.client._server else 0
    uri = await bench.open(path, big)
    latencies = []
    for n in range(args.warmup + args.edits):
        # A realistic keystroke: one line of the body changes.
        text = big.replace("h = -h", f"h = -h * {n + 1}", 1)
        elapsed = await bench.edit(uri, text, n + 1)
        if n >= args.warmup:
            latencies.append(elapsed)

    small = module(args.memory_lines)
    small_uri = await bench.open(root / "small.py", small)
    memory: dict[int, int] = {}
    for n in range(1, args.memory_edits + 1):
        await bench.edit(small_uri, small + f"# edit {n}\n", n)
        if n in (10, args.memory_edits):
            memory[n] = rss_kib(server_pid)
    await bench.stop()

    cli = []
    for _ in range(args.cli_runs):
        start = time.perf_counter()
        cmd = [sys.executable, "-m", "jitlint", "--no-cache", str(path)]
        subprocess.run(cmd, capture_output=True, check=False)
        cli.append(time.perf_counter() - start)
    inproc = []
    settings = jitlint.settings_for(str(path))
    for _ in range(args.cli_runs):
        start = time.perf_counter()
        jitlint.lint_source(big, filename=str(path), settings=settings)
        inproc.append(time.perf_counter() - start)

    med = statistics.median(latencies)
    print(f"file: {big.count(chr(10))} lines, {len(big)} characters; cores: {os.cpu_count()}")
    print(f"load average (1 min): {load_at_start} at the start, {load()} at the end")
    print(f"didChange -> publishDiagnostics over {len(latencies)} edits:")
    print(f"  median {med * 1000:.0f} ms, p95 {p95(latencies) * 1000:.0f} ms")
    print(f"jitlint --no-cache FILE (median of {len(cli)}): {statistics.median(cli) * 1000:.0f} ms")
    print(
        f"lint_source in process (median of {len(inproc)}): "
        f"{statistics.median(inproc) * 1000:.0f} ms"
    )
    print(f"ratio server median / CLI run:      {med / statistics.median(cli):.2f}")
    print(f"ratio server median / lint_source:  {med / statistics.median(inproc):.2f}")
    if 10 in memory and args.memory_edits in memory:
        before, after = memory[10], memory[args.memory_edits]
        print(
            f"memory (server + worker), {args.memory_lines}-line module: after 10 edits "
            f"{before / 1024:.1f} MiB, after {args.memory_edits}: {after / 1024:.1f} MiB, "
            f"ratio {after / before:.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--cli-runs", type=int, default=5)
    parser.add_argument("--memory-edits", type=int, default=1000)
    parser.add_argument("--memory-lines", type=int, default=100)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(measure(args, Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
