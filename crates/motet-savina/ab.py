#!/usr/bin/env python3
"""Interleaved A/B of two motet-savina binaries, cell by cell.

For each benchmark and worker count, runs `BIN cell B --model M --threads T --iterations N
--warmup 2` alternately with the base and the new binary (ABAB, then BABA, ...), so that drifts of
the machine hit both sides alike, and prints a Markdown table of the minimum and median sample of
each side and the ratio of medians (new / base). Runs under `chrt -f 10` when that is allowed.

Noise: each round pairs one base process with one new process run back to back, so the ratio of
their medians is free of the machine's drifts slower than a round (a VM's speed can change between
processes). The table gives the median of those per-round ratios with a 95% bootstrap interval
(resampling rounds; fixed seed), and a verdict: `slower` or `faster` where the interval lies wholly
above or below 1, `tie` where it contains 1. Use at least 10 rounds for effects of a few percent.

    crates/motet-savina/ab.py BASE_BIN NEW_BIN [--model actor] [--new-model M] [--threads 1,2]
        [--rounds 4] [--iterations 10] [BENCH ...]

`--new-model` runs another model on the new binary (default: the same): for a program that was
renamed between the two commits (one that became `actor-tuned`, say).

A benchmark may name its own models, as `BENCH:MODEL` (both sides) or `BENCH:BASE_MODEL:NEW_MODEL`,
so that one run covers several models (a `model` column then says which ran):

    crates/motet-savina/ab.py BASE NEW pingpong:boc:boc-tuned count:boc count:process:process-tuned

Without benchmarks it runs the seven micro benchmarks. Build the two binaries with
`cargo build --release -p motet-savina` on each commit and copy them aside first.
"""
import argparse
import json
import math
import random
import shutil
import statistics
import subprocess

MICRO = ["pingpong", "count", "threadring", "chameneos", "big", "fjcreate", "fjthrput"]


def samples(binary, bench, model, threads, iterations, rt):
    cmd = [binary, "cell", bench, "--model", model, "--threads", str(threads),
           "--iterations", str(iterations), "--warmup", "2"]
    if rt:
        cmd = ["chrt", "-f", "10"] + cmd
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    done = json.loads(out.strip().splitlines()[-1])
    measured = done["measured"]
    if measured.get("failure"):
        raise SystemExit(f"{binary} {bench}: {measured['failure']}")
    return measured["samples"]


def round_ratios(base_rounds, new_rounds):
    """Per round, the new side's median over the base side's."""
    return [statistics.median(n) / statistics.median(b) for b, n in zip(base_rounds, new_rounds)]


def bootstrap_interval(ratios, resamples=2000, seed=1):
    """A 95% percentile interval of the median of `ratios` (geometric: on their logarithms)."""
    logs = [math.log(r) for r in ratios]
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(logs, k=len(logs))) for _ in range(resamples))
    return math.exp(meds[int(0.025 * resamples)]), math.exp(meds[int(0.975 * resamples) - 1])


def cell(spec, model, new_model):
    """A benchmark argument as (bench, base model, new model): `BENCH`, `BENCH:MODEL` or
    `BENCH:BASE_MODEL:NEW_MODEL`; the models not named are `--model` and `--new-model`'s."""
    bench, *named = spec.split(":")
    if len(named) > 2:
        raise SystemExit(f"ab.py: {spec!r}: expected BENCH, BENCH:MODEL or BENCH:BASE_MODEL:NEW_MODEL")
    if not named:
        return bench, model, new_model
    return bench, named[0], named[-1]


def verdict(low, high):
    if low > 1.0:
        return "slower"
    if high < 1.0:
        return "faster"
    return "tie"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base")
    p.add_argument("new")
    p.add_argument("benches", nargs="*", default=MICRO)
    p.add_argument("--model", default="actor")
    p.add_argument("--new-model", default=None)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--iterations", type=int, default=10)
    a = p.parse_args()
    rt = shutil.which("chrt") is not None and subprocess.run(
        ["chrt", "-f", "10", "true"], capture_output=True).returncode == 0
    new_model = a.new_model or a.model
    cells = [cell(spec, a.model, new_model) for spec in a.benches]
    per_bench = any(":" in spec for spec in a.benches)
    models = a.model if new_model == a.model else f"{a.model} (base), {new_model} (new)"
    print(("models as named per benchmark" if per_bench else f"model {models}")
          + f"; {a.rounds} rounds of {a.iterations} samples per side; times in ms"
          + ("; chrt -f 10" if rt else ""))
    model_col = "| model " if per_bench else ""
    print(f"| bench {model_col}| workers | base min | new min | base median | new median | new/base "
          "| per-round new/base [95%] | verdict |")
    print("| --- " * (10 if per_bench else 9) + "|")
    for bench, base_model, new_bench_model in cells:
        for threads in [int(t) for t in a.threads.split(",")]:
            rounds = {"base": [], "new": []}
            for r in range(a.rounds):
                for side in (("base", "new") if r % 2 == 0 else ("new", "base")):
                    binary, model = ((a.base, base_model) if side == "base"
                                     else (a.new, new_bench_model))
                    rounds[side].append(samples(binary, bench, model, threads, a.iterations, rt))
            base = [x for r in rounds["base"] for x in r]
            new = [x for r in rounds["new"] for x in r]
            mb, mn = statistics.median(base), statistics.median(new)
            ratios = round_ratios(rounds["base"], rounds["new"])
            low, high = bootstrap_interval(ratios)
            shown = (f"`{base_model}`" if base_model == new_bench_model
                     else f"`{base_model}` -> `{new_bench_model}`")
            print(f"| {bench} " + (f"| {shown} " if per_bench else "")
                  + f"| {threads} | {min(base):.3f} | {min(new):.3f} "
                  f"| {mb:.3f} | {mn:.3f} | {mn / mb:.3f} "
                  f"| {statistics.median(ratios):.3f} [{low:.3f}, {high:.3f}] "
                  f"| {verdict(low, high)} |", flush=True)


if __name__ == "__main__":
    main()
