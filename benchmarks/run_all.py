"""Run every benchmark and gather their ratios into one table.

Usage: ``python benchmarks/run_all.py [--quick] [--only trees,neighbors] [--grid]``

Each ``benchmarks/bench_*.py`` runs in its own process (``--quick`` is passed on), with
one BLAS/OpenMP thread for both sides (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``,
``MKL_NUM_THREADS`` set to 1 unless already set). Its output is echoed, and its final
``ACCURACY <benchmark>/<case> <ours> <reference>`` and ``RATIO <benchmark>/<case> <ratio>``
lines are collected into one table, printed at the end and written to
``results/benchmarks.tsv`` (columns ``benchmark, case, ratio, accuracy_ours,
accuracy_reference``; a ratio is our time over the reference's, below 1 is faster).

Benchmarks measure; they are not tests and do not run in CI. Timings on a shared machine are
noisy: compare both sides within one run, and repeat before trusting a ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE.parent / "results" / "benchmarks.tsv"


def parse(lines: list[str]) -> dict[str, dict[str, str]]:
    """``benchmark/case`` -> ratio and accuracies, from ``RATIO`` and ``ACCURACY`` lines."""
    rows: dict[str, dict[str, str]] = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[0] == "RATIO":
            rows.setdefault(parts[1], {})["ratio"] = parts[2]
        elif len(parts) == 4 and parts[0] == "ACCURACY":
            rows.setdefault(parts[1], {}).update(ours=parts[2], reference=parts[3])
    return rows


def run(script: Path, quick: bool, extra: list[str]) -> tuple[list[str], int, float]:
    """Run one benchmark, echo its output; return its lines, exit code and wall seconds."""
    env = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    command = [sys.executable, str(script)] + (["--quick"] if quick else []) + extra
    start = time.perf_counter()
    process = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    sys.stdout.write(process.stdout)
    sys.stderr.write(process.stderr[-2000:] if process.returncode else "")
    return process.stdout.splitlines(), process.returncode, seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="pass --quick to every benchmark")
    parser.add_argument("--only", help="comma-separated names, e.g. trees,neighbors")
    parser.add_argument("--grid", action="store_true", help="bench_svm.py: also a grid level")
    args = parser.parse_args(argv)
    scripts = sorted(HERE.glob("bench_*.py"))
    if args.only:
        wanted = set(args.only.split(","))
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
    table: dict[str, dict[str, str]] = {}
    failed = []
    for script in scripts:
        print(f"=== {script.name}", flush=True)
        extra = ["--grid"] if args.grid and script.stem == "bench_svm" else []
        lines, code, seconds = run(script, args.quick, extra)
        print(f"=== {script.name}: exit {code}, {seconds:.0f} s", flush=True)
        if code:
            failed.append(script.name)
        table.update(parse(lines))
    header = ["benchmark", "case", "ratio", "accuracy_ours", "accuracy_reference"]
    rows = []
    for key, values in table.items():
        benchmark, case = key.split("/", 1)
        rows.append([benchmark, case, values.get("ratio", "-"), values.get("ours", "-"),
                     values.get("reference", "-")])
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    print()
    for row in [header] + rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)))
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text("\n".join("\t".join(r) for r in [header] + rows) + "\n")
    print(f"\nwritten {OUTPUT}" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
