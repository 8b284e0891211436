"""Reporting the session's compilations: terminal summary, JSON, HTML page, trace events.

``summary`` collects the events (merging pytest-xdist workers) and renders the terminal
section and the JSON report; ``html_page`` and ``trace_events`` render the same data as a
self-contained page and as Chrome/Perfetto trace events.
"""

from __future__ import annotations

from pytest_jitcheck.report.summary import SessionStats

__all__ = ["SessionStats"]
