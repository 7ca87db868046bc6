#!/usr/bin/env bash
# Run every libFuzzer harness for FUZZ_SECONDS each (default 180) over a working corpus
# seeded from fuzz/seeds, the examples and the repository's data/, then print per harness the
# executions, corpus size and crashes found. Exit 1 if any harness found a crash, a leak,
# a time-out or a sanitizer report (their inputs are kept in BUILD/fuzz/artifacts/).
# The mesh harness forks an importer per input; it runs from BUILD_DIR-ub (UBSan only, about
# 6x faster to fork) when that build exists; mesh_check fuzzes its in-process part under ASan.
#   usage: fuzz/run.sh BUILD_DIR [HARNESS ...]
#
# Input size (-max_len) per harness: large enough for an input to reach every limit its readers
# enforce on what a file holds (the limit, then what an input must hold to pass it). The bounds
# on a file's bytes (src/core/file_open.c: 16 MiB for a unit's calibration, 64 MiB for YAML, 4 GiB
# for point files) are checked by stat before any parsing; the tests cover them.
#   scene, dataset,      the bounded YAML loader (src/core/yaml_load.h): 64 levels of nesting
#   calib_config,        (65 bytes of `[`), 2,000,000 values (`0,` each: 4 MB)      4.5 MiB
#   calibration, fit
#   unit                 JSON: 100,000 values (`0,`: 200 KB); ROS YAML: 128 entries in a list
#                        or mapping, 100,000 values (200 KB), 64 levels; VeloView XML: a DTD or
#                        entity (a few bytes), 100,000 nodes (`<a/>`: 400 KB; `<!---->`: 700 KB),
#                        64 levels                                                  1 MiB
#   kernel               2048 x 2048 grid values (`0 `: 8 MiB), 8,193 per axis     9 MiB
#   trajectory           1,000,000 keyframes (`0,0,0,0,0,0,0` lines: 14 MB)         16 MiB
#   points, fit_scan     a PCD header of at most 1 MiB; rows read 1 MiB at a time  2 MiB
#   mesh, mesh_check     a PLY header of at most 64 KiB                             128 KiB
#   scan, pattern        lines of at most 96 bytes, 256 columns; rows have no bound
#                        but the file's bytes (4 GiB)                               64 KiB
#   pcap                 a recording: 16 IPv4 datagrams in reassembly (16 x 2 fragments), a
#                        frame of 1024 columns (64 LEGACY packets of 32 pixels: 416 KB)  1 MiB
#   twin                 1,000,000 poses (`1 0 0 0 0 1 0 0 0 0 1 0` lines: 24 MB)    24 MiB
#   cli                  arguments into 4,096-byte path buffers; the harness takes
#                        up to 16 KiB                                               16 KiB
# Memory (-rss_limit_mb): the process's peak, the fuzzer and ASan's shadow and quarantine
# included (about 200 MB of it on an idle harness), for the largest input above. `unit` is held to
# README "Robustness"'s 160 MB for a calibration file plus that allowance: 512 MB; the YAML
# harnesses to 2 GB (2,000,000 loaded values, ~200 MB, plus a scene built from them).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: fuzz/run.sh BUILD_DIR [HARNESS ...]}" && pwd)"; shift
seconds="${FUZZ_SECONDS:-180}"
jobs="${FUZZ_JOBS:-1}"
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(scene dataset mesh mesh_check pattern kernel calib_config calibration scan trajectory unit fit fit_scan points pcap twin cli)
shared="$here/../data/apollosim-rplidar"
work="$build/fuzz"
mkdir -p "$work/artifacts"
status=0
printf '%-14s %12s %10s %8s %s\n' harness executions exec/s corpus crashes > "$work/summary.txt"
for h in "${harnesses[@]}"; do
  corpus="$work/corpus/$h"
  mkdir -p "$corpus"
  seeds="$here/seeds/$h"
  [ "$h" = mesh_check ] && seeds="$here/seeds/mesh"
  cp -n "$seeds/"* "$corpus/" 2>/dev/null || true
  exe="$build/fuzz/fuzz_$h"
  [ "$h" = mesh ] && [ -x "$build-ub/fuzz/fuzz_mesh" ] && exe="$build-ub/fuzz/fuzz_mesh"
  case "$h" in
    scan) if [ -d "$shared" ]; then
            for f in "$shared"/data/*_data.txt; do head -n 200 "$f" > "$corpus/shared_$(basename "$f")"; done
            head -c 4000 "$shared/room_laserscan_dump.txt" > "$corpus/shared_laserscan.txt"
          fi ;;
    pattern) head -n 100 "$here/../examples/retro_sign/fan.csv" > "$corpus/example_fan.csv" ;;
    calib_config) [ -f "$shared/data.config" ] && cp -n "$shared/data.config" "$corpus/shared_data.config" ;;
  esac
  dict=()
  [ -f "$here/$h.dict" ] && dict=(-dict="$here/$h.dict")
  case "$h" in  # the table above
    scene|dataset|calib_config|calibration|fit) max_len=4718592 ;;
    unit|pcap) max_len=1048576 ;;
    kernel) max_len=9437184 ;;
    trajectory) max_len=16777216 ;;
    twin) max_len=25165824 ;;
    points|fit_scan) max_len=2097152 ;;
    mesh|mesh_check) max_len=131072 ;;
    cli) max_len=16384 ;;
    *) max_len=65536 ;;
  esac
  rss_mb=2048
  [ "$h" = unit ] && rss_mb=512
  extra=(-max_len="$max_len")
  log="$work/$h.log"
  parallel=()  # -jobs N: N processes, each logging to fuzz-K.log in the work folder
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  rm -f "$work"/fuzz-*.log
  before=$(ls "$work/artifacts" | wc -l)
  mkdir -p "$work/contained"
  scratch=$(mktemp -d /dev/shm/lidarsim-fuzz.XXXXXX 2>/dev/null || mktemp -d)
  ( cd "$work" && FUZZ_SCRATCH="$scratch" FUZZ_CONTAINED_DIR="$work/contained" LSAN_OPTIONS=suppressions="$here/lsan.supp" ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$exe" "$corpus" "${dict[@]}" "${extra[@]}" -max_total_time="$seconds" -timeout=25 \
      -rss_limit_mb="$rss_mb" -close_fd_mask=3 -print_final_stats=1 "${parallel[@]}" \
      -artifact_prefix="$work/artifacts/$h-" > "$log" 2>&1 )
  rc=$?
  for f in "$work"/fuzz-*.log; do [ -e "$f" ] && cat "$f" >> "$log" && rm -f "$f"; done
  rm -rf "$scratch"
  # clang's OpenMP runtime registers each process in /dev/shm and, when a process ends
  # without running its exit handlers (libFuzzer's time limit), leaves the entry behind
  for f in /dev/shm/__KMP_REGISTERED_LIB_*; do
    [ -e "$f" ] || continue
    pid=${f#/dev/shm/__KMP_REGISTERED_LIB_}; pid=${pid%%_*}
    kill -0 "$pid" 2>/dev/null || rm -f "$f"
  done
  execs=$(grep -h 'stat::number_of_executed_units' "$log" | awk '{s+=$2} END {print s+0}')
  rate=$(grep -h 'stat::average_exec_per_sec' "$log" | awk '{s+=$2} END {print s+0}')
  after=$(ls "$work/artifacts" | wc -l)
  found=$((after - before))
  [ $rc -ne 0 ] && [ $found -eq 0 ] && found="rc=$rc"
  printf '%-14s %12s %10s %8s %s\n' "$h" "$execs" "$rate" "$(ls "$corpus" | wc -l)" "$found" >> "$work/summary.txt"
  if [ $rc -ne 0 ] || [ "$found" != 0 ]; then status=1; tail -40 "$log"; fi
done
n_contained=$(ls "$work/contained" 2>/dev/null | wc -l)
echo "mesh inputs on which the importer crashed or hung, contained: $n_contained (in $work/contained)" >> "$work/summary.txt"
cat "$work/summary.txt"
exit $status
