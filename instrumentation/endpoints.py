"""An endpoint's URL as it may be shown: in a start-up line, a health answer, a description.

A URL given on the command line or in ``OTEL_*`` may carry credentials (``http://user:pw@host``,
``?api_key=...``). Start-up lines go to stderr before any log filter sees them, and health
answers go to anyone who can reach the port, so the shown form keeps only what locates the
endpoint: the scheme, the host, the port and the path.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["shown_url"]


def shown_url(url: str) -> str:
    """``url`` without its user information, query and fragment (each cut is marked, so the
    reader knows something was there); a string that is no URL is shown as ``<unparsable>``."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "<unparsable URL>"
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = ("…@" if "@" in parts.netloc else "") + host + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "…" if parts.query else "", ""))
