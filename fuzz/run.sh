#!/usr/bin/env bash
# Seeds, builds and runs every fuzz target for a bounded time; fails on any
# crash, panic, timeout or out-of-memory (the input is kept in
# fuzz/artifacts/<target>/, the log in fuzz/logs/<target>.log).
#
#   bash fuzz/run.sh [SECONDS_PER_TARGET]     # CI: 15 s each (the default)
#   FUZZ_RUNS=10000000 bash fuzz/run.sh 3600  # long local run: each target
#                                             # stops at 10M executions or 1 h
#   FUZZ_TARGETS="headers stdio_lines" bash fuzz/run.sh 60
#   FUZZ_STDIO_IN_FLIGHT=small ...            # stdio_lines with 1-4 slots: requests
#                                             # queue behind tools waiting on the client
#
# Needs the nightly toolchain and cargo-fuzz 0.13.2
# (`cargo install cargo-fuzz --version 0.13.2 --locked`). Targets are built
# without a sanitizer (`-s none`): the workspace forbids unsafe code, and
# coverage-guided fuzzing runs several times faster without ASan.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-15}"
runs="${FUZZ_RUNS:--1}"
targets="${FUZZ_TARGETS:-handle_message union_from_json stdio_lines headers}"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz/run.sh: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
    exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz/run.sh: cargo-fuzz is missing (cargo install cargo-fuzz --version 0.13.2 --locked)" >&2
    exit 1
fi

bash seed.sh
start=$(date +%s)
cargo +nightly fuzz build -s none
echo "fuzz/run.sh: built the targets in $(( $(date +%s) - start )) s"

mkdir -p logs
failed=0
for target in $targets; do
    start=$(date +%s)
    if cargo +nightly fuzz run -s none "$target" -- \
        -max_total_time="$seconds" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"logs/$target.log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed=1
    fi
    executions=$(grep -o 'stat::number_of_executed_units: [0-9]*' "logs/$target.log" | grep -o '[0-9]*$' || true)
    echo "fuzz/run.sh: $target: $status, ${executions:-?} executions in $(( $(date +%s) - start )) s"
    if [ "$status" = FAILED ]; then
        grep -E -A12 'panicked at|ERROR: libFuzzer|SUMMARY' "logs/$target.log" | head -40 || tail -40 "logs/$target.log"
        grep -E 'Test unit written to|artifact' "logs/$target.log" | tail -2 || true
    fi
done
exit "$failed"
