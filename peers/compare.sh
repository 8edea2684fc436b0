#!/usr/bin/env bash
# Compare motet with its peer runtimes on the Savina benchmarks, in one invocation: build each peer
# kit (if not built) from pinned commits, then, one benchmark after the other, run each kit's ports of
# it at the kit's own parameters and, right after, motet-savina at each of those kits' parameters;
# write the merged records and one Markdown table.
#
# usage: peers/compare.sh [--bench B1,B2,...] [--threads 1,2] [--iterations N]
#                         [--kits verona,caf,akka,lf] [--models actor,boc,floor] --out DIR
#                         [--timeout SEC] [--rounds R] [--rt] [--build-only]
#                         [--lf-models lf-cpp,lf-rs,reactor-lf]
#   --bench       Savina short names (default: the seven micro benchmarks), or "all" (every one a kit
#                 of --kits has, in Savina's order); each kit runs those it has
#   --threads     worker counts (default 1,2), for every kit and for motet
#   --iterations  timed iterations per cell (default 5): each kit's own meaning (see peers/README.md);
#                 motet times N after its default 2 warm-up iterations
#   --kits        which kits (default verona,caf,akka,lf)
#   --models      motet-savina models (default actor,boc,floor: the untuned defaults)
#   --out DIR     writes DIR/peers.json (a header and every record), DIR/peers.md (the table), and
#                 each kit's and motet's own records per benchmark (DIR/kit-KIT-BENCH.json,
#                 DIR/motet-BENCH-KITS.json; with --rounds, "-rN" before ".json")
#   --timeout     seconds one peer process may run (default 600)
#   --rounds      run each benchmark's block (its kits' cells and motet's) R times, the kits first
#                 in odd rounds and motet first in even ones (default 1); a cell's rounds are
#                 combined by compare.py (the median of the rounds' medians)
#   --rt          run every timed process (each kit's program, each motet-savina run) under
#                 `chrt -f 10` if this user may; if not, says so and runs at normal priority
#   --build-only  get the sources and build the kits, then stop
#   --lf-models   the lf kit's models (default lf-cpp): lf-cpp (lfc, reactor-cpp), lf-rs (lfc,
#                 reactor-rs) and reactor-lf (the same Rust programs built by this repository's
#                 motet-lf, on motet's reactors; needs no lfc). lf-rs's ratio is also taken over
#                 reactor-lf's
# Sources: each kit's git repositories are named in peers/sources.txt with their pinned commits.
# An environment variable named there (VERONA_BENCH_GIT, CAF_SAVINA_GIT, ...) may name a local git
# directory (bare, or a checkout) holding the commit; otherwise the repository is cloned from
# PEERS_GIT_URL (default https://github.com/%s.git, %s = owner/name) into PEERS_SOURCES (default
# peers/.sources). MOTET_SAVINA names a prebuilt motet-savina binary (default: cargo builds
# target/release/motet-savina with --features peers).
# Timed runs (each peer process, each motet-savina run) hold `flock -x peers/.bench.lock`; builds
# hold it shared, so no two timed runs, and no timed run and build, overlap.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
LOCK="$HERE/.bench.lock"
SOURCES="${PEERS_SOURCES:-$HERE/.sources}"
GIT_URL="${PEERS_GIT_URL:-https://github.com/%s.git}"

BENCH="pingpong,count,fjthrput,fjcreate,threadring,chameneos,big"
THREADS="1,2"
ITER=5
KITS="verona,caf,akka,lf"
MODELS="actor,boc,floor"
OUT=""
TIMEOUT=600
BUILD_ONLY=0
LF_MODELS="lf-cpp"
ROUNDS=1
RT=0
ARGV=("$@")

die() { echo "compare.sh: $*" >&2; exit 1; }
need_arg() { [ "$#" -ge 2 ] || die "$1 needs a value"; }
while [ "$#" -gt 0 ]; do
  case "$1" in
    --bench) need_arg "$@"; BENCH="$2"; shift 2;;
    --threads) need_arg "$@"; THREADS="$2"; shift 2;;
    --iterations) need_arg "$@"; ITER="$2"; shift 2;;
    --kits) need_arg "$@"; KITS="$2"; shift 2;;
    --models) need_arg "$@"; MODELS="$2"; shift 2;;
    --out) need_arg "$@"; OUT="$2"; shift 2;;
    --timeout) need_arg "$@"; TIMEOUT="$2"; shift 2;;
    --build-only) BUILD_ONLY=1; shift;;
    --lf-models) need_arg "$@"; LF_MODELS="$2"; shift 2;;
    --rounds) need_arg "$@"; ROUNDS="$2"; shift 2;;
    --rt) RT=1; shift;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '/^[^#]/,$d' | cut -c3-; exit 0;;
    *) die "unknown argument $1 (see --help)";;
  esac
done
[ "$BUILD_ONLY" = 1 ] || [ -n "$OUT" ] || die "--out DIR is required"
[[ "$ITER" =~ ^[1-9][0-9]*$ ]] || die "--iterations takes a positive integer"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a positive integer"
IFS=',' read -r -a KIT_LIST <<< "$KITS"
for kit in "${KIT_LIST[@]}"; do
  case "$kit" in verona|caf|akka|lf) ;; *) die "unknown kit $kit (verona, caf, akka, lf)";; esac
done
IFS=',' read -r -a LF_MODEL_LIST <<< "$LF_MODELS"
for m in "${LF_MODEL_LIST[@]}"; do
  case "$m" in lf-cpp|lf-rs|reactor-lf) ;; *) die "unknown lf model $m (lf-cpp, lf-rs, reactor-lf)";; esac
done
has_lf_model() { [[ ",$LF_MODELS," == *",$1,"* ]]; }
# lf_needs VAR: whether the lf kit's models need the source named VAR in sources.txt
lf_needs() {
  case "$1" in
    LF_BENCH_GIT) return 0;;
    LF_GIT|REACTOR_CPP_GIT) has_lf_model lf-cpp || has_lf_model lf-rs;;
    *) has_lf_model lf-rs;;
  esac
}

# ---- timing of each step -------------------------------------------------------------------------
STEPS=()
T0=$(date +%s)
step_start=0
step() { step_start=$(date +%s); echo "compare.sh: == $*" >&2; }
step_done() { # step_done LABEL
  local s=$(( $(date +%s) - step_start ))
  STEPS+=("$(printf '%-44s %4dm%02ds' "$1" $((s / 60)) $((s % 60)))")
  printf 'compare.sh: %s took %dm%02ds\n' "$1" $((s / 60)) $((s % 60)) >&2
}
print_steps() {
  [ "${#STEPS[@]}" -gt 0 ] || return 0
  echo "compare.sh: time per step:" >&2
  printf '  %s\n' "${STEPS[@]}" >&2
  local s=$(( $(date +%s) - T0 ))
  printf 'compare.sh: %dh%02dm%02ds in all\n' $((s / 3600)) $((s / 60 % 60)) $((s % 60)) >&2
}
trap print_steps EXIT

# ---- system packages that this script needs itself ----------------------------------------------
need_pkgs=()
for p in git python3 util-linux; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_pkgs+=("$p")
done
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  SUDO=()
  [ "$(id -u)" = 0 ] || SUDO=(sudo)
  echo "compare.sh: installing ${need_pkgs[*]}" >&2
  "${SUDO[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${need_pkgs[@]}"
fi
touch "$LOCK"
if [ "$BENCH" = all ]; then
  BENCH="$(python3 "$HERE/compare.py" all "$KITS")"
  echo "compare.sh: --bench all: $BENCH" >&2
fi

# ---- sources ------------------------------------------------------------------------------------
# git_dir VAR REPO COMMIT: prints a git directory holding COMMIT: $VAR's directory, or a clone of REPO.
git_dir() {
  local var="$1" repo="$2" commit="$3" dir
  dir="${!var:-}"
  if [ -n "$dir" ]; then
    [ -d "$dir" ] || { echo "compare.sh: $var=$dir is not a directory" >&2; return 1; }
    [ -d "$dir/.git" ] && dir="$dir/.git"
    git --git-dir="$dir" cat-file -e "$commit^{commit}" 2>/dev/null ||
      { echo "compare.sh: $var=$dir does not hold $repo@$commit" >&2; return 1; }
  else
    dir="$SOURCES/${repo//\//+}.git"
    if [ ! -d "$dir" ]; then
      mkdir -p "$SOURCES"
      local url="${GIT_URL//%s/$repo}"
      echo "compare.sh: git clone --bare $url" >&2
      git clone --bare --quiet "$url" "$dir.tmp" && mv "$dir.tmp" "$dir" || return 1
    fi
    if ! git --git-dir="$dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
      echo "compare.sh: fetching $repo@$commit" >&2
      git --git-dir="$dir" fetch --quiet origin "$commit" || {
        echo "compare.sh: $repo@$commit is not in $dir, nor could it be fetched (set $var to a git directory that holds it)" >&2
        return 1
      }
    fi
  fi
  (cd "$dir" && pwd)
}

# build_kit KIT: build the kit from its pinned sources, unless it was built from them already.
build_kit() {
  # (called as a condition, so errexit is off here: every failure returns explicitly)
  local kit="$1" k var repo commit cvar d dirs=() vars=() commits=() stamp want
  while read -r k var repo commit cvar; do
    [ "$k" = "$kit" ] || continue
    if [ "$kit" = lf ] && ! lf_needs "$var"; then continue; fi
    d="$(git_dir "$var" "$repo" "$commit")" || return 1
    dirs+=("$d")
    vars+=("$var=$d")
    commits+=("$cvar=$commit")
  done < <(grep -v -e '^#' -e '^[[:space:]]*$' "$HERE/sources.txt")
  [ "${#dirs[@]}" -gt 0 ] || die "no sources for $kit in sources.txt"
  # the stamp: the commits and every file of the kit that goes into its build
  want="$(printf '%s\n' "${commits[@]}";
          cd "$HERE/$kit" && find . -path ./.build -prune -o -type f ! -name README.md ! -name run.sh -print |
            LC_ALL=C sort | xargs sha256sum)"
  stamp="$HERE/$kit/.build/compare.stamp"
  if [ "$kit" != lf ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "compare.sh: $kit is built from the pinned sources" >&2
    return 0
  fi
  rm -f "$stamp"
  if [ "$kit" = lf ]; then
    # lfc takes ~20 min to build; build.sh skips the steps already done, and builds only the
    # models and programs asked for (BENCHES: C++, RS_BENCHES: Rust); sources by variable name
    local lf_benches rs_benches
    lf_benches="$(python3 "$HERE/compare.py" has lf "$BENCH")"
    rs_benches="$(python3 "$HERE/compare.py" has lf-rs "$BENCH")"
    [ -n "$lf_benches" ] || { echo "compare.sh: lf has none of $BENCH" >&2; return 0; }
    env "${commits[@]}" "${vars[@]}" LF_MODELS="$LF_MODELS" BENCHES="$lf_benches" \
      RS_BENCHES="${rs_benches:-none}" "$HERE/lf/build.sh" || return 1
  else
    env "${commits[@]}" "$HERE/$kit/build.sh" "${dirs[@]}" || return 1
  fi
  mkdir -p "$HERE/$kit/.build"
  printf '%s\n' "$want" > "$stamp"
}

BUILT=()
for kit in "${KIT_LIST[@]}"; do
  step "build $kit"
  if build_kit "$kit"; then
    BUILT+=("$kit")
  else
    echo "compare.sh: building $kit failed; it is left out" >&2
  fi
  step_done "build $kit"
done
[ "$BUILD_ONLY" = 0 ] || exit 0

# ---- motet-savina -------------------------------------------------------------------------------
step "build motet-savina"
if [ -n "${MOTET_SAVINA:-}" ]; then
  MOTET="$MOTET_SAVINA"
else
  (cd "$ROOT" && flock -s "$LOCK" cargo build --release -q -p motet-savina --features peers)
  MOTET="$ROOT/target/release/motet-savina"
fi
[ -x "$MOTET" ] || die "no motet-savina binary at $MOTET"
step_done "build motet-savina"

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
rm -f "$OUT"/kit-*.json "$OUT"/motet-*.json
LISTING="$OUT/motet-savina-list.txt"
"$MOTET" list > "$LISTING"

# ---- real-time priority ---------------------------------------------------------------------------
# The kits' run.sh put $PEERS_RT before each timed program (inside their flock, time and timeout, which
# stay at normal priority); motet-savina runs under it whole and steps its own parent down.
unset PEERS_RT
RT_CMD=()
RT_NOTE="not asked: normal priority"
if [ "$RT" = 1 ]; then
  if command -v chrt > /dev/null && chrt -f 10 true 2> /dev/null; then
    RT_CMD=(chrt -f 10)
    RT_NOTE="chrt -f 10 (SCHED_FIFO, priority 10) for every timed process"
    export PEERS_RT="chrt -f 10"
  else
    RT_NOTE="asked (--rt), but this user may not run chrt -f 10: normal priority"
    echo "compare.sh: --rt: chrt -f 10 is not permitted here; every process runs at normal priority" >&2
  fi
fi

# ---- per benchmark: its kits' cells, then motet's at those kits' parameters (or the other way round) --
# round_tag R: the file name suffix of round R ("" when there is one round)
round_tag() { [ "$ROUNDS" = 1 ] || printf -- '-r%s' "$1"; }

# run_kits BENCH ROUND: each built kit that has BENCH runs it at its own parameters.
run_kits() {
  local b="$1" r="$2" kit extra
  for kit in "${BUILT[@]}"; do
    [ -n "$(python3 "$HERE/compare.py" has "$kit" "$b")" ] || continue
    extra=()
    [ "$kit" = lf ] && extra=(--model "$LF_MODELS")
    step "round $r/$ROUNDS $b: $kit"
    "$HERE/$kit/run.sh" --bench "$b" --threads "$THREADS" --iterations "$ITER" --timeout "$TIMEOUT" \
      "${extra[@]}" --json "$OUT/kit-$kit-$b$(round_tag "$r").json" ||
      echo "compare.sh: $kit/run.sh --bench $b failed; its records are left out" >&2
    step_done "$b $kit$(round_tag "$r")"
  done
}

# run_motet BENCH ROUND: motet-savina at each distinct parameter set the kits ran BENCH at (the kits'
# records of every round so far: the parameters are the same in each). compare.py plan prints one line
# per set, "BENCH<TAB>TAG<TAB>P=V P=V ...", the kits' names mapped to motet-savina's (values equal to
# motet-savina's defaults left out).
run_motet() {
  local b="$1" r="$2" plan bench tag sizes models s size_args kit f
  local files=()
  for kit in "${BUILT[@]}"; do
    for f in "$OUT/kit-$kit-$b.json" "$OUT/kit-$kit-$b"-r*.json; do
      [ -f "$f" ] && files+=("$f")
    done
  done
  if [ "${#files[@]}" = 0 ]; then
    echo "compare.sh: no kit records for $b; motet does not run it" >&2
    return 0
  fi
  plan="$(python3 "$HERE/compare.py" plan --bench "$b" --listing "$LISTING" "${files[@]}")"
  while IFS=$'\t' read -r bench tag sizes; do
    [ -n "$bench" ] || continue
    models="$(python3 "$HERE/compare.py" models --listing "$LISTING" "$bench" "$MODELS")"
    [ -n "$models" ] || { echo "compare.sh: motet-savina has none of $MODELS for $bench" >&2; continue; }
    size_args=()
    for s in $sizes; do size_args+=(--size "$s"); done
    step "round $r/$ROUNDS $bench: motet ${sizes:-(defaults)}"
    flock -x "$LOCK" ${RT_CMD[@]+"${RT_CMD[@]}"} "$MOTET" run "$bench" --model "$models" \
      --threads "$THREADS" --iterations "$ITER" "${size_args[@]}" \
      --json "$OUT/motet-$bench-$tag$(round_tag "$r").json" >&2 ||
      echo "compare.sh: motet-savina run $bench failed" >&2
    step_done "$bench motet ($tag)$(round_tag "$r")"
  done <<< "$plan"
}

IFS=',' read -r -a BENCH_LIST <<< "$BENCH"
for r in $(seq 1 "$ROUNDS"); do
  for b in "${BENCH_LIST[@]}"; do
    [ -n "$b" ] || continue
    if [ $((r % 2)) = 1 ]; then
      run_kits "$b" "$r"
      run_motet "$b" "$r"
    else
      run_motet "$b" "$r"
      run_kits "$b" "$r"
    fi
  done
done

# ---- merge --------------------------------------------------------------------------------------
step "merge"
shopt -s nullglob
kit_files=("$OUT"/kit-*.json)
motet_files=("$OUT"/motet-*.json)
shopt -u nullglob
[ "${#kit_files[@]}" -gt 0 ] || die "no kit produced records"
python3 "$HERE/compare.py" report --json "$OUT/peers.json" --markdown "$OUT/peers.md" \
  --command "peers/compare.sh ${ARGV[*]}" --root "$ROOT" --sources "$HERE/sources.txt" --listing "$LISTING" \
  --kits "${BUILT[*]}" --bench "$BENCH" --rounds "$ROUNDS" --rt "$RT_NOTE" \
  "${kit_files[@]}" "${motet_files[@]}"
step_done "merge"
echo "compare.sh: wrote $OUT/peers.json and $OUT/peers.md" >&2
