#!/usr/bin/env bash
# ojd verify against BAPCtools' `bt run`, side by side on the same packages, rounds interleaved.
#
# Opt-in (docs/benchmarks.md, "ojd verify against BAPCtools' `bt run`"): never part of CI. Each
# package is imported once, then in every round judged cold by both tools one after the other,
# the order swapped from round to round, so that a change of the machine's load falls on both:
# `ojd verify --no-cache` with a new compile cache, and `bt run` on a new 2025-09 export of the
# same import with a new temporary folder (BAPCtools keeps its builds there).
#
#   bash benches/verify_vs_bt.sh [ROUNDS]     # ROUNDS defaults to 3; OJD=path picks the binary
#
# Prints one line per run (bt's exit code and verdicts, ojd's summary) and a table of medians
# (wall seconds); keeps its files in the folder it names on its first line.
set -euo pipefail
ROUNDS=${1:-3}
O=${OJD:-$PWD/target/release/ojd}
T=$PWD/testdata/import/kattis
B=$(mktemp -d)
echo "work folder: $B"
mkdir -p "$B/xdg/bapctools"
# BAPCtools runs .py with PyPy, which cannot start under a small problem's address-space limit:
# CPython, as ojd and the roundtrip test use.
printf "python3:\n    name: 'Python 3'\n    priority: 850\n    files: '*.py *.py3'\n    compile: 'python3 -m py_compile {files}'\n    run: 'python3 \"{mainfile}\"'\n" \
    > "$B/xdg/bapctools/languages.yaml"

# A C program that spins SECONDS of CPU time first, then runs BODY.
spin() { # SECONDS BODY
    printf '#include <stdio.h>\n#include <string.h>\n#include <time.h>\nint main(void){ while (clock() < (clock_t)(%s * CLOCKS_PER_SEC)) {} %s }\n' "$1" "$2"
}

# near: near-limit heavy, pass-fail: a 1 s limit, seven tests, an accepted submission that spins
# 0.8 s of CPU on every test and a time_limit_exceeded/ one that spins 1.2 s.
N=$B/src/near
mkdir -p "$N/data/sample" "$N/data/secret" "$N/submissions/accepted" "$N/submissions/time_limit_exceeded"
printf 'problem_format_version: 2023-07-draft\nname: Near\nlimits:\n  time_limit: 1\n' > "$N/problem.yaml"
printf '0\n' > "$N/data/sample/1.in"; printf '0\n' > "$N/data/sample/1.ans"
for i in 1 2 3 4 5 6; do printf '%s\n' $i > "$N/data/secret/0$i.in"; printf '%s\n' $i > "$N/data/secret/0$i.ans"; done
echo_n='int n; if (scanf("%d", &n) != 1) return 1; printf("%d\n", n); return 0;'
spin 0.0 "$echo_n" > "$N/submissions/accepted/fast.c"
spin 0.8 "$echo_n" > "$N/submissions/accepted/near.c"
spin 1.2 "$echo_n" > "$N/submissions/time_limit_exceeded/over.c"

# near-interactive: the interactive guess fixture with a 1 s limit, six secret tests, and its
# binary search after 0.8 s (accepted) and 1.2 s (time_limit_exceeded/) of CPU: every cell of
# both near the limit, each run an interactor beside the submission.
I=$B/src/near-interactive
cp -r "$T/interactive-guess" "$I"
sed -i 's/time_limit: 0.5/time_limit: 1/' "$I/problem.yaml"
for i in 4 5 6; do printf 'guess %s\n' $((i * 111)) > "$I/data/secret/$i.in"; done
search='int lo = 1, hi = 1000; char r[16]; while (lo <= hi) { int mid = (lo + hi) / 2; printf("%d\n", mid); fflush(stdout); if (scanf("%15s", r) != 1 || !strcmp(r, "correct")) return 0; if (!strcmp(r, "higher")) lo = mid + 1; else hi = mid - 1; } return 0;'
spin 0.8 "$search" > "$I/submissions/accepted/near.c"
spin 1.2 "$search" > "$I/submissions/time_limit_exceeded/over.c"

PACKAGES=("$T/interactive-guess" "$T/multi-pass-interactive" "$I" "$N")
for p in "${PACKAGES[@]}"; do
    "$O" import kattis "$p" --to "$B/ojd-$(basename "$p")" > /dev/null
done

: > "$B/times.tsv"
run_bt() { # ROUND NAME
    local to=$B/r$1/bt-$2
    "$O" export kattis "$B/ojd-$2" --to "$to" --format 2025-09 > /dev/null
    mkdir -p "$B/r$1/tmp-$2"
    local start end rc=0
    start=$(date +%s.%N)
    (cd "$to" && TMPDIR=$B/r$1/tmp-$2 XDG_CONFIG_HOME=$B/xdg bt run --no-bar > "$B/r$1/bt-$2.log" 2>&1) || rc=$?
    end=$(date +%s.%N)
    local s; s=$(echo "$end - $start" | bc)
    # bt exits non-zero on a submission not as its folder promises (or a warning); its
    # verdicts are the lines of its log.
    printf '%s\t%s\tbt\t%.1f\t%s\n' "$1" "$2" "$s" "bt exit $rc; $(grep -E '^[a-z_]+/' "$B/r$1/bt-$2.log" | sort -u | tr -s ' ' | paste -sd ';')" \
        | tee -a "$B/times.tsv"
}
run_ojd() { # ROUND NAME
    printf '[judge]\ncache = "%s"\n' "$B/r$1/cache-$2" > "$B/r$1/c-$2.toml"
    local start end
    start=$(date +%s.%N)
    "$O" verify "$B/ojd-$2" --no-cache --config "$B/r$1/c-$2.toml" > "$B/r$1/ojd-$2.log" 2>&1 || true
    end=$(date +%s.%N)
    local s; s=$(echo "$end - $start" | bc)
    printf '%s\t%s\tojd\t%.1f\t%s\n' "$1" "$2" "$s" "$(tail -1 "$B/r$1/ojd-$2.log")" | tee -a "$B/times.tsv"
}
for r in $(seq 1 "$ROUNDS"); do
    mkdir -p "$B/r$r"
    for p in "${PACKAGES[@]}"; do
        n=$(basename "$p")
        if [ $((r % 2)) = 1 ]; then run_bt "$r" "$n"; run_ojd "$r" "$n"; else run_ojd "$r" "$n"; run_bt "$r" "$n"; fi
    done
done

echo
echo "medians over $ROUNDS rounds (wall s): package, bt run, ojd verify, ojd / bt"
python3 - "$B/times.tsv" <<'EOF'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    r, n, tool, s, _ = line.rstrip("\n").split("\t", 4)
    t.setdefault(n, {}).setdefault(tool, []).append(float(s))
for n, v in t.items():
    bt, o = statistics.median(v["bt"]), statistics.median(v["ojd"])
    print(f"| {n} | {bt:.1f} s | {o:.1f} s | {o / bt:.2f} |")
EOF
