#!/usr/bin/env python3
"""All matchings beside Sage, in one run (docs/benchmarks.md, "All matchings"): the matching
polynomial of C60 and of n x n grids by Sage's matching_polynomial (passagemath-graphs +
passagemath-flint from PyPI, run in this Python with a timeout per case) and by matchcount's CLI
(`--matchings --polynomial`), the coefficients compared where both finish:
    python3 -m venv /tmp/sagevenv && /tmp/sagevenv/bin/pip install passagemath-graphs passagemath-flint
    /tmp/sagevenv/bin/python scripts/matchings_peers.py build/bin/matchcount [--timeout 60]
Never a test dependency.
"""
import argparse
import multiprocessing as mp
import os
import subprocess
import tempfile
import time


def sage_coefficients(case, out):
    """m_0 .. m_(n/2) from Sage's matching polynomial sum_k (-1)^k m_k x^(n-2k)."""
    from sage.all__sagemath_graphs import graphs
    g = graphs.BuckyBall() if case == "c60" else graphs.Grid2dGraph(case, case)
    t = time.perf_counter()
    p = g.matching_polynomial()
    s = time.perf_counter() - t
    n = g.order()
    out.put((s, [abs(int(p[n - 2 * k])) for k in range(n // 2 + 1)]))


def sage(case, timeout):
    q = mp.Queue()
    proc = mp.Process(target=sage_coefficients, args=(case, q))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        return None, None
    return q.get() if not q.empty() else (None, None)


def matchcount(binary, case, tmp):
    gen = os.path.join(os.path.dirname(binary), "matchcount-generate")
    path = os.path.join(tmp, f"{case}.edges")
    with open(path, "w") as f:
        subprocess.run([gen, "c60"] if case == "c60" else [gen, "grid", str(case), str(case)], stdout=f, check=True)
    t = time.perf_counter()
    r = subprocess.run([binary, "--matchings", "--polynomial", "--as", "graph", path], capture_output=True, text=True,
                       check=True)
    s = time.perf_counter() - t
    return s, [int(line.split()[1]) for line in r.stdout.splitlines()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("--timeout", type=float, default=60)
    a = p.parse_args()
    print(f"Sage's timeout {a.timeout:g} s a case")
    print("| graph | Sage s | matchcount s | ratio | Hosoya index | coefficients agree |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for case in ["c60", 4, 5, 6, 7, 8]:
            mc_s, mc_c = matchcount(a.binary, case, tmp)
            sg_s, sg_c = sage(case, a.timeout)
            name = "C60" if case == "c60" else f"{case} x {case} grid"
            sage_text = f"{sg_s:.3g}" if sg_s is not None else f"> {a.timeout:g} (stopped)"
            ratio = f"{sg_s / mc_s:.3g}x" if sg_s is not None else f"> {a.timeout / mc_s:.3g}x"
            agree = "-" if sg_c is None else ("yes" if sg_c == mc_c else "NO")
            print(f"| {name} | {sage_text} | {mc_s:.3g} | {ratio} | {sum(mc_c)} | {agree} |", flush=True)


if __name__ == "__main__":
    main()
