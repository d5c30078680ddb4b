#!/usr/bin/env python3
"""An edge list with its vertices renamed at random and its lines shuffled, for a second,
differently ordered count of the same graph (docs/benchmarks.md, "A028420 beyond its b-file"):
    python3 scripts/shuffle_edges.py gN.edges SEED > sN.edges
"""
import random
import sys

lines = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith(("#", "%"))]
names = sorted({v for l in lines for v in l[:2]})
random.seed(int(sys.argv[2]))
perm = names[:]
random.shuffle(perm)
rename = dict(zip(names, ("v" + p for p in perm)))
random.shuffle(lines)
for l in lines:
    print(rename[l[0]], rename[l[1]], *l[2:])
