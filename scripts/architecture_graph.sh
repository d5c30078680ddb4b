#!/usr/bin/env bash
# Regenerates docs/architecture.svg, the picture of the layers in docs/architecture.md, from the
# build itself: CMake's --graphviz output of a fresh configure (CUDA, MPI and tests off, so it
# needs no GPU), reduced to the layer targets mc_* and `matchcount` that links them all.
# An arrow A -> B is A's DEPS entry B in src/CMakeLists.txt (a link, hence an allowed include).
#
#   bash scripts/architecture_graph.sh [OUTPUT]   (default docs/architecture.svg; OUTPUT.png for a look)
#
# Needs cmake and Graphviz's `dot`; as root, a missing Graphviz is installed with apt-get.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$here/docs/architecture.svg}

if ! command -v dot >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "architecture_graph: installing Graphviz (apt-get install graphviz)" >&2
    apt-get update && apt-get install -y graphviz
  else
    echo "architecture_graph: Graphviz's dot is missing; install it first, e.g." >&2
    echo "  sudo apt-get install graphviz    (Debian/Ubuntu)" >&2
    echo "  sudo dnf install graphviz        (Fedora)" >&2
    echo "  brew install graphviz            (macOS)" >&2
    exit 1
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CMake reads CMakeGraphVizOptions.cmake from the build folder when it writes the graph.
# Kept: static libraries (the layers) and interface libraries (`matchcount`); dropped: the
# programs, imported and plain external libraries (GMP, Boost, OpenMP, CLI11, JSON), and the
# pieces that are no layer (the headers-only target, the programs' support library).
cat >"$tmp/CMakeGraphVizOptions.cmake" <<'EOF'
set(GRAPHVIZ_GRAPH_NAME "matchcount layers")
set(GRAPHVIZ_GRAPH_HEADER "rankdir = TB;\nranksep = 0.45;\nnodesep = 0.25;\nnode [ fontsize = \"12\", fontname = \"Helvetica\" ];\nedge [ color = \"#555555\", arrowsize = 0.7 ];")
set(GRAPHVIZ_EXECUTABLES FALSE)
set(GRAPHVIZ_EXTERNAL_LIBS FALSE)
set(GRAPHVIZ_UNKNOWN_LIBS FALSE)
set(GRAPHVIZ_CUSTOM_TARGETS FALSE)
set(GRAPHVIZ_OBJECT_LIBS FALSE)
set(GRAPHVIZ_SHARED_LIBS FALSE)
set(GRAPHVIZ_MODULE_LIBS FALSE)
set(GRAPHVIZ_STATIC_LIBS TRUE)
set(GRAPHVIZ_INTERFACE_LIBS TRUE)
set(GRAPHVIZ_IGNORE_TARGETS "^matchcount_headers$" "^matchcount_cli_support$" "^matchcount::")
set(GRAPHVIZ_GENERATE_PER_TARGET FALSE)
set(GRAPHVIZ_GENERATE_DEPENDERS FALSE)
EOF

cmake -S "$here" -B "$tmp" -DMATCHCOUNT_CUDA=OFF -DMATCHCOUNT_MPI=OFF -DMATCHCOUNT_TESTS=OFF \
  --graphviz="$tmp/deps.dot" >"$tmp/configure.log" 2>&1 || {
  cat "$tmp/configure.log" >&2
  echo "architecture_graph: cmake configure failed" >&2
  exit 1
}

# CMake also writes a legend of every target kind and link style; with two kinds left, a short
# note under the picture says the same, so the legend cluster is left out.
awk '
  /^subgraph clusterLegend/ { skip = 1 }
  skip && /^}/ { skip = 0; next }
  !skip
' "$tmp/deps.dot" >"$tmp/layers.dot"
grep -q 'mc_core' "$tmp/layers.dot" || { echo "architecture_graph: no mc_core in the graph" >&2; exit 1; }
# Each layer's folder(s) under its name, from the table the configure wrote ("name|folders|deps").
awk -F'|' '
  NR == FNR { if (NF >= 2) { gsub(";", ", src/", $2); folders["mc_" $1] = "src/" $2 }; next }
  match($0, /label = "mc_[a-z_]+"/) {
    name = substr($0, RSTART + 9, RLENGTH - 10)
    if (name in folders) sub(/label = "mc_[a-z_]+"/, "label = \"" name "\\n" folders[name] "\"")
  }
  { print }
' "$tmp/layers.txt" "$tmp/layers.dot" >"$tmp/labelled.dot"
mv "$tmp/labelled.dot" "$tmp/layers.dot"
sed -i '$ d' "$tmp/layers.dot"  # the closing brace, to append the note
cat >>"$tmp/layers.dot" <<'EOF'
labelloc = "b";
fontsize = 11;
fontname = "Helvetica";
label = "An arrow A -> B: layer A links layer B (DEPS in src/CMakeLists.txt) and may include its headers.\nmatchcount (interface library) is what the programs link.";
}
EOF

mkdir -p "$(dirname "$out")"
dot -T"${out##*.}" "$tmp/layers.dot" -o "$out"  # the format from the extension: svg, png, pdf
echo "architecture_graph: wrote $out ($(grep -c '^ *"node[0-9]*" -> ' "$tmp/layers.dot") links)"
