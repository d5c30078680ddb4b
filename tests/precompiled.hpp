// The headers most test files include, compiled once per build (target_precompile_headers in
// tests/CMakeLists.txt) rather than parsed again in each of the ninety-odd test files
// (docs/benchmarks.md, "The test command's time"). Each test file still includes what it uses.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"
