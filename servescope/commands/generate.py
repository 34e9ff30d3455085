"""``servescope generate [--check] [--flavor NAME] [--out DIR] [--slo FILE] [--namespace NS]
[--k8s-label KEY=VALUE] [--runbook-base URL]``.

Writes the generated dashboards, Prometheus rules and their promtool unit tests (per flavor),
the same rules as a prometheus-operator PrometheusRule and the dashboards as Grafana-sidecar
ConfigMaps (deploy/kubernetes/<flavor>/, with ``--namespace`` and extra ``--k8s-label`` labels),
docs/metrics.md and docs/engines.md from the metric catalog and the flavors, and the
OpenTelemetry Collector configs
(collector/agent.yaml, collector/gateway.yaml, from the redaction policy and the SLO spec)
under DIR (the current directory by default: run it from the repository root, where they are
committed). ``--check`` writes nothing and exits 1
when any committed file differs from what the generator produces now (or is missing, or is a
generated file the generator no longer makes).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

GENERATED_DIRS = ("dashboards/generated/{flavor}", "alerts/generated/{flavor}",
                  "deploy/kubernetes/{flavor}")


def register(sub: Any) -> None:
    gen = sub.add_parser("generate", help="write (or --check) the generated dashboards and "
                         "Prometheus rules")
    gen.add_argument("--check", action="store_true",
                     help="write nothing; exit 1 if any generated file is stale")
    gen.add_argument("--flavor", default="all",
                     help="whose metric names to query: servescope, vllm, sglang, tgi, "
                     "llamacpp, or all (default)")
    gen.add_argument("--out", default=".", help="repository root to write under (default: .)")
    gen.add_argument("--slo", default=None, help="SLO spec file (default: the shipped spec)")
    gen.add_argument("--namespace", default=None,
                     help="metadata.namespace of the Kubernetes manifests (default: none, so "
                     "`kubectl apply -n NS` decides)")
    gen.add_argument("--k8s-label", action="append", default=[], metavar="KEY=VALUE",
                     help="a label added to the PrometheusRule and ConfigMaps, e.g. "
                     "release=kube-prometheus-stack for the operator's ruleSelector (repeatable)")
    gen.add_argument("--runbook-base", default=None, metavar="URL",
                     help="where alerts' runbook_url links point, e.g. https://git.example.com"
                     "/org/servescope/blob/v0.1.0/alerts/runbooks.md (default: "
                     "SERVESCOPE_RUNBOOK_BASE, else [tool.servescope] runbook_base in "
                     "pyproject.toml, else servescope's published repository at the installed "
                     "version's tag)")
    gen.set_defaults(handler=_handler)


def expected_files(flavor: str, slo_path: str | None = None, namespace: str | None = None,
                   k8s_labels: dict[str, str] | None = None, runbook_base: str | None = None
                   ) -> dict[str, str]:
    """Repository-relative path -> content of every file the generator makes for ``flavor``."""
    from servescope.alerts.model import Options
    from servescope.alerts.render import HEADER, render_k8s_rules
    from servescope.alerts.render import render as render_rules
    from servescope.dashboards.render import render as render_dashboards
    from servescope.dashboards.render import render_k8s
    from servescope.instrumentation.slo import SLOSpec, load_slo
    from servescope.promql.flavor import get_flavor
    from servescope.scrape_target import render_k8s_scrape

    slo = load_slo(slo_path) if slo_path else SLOSpec.default()
    chosen = get_flavor(flavor)
    options = (Options(flavor=chosen, runbook_base=runbook_base) if runbook_base
               else Options(flavor=chosen))
    return {**render_dashboards(slo, chosen), **render_rules(slo, options),
            **render_k8s_rules(slo, options, namespace=namespace, labels=k8s_labels),
            **render_k8s(slo, chosen, namespace=namespace, labels=k8s_labels, header=HEADER),
            **render_k8s_scrape(chosen.name, namespace=namespace, labels=k8s_labels,
                                header=HEADER)}


# Kubernetes' own rules: a namespace is an RFC 1123 label; a label's name an optional DNS
# subdomain prefix and "/", then a name of 63 characters at most; its value 63 at most, of
# the same characters, or empty. The API server refuses anything else at apply time.
_DNS_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_LABEL_NAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?/)?"
                         r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?")
_LABEL_VALUE = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?)?")


def parse_labels(items: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` arguments as a dict (ValueError naming the bad one)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--k8s-label: expected KEY=VALUE, got {item!r}")
        if _LABEL_NAME.fullmatch(key) is None:
            raise ValueError(f"--k8s-label: {key!r} is no Kubernetes label name (letters, "
                             "digits, '-', '_', '.', 63 at most, after an optional DNS prefix "
                             "and '/')")
        if _LABEL_VALUE.fullmatch(value) is None:
            raise ValueError(f"--k8s-label: the value of {key!r} is no Kubernetes label value "
                             "(letters, digits, '-', '_', '.', 63 at most, starting and ending "
                             "with a letter or digit)")
        out[key] = value
    return out


def check_namespace(namespace: str | None) -> str | None:
    """``namespace`` when Kubernetes takes it (an RFC 1123 label), else ValueError."""
    if namespace is not None and _DNS_LABEL.fullmatch(namespace) is None:
        raise ValueError(f"--namespace: {namespace!r} is no Kubernetes namespace (lower-case "
                         "letters, digits and '-', 63 at most, starting and ending with a "
                         "letter or digit)")
    return namespace


def collector_files(slo_path: str | None = None) -> dict[str, str]:
    """The Collector configs, with the tail-sampling thresholds of the SLO spec."""
    from servescope.collector.config import collector_configs
    from servescope.instrumentation.slo import SLOSpec, load_slo

    slo = load_slo(slo_path) if slo_path else SLOSpec.default()
    e2e = slo.e2e.threshold_seconds if slo.e2e is not None else 60.0
    texts = collector_configs(ttft_threshold_s=slo.ttft.threshold_seconds, e2e_threshold_s=e2e)
    return {f"collector/{name}": text for name, text in texts.items()}


def docs_files() -> dict[str, str]:
    """docs/metrics.md: the catalog with the default spec's bucket ladders; docs/engines.md:
    what each flavor can fill and why not."""
    from servescope.coverage import render_engines_markdown
    from servescope.instrumentation.docs import render_metrics_markdown

    return {"docs/metrics.md": render_metrics_markdown(),
            "docs/engines.md": render_engines_markdown()}


def stale_files(root: Path, files: dict[str, str], folders: tuple[str, ...] = ()) -> list[str]:
    """What --check reports: missing and different files, and leftovers in ``folders`` (which
    hold generated files only)."""
    stale = []
    for rel, text in sorted(files.items()):
        path = root / rel
        if not path.is_file():
            stale.append(f"{rel}: missing")
        elif path.read_text("utf-8") != text:
            stale.append(f"{rel}: differs from the generator's output")
    for name in folders:
        folder = root / name
        if folder.is_dir():
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                rel = path.relative_to(root).as_posix()
                if rel not in files:
                    stale.append(f"{rel}: no longer generated")
    return stale


def _flavors(name: str) -> list[str]:
    from servescope.promql.flavor import FLAVORS

    return list(FLAVORS) if name == "all" else [name]


def _handler(args: argparse.Namespace) -> int:
    from servescope.alerts.model import check_runbook_base, default_runbook_base
    from servescope.instrumentation.slo import SLOError

    root = Path(args.out)
    try:
        flavors = _flavors(args.flavor)
        labels = parse_labels(args.k8s_label)
        check_namespace(args.namespace)
        base = (check_runbook_base(args.runbook_base, "--runbook-base")
                if args.runbook_base is not None else default_runbook_base(root))
        generated = {f: expected_files(f, args.slo, args.namespace, labels, base)
                     for f in flavors}
        common = {**collector_files(args.slo), **docs_files()}
    except (SLOError, ValueError) as exc:
        print(f"servescope generate: {exc}", file=sys.stderr)
        return 2
    if args.check:
        problems = [p for f in flavors for p in stale_files(
            root, generated[f], tuple(d.format(flavor=f) for d in GENERATED_DIRS))]
        problems += stale_files(root, common)
        for problem in problems:
            print(f"stale: {problem}", file=sys.stderr)
        if problems:
            print("run `servescope generate` and commit the result", file=sys.stderr)
            return 1
        count = sum(map(len, generated.values())) + len(common)
        print(f"generated files are up to date ({count} files)")
        return 0
    files = {rel: text for group in [*generated.values(), common] for rel, text in group.items()}
    blocked = _blocked(root, files)
    if blocked:  # (found before anything is written: no half-written tree)
        print(f"servescope generate: cannot write {blocked}", file=sys.stderr)
        return 2
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text("utf-8") != text:
            path.write_text(text, "utf-8")
            print(f"wrote {rel}")
    return 0


def _blocked(root: Path, files: dict[str, str]) -> str | None:
    """Why one of ``files`` cannot be written under ``root`` (a file where a folder goes, a
    folder where a file goes), or None."""
    for rel in files:
        path = root / rel
        if path.is_dir():
            return f"{rel}: a folder is there"
        for parent in path.relative_to(root).parents:
            if str(parent) != "." and (root / parent).exists() and not (root / parent).is_dir():
                return f"{rel}: {parent} is a file, not a folder (move it away)"
    return None
