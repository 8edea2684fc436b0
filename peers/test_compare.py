#!/usr/bin/env python3
"""Tests of compare.py's pairing and merging, on synthetic records (no kit, no motet-savina run).

Run from the repository root: python3 -m unittest discover -s peers -p 'test_*.py'
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402

# `motet-savina list`'s layout: the header's model columns, a ● under each model a benchmark has
LISTING = """\
id  benchmark          actor  boc  floor  parameters (default)
 1  pingpong             ●     ●     ●    n=40000 p=1
 2  count                ●     ●     ●    n=1000000
"""


def motet_rec(bench, model, threads, params, median, low=None, high=None):
    return {"benchmark": bench, "model": model, "threads": threads, "params": params, "deviations": [],
            "own_protocol": False, "iterations": 10, "median_ms": median,
            "ci95_low_ms": median * 0.99 if low is None else low,
            "ci95_high_ms": median * 1.01 if high is None else high,
            "min_ms": median * 0.98, "max_ms": median * 1.02, "result": 1, "validated": True}


def kit_rec(bench, model, threads, params, samples):
    s = sorted(samples)
    return {"benchmark": bench, "model": model, "threads": threads, "params": params,
            "iterations": len(s), "median_ms": s[len(s) // 2], "min_ms": s[0], "max_ms": s[-1],
            "samples_ms": samples, "validated": True}


class Report:
    """compare.py report over files written to a temporary folder; the table's rows as dicts."""

    def __init__(self, files, rounds=1):
        with tempfile.TemporaryDirectory() as d:
            listing = os.path.join(d, "list.txt")
            with open(listing, "w") as f:
                f.write(LISTING)
            paths = []
            for name, recs in files.items():
                paths.append(os.path.join(d, name))
                with open(paths[-1], "w") as f:
                    json.dump(recs, f)
            self.json = os.path.join(d, "peers.json")
            self.md = os.path.join(d, "peers.md")
            subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), "report", "--json", self.json,
                            "--markdown", self.md, "--listing", listing, "--rounds", str(rounds),
                            "--rt", "test", "--port-notes", "", *paths],
                           check=True, stderr=subprocess.DEVNULL)
            with open(self.md) as f:
                text = f.read()
            table = [l for l in text.splitlines() if l.startswith("| benchmark |")][0]
            cols = [c.strip() for c in table.strip("|").split("|")]
            lines = text.splitlines()
            start = lines.index(table) + 2
            self.rows = []
            for l in lines[start:]:
                if not l.startswith("|"):
                    break
                self.rows.append(dict(zip(cols, (c.strip() for c in l.strip("|").split("|")))))
            with open(self.json) as f:
                self.peers = json.load(f)
            self.text = text

    def row(self, bench, params, threads):
        found = [r for r in self.rows
                 if r["benchmark"] == bench and r["parameters"] == params and r["threads"] == str(threads)]
        if len(found) != 1:
            raise AssertionError(f"{len(found)} rows for {bench} {params} T={threads} in {self.rows}")
        return found[0]


class Pairing(unittest.TestCase):
    """Each kit's row is compared with the motet cell at that kit's parameters, not any cell of the
    benchmark."""

    def files(self):
        # Verona at Savina's size, LF at its small size: motet ran at both, with different medians
        return {
            "kit-verona-pingpong.json": [kit_rec("pingpong", "verona-actor", 1, {"pings": 40000},
                                                 [40.0] * 7)],
            "kit-lf-pingpong.json": [kit_rec("pingpong", "lf-cpp", 1, {"pings": 300000}, [90.0] * 7)],
            "motet-pingpong-verona.json": [motet_rec("pingpong", "actor", 1, {"n": 40000, "p": 1}, 20.0)],
            "motet-pingpong-lf.json": [motet_rec("pingpong", "actor", 1, {"n": 300000, "p": 1}, 150.0)],
        }

    def test_each_kit_against_motet_at_its_parameters(self):
        r = Report(self.files())
        verona = r.row("pingpong", "SPEC.md's", 1)
        lf = r.row("pingpong", "n=300000", 1)
        self.assertEqual(verona["motet actor"], "20.0")
        self.assertEqual(verona["verona-actor/actor"], "2.00")
        self.assertEqual(lf["motet actor"], "150")
        self.assertEqual(lf["lf-cpp/actor"], "0.60")
        # one row per kit: Verona's row has no LF cell and the other way round
        self.assertEqual(verona["lf-cpp"], "")
        self.assertEqual(lf["verona-actor"], "")

    def test_no_motet_cell_at_the_kit_parameters_gives_no_ratio(self):
        files = self.files()
        del files["motet-pingpong-lf.json"]
        r = Report(files)
        lf = r.row("pingpong", "n=300000", 1)
        self.assertEqual(lf["motet actor"], "")
        self.assertEqual(lf["lf-cpp/actor"], "—")
        self.assertEqual(r.row("pingpong", "SPEC.md's", 1)["verona-actor/actor"], "2.00")

    def test_threads_pair_with_threads(self):
        files = self.files()
        files["motet-pingpong-verona.json"].append(motet_rec("pingpong", "actor", 2, {"n": 40000, "p": 1}, 10.0))
        files["kit-verona-pingpong.json"].append(kit_rec("pingpong", "verona-actor", 2, {"pings": 40000},
                                                         [30.0] * 7))
        r = Report(files)
        self.assertEqual(r.row("pingpong", "SPEC.md's", 2)["verona-actor/actor"], "3.00")
        self.assertEqual(r.row("pingpong", "SPEC.md's", 1)["verona-actor/actor"], "2.00")

    def test_peers_json_has_a_header_and_every_record(self):
        r = Report(self.files())
        self.assertEqual(r.peers["header"]["realtime"], "test")
        self.assertEqual(r.peers["header"]["rounds"], 1)
        self.assertEqual(len(r.peers["records"]), 4)
        self.assertEqual(sorted(x.get("peer_kit", "") for x in r.peers["records"]), ["", "", "lf", "verona"])


class Plan(unittest.TestCase):
    def test_one_line_per_parameter_set(self):
        with tempfile.TemporaryDirectory() as d:
            listing = os.path.join(d, "list.txt")
            with open(listing, "w") as f:
                f.write(LISTING)
            paths = []
            for kit, model, pings in (("verona", "verona-actor", 40000), ("caf", "caf", 40000),
                                      ("lf", "lf-cpp", 300000)):
                name = "pings" if kit != "caf" else "n"
                paths.append(os.path.join(d, f"kit-{kit}-pingpong-r2.json"))
                with open(paths[-1], "w") as f:
                    json.dump([kit_rec("pingpong", model, 1, {name: pings}, [1.0])], f)
            out = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), "plan", "--bench",
                                  "pingpong", "--listing", listing, *paths],
                                 check=True, stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(out.splitlines(), ["pingpong\tverona+caf\t", "pingpong\tlf\tn=300000"])

    def test_all_is_the_kits_union_in_savina_order(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), "all", "verona,lf"],
                             check=True, stdout=subprocess.PIPE, text=True).stdout.strip().split(",")
        self.assertEqual(out[:4], ["pingpong", "count", "fjthrput", "fjcreate"])  # fjcreate: Verona's
        self.assertIn("apsp", out)  # LF's, not Verona's
        self.assertNotIn("bitonicsort", out)  # CAF's only
        self.assertEqual(len(out), len(set(out)))
        self.assertEqual(out, sorted(out, key=compare.SAVINA_ORDER.index))

    def test_kit_of_file_names(self):
        self.assertEqual(compare.kit_of("/x/kit-verona.json"), "verona")
        self.assertEqual(compare.kit_of("/x/kit-lf-pingpong.json"), "lf")
        self.assertEqual(compare.kit_of("/x/kit-caf-big-r3.json"), "caf")
        self.assertIsNone(compare.kit_of("/x/motet-big-caf.json"))


class Rounds(unittest.TestCase):
    def test_median_of_the_rounds_medians(self):
        recs = [motet_rec("count", "actor", 1, {"n": 1000000}, m, low=m - 1, high=m + 1)
                for m in (10.0, 30.0, 12.0)]
        [c] = compare.combine_rounds(recs)
        self.assertEqual(c["median_ms"], 12.0)
        self.assertEqual(c["rounds"], 3)
        self.assertEqual(c["round_medians_ms"], [10.0, 30.0, 12.0])
        # fewer than 6 rounds: from the lowest to the highest of the rounds' intervals
        self.assertEqual((c["ci95_low_ms"], c["ci95_high_ms"]), (9.0, 31.0))
        self.assertEqual(c["iterations"], 30)

    def test_order_statistics_from_six_rounds(self):
        meds = [10.0, 11.0, 12.0, 13.0, 14.0, 100.0]
        [c] = compare.combine_rounds([motet_rec("count", "actor", 1, {}, m) for m in meds])
        self.assertEqual(c["median_ms"], 12.5)
        self.assertEqual((c["ci95_low_ms"], c["ci95_high_ms"]), (10.0, 100.0))

    def test_other_cells_stay_apart(self):
        recs = [motet_rec("count", "actor", 1, {"n": 1}, 1.0), motet_rec("count", "actor", 2, {"n": 1}, 2.0),
                motet_rec("count", "actor", 1, {"n": 2}, 3.0), motet_rec("count", "boc", 1, {"n": 1}, 4.0)]
        self.assertEqual(compare.combine_rounds(recs), recs)

    def test_one_invalid_round_invalidates(self):
        a, b = motet_rec("count", "actor", 1, {}, 1.0), motet_rec("count", "actor", 1, {}, 1.0)
        b["validated"] = False
        [c] = compare.combine_rounds([a, b])
        self.assertFalse(c["validated"])

    def test_kit_samples_pooled_and_rounds_in_the_table(self):
        files = {
            "kit-verona-count-r1.json": [kit_rec("count", "verona-actor", 1, {"messages": 1000000}, [40.0] * 7)],
            "kit-verona-count-r2.json": [kit_rec("count", "verona-actor", 1, {"messages": 1000000}, [60.0] * 7)],
            "motet-count-verona-r1.json": [motet_rec("count", "actor", 1, {"n": 1000000}, 20.0)],
            "motet-count-verona-r2.json": [motet_rec("count", "actor", 1, {"n": 1000000}, 30.0)],
        }
        r = Report(files, rounds=2)
        row = r.row("count", "SPEC.md's", 1)
        self.assertEqual(row["motet actor"], "25.0")
        self.assertEqual(row["verona-actor"], "50.0")
        self.assertEqual(row["verona-actor/actor"], "2.00")
        self.assertIn("median of its rounds' medians", r.text)
        [kit] = [x for x in r.peers["records"] if x.get("peer_kit")]
        self.assertEqual(len(kit["samples_ms"]), 14)


if __name__ == "__main__":
    unittest.main()
