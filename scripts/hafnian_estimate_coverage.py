#!/usr/bin/env python3
"""Coverage of the hafnian estimates' 95% interval over seeds (docs/benchmarks.md, "Hafnian
estimates"): for each graph and method, how many of the runs' intervals hold the exact count,
how many runs raised the heavy-tail flag, and the misses without a flag.

    python3 scripts/hafnian_estimate_coverage.py [BUILD_DIR]
"""
import json
import os
import subprocess
import sys
import tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build"
matchcount = os.path.join(build, "bin", "matchcount")
generate = os.path.join(build, "bin", "matchcount-generate")
work = tempfile.mkdtemp()


def made(name, *args):
    path = os.path.join(work, name)
    with open(path, "w") as out:
        subprocess.run([generate, *args], stdout=out, check=True)
    return path


cases = [
    ("triangular 8x8", ["--as", "graph", made("t8.edges", "triangular", "8", "8")], 100, 1000),
    ("3-regular n=60", ["--as", "graph", made("r60.edges", "random-regular", "60", "3", "--seed", "1")], 100, 1000),
    ("G(32, 0.5)", ["--hafnian", made("g32.mtx", "symmetric-01", "32", "0.5", "--seed", "1")], 100, 1000),
    ("triangular 16x16", ["--as", "graph", made("t16.edges", "triangular", "16", "16")], 40, 2000),
]
print("| graph | method | seeds | samples | covered | flagged | unflagged misses |")
print("|---|---|---|---|---|---|---|")
for name, args, seeds, samples in cases:
    exact = int(subprocess.run([matchcount, *args], capture_output=True, text=True, check=True).stdout)
    for method in ["rasmussen+", "scaling+"]:
        covered = flagged = unflagged_misses = 0
        for seed in range(1, seeds + 1):
            run = subprocess.run([matchcount, "--estimate", "--method", method, "--samples", str(samples), "--seed",
                                  str(seed), "--exact-up-to", "0", "--threads", "2", "--json", *args],
                                 capture_output=True, text=True, check=True)
            j = json.loads(run.stdout)
            low, high = (float(x) for x in j["ci95"])
            hit = low <= exact <= high
            covered += hit
            flagged += j["heavy_tail"]
            unflagged_misses += not hit and not j["heavy_tail"]
        print(f"| {name} | {method} | {seeds} | {samples} | {covered} | {flagged} | {unflagged_misses} |", flush=True)
