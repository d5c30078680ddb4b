# Sourced by the GPU benchmark scripts: json_fields JSON sets value, seconds (of the first
# engine run), compile (its NVRTC seconds, 0 if none) and note from matchcount --json output.
json_fields() {
  local json=$1 run
  value=$(sed -n 's/.*"value":"\{0,1\}\([^",]*\).*/\1/p' <<<"$json" | head -1)
  run=$(grep -o '"engine_runs":\[{[^]]*' <<<"$json")
  seconds=$(grep -o '"seconds":[0-9.e+-]*' <<<"$run" | head -1 | cut -d: -f2)
  compile=$(grep -o '"compile_seconds":[0-9.e+-]*' <<<"$run" | head -1 | cut -d: -f2)
  compile=${compile:-0}
  note=$(grep -o '"notes":\[[^]]*\]' <<<"$json" | cut -c10-)
}
