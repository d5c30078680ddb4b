// --json: every mode's output parses and matches docs/matchcount.schema.json, and the fields
// carry the values they document.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex.h>
#include <set>
#include <sstream>

#include "engines/planar/sparse_logdet.hpp"
#include "matchcount/report.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

/// POSIX extended regular expressions for the schema's "pattern" (std::regex draws GCC 12
/// -Wmaybe-uninitialized warnings from <regex> in the sanitizer build).
bool matches(const std::string& pattern, const std::string& text) {
  regex_t re;
  if (regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_NOSUB) != 0) throw std::runtime_error("bad pattern " + pattern);
  const bool found = regexec(&re, text.c_str(), 0, nullptr, 0) == 0;
  regfree(&re);
  return found;
}

using Json = nlohmann::json;

// A validator for the JSON Schema keywords docs/matchcount.schema.json uses. Any other
// keyword fails the check, so the schema cannot say more than the tests enforce.
class SchemaCheck {
 public:
  explicit SchemaCheck(Json root) : root_(std::move(root)) {}

  /// Empty when `v` matches the root schema, else where and why it does not.
  std::string errors(const Json& v) const {
    std::string why;
    check(root_, v, "$", why);
    return why;
  }

 private:
  static bool type_is(const std::string& t, const Json& v) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    if (t == "number") return v.is_number();
    if (t == "integer") return v.is_number_integer() || (v.is_number_float() && std::trunc(v.get<double>()) == v.get<double>());
    throw std::runtime_error("unknown type " + t);
  }

  bool fail(std::string& why, const std::string& path, const std::string& what) const {
    why = path + ": " + what;
    return false;
  }

  bool check(const Json& s, const Json& v, const std::string& path, std::string& why) const {
    static const std::set<std::string> annotations = {"$schema", "title", "description", "$defs"};
    for (const auto& [key, arg] : s.items()) {
      if (annotations.count(key)) continue;
      if (key == "$ref") {
        const std::string ref = arg.get<std::string>();
        if (ref.rfind("#/", 0) != 0) throw std::runtime_error("non-local $ref " + ref);
        if (!check(root_.at(Json::json_pointer(ref.substr(1))), v, path, why)) return false;
      } else if (key == "type") {
        bool any = false;
        for (const auto& t : arg.is_array() ? arg : Json::array({arg})) any = any || type_is(t.get<std::string>(), v);
        if (!any) return fail(why, path, "not of type " + arg.dump() + ": " + v.dump());
      } else if (key == "const") {
        if (v != arg) return fail(why, path, v.dump() + " is not " + arg.dump());
      } else if (key == "enum") {
        if (std::find(arg.begin(), arg.end(), v) == arg.end()) return fail(why, path, v.dump() + " not in " + arg.dump());
      } else if (key == "minimum") {
        if (v.is_number() && v.get<double>() < arg.get<double>()) return fail(why, path, v.dump() + " < " + arg.dump());
      } else if (key == "pattern") {
        if (v.is_string() && !matches(arg.get<std::string>(), v.get<std::string>()))
          return fail(why, path, v.dump() + " does not match " + arg.get<std::string>());
      } else if (key == "required") {
        for (const auto& name : arg)
          if (v.is_object() && !v.contains(name.get<std::string>())) return fail(why, path, "no field " + name.dump());
      } else if (key == "properties") {
        if (!v.is_object()) continue;
        for (const auto& [name, sub] : arg.items())
          if (v.contains(name) && !check(sub, v.at(name), path + "." + name, why)) return false;
      } else if (key == "additionalProperties") {
        if (!v.is_object()) continue;
        for (const auto& [name, field] : v.items()) {
          if (s.contains("properties") && s.at("properties").contains(name)) continue;
          if (arg.is_boolean() ? !arg.get<bool>() : !check(arg, field, path + "." + name, why))
            return fail(why, path, "field \"" + name + "\" is not in the schema" + (why.empty() ? "" : " (" + why + ")"));
        }
      } else if (key == "items") {
        if (!v.is_array()) continue;
        for (std::size_t i = 0; i < v.size(); ++i)
          if (!check(arg, v[i], path + "[" + std::to_string(i) + "]", why)) return false;
      } else if (key == "minItems" || key == "maxItems") {
        const std::size_t bound = arg.get<std::size_t>();
        if (v.is_array() && (key == "minItems" ? v.size() < bound : v.size() > bound))
          return fail(why, path, key + " " + arg.dump() + ": " + v.dump());
      } else if (key == "oneOf" || key == "anyOf") {
        int matched = 0;
        std::string reasons;
        for (const auto& sub : arg) {
          std::string sub_why;
          if (check(sub, v, path, sub_why)) ++matched;
          else reasons += " [" + sub_why + "]";
        }
        if (key == "oneOf" ? matched != 1 : matched == 0)
          return fail(why, path, key + " matched " + std::to_string(matched) + " alternatives:" + reasons);
      } else {
        throw std::runtime_error("the schema uses a keyword the test does not check: " + key);
      }
    }
    return true;
  }

  Json root_;
};

const SchemaCheck& schema() {
  static const SchemaCheck check = [] {
    std::ifstream in(std::string(MATCHCOUNT_SOURCE_DIR) + "/docs/matchcount.schema.json");
    return SchemaCheck(Json::parse(in));
  }();
  return check;
}

/// Runs matchcount with `args`, expects exit 0 and one line of JSON that matches the schema.
Json run_json(const std::string& args, const std::string& stdin_text = "") {
  const auto r = test::run_matchcount(args, stdin_text);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  Json j;
  try {
    j = Json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << args << ": not JSON (" << e.what() << "): " << r.out;
    return Json::object();
  }
  EXPECT_EQ(schema().errors(j), "") << args << "\n" << r.out;
  EXPECT_EQ(j.value("schema", 0), 1) << r.out;
  return j;
}

std::string grid8() {
  return " --as graph '" + (std::filesystem::path(MATCHCOUNT_SOURCE_DIR) / "datasets" / "grid8x8.edges").string() + "'";
}

const char* kRealMatrix = "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 0.5\n1 2 0.25\n2 1 1\n2 2 1\n";

TEST(JsonSchema, RejectsObjectsThatBreakIt) {
  Json ok = run_json("--json" + grid8());
  ASSERT_EQ(schema().errors(ok), "");
  Json bad = ok;
  bad["value"] = 12988816;  // an integer count is a string of digits
  EXPECT_NE(schema().errors(bad), "");
  bad = ok, bad.erase("value_kind");
  EXPECT_NE(schema().errors(bad), "");
  bad = ok, bad["undocumented"] = 1;
  EXPECT_NE(schema().errors(bad), "");
  bad = ok, bad["value_kind"] = "real";  // a real value is a number, with error fields
  EXPECT_NE(schema().errors(bad), "");
  bad = ok, bad["mode"] = "estimate";
  EXPECT_NE(schema().errors(bad), "");
  bad = ok, bad["engine_runs"][0]["predicted_seconds"] = "soon";
  EXPECT_NE(schema().errors(bad), "");
}

TEST(Json, IntegerCount) {
  const Json j = run_json("--json" + grid8());
  EXPECT_EQ(j["mode"], "count");
  EXPECT_EQ(j["value"], "12988816");
  EXPECT_EQ(j["value_kind"], "integer");
  EXPECT_EQ(j["exact"], true);
  EXPECT_FALSE(j.contains("abs_error"));
  EXPECT_EQ(j["matching_size"], 32);
  ASSERT_FALSE(j["engine_runs"].empty());
  EXPECT_FALSE(j["engine_runs"][0].contains("why"));
}

TEST(Json, HafnianCountsAndPlansCarryTheGraphPath) {
  const std::string petersen = std::string(" --as graph '") + MATCHCOUNT_SOURCE_DIR + "/datasets/petersen.edges'";
  Json j = run_json("--json" + petersen);
  EXPECT_EQ(j["value"], "6");
  EXPECT_EQ(j["counts"], "hafnian");
  EXPECT_EQ(j["matching_size"], 5);
  EXPECT_EQ(j["graph"]["vertices"], 10);
  EXPECT_EQ(j["graph"]["edges"], 15);
  EXPECT_EQ(j["graph"]["witness"], "");
  j = run_json("--json --explain" + petersen);
  EXPECT_EQ(j["mode"], "explain");
  EXPECT_EQ(j["counts"], "hafnian");
  // Two triangles: no perfect matching, and the witness says why.
  j = run_json("--json --as graph -", "a b\nb c\nc a\nd e\ne f\nf d\n");
  EXPECT_EQ(j["value"], "0");
  EXPECT_NE(j["graph"]["witness"].get<std::string>().find("odd component"), std::string::npos) << j.dump();
  // Loop hafnians of real matrices carry their error bound.
  const std::string path = test::temp_file(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 0.5\n2 1 0.25\n3 2 1.5\n3 3 2\n", ".mtx");
  j = run_json("--json --loop-hafnian '" + path + "'");
  EXPECT_EQ(j["counts"], "loop_hafnian");
  EXPECT_EQ(j["value_kind"], "real");
  // lhaf = a11 a23 + a12 a33 = 0.5 * 1.5 + 0.25 * 2 = 1.25
  EXPECT_NEAR(j["value"].get<double>(), 1.25, 1e-12);
  j = run_json("--json" + grid8());
  EXPECT_EQ(j["counts"], "permanent");
  EXPECT_FALSE(j.contains("graph"));
}

TEST(Json, ZeroCount) {
  const Json j = run_json("--json -", "a x\nb x\n");
  EXPECT_EQ(j["value"], "0");
  EXPECT_EQ(j["value_kind"], "integer");
  EXPECT_EQ(j["file"], "-");
  EXPECT_FALSE(j["notes"].empty());
}

TEST(Json, ExactFraction) {
  const std::string path = test::temp_file(kRealMatrix, ".mtx");
  const Json j = run_json("--json --exact '" + path + "'");
  EXPECT_EQ(j["value"], "3/4");
  EXPECT_EQ(j["value_kind"], "fraction");
  EXPECT_EQ(j["number_kind"], "rational");
  EXPECT_EQ(j["exact"], true);
}

TEST(Json, RealValueIsANumberWithErrors) {
  const std::string path = test::temp_file(kRealMatrix, ".mtx");
  const Json j = run_json("--json '" + path + "'");
  ASSERT_TRUE(j["value"].is_number()) << j;
  EXPECT_EQ(j["value"].get<double>(), 0.75);
  EXPECT_EQ(j["value_kind"], "real");
  EXPECT_EQ(j["exact"], false);
  EXPECT_GE(j["abs_error"].get<double>(), 0.0);
  EXPECT_LT(j["rel_error"].get<double>(), 1e-12);
  EXPECT_EQ(j["error_model"], "bound");
}

// The one-block questions' records match the schema too, and say what they count.
TEST(Json, OtherQuestionsFollowTheSchema) {
  const std::string o = test::temp_file("%%MatrixMarket matrix array real general\n2 2\n0\n0.5\n0.5\n0\n", ".mtx");
  const Json tor = run_json("--json --torontonian '" + o + "'");
  EXPECT_EQ(tor["counts"], "torontonian");
  EXPECT_EQ(tor["error_model"], "bound");
  const std::string a = test::temp_file(
      "%%MatrixMarket matrix array integer symmetric\n4 4\n1\n2\n3\n1\n4\n5\n1\n1\n6\n2\n", ".mtx");
  const Json rpt = run_json("--json --loop-hafnian --reps 2,0,3,1 '" + a + "'");
  EXPECT_EQ(rpt["counts"], "loop_hafnian");
  EXPECT_EQ(rpt["value"], "852");
  // All matchings of the 4-cycle: 1 + 4 + 2; its polynomial as strings.
  const std::string c4 = test::temp_file("a b\nb c\nc d\nd a\n", ".edges");
  const Json all = run_json("--json --matchings --polynomial --as graph '" + c4 + "'");
  EXPECT_EQ(all["counts"], "matchings");
  EXPECT_EQ(all["value"], "7");
  EXPECT_EQ(all["polynomial"], Json::array({"1", "4", "2"}));
  const Json half = run_json("--json --matchings --monomer-weight 0.5 --as graph '" + c4 + "'");
  EXPECT_NEAR(half["value"].get<double>(), 0.0625 + 4 * 0.25 + 2, 1e-12);  // y^4 + 4 y^2 + 2
}

// A float error that rests on a statistical spread or a condition estimate is never called a
// bound: the dense hafnian walk's error is the spread of four vertex orders, Ryser's a bound.
TEST(Json, ErrorsThatAreEstimatesSaySo) {
  std::string text = "%%MatrixMarket matrix coordinate real symmetric\n6 6 15\n";
  for (int i = 1; i <= 6; ++i)
    for (int j = i + 1; j <= 6; ++j) text += std::to_string(j) + " " + std::to_string(i) + " 0." + std::to_string(i * j + 3) + "\n";
  const std::string path = test::temp_file(text, ".mtx");
  EXPECT_EQ(run_json("--json --hafnian --engine hafnian '" + path + "'")["error_model"], "estimate");
  EXPECT_EQ(run_json("--json --engine ryser '" + path + "'")["error_model"], "bound");
  const auto r = test::run_matchcount("-v --hafnian --engine hafnian '" + path + "'");
  EXPECT_NE(r.err.find("estimated absolute error (not a bound)"), std::string::npos) << r.err;
  const auto plain = test::run_matchcount("--engine ryser '" + path + "'");
  EXPECT_NE(plain.err.find("relative error bound"), std::string::npos) << plain.err;
}

TEST(Json, ComplexValueIsAPairOfNumbers) {
  // perm [[1+i, 2], [0.5i, 1]] = (1+i) * 1 + 2 * 0.5i = 1 + 2i.
  const std::string path = test::temp_file(
      "%%MatrixMarket matrix coordinate complex general\n2 2 4\n1 1 1 1\n1 2 2 0\n2 1 0 0.5\n2 2 1 0\n", ".mtx");
  const Json j = run_json("--json '" + path + "'");
  ASSERT_TRUE(j["value"].is_array()) << j;
  ASSERT_EQ(j["value"].size(), 2u);
  ASSERT_TRUE(j["value"][0].is_number() && j["value"][1].is_number()) << j;
  EXPECT_NEAR(j["value"][0].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(j["value"][1].get<double>(), 2.0, 1e-12);
  EXPECT_EQ(j["value_kind"], "complex");
  EXPECT_EQ(j["exact"], false);
}

TEST(Json, ExplainHasNullValueAndThePlan) {
  const Json j = run_json("--explain --json" + grid8());
  EXPECT_EQ(j["mode"], "explain");
  EXPECT_TRUE(j["value"].is_null());
  EXPECT_EQ(j["value_kind"], "integer");
  EXPECT_EQ(j["exact"], true);
  ASSERT_FALSE(j["engine_runs"].empty());
  for (const auto& run : j["engine_runs"]) {
    EXPECT_TRUE(run["predicted_seconds"].is_number()) << run;
    EXPECT_EQ(run["seconds"], 0) << run;
  }
}

TEST(Json, EstimateUsesValueAndAddsItsFields) {
  const Json j = run_json("--estimate --exact-up-to 0 --samples 200 --seed 3 --json" + grid8());
  EXPECT_EQ(j["mode"], "estimate");
  ASSERT_TRUE(j["value"].is_number()) << j;
  // 200 samples of the 8 x 8 grid (12988816): well within a factor of 2.
  EXPECT_GT(j["value"].get<double>(), 12988816.0 / 2);
  EXPECT_LT(j["value"].get<double>(), 12988816.0 * 2);
  EXPECT_EQ(j["value_kind"], "real");
  EXPECT_EQ(j["exact"], false);
  EXPECT_EQ(j["method"], "scaling+");
  EXPECT_EQ(j["samples"], 200);
  ASSERT_TRUE(j["ci95"].is_array());
  EXPECT_LE(j["ci95"][0].get<double>(), j["value"].get<double>());
  EXPECT_GE(j["ci95"][1].get<double>(), j["value"].get<double>());
  ASSERT_EQ(j["blocks"].size(), 1u);
  EXPECT_EQ(j["blocks"][0]["value"], j["value"]);
}

TEST(Json, EstimatesCountedExactlyGiveTheCountsValue) {
  const Json j = run_json("--estimate --json" + grid8());
  EXPECT_EQ(j["mode"], "estimate");
  EXPECT_EQ(j["value"], "12988816");
  EXPECT_EQ(j["value_kind"], "integer");
  EXPECT_EQ(j["exact"], true);
  EXPECT_EQ(j["samples"], 0);
}

TEST(Json, EstimatesBeyondADoubleAreScientificStrings) {
  EstimateReport r;
  r.estimate = WideReal{0.5, 5000};  // 2^4999 = 7.0623351...e+1504
  r.rel_std_error = 0.01;
  r.ci_low = r.estimate * 0.98, r.ci_high = r.estimate * 1.02;
  r.samples = 100;
  r.rows = r.cols = 3000;
  const Json j = Json::parse(estimate_json(r, ReadResult{}, RunInfo{}));
  EXPECT_EQ(schema().errors(j), "") << j;
  ASSERT_TRUE(j["value"].is_string()) << j;
  EXPECT_EQ(j["value"].get<std::string>().substr(0, 6), "7.0623") << j;
  EXPECT_NE(j["value"].get<std::string>().find("e+1504"), std::string::npos) << j;
  EXPECT_TRUE(j["std_error"].is_string()) << j;
  EXPECT_NEAR(j["log10_estimate"].get<double>(), 4999 * std::log10(2.0), 1e-6);
}

TEST(Json, FileNamesThatAreNotUtf8BecomeReplacementCharacters) {
  const std::string path = test::temp_file("1 2\n2 3\n3 4\n4 1\n", "-\xff.edges");
  const Json j = run_json("--json --as graph '" + path + "'");
  EXPECT_EQ(j["value"], "2");
  const std::string file = j["file"];
  EXPECT_NE(file.find("-\xEF\xBF\xBD.edges"), std::string::npos) << file;  // U+FFFD in UTF-8
  EXPECT_EQ(file.find('\xff'), std::string::npos);
  EXPECT_EQ(json_quote("a\xff\"b"), "\"a\xEF\xBF\xBD\\\"b\"");
}

/// A dense 0-1 block of n = 64 without repeated lines: beyond every engine.
std::string dense64() {
  std::mt19937_64 rng(64);
  std::ostringstream body;
  int entries = 0;
  for (int i = 1; i <= 64; ++i)
    for (int j = 1; j <= 64; ++j)
      if (i == j || rng() % 5 != 0) body << i << " " << j << "\n", ++entries;
  return test::temp_file("%%MatrixMarket matrix coordinate pattern general\n64 64 " + std::to_string(entries) + "\n" + body.str(),
                         ".mtx");
}

TEST(Json, ExplainSaysWhyABlockCannotBeCounted) {
  const std::string path = dense64();
  const auto text = test::run_matchcount("--explain --device cpu '" + path + "'");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("cannot be counted: n = 64 is over ryser's limit of 62"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("frontier width"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("not planar"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("null"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("inf"), std::string::npos) << text.out;

  const Json j = run_json("--explain --json --device cpu '" + path + "'");
  ASSERT_EQ(j["engine_runs"].size(), 1u) << j;
  const Json& run = j["engine_runs"][0];
  EXPECT_TRUE(run["predicted_seconds"].is_null()) << run;
  EXPECT_NE(run.value("why", "").find("over ryser's limit of 62"), std::string::npos) << run;

  // A forced engine the block is too large for.
  const auto forced = test::run_matchcount("--explain --engine brute '" + path + "'");
  EXPECT_NE(forced.out.find("cannot be counted: n = 64 is over brute's limit of 24"), std::string::npos) << forced.out;
  // And counting it is refused (exit 3), as the plan said.
  EXPECT_EQ(test::run_matchcount("--device cpu '" + path + "'").exit_code, 3);
}

// --log: the value is ln |count|, its error that of the logarithm, and `log` tells the rest.
TEST(Json, LogCount) {
  if (!engines::planar::sparse_lu_available()) GTEST_SKIP() << "built without SuiteSparse";
  const Json j = run_json("--json --log" + grid8());
  EXPECT_EQ(j["value_kind"], "log");
  EXPECT_NEAR(j["value"].get<double>(), std::log(12988816.0), 1e-13);
  EXPECT_EQ(j["exact"], false);
  EXPECT_EQ(j["log"]["sign"], 1);
  EXPECT_EQ(j["log"]["count"].get<std::string>().substr(0, 9), "1.2988816") << j.dump();
  EXPECT_NEAR(j["log"]["log10"].get<double>(), std::log10(12988816.0), 1e-13);
  EXPECT_LT(j["abs_error"].get<double>(), 1e-12);
  EXPECT_EQ(j["error_model"], "estimate");  // the sparse LU's error rests on a condition estimate
  const Json zero = run_json("--json --log -", "a x\nb x\n");
  EXPECT_EQ(zero["value"], "-inf");
  EXPECT_EQ(zero["log"]["sign"], 0);
  EXPECT_EQ(zero["log"]["count"], "0");
}

// A count resumed from its checkpoint says so, and what --verify-resume recomputed.
TEST(Json, ResumedCountSaysWhatItTookAndVerified) {
  const std::string band12 = std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/band12.mtx";
  const std::string ckpt = test::temp_file("", ".ckpt");
  std::filesystem::remove(ckpt);
  const auto stopped = test::run_slow_matchcount_under(
      "", 100000, "--threads 1 --max-seconds 0.3 --checkpoint '" + ckpt + "' '" + band12 + "'");
  ASSERT_EQ(stopped.exit_code, 3) << stopped.err;
  EXPECT_FALSE(run_json("--json '" + band12 + "'").contains("resume"));
  const Json j = run_json("--json --verify-resume --checkpoint '" + ckpt + "' '" + band12 + "'");
  EXPECT_EQ(j["value"], "11854");
  const Json& r = j["resume"];
  EXPECT_EQ(r["resumed"], true) << j.dump();
  EXPECT_EQ(r["verified"], true);
  EXPECT_GT(r["walk_units_saved"].get<int>(), 0);
  EXPECT_GT(r["walk_units_recomputed"].get<int>(), 0);
  EXPECT_LE(r["walk_units_recomputed"].get<int>(), r["walk_units_saved"].get<int>());
  EXPECT_GT(r["walk_ranges_recomputed"].get<int>(), 0);
}

TEST(Json, MarginalsAndSamples) {
  const Json j = run_json("--json --marginals" + grid8());
  EXPECT_EQ(j["mode"], "marginals");
  EXPECT_EQ(j["total"], "12988816");
  EXPECT_EQ(j["edges"].size(), 112u);
  EXPECT_TRUE(j["edges"][0]["p"].is_string());
  const auto r = test::run_matchcount("--json --sample 3" + grid8());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    const Json s = Json::parse(line);
    EXPECT_EQ(schema().errors(s), "") << line;
    EXPECT_EQ(s["edges"].size(), 32u);
    ++n;
  }
  EXPECT_EQ(n, 3);
  const Json f = run_json("--json --marginals -", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 0.5\n1 2 0.25\n2 1 1\n");
  EXPECT_TRUE(f["edges"][0]["p"].is_number());
  EXPECT_EQ(f["edges"][0]["error_model"], "bound");
}

}  // namespace
}  // namespace matchcount
