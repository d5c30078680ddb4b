"""The same values, records and error messages as the matchcount command (build/bin)."""
import json
import subprocess

import numpy as np
import pytest

import matchcount
from conftest import DATASETS

nx = pytest.importorskip("networkx")


def run_cli(cli, *args):
    p = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def cli_record(cli, *args):
    code, out, err = run_cli(cli, "--json", *args)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("name", ["band12.mtx", "random_int10.mtx"])
def test_matrix_market_datasets(cli, name):
    sio = pytest.importorskip("scipy.io")
    path = DATASETS / name
    want = cli_record(cli, path)
    a = sio.mmread(str(path))
    assert str(matchcount.permanent(a)) == want["value"]
    got = matchcount.count(a, details=True)
    assert got["value"] == want["value"] and got["exact"] == want["exact"]
    assert set(got) == set(want)  # the same record, field for field
    assert got["engine_runs"] == [] or set(got["engine_runs"][0]) == set(want["engine_runs"][0])


@pytest.mark.parametrize("name", ["aztec4.edges", "c60.edges", "grid8x8.edges", "hypercube4.edges",
                                  "petersen.edges"])
def test_graph_datasets(cli, name):
    path = DATASETS / name
    want = cli_record(cli, "--as", "graph", path)
    g = nx.read_edgelist(str(path), nodetype=str)
    assert str(matchcount.perfect_matchings(g)) == want["value"]
    assert matchcount.count(g, details=True)["counts"] == want["counts"]


def test_digraph_dataset(cli):
    path = DATASETS / "derangements8.arcs"
    want = cli_record(cli, "--as", "digraph", path)
    d = nx.read_edgelist(str(path), nodetype=str, create_using=nx.DiGraph)
    assert str(matchcount.cycle_covers(d)) == want["value"] == "14833"


def test_floats_match_cli(cli, tmp_path, rng):
    for k in range(5):
        a = rng.random((7, 7))
        if k % 2:
            a = a + 1j * rng.random((7, 7))
        np.save(tmp_path / "a.npy", a)
        code, out, _ = run_cli(cli, tmp_path / "a.npy")
        want = complex(out.replace("i", "j"))  # "re+imi" for complex values
        assert abs(matchcount.permanent(a) - want) <= 1e-12 * abs(want)
        code, out, _ = run_cli(cli, "--exact", tmp_path / "a.npy")
        if k % 2 == 0:
            assert str(matchcount.permanent(a, exact=True)) == out


def test_multiplicities_match_cli(cli):
    path = DATASETS / "random_int10.mtx"
    sio = pytest.importorskip("scipy.io")
    mult = [2, 0, 1, 1, 1, 1, 1, 1, 1, 1]
    _, out, _ = run_cli(cli, "--row-mult", ",".join(map(str, mult)), path)
    assert str(matchcount.permanent(sio.mmread(str(path)), row_mult=mult)) == out


@pytest.mark.parametrize("array, hafnian", [
    (np.array([[0, np.nan], [1, 0]]), False),
    (np.array([[0, 1], [np.inf, 0]]), False),
    (np.array([[0, 1 + 1j], [complex(0, np.nan), 0]]), False),
    (np.ones((2, 2), dtype=np.float16), False),
    (np.array([[0, 1.0], [2, 0]]), True),
    (np.ones((2, 3)), True),
])
def test_bad_input_messages_match_cli(cli, tmp_path, array, hafnian):
    np.save(tmp_path / "bad.npy", array)
    code, _, err = run_cli(cli, *(["--hafnian"] if hafnian else []), tmp_path / "bad.npy")
    assert code == 2
    with pytest.raises((ValueError, TypeError)) as e:
        (matchcount.hafnian if hafnian else matchcount.permanent)(array)
    assert str(e.value) in err, (str(e.value), err)
    assert "\n" not in str(e.value)
