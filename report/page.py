"""One self-contained HTML page: inline CSS and inline SVG, no script, nothing fetched."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["CSS", "esc", "figure", "page", "table"]

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
       color: #1d1f24; background: #f4f5f7; }
header, main { max-width: 1320px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; }
h1 { font-size: 22px; margin: 6px 0; }
h2 { font-size: 18px; margin: 28px 0 6px; border-bottom: 2px solid #d7dae0; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 18px 0 6px; color: #4a4f59; text-transform: uppercase;
     letter-spacing: .04em; }
.meta { color: #5b606b; font-size: 13px; }
.meta code, td code { font-size: 12px; }
nav a { margin-right: 14px; }
.grid { display: grid; grid-template-columns: repeat(24, minmax(0, 1fr)); gap: 10px; }
figure.panel { margin: 0; background: #fff; border: 1px solid #dde0e6; border-radius: 6px;
               padding: 8px 10px; min-width: 0; }
figure.panel figcaption { font-weight: 600; }
figure.panel .desc { color: #5b606b; font-size: 12px; margin: 2px 0 4px; }
figure.panel svg { width: 100%; height: auto; display: block; }
.empty { background: #fafafa; border: 1px dashed #c4c8d0; border-radius: 4px; padding: 10px;
         color: #4a4f59; font-size: 13px; }
.error { color: #a4161a; }
details { font-size: 12px; color: #4a4f59; }
details code { word-break: break-all; }
div.table { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; background: #fff; font-size: 13px; margin: 6px 0 14px; }
th, td { border: 1px solid #dde0e6; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eef0f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.firing { color: #a4161a; font-weight: 600; }
.pending { color: #b26b00; }
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def page(title: str, header: str, body: Iterable[str]) -> str:
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
        f"<header><h1>{esc(title)}</h1>{header}</header>", "<main>", *body, "</main>",
        "</body>", "</html>", ""])


def figure(title: str, description: str, content: str, *, width: int = 24,
           has_data: bool = True, extra: str = "", anchor: str = "") -> str:
    """A panel box spanning ``width`` of 24 grid columns (Grafana's gridPos.w)."""
    cls = "panel has-data" if has_data else "panel no-data"
    ident = f' id="{esc(anchor)}"' if anchor else ""
    desc = f'<div class="desc">{esc(description)}</div>' if description else ""
    return (f'<figure class="{cls}"{ident} style="grid-column: span {max(1, min(24, width))}">'
            f"<figcaption>{esc(title)}</figcaption>{desc}{content}{extra}</figure>")


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None,
          caption: str = "") -> str:
    """Rows of flat records (nested values shown as compact text)."""
    if not rows:
        return ""
    cols = list(columns or dict.fromkeys(k for row in rows for k in row))
    head = "".join(f"<th>{esc(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(_cell(row.get(c)) for c in cols) + "</tr>" for row in rows)
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return (f'<div class="table"><table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}'
            "</tbody></table></div>")


def _cell(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return f"<td>{'' if value is None else esc('yes' if value else 'no')}</td>"
    if isinstance(value, int | float):
        text = (f"{value:,}" if isinstance(value, int) else f"{value:,.0f}" if abs(value) >= 1000
                else f"{value:.4g}")
        return f'<td class="num">{esc(text)}</td>'
    if isinstance(value, Mapping):
        return "<td>" + esc(", ".join(f"{k} {v}" for k, v in value.items())) + "</td>"
    if isinstance(value, list | tuple):
        return "<td>" + esc(", ".join(map(str, value))) + "</td>"
    return f"<td>{esc(value)}</td>"
