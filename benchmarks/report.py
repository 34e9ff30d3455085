"""Draw the benchmarks' JSON lines as one self-contained HTML page (matplotlib SVG inline).

Each benchmark prints one JSON line; ``make bench`` collects them in benchmarks/results.jsonl
and runs this script. Known benchmarks get their figures:

  backpressure  fast clients' TPOT distribution with and without slow clients, bounded vs
                unbounded; unsent (buffered) and discarded tokens over time
  hooks         each hook's cost in Histogram.observe-equivalents (measured in the same run)
  overhead      decode throughput per hooks mode, paired ratio to "off"
  redaction     span-stage and detector throughput; recall per kind vs every anchor

and every benchmark, known or not, gets its records as tables (the transport layer table is
backpressure's configs). Run: python benchmarks/report.py results.jsonl -o report.html
[--png picture.png]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from servescope.report import page
from servescope.report.figures import figure_png, figure_svg, new_figure, style

Figure = tuple[str, str, Any]  # (title, caption, matplotlib Figure)
COLORS = {("bounded", False): "#1f77b4", ("bounded", True): "#6baed6",
          ("unbounded", False): "#d62728", ("unbounded", True): "#fc9272"}


def _plain_log(axis: Any) -> None:
    """Log-scale ticks as plain numbers (12, 1,000), not powers of ten."""
    axis.set_major_formatter(FuncFormatter(lambda v, _: _num(v)))
    axis.set_minor_formatter(NullFormatter())


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def load(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()
             if line.strip().startswith("{")]
    if not lines:
        raise ValueError(f"{path}: no JSON lines")
    return lines


# --- backpressure -------------------------------------------------------------------------
def backpressure(result: Mapping[str, Any]) -> list[Figure]:
    configs = result.get("configs", [])
    figures = []
    if any(c.get("fast_tpot_ms") for c in configs):
        figures.append(("Fast clients' TPOT, with and without slow clients",
                        "Cumulative share of fast clients' requests with a mean token gap "
                        "(TPOT, client-measured) at most x. Dark: fast clients alone; light: "
                        "slow clients beside them. Bounded buffers keep the curves together.",
                        _tpot_cdf(configs)))
    if any(c.get("timeline") for c in configs):
        figures.append(("Unsent and discarded tokens over time (slow clients present)",
                        "Tokens committed but not yet sent (solid) and tokens discarded "
                        "because their request ended first (dashed), during the first round.",
                        _timeline(configs)))
    return figures


def _by_event_tokens(configs: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    groups: dict[int, list[dict[str, Any]]] = {}
    for config in configs:
        groups.setdefault(int(config.get("event_tokens", 1)), []).append(config)
    return dict(sorted(groups.items()))


def _kind(config: Mapping[str, Any]) -> str:
    return "unbounded" if str(config.get("config", "")).startswith("unbounded") else "bounded"


def _tpot_cdf(configs: list[dict[str, Any]]) -> Any:
    groups = _by_event_tokens(configs)
    fig = new_figure(11, 3.4)
    axes = fig.subplots(1, len(groups), sharey=True, squeeze=False)[0]
    for ax, (tokens, group) in zip(axes, groups.items(), strict=True):
        for config in group:
            values = sorted(v for v in config.get("fast_tpot_ms", []) if math.isfinite(v))
            if not values:
                continue
            slow = bool(config.get("slow_clients"))
            ax.step(values, [(i + 1) / len(values) for i in range(len(values))], where="post",
                    color=COLORS[(_kind(config), slow)],
                    label=f"{config['config']}, {'slow present' if slow else 'fast only'}")
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        _plain_log(ax.xaxis)
        ax.set_xlabel("fast clients' TPOT (ms, log scale)")
        ax.set_title(f"{tokens} token(s) per SSE event", fontsize=9)
        ax.legend(loc="lower right")
    axes[0].set_ylabel("share of requests")
    return fig


def _timeline(configs: list[dict[str, Any]]) -> Any:
    groups = _by_event_tokens(configs)
    fig = new_figure(11, 3.2)
    axes = fig.subplots(1, len(groups), sharey=True, squeeze=False)[0]
    for ax, (tokens, group) in zip(axes, groups.items(), strict=True):
        for config in group:
            line = config.get("timeline") or {}
            if not config.get("slow_clients") or not line.get("t_s"):
                continue
            color = COLORS[(_kind(config), True)] if _kind(config) == "bounded" else "#d62728"
            ax.plot(line["t_s"], line["unsent"], color=color, label=f"{config['config']} unsent")
            ax.plot(line["t_s"], line["discarded"], color=color, linestyle="--",
                    label=f"{config['config']} discarded")
        ax.set_xlabel("seconds into the run")
        ax.set_title(f"{tokens} token(s) per SSE event", fontsize=9)
        ax.legend(loc="upper left")
    axes[0].set_ylabel("tokens")
    return fig


# --- hooks --------------------------------------------------------------------------------
def hooks(result: Mapping[str, Any]) -> list[Figure]:
    costs: dict[str, float] = dict(result.get("observes") or
                                   result.get("observe_equivalents") or {})
    unit, caption = "Histogram.observe-equivalents", ""
    if costs and result.get("observe_us"):
        caption = (f"One prometheus_client Histogram.observe cost {result['observe_us']:.3g} µs "
                   "in the same run; each cost is measured paired with it.")
    if not costs and result.get("us") and result.get("observe_us"):
        costs = {k: v / result["observe_us"] for k, v in result["us"].items()}
        caption = (f"One prometheus_client Histogram.observe cost {result['observe_us']:.3g} µs "
                   "in the same run; each bar is a cost divided by it.")
    elif not costs and result.get("us"):
        costs, unit = dict(result["us"]), "µs"
        caption = "This run measured no Histogram.observe to divide by: costs in µs."
    if not costs:
        return []
    fig = new_figure(9, 0.35 * len(costs) + 1.0)
    ax = fig.add_subplot()
    names = list(costs)[::-1]
    bars = ax.barh(names, [costs[n] for n in names], color="#4c72b0")
    ax.bar_label(bars, labels=[_num(costs[n]) for n in names], padding=3, fontsize=7.5)
    if min(costs.values()) > 0:
        ax.set_xscale("log")
        _plain_log(ax.xaxis)
        unit += " (log scale)"
    ax.set_xlabel(unit)
    return [(f"Cost of the hooks in {unit.removesuffix(' (log scale)')}", caption, fig)]


# --- overhead -----------------------------------------------------------------------------
def overhead(result: Mapping[str, Any]) -> list[Figure]:
    modes: dict[str, dict[str, Any]] = result.get("modes") or {}
    if not modes:
        return []
    fig = new_figure(6, 2.6)
    ax = fig.add_subplot()
    names = list(modes)
    bars = ax.bar(names, [modes[n].get("median_tokens_per_s", 0) for n in names],
                  color="#55a868")
    ax.bar_label(bars, labels=[f"{modes[n].get('paired_ratio_vs_off', math.nan):.3f} x off"
                               for n in names], fontsize=7.5)
    ax.set_ylabel(f"{result.get('numerator', 'tokens')} / s (median)")
    return [("Decode throughput per hooks mode",
             "Median over interleaved rounds; the label is the paired per-round ratio to the "
             "hooks-off baseline.", fig)]


# --- redaction ----------------------------------------------------------------------------
def redaction(result: Mapping[str, Any]) -> list[Figure]:
    figures = []
    spans = result.get("spans_per_s") or {}
    anchors = _anchors(result)
    rates = {name: a["strings_per_s"] for name, a in anchors.items() if a.get("strings_per_s")}
    if isinstance(result.get("strings_per_s"), Mapping):  # one map of detector -> strings/s
        rates = {str(k): float(v) for k, v in result["strings_per_s"].items() if v}
    if spans or rates:
        fig = new_figure(11, 2.8)
        left, right = fig.subplots(1, 2)
        _bars(left, spans, "spans / s (log scale)", "span stage")
        _bars(right, rates, "strings / s (log scale)", "detectors on the same strings")
        figures.append(("Redaction throughput", "Span stage per configuration, and each "
                        "detector on the same strings, in the same run.", fig))
    kinds = sorted({k for a in anchors.values() for k in a.get("per_kind", {})})
    if kinds:
        fig = new_figure(11, 3.0)
        ax = fig.add_subplot()
        width = 0.8 / max(1, len(anchors))
        for i, (name, anchor) in enumerate(anchors.items()):
            per_kind = anchor.get("per_kind", {})
            xs = [k + (i - (len(anchors) - 1) / 2) * width for k in range(len(kinds))]
            ax.bar(xs, [per_kind.get(kind, math.nan) for kind in kinds], width, label=name)
        ax.set_xticks(range(len(kinds)), kinds, rotation=30, ha="right")
        ax.set_ylabel("recall")
        ax.set_ylim(0, 1.05)
        ax.legend(loc="lower left", ncols=len(anchors))
        figures.append(("Recall per kind against the anchors", "Share of labelled values "
                        "found, per kind, on the labelled corpus (a missing bar: the anchor "
                        "has no recognizer for that kind).", fig))
    return figures


def _anchors(result: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every detector in the line with a per-kind recall: ``servescope_recall``, ``presidio``,
    any other anchor a later benchmark adds in the same shape."""
    out = {}
    for key, value in result.items():
        if isinstance(value, Mapping) and "per_kind" in value:
            name = key.removesuffix("_recall")
            rate = value.get("strings_per_s") or result.get(f"{name}_strings_per_s")
            out[name] = {**value, "strings_per_s": rate}
    return out


def _bars(ax: Any, values: Mapping[str, float], label: str, title: str) -> None:
    ax.set_title(title, fontsize=9)
    if not values:
        ax.set_axis_off()
        ax.text(0.5, 0.5, "not in this run", ha="center", transform=ax.transAxes)
        return
    names = list(values)
    bars = ax.barh(names[::-1], [values[n] for n in names[::-1]], color="#8172b2")
    ax.bar_label(bars, labels=[f"{values[n]:,.0f}" for n in names[::-1]], padding=3,
                 fontsize=7.5)
    if min(values.values()) > 0:
        ax.set_xscale("log")
        _plain_log(ax.xaxis)
    else:
        label = label.replace(" (log scale)", "")
    ax.set_xlabel(label)


# --- tables for every benchmark -----------------------------------------------------------
def tables(result: Mapping[str, Any]) -> list[str]:
    """Lists of records and maps of records as tables (long sample lists left out)."""
    out = []
    scalars = {k: v for k, v in result.items() if isinstance(v, str | int | float | bool)}
    if scalars:
        out.append(page.table([scalars]))
    for key, value in result.items():
        records = _records(value)
        if records:
            out.append(page.table(records, caption=key.replace("_", " ")))
    return out


def _records(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        return [_flat(v) for v in value]
    if isinstance(value, Mapping) and value and all(isinstance(v, Mapping)
                                                    for v in value.values()):
        return [{"": k, **_flat(v)} for k, v in value.items()]
    return []


def _flat(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items()
            if not (isinstance(v, list) and len(v) > 8) and not (
                isinstance(v, Mapping) and any(isinstance(x, list) for x in v.values()))}


RENDERERS: dict[str, Callable[[Mapping[str, Any]], list[Figure]]] = {
    "backpressure": backpressure, "hooks": hooks, "overhead": overhead, "redaction": redaction}


def build(results: list[dict[str, Any]]) -> tuple[str, list[Figure]]:
    body, drawn = [], []
    with style():
        for i, result in enumerate(results):
            name = str(result.get("benchmark", f"benchmark {i + 1}"))
            figures = RENDERERS.get(name, lambda _: [])(result)
            drawn += figures
            boxes = [page.figure(title, caption, figure_svg(fig, f"bench{i}f{j}"),
                                 width=round(fig.get_figwidth() / 11 * 24))
                     for j, (title, caption, fig) in enumerate(figures)]
            body.append(f'<section class="benchmark" id="{page.esc(name)}">'
                        f"<h2>{page.esc(name)} (benchmarks/{page.esc(name)}.py)</h2>"
                        f'<div class="grid">{"".join(boxes)}</div>'
                        + "".join(tables(result)) + "</section>")
    header = ('<p class="meta">From the JSON line each benchmark prints (make bench). '
              "Figures: " + ", ".join(page.esc(t) for t, _, _ in drawn) + ".</p>")
    return page.page("servescope benchmarks", header, body), drawn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="JSON lines (benchmarks/results.jsonl)")
    parser.add_argument("-o", "--output", type=Path, default=Path("benchmarks/report.html"))
    parser.add_argument("--png", type=Path, default=None,
                        help="also write the first figure as a PNG (the README's picture)")
    args = parser.parse_args(argv)
    try:
        results = load(args.results)
    except (OSError, ValueError) as exc:
        print(f"benchmarks/report.py: {exc}", file=sys.stderr)
        return 2
    html, figures = build(results)
    args.output.write_text(html, "utf-8")
    print(f"benchmark report: {args.output} ({len(results)} benchmarks, {len(figures)} "
          f"figures, {len(html.encode()) / 1024:.0f} KB)")
    if args.png is not None and figures:
        title, _, fig = figures[0]
        with style():
            fig.suptitle(f"benchmarks: {title}", x=0.01, ha="left", fontweight="bold")
            figure_png(fig, str(args.png))
        print(f"benchmark picture: {args.png} ({figures[0][0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
