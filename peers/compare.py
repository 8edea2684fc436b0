#!/usr/bin/env python3
"""The bookkeeping of peers/compare.sh: which benchmarks each kit has, how each kit's parameters map to
motet-savina's `--size` names, and the merged records and Markdown table.

usage:
  compare.py has KIT B1,B2,...            the benchmarks of the list that KIT has, comma-separated
  compare.py all K1,K2,...                every benchmark one of the kits has, in Savina's order
LIST is the output of `motet-savina list`, saved to a file (its models and default parameters).
  compare.py plan --bench B1,... [--listing LIST] KIT.json...
                                          one line per benchmark and distinct parameter set the kits ran
                                          it at: "BENCH<TAB>TAG<TAB>P=V P=V ..." in motet-savina's names,
                                          leaving out the values equal to motet-savina's defaults
  compare.py models --listing LIST BENCH M1,M2,...
                                          the models of the list that motet-savina has for BENCH
  compare.py report --json OUT --markdown OUT.md --listing LIST [--command C] [--root DIR]
                    [--sources sources.txt] [--kits "k1 k2"] [--bench B1,...] [--port-notes TSV]
                    [--rounds R] [--rt NOTE] FILES...
                                          merges kit-KIT[-BENCH[-rN]].json and motet-*.json records
                                          into {"header": {...}, "records": [...]} (kit records get
                                          "peer_kit", and "port_differs" where port-notes.tsv says the
                                          port does other work than SPEC.md's; a cell from several
                                          rounds becomes one record, see ROUNDS_RULE) and writes the
                                          comparison table

Kit records are in motet-savina's format but use their own parameter names (Verona's harness names,
Savina's Akka "Args:" lines, LF's runner names; CAF's are SPEC.md's flags). PARAMS below maps each to
motet-savina's name, or to None where motet-savina has no such parameter and the value is the only one
it implements (a channel count of 1, no priorities; see FIXED). A kit parameter missing from PARAMS is
an error: motet is never compared at parameters that were not checked to be the kit's. A parameter
that a kit's record leaves out is run at motet-savina's default, which is Savina's.
"""
import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

MICRO = ["pingpong", "count", "fjthrput", "fjcreate", "threadring", "chameneos", "big"]

# The benchmarks each kit has (Savina short names).
HAS = {
    "verona": "pingpong count fjthrput fjcreate threadring chameneos big concdict concsll bndbuffer "
              "philosopher barber cigsmok logmap banking radixsort filterbank sieve trapezoid recmatmul "
              "quicksort fib",
    "caf": "pingpong count fjthrput fjcreate threadring chameneos big concdict concsll bndbuffer "
           "philosopher logmap banking radixsort sieve facloc trapezoid recmatmul quicksort apsp nqueenk "
           "fib bitonicsort",
    "akka": "pingpong count fjthrput fjcreate threadring chameneos big concdict concsll bndbuffer "
            "philosopher barber cigsmok logmap banking radixsort filterbank sieve uct facloc trapezoid "
            "piprecision recmatmul quicksort apsp astar nqueenk fib",
    "lf": "pingpong count threadring chameneos big fjthrput banking barber bndbuffer cigsmok concdict "
          "concsll logmap philosopher apsp astar filterbank nqueenk piprecision radixsort recmatmul "
          "trapezoid",
    # the lf kit's Rust programs (models lf-rs and reactor-lf): LF's Savina suite has no Rust apsp
    "lf-rs": "pingpong count threadring chameneos big fjthrput banking barber bndbuffer cigsmok concdict "
             "concsll logmap philosopher astar filterbank nqueenk piprecision radixsort recmatmul trapezoid",
}
HAS = {k: v.split() for k, v in HAS.items()}
# Savina's numbering of its benchmarks: the order of `all`
SAVINA_ORDER = ("pingpong count fjthrput fjcreate threadring chameneos big concdict concsll bndbuffer philosopher "
                "barber cigsmok logmap banking radixsort filterbank sieve uct facloc trapezoid piprecision "
                "recmatmul quicksort apsp sor astar nqueenk fib bitonicsort").split()

# Each peer model, the kit it comes from, and the motet model its ratio is taken over: the BoC paper's
# BoC (Full) ports over motet's boc (the same programs); every actor port over motet's actors.
PEER_MODELS = {
    "verona-actor": ("verona", "actor"),
    "verona-full": ("verona", "boc"),
    "caf": ("caf", "actor"),
    "akka": ("akka", "actor"),
    "lf-cpp": ("lf", "actor"),
    "lf-rs": ("lf", "actor"),
    # motet's reactors running LF's own Rust programs (motet-lf), built and run by the lf kit beside
    # lf-rs: a base for lf-rs (KIT_BASES), with no ratio of its own over motet-savina's models
    "reactor-lf": ("lf", None),
}
# Peer models also taken over another kit model of the same row: reactor-rs over motet-lf's build of
# the very same LF programs.
KIT_BASES = {"lf-rs": "reactor-lf"}

# kit -> benchmark -> {kit's parameter name: motet-savina's name, or None (see the module's doc)}.
# The seven micro benchmarks were checked against each kit's port and motet-savina's program; the
# others by each kit's documented meaning of its parameters against motet-savina's `list --verbose`.
PARAMS = {
    "verona": {  # peers/verona/run.sh's tables: the arguments savina/savina.cpp passes
        "pingpong": {"pings": "n"},
        "count": {"messages": "n"},
        "fjthrput": {"messages": "n", "actors": "a", "channels": None, "priorities": None},
        "fjcreate": {"workers": "n"},
        "threadring": {"actors": "n", "passes": "r"},
        "chameneos": {"chameneos": "c", "meetings": "m"},
        "big": {"pings": "n", "actors": "w"},
        "concdict": {"workers": "e", "messages": "m", "write_percentage": "w"},
        "concsll": {"workers": "e", "messages": "m", "size_percentage": "s", "write_percentage": "w"},
        "bndbuffer": {"buffersize": "bb", "producers": "np", "consumers": "nc", "items": "ipp",
                      "producercosts": "pc", "consumercosts": "cc"},
        "philosopher": {"philosophers": "n", "rounds": "m", "channels": "c"},
        "barber": {"haircuts": "n", "room": "w", "production": "pr", "cut": "hr"},
        "cigsmok": {"rounds": "r", "smokers": "s"},
        "logmap": {"terms": "t", "series": "s", "rate": "r", "increment": None},
        "banking": {"accounts": "a", "transactions": "n"},
        "radixsort": {"dataset": "n", "max": "m", "seed": "s"},
        "filterbank": {"columns": "col", "simulations": "sim", "channels": "chan", "sinkrate": None},
        "sieve": {"limit": "n", "buffersize": "m"},
        "trapezoid": {"pieces": "n", "workers": "w", "left": "l", "right": "r"},
        "recmatmul": {"workers": "w", "length": "n", "threshold": "t", "priorities": "p"},
        "quicksort": {"dataset": "n", "max": "m", "threshold": "t", "seed": "s"},
        "fib": {"n": "n"},
    },
    "caf": {  # SPEC.md's (Savina's) flags, as motet-savina's, but for bndbuffer's
        "pingpong": {"n": "n"},
        "count": {"n": "n"},
        "fjthrput": {"n": "n", "a": "a"},
        "fjcreate": {"n": "n"},
        "threadring": {"n": "n", "r": "r"},
        "chameneos": {"c": "c", "m": "m"},
        "big": {"n": "n", "w": "w"},
        "concdict": {"e": "e", "m": "m", "w": "w"},
        "concsll": {"e": "e", "m": "m", "w": "w", "s": "s"},
        "bndbuffer": {"b": "bb", "p": "np", "c": "nc", "x": "pc", "y": "cc", "i": "ipp"},
        "philosopher": {"n": "n", "m": "m"},
        "logmap": {"t": "t", "s": "s", "r": "r"},
        "banking": {"a": "a", "n": "n"},
        "radixsort": {"n": "n", "m": "m", "s": "s"},
        "sieve": {"n": "n", "m": "m"},
        "facloc": {"n": "n", "g": "g", "a": "a", "s": "s", "c": "c"},
        "trapezoid": {"n": "n", "w": "w", "l": "l", "r": "r"},
        "recmatmul": {"n": "n", "t": "t", "w": "w"},
        "quicksort": {"n": "n", "m": "m", "t": "t", "s": "s"},
        "apsp": {"n": "n", "b": "b", "w": "w"},
        "nqueenk": {"n": "n", "w": "w", "t": "t", "s": "s"},
        "fib": {"n": "n"},
        "bitonicsort": {"n": "n", "m": "m", "s": "s"},
    },
    "akka": {  # the "Args:" block Savina's BenchmarkRunner prints ("debug" is dropped for every one)
        "pingpong": {"N (num pings)": "n"},
        "count": {"N (num messages)": "n"},
        "fjthrput": {"N (messages per actor)": "n", "A (num actors)": "a", "C (num channels)": None,
                     "P (use priorities)": None},
        "fjcreate": {"N (num workers)": "n", "C (num channels)": None},
        "threadring": {"N (num actors)": "n", "R (num rounds)": "r"},
        "chameneos": {"num chameneos": "c", "num meetings": "m", "num mailboxes": None,
                      "use priorities": None},
        "big": {"N (num pings)": "n", "W (num actors)": "w"},
        "concdict": {"Num Entities": "e", "Message/Worker": "m", "Write Percent": "w"},
        "concsll": {"Num Entities": "e", "Message/Worker": "m", "Insert Percent": "w", "Size Percent": "s"},
        "bndbuffer": {"Buffer size": "bb", "num producers": "np", "num consumers": "nc", "prod cost": "pc",
                      "cons cost": "cc", "items per producer": "ipp", "num mailboxes": "nm"},
        "philosopher": {"N (num philosophers)": "n", "M (num eating rounds)": "m", "C (num channels)": "c"},
        "barber": {"N (num haircuts)": "n", "W (waiting room size)": "w", "APR (production rate)": "pr",
                   "AHR (haircut rate)": "hr"},
        "cigsmok": {"R (num rounds)": "r", "S (num smokers)": "s"},
        "logmap": {"num terms": "t", "num series": "s", "start rate": "r"},
        "banking": {"A (num accounts)": "a", "N (num transactions)": "n", "Initial Balance": None},
        "radixsort": {"N (num values)": "n", "M (max value)": "m", "S (seed)": "s"},
        "filterbank": {"numSimulations": "sim", "numColumns": "col", "numChannels": "chan"},
        "sieve": {"N (input size)": "n"},
        "uct": {"Max. nodes": "nodes", "Avg. comp size": "avg", "Std. dev. comp size": "stdev",
                "Binomial Param": "binomial", "Urgent node percent": "urgent"},
        "facloc": {"Num points": "n", "Grid size": "g", "F": None, "Alpha": "a", "Cut-off depth": "c",
                   "Seed": "s"},
        "trapezoid": {"N (num trapezoids)": "n", "W (num workers)": "w", "L (left end-point)": "l",
                      "R (right end-point)": "r"},
        "piprecision": {"Num Workers": "w", "Precision": "p"},
        "recmatmul": {"Num Workers": "w", "Data length": "n", "Threshold": "t", "Priorities": "p"},
        "quicksort": {"N (num values)": "n", "M (max value)": "m", "T (sequential cutoff)": "t", "S (seed)": "s"},
        "apsp": {"N (num workers)": "n", "B (block size)": "b", "W (max edge weight)": "w"},  # N is the nodes
        "astar": {"Num Workers": "w", "Grid Size": "g", "Priorities": "p", "Threshold": "t", "Granularity": None},
        "nqueenk": {"Num Workers": "w", "Size": "n", "Max Solutions": "s", "Threshold": "t", "Priorities": "p"},
        "fib": {"N (index)": "n"},
    },
    "lf": {  # peers/lf/run.sh: the benchmarks-lingua-franca runner's small sizes
        "pingpong": {"pings": "n"},
        "count": {"messages": "n"},
        "fjthrput": {"messages": "n", "actors": "a"},
        "threadring": {"actors": "n", "pings": "r"},
        "chameneos": {"chameneos": "c", "meetings": "m"},
        "big": {"messages": "n", "actors": "w"},
        "banking": {"accounts": "a", "transactions": "n"},
        "barber": {"haircuts": "n", "waiting_room_size": "w", "production_rate": "pr", "haircut_rate": "hr"},
        "bndbuffer": {"buffer_size": "bb", "producers": "np", "consumers": "nc", "items_per_producer": "ipp",
                      "produce_cost": "pc", "consume_cost": "cc"},
        "cigsmok": {"rounds": "r", "smokers": "s"},
        "concdict": {"workers": "e", "messages_per_worker": "m", "write_percentage": "w"},
        "concsll": {"workers": "e", "messages_per_worker": "m", "write_percentage": "w", "size_percentage": "s"},
        "logmap": {"terms": "t", "series": "s", "start_rate": "r"},
        "philosopher": {"philosophers": "n", "eating_rounds": "m"},
        "apsp": {"nodes": "n", "block_size": "b", "max_edge_weight": "w"},
        "astar": {"workers": "w", "grid_size": "g", "priorities": "p", "threshold": "t"},
        "filterbank": {"columns": "col", "simulations": "sim", "channels": "chan"},
        "nqueenk": {"workers": "w", "size": "n", "threshold": "t", "priorities": "p", "solution_limit": "s"},
        "piprecision": {"workers": "w", "precision": "p"},
        "radixsort": {"data_size": "n", "max_value": "m", "seed": "s"},
        "recmatmul": {"workers": "w", "data_length": "n", "block_threshold": "t", "priorities": "p"},
        "trapezoid": {"workers": "w", "pieces": "n", "left": "l", "right": "r"},
    },
}
# The only values motet-savina implements for the parameters mapped to None; ANY where motet-savina
# runs its own value whatever the kit's, and its records say so (banking's balance-10000) or the
# parameter only tunes a priority mailbox or a printout that motet-savina's programs do not have.
ANY = object()
FIXED = {"channels": 1, "C (num channels)": 1, "num mailboxes": 1,
         "priorities": (True, False), "P (use priorities)": (True, False), "use priorities": (True, False),
         "increment": 0.0025,  # logmap: rate computer i's rate is r + i * 0.0025 in motet-savina too
         "sinkrate": ANY,  # filterbank: how often Verona's sink prints
         "Initial Balance": ANY,  # banking: motet-savina's accounts start at 10,000 (balance-10000)
         "F": ANY,  # facloc: derived from the grid size
         "Granularity": ANY}  # astar: the priority mailbox's granularity
DROPPED = {"akka": {"debug"}}


def kit_of(path):
    """The kit of a kit's record file: kit-KIT.json, or kit-KIT-BENCH[-rROUND].json (compare.sh's)."""
    m = re.match(r"kit-([a-z0-9]+)(?:-[\w.-]+)?\.json$", os.path.basename(path))
    return m.group(1) if m else None


def sizes_of(kit, rec, defaults=None):
    """motet-savina's --size overrides for the parameters of a kit record, as sorted (name, value)
    pairs, leaving out those equal to motet-savina's defaults (`defaults`: benchmark -> {name: value});
    or raises ValueError naming what is not mapped."""
    bench = rec["benchmark"]
    table = PARAMS.get(kit, {}).get(bench)
    if table is None:
        raise ValueError(f"no parameter mapping for {kit}'s {bench} (add it to PARAMS in compare.py)")
    params = {k: v for k, v in (rec.get("params") or {}).items() if k not in DROPPED.get(kit, ())}
    if not params:
        raise ValueError(f"{kit}'s {bench} record has no parameters (did the run fail?)")
    out = {}
    for key, value in params.items():
        if key not in table:
            raise ValueError(f"{kit}'s {bench} parameter {key!r} has no mapping to motet-savina's")
        name = table[key]
        if name is None:
            fixed = FIXED.get(key)
            ok = fixed is ANY or (value in fixed if isinstance(fixed, tuple) else value == fixed)
            if not ok:
                raise ValueError(f"{kit}'s {bench} runs {key}={value}, which motet-savina does not implement")
            continue
        out[name] = value
    dflt = (defaults or {}).get(bench, {})
    out = {k: v for k, v in out.items() if not (k in dflt and float(v) == dflt[k])}
    return tuple(sorted(out.items()))


def fmt_value(v):
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def label(sizes):
    return " ".join(f"{k}={fmt_value(v)}" for k, v in sizes) or "SPEC.md's"


def load(path):
    with open(path) as f:
        recs = json.load(f)
    if not isinstance(recs, list):
        raise SystemExit(f"compare.py: {path} is not a JSON array")
    return recs


def cmd_has(a):
    have = HAS[a.kit]
    print(",".join(b for b in a.bench.split(",") if b in have))


def cmd_all(a):
    kits = [k for k in a.kits.split(",") if k]
    bad = [k for k in kits if k not in HAS]
    if bad:
        sys.exit(f"compare.py: unknown kit {', '.join(bad)} ({', '.join(sorted(HAS))})")
    have = {b for k in kits for b in HAS[k]}
    print(",".join([b for b in SAVINA_ORDER if b in have] + sorted(have - set(SAVINA_ORDER))))


def cmd_plan(a):
    benches = [b for b in a.bench.split(",") if b]
    groups = {}  # (bench, sizes) -> kits
    defaults = defaults_of(read_listing(a.listing))
    bad = 0
    for path in a.files:
        kit = kit_of(path)
        for rec in load(path):
            if rec["benchmark"] not in benches:
                continue
            try:
                sizes = sizes_of(kit, rec, defaults)
            except ValueError as e:
                print(f"compare.py: {e}; motet is not run at these parameters", file=sys.stderr)
                bad += 1
                continue
            kits = groups.setdefault((rec["benchmark"], sizes), [])
            if kit not in kits:
                kits.append(kit)
    for b in benches:
        for (bench, sizes), kits in groups.items():
            if bench == b:
                print(f"{bench}\t{'+'.join(kits)}\t{' '.join(f'{k}={fmt_value(v)}' for k, v in sizes)}")


def cmd_models(a):
    listing = read_listing(a.listing)
    have = listing.get(a.bench, ([], {}))[0]
    print(",".join(m for m in a.models.split(",") if m and m in have))


def read_listing(path):
    """`motet-savina list`, saved to `path`: {benchmark: (models it has, {parameter: default})}."""
    if not path:
        return {}
    with open(path) as f:
        text = f.read()
    lines = [l for l in text.splitlines() if l.strip()]
    header = next((l for l in lines if re.search(r"\bactor\b", l) and re.search(r"\bfloor\b", l)), "")
    # the header's model columns: "id", "benchmark", then one per model, then "parameters (default)"
    cols = [(m.group(0), m.start(), m.end()) for m in re.finditer(r"\S+", header)][2:]
    out = {}
    for l in lines:
        toks = l.split()
        if l is header or len(toks) < 2 or not (toks[0].isdigit() or toks[0] == "-"):
            continue
        models = [name for name, a, b in cols if l[a:b].strip() == "●"]  # the mark of "implemented"
        params = {}
        for t in toks[2:]:
            if "=" in t:
                k, v = t.split("=", 1)
                try:
                    params[k] = float(v)
                except ValueError:
                    pass
        out[toks[1]] = (models, params)
    return out


def defaults_of(listing):
    return {b: p for b, (_m, p) in listing.items()}


def median(rec):
    v = rec.get("median_ms")
    return float(v) if v is not None else None


def median_ci_rank(n):
    """The rank j of the distribution-free 95% interval of a median over n samples: the largest j with
    P(Binomial(n, 1/2) < j) <= 2.5% (motet-savina's `Stats::of` uses the same rule); 0 when n < 6."""
    j, below = 0, 0.0
    for k in range(n + 1):
        below += math.comb(n, k) / 2 ** n  # P(X <= k)
        if below > 0.025:
            break
        j = k + 1
    return j if n >= 6 else 0


def interval(rec):
    """The median's 95% confidence interval of a record: its own `ci95_*` fields (motet-savina's), else
    one from its `samples_ms` by order statistics, else (too few samples for 95%) its min to max."""
    if rec.get("ci95_low_ms") is not None and rec.get("ci95_high_ms") is not None:
        return float(rec["ci95_low_ms"]), float(rec["ci95_high_ms"])
    xs = sorted(float(x) for x in rec.get("samples_ms") or [])
    j = median_ci_rank(len(xs))
    if j:
        return xs[j - 1], xs[len(xs) - j]
    if rec.get("min_ms") is not None and rec.get("max_ms") is not None:
        return float(rec["min_ms"]), float(rec["max_ms"])
    return None

ROUNDS_RULE = ("a cell run in several rounds gets the median of its rounds' medians; its 95% interval is "
               "the order-statistic interval of those medians from 6 rounds up, else the span from the "
               "lowest to the highest of the rounds' own intervals")


def combine_rounds(recs):
    """One record per cell (kit, model, benchmark, threads, parameters): a cell that ran in several
    rounds (compare.sh --rounds) becomes one record by ROUNDS_RULE, with `rounds` and
    `round_medians_ms`; min, max and peak RSS over the rounds, iterations and samples pooled, validated
    only if every round was. Cells that ran once are returned unchanged; order is first appearance."""
    groups, order = {}, []
    for rec in recs:
        key = (rec.get("peer_kit", ""), rec["model"], rec["benchmark"], int(rec["threads"]),
               json.dumps(rec.get("params") or {}, sort_keys=True))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(rec)
    out = []
    for key in order:
        rs = groups[key]
        if len(rs) == 1:
            out.append(rs[0])
            continue
        meds = [median(r) for r in rs]
        c = dict(rs[0])
        c["rounds"] = len(rs)
        c["round_medians_ms"] = meds
        c["validated"] = all(r.get("validated") for r in rs)
        known = sorted(m for m in meds if m is not None)
        c["median_ms"] = statistics.median(known) if len(known) == len(meds) else None
        c["min_ms"] = min((float(r["min_ms"]) for r in rs if r.get("min_ms") is not None), default=None)
        c["max_ms"] = max((float(r["max_ms"]) for r in rs if r.get("max_ms") is not None), default=None)
        if all(isinstance(r.get("iterations"), int) for r in rs):
            c["iterations"] = sum(r["iterations"] for r in rs)
        if all(r.get("samples_ms") is not None for r in rs):
            c["samples_ms"] = [x for r in rs for x in r["samples_ms"]]
        rss = [r["peak_rss_kib"] for r in rs if r.get("peak_rss_kib") is not None]
        c["peak_rss_kib"] = max(rss) if rss else None
        if any(r.get("result") != rs[0].get("result") for r in rs):
            c["result"] = [r.get("result") for r in rs]
        low = high = None
        j = median_ci_rank(len(known))
        if c["median_ms"] is not None and j:
            low, high = known[j - 1], known[len(known) - j]
        else:
            ivs = [interval(r) for r in rs]
            if all(iv is not None for iv in ivs):
                low, high = min(iv[0] for iv in ivs), max(iv[1] for iv in ivs)
        if low is not None:
            c["ci95_low_ms"], c["ci95_high_ms"] = low, high
        else:  # no interval for some round: the span of the rounds' samples (interval()'s last resort)
            for k in ("ci95_low_ms", "ci95_high_ms", "samples_ms"):
                c.pop(k, None)
        out.append(c)
    return out


def is_tie(a, b):
    """Whether two records' median intervals overlap: the comparison does not count as a win either way."""
    ia, ib = interval(a), interval(b)
    return ia is not None and ib is not None and ia[0] <= ib[1] and ib[0] <= ia[1]


def fmt_ms(v):
    if v is None:
        return "—"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_ratio(p, m):
    if p is None or m is None or m == 0:
        return "—"
    return f"{p / m:.2f}"


def sh(*cmd, cwd=None):
    try:
        return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kib = int(next(l for l in f if l.startswith("MemTotal")).split()[1])
            mem = f"{kib / 1048576:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return f"{cpu or platform.processor() or platform.machine()}, {os.cpu_count()} cores, {mem}, " \
           f"{platform.system()} {platform.release()}"


def read_port_notes(path):
    """(peer model, benchmark) -> how that peer's port differs from SPEC.md (port-notes.tsv)."""
    notes = {}
    if not path or not os.path.exists(path):
        return notes
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or not all(parts):
                sys.exit(f"compare.py: {path}:{n}: want 'model<TAB>benchmark<TAB>note'")
            notes[(parts[0], parts[1])] = parts[2]
    return notes


def cmd_report(a):
    port_notes = read_port_notes(a.port_notes)
    kit_recs, motet_recs = [], []
    for path in a.files:
        kit = kit_of(path)
        for rec in load(path):
            if kit:
                rec = dict(rec)
                rec["peer_kit"] = kit
                note = port_notes.get((rec["model"], rec["benchmark"]))
                if note:
                    rec["port_differs"] = note
                kit_recs.append(rec)
            else:
                motet_recs.append(rec)
    motet_recs, kit_recs = combine_rounds(motet_recs), combine_rounds(kit_recs)
    merged = motet_recs + kit_recs

    # rows: (benchmark, sizes, threads) -> {column: record}
    order = []
    rows = {}
    peer_cols = []
    unmapped = []
    defaults = defaults_of(read_listing(a.listing))
    for rec in kit_recs:
        kit = rec["peer_kit"]
        try:
            sizes = sizes_of(kit, rec, defaults)
        except ValueError as e:
            unmapped.append(str(e))
            continue
        key = (rec["benchmark"], sizes, int(rec["threads"]))
        if key not in rows:
            rows[key] = {}
            order.append(key)
        rows[key][rec["model"]] = rec
        if rec["model"] not in peer_cols:
            peer_cols.append(rec["model"])
    peer_cols.sort(key=lambda m: list(PEER_MODELS).index(m) if m in PEER_MODELS else 99)
    motet_models = []
    for rec in motet_recs:
        if rec["model"] not in motet_models:
            motet_models.append(rec["model"])
    base_order = ["actor", "boc", "floor"]
    motet_models.sort(key=lambda m: base_order.index(m) if m in base_order else 99)

    def motet_cell(bench, sizes, threads, model):
        # the record at exactly these parameters: the overrides, and motet-savina's defaults for the rest
        want = dict(defaults.get(bench, {}))
        want.update(sizes)
        found = None
        for rec in motet_recs:
            if rec["benchmark"] != bench or rec["model"] != model:
                continue
            # the floor is sequential: one record, at threads 1, shown on every row
            if model != "floor" and int(rec["threads"]) != threads:
                continue
            p = rec.get("params") or {}
            if all(k in p and float(p[k]) == float(v) for k, v in want.items()):
                found = rec
        return found

    bench_rank = {b: i for i, b in enumerate(a.bench_order or [])}
    first_seen = {}  # (benchmark, sizes) -> the position its first row came in (kits in run order)
    for i, (b, s, _t) in enumerate(order):
        first_seen.setdefault((b, s), i)
    order.sort(key=lambda k: (bench_rank.get(k[0], len(bench_rank)), k[0], first_seen[(k[0], k[1])], k[2]))

    # ratio columns: each peer over its motet-savina model (when motet ran), then over a kit model
    ratio_cols = []
    for p in peer_cols:
        base = PEER_MODELS.get(p, ("", "actor"))[1]
        if base is not None and base in motet_models:
            ratio_cols.append((p, base))
    for p in peer_cols:
        if KIT_BASES.get(p) in peer_cols:
            ratio_cols.append((p, KIT_BASES[p]))

    lines = []
    lines.append("| benchmark | parameters | threads | "
                 + "".join((f"motet {m}" if m != "floor" else "floor") + " | " for m in motet_models)
                 + "".join(f"{p} | " for p in peer_cols)
                 + "".join(f"{p}/{b} | " for p, b in ratio_cols).rstrip())
    lines.append("|" + " --- |" * (3 + len(motet_models) + len(peer_cols) + len(ratio_cols)))
    ratios = {}  # (peer, base, threads) -> [(ratio, the port runs SPEC.md's workload)]
    outcomes = {}  # (peer, base, threads) -> [("win" | "tie" | "loss", same workload)], motet's side
    marked = []  # (peer, benchmark) rows marked "≠", in table order
    for key in order:
        bench, sizes, threads = key
        cells = rows[key]
        mcells = {m: motet_cell(bench, sizes, threads, m) for m in motet_models}
        row = [bench, label(sizes), str(threads)]
        for m in motet_models:
            r = mcells[m]
            row.append(cell(r))
        for p in peer_cols:
            row.append(cell(cells.get(p)))
        for p, base in ratio_cols:
            pr, mr = cells.get(p), (cells.get(base) if base in peer_cols else mcells.get(base))
            ok = pr is not None and mr is not None and pr.get("validated") and mr.get("validated")
            pv, mv = (median(pr) if pr else None), (median(mr) if mr else None)
            tie = ok and is_tie(pr, mr)
            differs = (p, bench) in port_notes
            if differs and pr is not None and (p, bench) not in marked:
                marked.append((p, bench))
            row.append((fmt_ratio(pv, mv) + (" tie" if tie else "") + (" ≠" if differs else "")) if ok else "—")
            if ok and pv and mv:
                ratios.setdefault((p, base, threads), []).append((pv / mv, not differs))
                outcome = "tie" if tie else ("win" if pv > mv else "loss")
                outcomes.setdefault((p, base, threads), []).append((outcome, not differs))
        lines.append("| " + " | ".join(row) + " |")

    threads_seen = sorted({k[2] for k in order})
    def summary_table(same_only):
        table = ["| peer / motet | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads_seen)
                 + " |", "|" + " --- |" * (1 + len(threads_seen))]
        for p, base in ratio_cols:
            cells = []
            for t in threads_seen:
                rs = [r for r, same in ratios.get((p, base, t), []) if same or not same_only]
                os_ = [o for o, same in outcomes.get((p, base, t), []) if same or not same_only]
                wtl = f"{os_.count('win')}/{os_.count('tie')}/{os_.count('loss')}"
                cells.append(f"{math.exp(sum(map(math.log, rs)) / len(rs)):.2f} ({len(rs)}; {wtl})" if rs else "—")
            table.append(f"| {p}/{base} | " + " | ".join(cells) + " |")
        return table

    summary = summary_table(False)

    commit = sh("git", "rev-parse", "HEAD", cwd=a.root) if a.root else ""
    dirty = sh("git", "status", "--porcelain", "--untracked-files=no", cwd=a.root) if a.root else ""
    rustc = sh("rustc", "--version")
    sources = []
    if a.sources:
        with open(a.sources) as f:
            for l in f:
                if l.strip() and not l.startswith("#"):
                    kit, _var, repo, c, _cv = l.split()
                    sources.append((kit, repo, c))
    kits_ran = []
    for r in kit_recs:
        if r["peer_kit"] not in kits_ran:
            kits_ran.append(r["peer_kit"])
    notval = [f"{r['model']} {r['benchmark']} T={r['threads']}" for r in merged if not r.get("validated")]

    asked = a.kits.split()
    rounds_note = (f"{a.rounds}, the order alternating (odd rounds: the kits, then motet; even rounds: motet, "
                   f"then the kits); {ROUNDS_RULE}") if a.rounds > 1 else "1 (each benchmark: the kits, then motet)"
    header = {
        "date": time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
        "machine": machine(),
        "motet_commit": commit or None,
        "motet_uncommitted_changes": bool(dirty),
        "rustc": rustc or None,
        "command": a.command or None,
        "kits_built": asked,
        "kits_with_records": kits_ran,
        "sources": {kit: [f"{repo}@{c}" for k, repo, c in sources if k == kit] for kit in kits_ran},
        "order": "per benchmark: each kit's cells and motet's cells at those kits' parameters back to back",
        "rounds": a.rounds,
        "rounds_rule": ROUNDS_RULE if a.rounds > 1 else None,
        "realtime": a.rt or "not asked: normal priority",
    }
    tmp = a.json + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"header": header, "records": merged}, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.json)

    md = []
    md.append("# motet and its peers, each at the peer's parameters")
    md.append("")
    md.append(f"- date: {header['date']}")
    md.append(f"- machine: {header['machine']}")
    md.append(f"- motet: commit {commit or '?'}{' (with uncommitted changes)' if dirty else ''}; {rustc}")
    if a.command:
        md.append(f"- command: `{a.command}`")
    md.append(f"- rounds: {rounds_note}")
    md.append(f"- real-time priority: {header['realtime']}")
    md.append(f"- kits with records: {', '.join(kits_ran) or 'none'}"
              + (f" (built: {', '.join(asked)})" if asked and asked != kits_ran else ""))
    for kit in kits_ran:
        srcs = ", ".join(f"{repo}@{c[:12]}" for k, repo, c in sources if k == kit)
        md.append(f"  - {kit}: {srcs}")
    md.append("")
    md.append("Median ms of each cell. Every row is at one peer kit's own parameters; the parameters column "
              "names those that differ from SPEC.md's defaults (Savina's), in motet-savina's names. motet ran "
              "at each kit's parameters in the same invocation, right after (or before) that benchmark's kit "
              "cells, and each ratio is taken over the motet cell at exactly the row's parameters. Ratios are the peer's "
              "median over motet's (above 1: motet is faster); verona-full (BoC Full) is taken over motet's "
              "boc, lf-rs (reactor-rs) also over reactor-lf (motet-lf's build of the same LF programs, on motet's "
              "reactors), every other peer over motet's actors. The floor is sequential and runs once (threads 1). "
              "✗: not validated (no ratio is taken). \"tie\": the two medians' 95% confidence intervals overlap. What each kit validates, times and counts as an "
              "iteration differs: see peers/README.md.")
    md.append("")
    md.extend(lines)
    md.append("")
    md.append("Geometric mean of the ratios (number of rows; motet's wins/ties/losses, a tie being a row whose "
              "two medians' 95% confidence intervals overlap: motet-savina's own, else the order-statistic "
              "interval of the kit's samples, else their whole range where a kit gave fewer than 6):")
    md.append("")
    md.extend(summary)
    if marked:
        md.append("")
        md.append("The same over the rows whose peer port runs SPEC.md's workload (the rows marked ≠ left out):")
        md.append("")
        md.extend(summary_table(True))
        md.append("")
        md.append("≠: the peer's port does other work than SPEC.md's (Savina's) program, which motet's default "
                  "programs follow; from peers/port-notes.tsv:")
        md.append("")
        for p, bench in marked:
            md.append(f"- {p} {bench}: {port_notes[(p, bench)]}")
    devs = {}
    for r in motet_recs:
        d = list(r.get("deviations") or [])
        if r.get("own_protocol"):
            d.append("own protocol")
        if d:
            devs.setdefault((r["benchmark"], ", ".join(d)), []).append(r["model"])
    if devs:
        md.append("")
        md.append("motet's programs that differ from SPEC.md (their records' `deviations`; see motet-savina's "
                  "README): " + "; ".join(f"{b} {'/'.join(dict.fromkeys(ms))}: {d}"
                                          for (b, d), ms in devs.items()) + ".")
    if notval or unmapped:
        md.append("")
    if notval:
        md.append("Not validated: " + "; ".join(notval) + ".")
    if unmapped:
        md.append("Left out (parameters not mapped): " + "; ".join(sorted(set(unmapped))) + ".")
    tmp = a.markdown + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(md) + "\n")
    os.replace(tmp, a.markdown)
    print(f"compare.py: {len(motet_recs)} motet and {len(kit_recs)} peer records -> {a.json}, {a.markdown}",
          file=sys.stderr)


def cell(rec):
    if rec is None:
        return ""
    s = fmt_ms(median(rec))
    return s if rec.get("validated") else s + " ✗"


def main():
    ap = argparse.ArgumentParser(prog="compare.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("has")
    p.add_argument("kit", choices=sorted(HAS))
    p.add_argument("bench")
    p.set_defaults(f=cmd_has)
    p = sub.add_parser("all")
    p.add_argument("kits")
    p.set_defaults(f=cmd_all)
    p = sub.add_parser("plan")
    p.add_argument("--bench", default=",".join(MICRO))
    p.add_argument("--listing", default="", help="`motet-savina list`, saved to a file")
    p.add_argument("files", nargs="*")
    p.set_defaults(f=cmd_plan)
    p = sub.add_parser("models")
    p.add_argument("--listing", required=True, help="`motet-savina list`, saved to a file")
    p.add_argument("bench")
    p.add_argument("models")
    p.set_defaults(f=cmd_models)
    p = sub.add_parser("report")
    p.add_argument("--json", required=True)
    p.add_argument("--markdown", required=True)
    p.add_argument("--command", default="")
    p.add_argument("--root", default="")
    p.add_argument("--sources", default="")
    p.add_argument("--kits", default="")
    p.add_argument("--listing", required=True,
                   help="`motet-savina list`, saved to a file: its defaults complete each row's parameters")
    p.add_argument("--rounds", type=int, default=1, help="how many rounds compare.sh ran (for the header)")
    p.add_argument("--rt", default="", help="the real-time policy the timed processes ran under, or why none")
    p.add_argument("--bench", dest="bench_order", type=lambda s: [b for b in s.split(",") if b], default=None)
    p.add_argument("--port-notes", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "port-notes.tsv"),
                   help="peer ports that differ from SPEC.md (default: port-notes.tsv beside this script)")
    p.add_argument("files", nargs="*")
    p.set_defaults(f=cmd_report)
    a = ap.parse_args()
    a.f(a)


if __name__ == "__main__":
    main()
