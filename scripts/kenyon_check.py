#!/usr/bin/env python3
"""Checks `matchcount --marginals --log` on the M x N grid against Kenyon's closed form for the
inverse Kasteleyn matrix (docs/benchmarks.md, "Edge probabilities of large lattices").

The grid's Kasteleyn matrix with weight 1 on the edges along a row and i on the edges along a
column is K = A_M (x) I + i I (x) A_N (A_k: the path's adjacency matrix), diagonalised by the sine
vectors s_j(x) = sqrt(2/(M+1)) sin(pi j x/(M+1)) with eigenvalues 2 cos(pi j/(M+1)), so
    K^-1 = sum_j s_j s_j^T (x) (2 cos(pi j/(M+1)) I + i A_N)^-1
and P(edge bw) = |K^-1(w, b)| (Kenyon, "Local statistics of lattice dimers", 1997). Each term
needs only the diagonal and the first off-diagonal of an N x N inverse.

Usage: python3 scripts/kenyon_check.py M N MARGINALS.txt
  where MARGINALS.txt is the output of
  matchcount-generate grid M N > g.edges; matchcount --marginals --log --as graph g.edges
(vertex (r, c) is named r*N + c). Prints the largest deviation and exits 1 above 1e-10.
"""
import sys

import numpy as np


def closed_form(m, n):
    """P of the edge (r, c)-(r, c+1) as h[r, c] and of (r, c)-(r+1, c) as v[r, c]."""
    # Rows r = 0..m-1 are the sine direction (x = r + 1), columns the tridiagonal one.
    x = np.arange(1, m + 1)
    j = np.arange(1, m + 1)
    s = np.sqrt(2.0 / (m + 1)) * np.sin(np.pi * np.outer(j, x) / (m + 1))  # s[j, x]
    lam = 2 * np.cos(np.pi * j / (m + 1))
    path = np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)
    diag = np.empty((m, n), complex)  # G_j(y, y)
    off = np.empty((m, n - 1), complex)  # G_j(y + 1, y)
    for k in range(m):
        g = np.linalg.inv(lam[k] * np.eye(n) + 1j * path)
        diag[k] = np.diag(g)
        off[k] = np.diag(g, -1)
    # Along a column (c, c+1) inside row r: weight i, K^-1 between (r, c+1) and (r, c).
    h = np.abs(np.einsum("jr,jr,jc->rc", s, s, off))
    # Along a row direction (r, r+1) in column c: weight 1.
    v = np.abs(np.einsum("jr,jr,jc->rc", s[:, 1:], s[:, :-1], diag))
    return h, v


def main():
    m, n, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    h, v = closed_form(m, n)
    worst, count = 0.0, 0
    with open(path) as f:
        for line in f:
            a, b, p = line.split()
            a, b = sorted((int(a), int(b)))
            r, c = divmod(a, n)
            want = h[r, c] if b == a + 1 else v[r, c]
            worst = max(worst, abs(float(p) - want))
            count += 1
    print(f"{count} edges of the {m} x {n} grid: largest |p - closed form| = {worst:.3g}")
    sys.exit(0 if worst <= 1e-10 and count == m * (n - 1) + n * (m - 1) else 1)


if __name__ == "__main__":
    main()
