#!/usr/bin/env bash
# Rebuild kit for Lingua Franca's runtimes: builds the LF compiler lfc without Gradle (Xtext MWE2 +
# one flat Maven pom, all artifacts from Maven Central), then compiles the Savina programs of
# lf-lang/benchmarks-lingua-franca: the C++ ones with lfc against the bundled reactor-cpp (model
# "lf-cpp"), optionally the Rust ones with lfc against reactor-rs (model "lf-rs") and the same Rust
# ones with this repository's motet-lf on motet-reactor (model "reactor-lf", which needs no lfc).
#
# Usage: build.sh [LF_GIT REACTOR_CPP_GIT BENCH_GIT [REACTOR_RS_GIT CROSSBEAM_GIT]]
#   LF_GIT          bare git dir of lf-lang/lingua-franca            (or env LF_GIT)
#   REACTOR_CPP_GIT bare git dir of lf-lang/reactor-cpp              (or env REACTOR_CPP_GIT)
#   BENCH_GIT       bare git dir of lf-lang/benchmarks-lingua-franca (or env BENCH_GIT / LF_BENCH_GIT)
#   for model "lf-rs" (reactor-rs):
#   REACTOR_RS_GIT  bare git dir of lf-lang/reactor-rs               (or env REACTOR_RS_GIT)
#   CROSSBEAM_GIT   bare git dir of oowekyala/crossbeam              (or env CROSSBEAM_GIT)
# Optional env: LF_MODELS=lf-cpp,lf-rs,reactor-lf  which models to build (default: lf-cpp, plus lf-rs
#                                     and reactor-lf when REACTOR_RS_GIT and CROSSBEAM_GIT are given);
#                                     lf-cpp and lf-rs need LF_GIT and REACTOR_CPP_GIT (lfc),
#                                     reactor-lf only BENCH_GIT and cargo
#               BENCHES=pingpong,count,...    lf-cpp programs (default: all 22 Savina programs)
#               RS_BENCHES=pingpong,...       lf-rs and reactor-lf programs (default: the 12 of the
#                                             earlier figures; none: no program)
#               LF_COMMIT / REACTOR_CPP_COMMIT / BENCH_COMMIT / REACTOR_RS_COMMIT / CROSSBEAM_COMMIT
#               MAVEN_OPTS_EXTRA (extra mvn arguments, e.g. -Dmaven.repo.local=DIR)
# Output: .build/ next to this script (bin/lfc, cppbench/bin/<Program>, rsbench/bin/<program>,
# lfbench/bin/<program>, VERSIONS).
# Idempotent: finished steps are skipped; delete .build to start over.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
B="$HERE/.build"
LOCK="$HERE/../.bench.lock"

LF_GIT="${1:-${LF_GIT:-}}"
REACTOR_CPP_GIT="${2:-${REACTOR_CPP_GIT:-}}"
BENCH_GIT="${3:-${BENCH_GIT:-${LF_BENCH_GIT:-}}}"
REACTOR_RS_GIT="${4:-${REACTOR_RS_GIT:-}}"
CROSSBEAM_GIT="${5:-${CROSSBEAM_GIT:-}}"
LF_COMMIT="${LF_COMMIT:-d5251718496b6e50fdd0e1c2abb781382bd7a1a6}"          # lfc 0.14.0-SNAPSHOT, 2026-08-16
REACTOR_CPP_COMMIT="${REACTOR_CPP_COMMIT:-836f22e82193ef66101ffbf756c24395e58b083c}"  # = submodule pin of LF_COMMIT
BENCH_COMMIT="${BENCH_COMMIT:-cdb9cf997d08bc86e436b074575df3f173566cea}"     # 2025-06-10
REACTOR_RS_COMMIT="${REACTOR_RS_COMMIT:-e5676548c6cbb7259df5d269cc04fa6e7c6dcd25}"  # = submodule pin of LF_COMMIT
CROSSBEAM_COMMIT="${CROSSBEAM_COMMIT:-9eed66904f969156dedad4eef61ce91d23b9cccb}"    # rev pinned by reactor-rs

log() { echo "[lf/build] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
if [ -n "${LF_MODELS:-}" ]; then MODELS="$LF_MODELS"
elif [ -n "$REACTOR_RS_GIT" ] && [ -n "$CROSSBEAM_GIT" ]; then MODELS="lf-cpp,lf-rs,reactor-lf"
else MODELS="lf-cpp"; fi
has_model() { [[ ",$MODELS," == *",$1,"* ]]; }
NEED=(BENCH_GIT); NEED_LFC=0
for m in ${MODELS//,/ }; do
  case "$m" in
    lf-cpp) NEED+=(LF_GIT REACTOR_CPP_GIT); NEED_LFC=1;;
    lf-rs) NEED+=(LF_GIT REACTOR_CPP_GIT REACTOR_RS_GIT CROSSBEAM_GIT); NEED_LFC=1;;
    reactor-lf) ;;
    *) die "unknown model '$m' in LF_MODELS (lf-cpp, lf-rs, reactor-lf)";;
  esac
done
for v in "${NEED[@]}"; do
  [ -n "${!v}" ] || die "$v not given, needed for $MODELS (usage: build.sh LF_GIT REACTOR_CPP_GIT BENCH_GIT [REACTOR_RS_GIT CROSSBEAM_GIT], or set the env vars)"
  git --git-dir="${!v}" rev-parse -q --verify HEAD >/dev/null || die "$v=${!v} is not a git directory"
done
log "models: $MODELS"

# ---- system packages (idempotent) -------------------------------------------------------------
PKGS="git time python3"
[ "$NEED_LFC" = 0 ] || PKGS="openjdk-17-jdk-headless maven cmake g++ make libgmp-dev $PKGS"
missing=()
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  log "installing: ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

# ---- sources ------------------------------------------------------------------------------------
# resolve COMMIT in GITDIR; falls back to HEAD (with a loud warning) if the git directory lacks it
resolve() {
  local gd="$1" c="$2"
  if git --git-dir="$gd" cat-file -e "$c^{commit}" 2>/dev/null; then echo "$c"
  else log "WARNING: commit $c not in $gd, using its HEAD $(git --git-dir="$gd" rev-parse HEAD)"; git --git-dir="$gd" rev-parse HEAD; fi
}
BE_C=$(resolve "$BENCH_GIT" "$BENCH_COMMIT")
LF_C=""; RC_C=""
mkdir -p "$B/src" "$B/bin"
if [ "$NEED_LFC" = 1 ]; then
  LF_C=$(resolve "$LF_GIT" "$LF_COMMIT")
  RC_C=$(resolve "$REACTOR_CPP_GIT" "$REACTOR_CPP_COMMIT")
  LFD="$B/src/lingua-franca"
  if [ "$(cat "$B/src/.lf-commit" 2>/dev/null)" != "$LF_C+$RC_C" ]; then
    log "extracting lingua-franca $LF_C + reactor-cpp $RC_C"
    rm -rf "$LFD"; mkdir -p "$LFD"
    git --git-dir="$LF_GIT" archive "$LF_C" | tar -x -C "$LFD"
    # the submodule: lfc copies core/src/main/resources/lib/cpp/reactor-cpp into every generated program
    R="$LFD/core/src/main/resources/lib/cpp/reactor-cpp"
    rm -rf "$R"; mkdir -p "$R"
    git --git-dir="$REACTOR_CPP_GIT" archive "$RC_C" | tar -x -C "$R"
    rm -rf "$B/lfc-build" "$B/src/.mwe2-done"; rm -f "$B/src"/.applied-*
    echo "$LF_C+$RC_C" > "$B/src/.lf-commit"
  fi
fi
if [ "$(cat "$B/src/.bench-commit" 2>/dev/null)" != "$BE_C" ] || [ ! -d "$B/src/benchmarks/Rust" ]; then
  log "extracting benchmarks-lingua-franca $BE_C"
  rm -rf "$B/src/benchmarks"; mkdir -p "$B/src/benchmarks"; rm -f "$B/src"/.applied-*
  git --git-dir="$BENCH_GIT" archive "$BE_C" Cpp Rust runner | tar -x -C "$B/src/benchmarks"
  echo "$BE_C" > "$B/src/.bench-commit"
fi
# apply patches/*.patch (-p1, relative to .build/src; none are needed at the pinned commits)
for p in "$HERE"/patches/*.patch; do
  [ -e "$p" ] || continue
  stamp="$B/src/.applied-$(basename "$p")"
  [ -e "$stamp" ] && continue
  log "applying $(basename "$p")"
  patch -d "$B/src" -p1 < "$p"
  touch "$stamp"
done

LFC_VERSION=""
if [ "$NEED_LFC" = 1 ]; then
  read -r -a mvn_extra <<< "${MAVEN_OPTS_EXTRA:-}"
  MVN=(mvn -B -q -Dstyle.color=never "${mvn_extra[@]}")

  # ---- 1. Xtext MWE2 workflow -> core/src-gen (the Gradle task generateXtextLanguage) ------------
  if [ ! -e "$B/src/.mwe2-done" ]; then
    log "MWE2: generating core/src-gen"
    mkdir -p "$B/mwe2"
    cp "$HERE/maven/mwe2/pom.xml" "$B/mwe2/pom.xml"
    (cd "$B/mwe2" && "${MVN[@]}" dependency:build-classpath -Dmdep.outputFile="$B/mwe2/cp.txt" > "$B/mwe2/mvn.log" 2>&1) \
      || { tail -30 "$B/mwe2/mvn.log"; die "resolving the MWE2 classpath failed"; }
    # patched ANTLR 3 generator jar is committed in the repo (avoids the itemis download)
    cp "$LFD/gradle/antlr-generator-3.2.0-patch.jar" "$LFD/core/.antlr-generator-3.2.0-patch.jar"
    (cd "$LFD/core" && flock -s "$LOCK" java -cp "$(cat "$B/mwe2/cp.txt")" \
        org.eclipse.emf.mwe2.launch.runtime.Mwe2Launcher src/main/java/org/lflang/GenerateLinguaFranca.mwe2 \
        -p rootPath="/$LFD" > "$B/mwe2/mwe2.log" 2>&1) || { tail -30 "$B/mwe2/mwe2.log"; die "MWE2 failed"; }
    n=$(find "$LFD/core/src-gen" -name '*.java' | wc -l)
    [ "$n" -gt 100 ] || die "MWE2 produced only $n Java files"
    log "MWE2: $n Java files"
    touch "$B/src/.mwe2-done"
  fi

  # ---- 2. flat Maven build of lfc (core + cli/base + cli/lfc; Java + Kotlin + ANTLR 4) ------------
  JAR="$B/lfc-build/target/lfc-flat-0.14.0-SNAPSHOT.jar"
  if [ ! -s "$JAR" ] || [ ! -d "$B/lfc-build/target/lib" ]; then
    log "Maven: building lfc (downloads ~150 artifacts from Maven Central on a fresh machine)"
    mkdir -p "$B/lfc-build"
    cp "$HERE/maven/lfc/pom.xml" "$B/lfc-build/pom.xml"
    (cd "$B/lfc-build" && flock -s "$LOCK" "${MVN[@]}" package -DskipTests -Dlf.root="$LFD" \
        > "$B/lfc-build/mvn.log" 2>&1) || { tail -40 "$B/lfc-build/mvn.log"; die "Maven build of lfc failed"; }
  fi
  cat > "$B/bin/lfc" <<'EOF'
#!/bin/sh
d=$(cd "$(dirname "$0")/.." && pwd)
exec java -Xss2m -cp "$d/lfc-build/target/lfc-flat-0.14.0-SNAPSHOT.jar:$d/lfc-build/target/lib/*" org.lflang.cli.Lfc "$@"
EOF
  chmod +x "$B/bin/lfc"
  LFC_VERSION=$("$B/bin/lfc" --version)
  log "$LFC_VERSION"

fi

failed=""
if has_model lf-cpp; then
  # ---- 3. C++ Savina programs ---------------------------------------------------------------------
  # short name -> LF file (under Cpp/Savina/src) ; binary = file name without .lf
  declare -A LF_FILE=(
    [pingpong]=micro/PingPong.lf [count]=micro/Counting.lf [threadring]=micro/ThreadRing.lf
    [chameneos]=micro/Chameneos.lf [big]=micro/Big.lf [fjthrput]=micro/Throughput.lf
    [banking]=concurrency/Banking.lf [barber]=concurrency/SleepingBarber.lf
    [bndbuffer]=concurrency/BoundedBuffer.lf [cigsmok]=concurrency/CigaretteSmoker.lf
    [concdict]=concurrency/Dictionary.lf [concsll]=concurrency/SortedList.lf
    [logmap]=concurrency/LogisticMap.lf [philosopher]=concurrency/Philosophers.lf
    [apsp]=parallelism/Apsp.lf [astar]=parallelism/GuidedSearch.lf [filterbank]=parallelism/FilterBank.lf
    [nqueenk]=parallelism/NQueens.lf [piprecision]=parallelism/PiPrecision.lf
    [radixsort]=parallelism/RadixSort.lf [recmatmul]=parallelism/MatMul.lf [trapezoid]=parallelism/Trapezoidal.lf
  )
  ALL="pingpong,count,threadring,chameneos,big,fjthrput,banking,barber,bndbuffer,cigsmok,concdict,concsll,logmap,philosopher,apsp,astar,filterbank,nqueenk,piprecision,radixsort,recmatmul,trapezoid"
  CB="$B/cppbench"
  mkdir -p "$CB"
  if [ ! -d "$CB/src" ] || [ "$(cat "$CB/.bench-commit" 2>/dev/null)" != "$BE_C" ]; then
    rm -rf "$CB/src"; cp -r "$B/src/benchmarks/Cpp/Savina/src" "$CB/src"; echo "$BE_C" > "$CB/.bench-commit"
  fi
  IFS=, read -ra LIST <<< "${BENCHES:-$ALL}"
  for s in "${LIST[@]}"; do
    f="${LF_FILE[$s]:-}"; [ -n "$f" ] || die "unknown benchmark '$s' (known: $ALL)"
    exe="$CB/bin/$(basename "$f" .lf)"
    if [ -x "$exe" ]; then log "$s: $exe exists"; continue; fi
    log "$s: lfc $f (generates C++, cmake Release build with the bundled reactor-cpp, -j2)"
    # lfc runs 'cmake --build --parallel <nproc>'; the box has 2 cores
    if (cd "$CB" && flock -s "$LOCK" "$B/bin/lfc" "src/$f" > "$CB/$s.build.log" 2>&1) && [ -x "$exe" ]; then
      log "$s: ok"
    else
      tail -20 "$CB/$s.build.log" >&2; log "$s: FAILED (log: .build/cppbench/$s.build.log)"; failed="$failed $s"
    fi
  done

fi

# ---- the Rust Savina programs: short name -> LF file (under Rust/Savina/src):binary ----------------
declare -A RS_FILE=(
  [pingpong]=micro/PingPong.lf:ping_pong [count]=micro/Counting.lf:counting [threadring]=micro/ThreadRing.lf:thread_ring
  [chameneos]=micro/Chameneos.lf:chameneos [big]=micro/Big.lf:big [fjthrput]=micro/Throughput.lf:throughput
  [banking]=concurrency/Banking.lf:banking [barber]=concurrency/SleepingBarber.lf:sleeping_barber
  [bndbuffer]=concurrency/BoundedBuffer.lf:bounded_buffer [cigsmok]=concurrency/CigaretteSmoker.lf:cigarette_smoker
  [concdict]=concurrency/Dictionary.lf:dictionary [concsll]=concurrency/SortedList.lf:sorted_list
  [logmap]=concurrency/LogisticMap.lf:logistic_map [philosopher]=concurrency/Philosophers.lf:philosophers
  [astar]=parallelism/GuidedSearch.lf:guided_search [filterbank]=parallelism/FilterBank.lf:filter_bank
  [nqueenk]=parallelism/NQueens.lf:n_queens [piprecision]=parallelism/PiPrecision.lf:pi_precision
  [radixsort]=parallelism/RadixSort.lf:radix_sort [recmatmul]=parallelism/MatMul.lf:mat_mul
  [trapezoid]=parallelism/Trapezoidal.lf:trapezoidal
)
RS_ALL="pingpong,count,threadring,chameneos,big,fjthrput,banking,barber,philosopher,trapezoid,nqueenk,radixsort"
RLIST=()  # RS_BENCHES=none: no Rust program
[ "${RS_BENCHES:-}" = none ] || IFS=, read -ra RLIST <<< "${RS_BENCHES:-$RS_ALL}"
for s in "${RLIST[@]}"; do
  [ -n "${RS_FILE[$s]:-}" ] || die "unknown Rust benchmark '$s' (known: ${!RS_FILE[*]})"
done
if has_model lf-rs || has_model reactor-lf; then
  command -v cargo >/dev/null || die "lf-rs and reactor-lf need cargo (rustup toolchain; measured with rustc 1.95.0)"
fi

# ---- 4. Rust Savina programs on reactor-rs (model lf-rs) -----------------------------------------
RS_C=""; CB_C=""
if has_model lf-rs; then
  RS_C=$(resolve "$REACTOR_RS_GIT" "$REACTOR_RS_COMMIT")
  CB_C=$(resolve "$CROSSBEAM_GIT" "$CROSSBEAM_COMMIT")
  if [ "$(cat "$B/src/.rs-commit" 2>/dev/null)" != "$RS_C+$CB_C" ]; then
    log "extracting reactor-rs $RS_C + crossbeam fork $CB_C"
    rm -rf "$B/src/reactor-rs" "$B/src/crossbeam"; mkdir -p "$B/src/reactor-rs" "$B/src/crossbeam"
    git --git-dir="$REACTOR_RS_GIT" archive "$RS_C" | tar -x -C "$B/src/reactor-rs"
    git --git-dir="$CROSSBEAM_GIT" archive "$CB_C" | tar -x -C "$B/src/crossbeam"
    # reactor-rs takes crossbeam-channel from a git fork: point it at the extracted copy (offline)
    sed -i "s|^crossbeam-channel = .*|crossbeam-channel = { path = \"$B/src/crossbeam/crossbeam-channel\" }|" \
      "$B/src/reactor-rs/Cargo.toml"
    echo "$RS_C+$CB_C" > "$B/src/.rs-commit"
  fi
  RB="$B/rsbench"
  mkdir -p "$RB/bin"
  if [ ! -d "$RB/src" ] || [ "$(cat "$RB/.bench-commit" 2>/dev/null)" != "$BE_C" ]; then
    rm -rf "$RB/src"; cp -r "$B/src/benchmarks/Rust/Savina/src" "$RB/src"; echo "$BE_C" > "$RB/.bench-commit"
  fi
  for s in "${RLIST[@]}"; do
    e="${RS_FILE[$s]}"; f="${e%%:*}"; bin="${e##*:}"
    if [ -x "$RB/bin/$bin" ]; then log "rs $s: exists"; continue; fi
    gen="$RB/src-gen/${f%.lf}"
    log "rs $s: lfc -n $f, then cargo build --release --features cli -j2 (reactor_rt = local reactor-rs, parallel-runtime)"
    if (cd "$RB" && flock -s "$LOCK" "$B/bin/lfc" -n "src/$f" > "$RB/$s.build.log" 2>&1) \
       && sed -i "s|^reactor_rt = .*|reactor_rt = { features = [\"parallel-runtime\"], path = \"$B/src/reactor-rs\" }|" "$gen/Cargo.toml" \
       && { grep -q '^\[workspace\]' "$gen/Cargo.toml" || printf '\n[workspace]\n' >> "$gen/Cargo.toml"; } \
       && (cd "$gen" && CARGO_TARGET_DIR="$RB/target" flock -s "$LOCK" cargo build --release --features cli -j2 >> "$RB/$s.build.log" 2>&1) \
       && cp "$RB/target/release/$bin" "$RB/bin/$bin"; then
      log "rs $s: ok"
    else
      tail -20 "$RB/$s.build.log" >&2; log "rs $s: FAILED (log: .build/rsbench/$s.build.log)"; failed="$failed rs:$s"
    fi
  done
fi

# ---- 5. the same Rust programs on motet-reactor, built by this repository's motet-lf (reactor-lf) --
MOTET_C=""
if has_model reactor-lf; then
  ROOT="$(cd "$HERE/../.." && pwd)"
  MOTET_C="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo '?')"
  [ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ] || MOTET_C="$MOTET_C (with uncommitted changes)"
  log "motet-lf: cargo build --release -p motet-lf"
  (cd "$ROOT" && flock -s "$LOCK" cargo build --release -q -p motet-lf) || die "building motet-lf failed"
  MOTET_LF="$ROOT/target/release/motet-lf"
  LB="$B/lfbench"
  mkdir -p "$LB/bin"
  if [ ! -d "$LB/src" ] || [ "$(cat "$LB/.bench-commit" 2>/dev/null)" != "$BE_C" ]; then
    rm -rf "$LB/src"; cp -r "$B/src/benchmarks/Rust/Savina/src" "$LB/src"; echo "$BE_C" > "$LB/.bench-commit"
  fi
  # motet-lf and the programs change with the repository: every program is rebuilt (cargo skips
  # what is up to date); all share one target directory, $LB/gen/target
  for s in "${RLIST[@]}"; do
    e="${RS_FILE[$s]}"; f="${e%%:*}"; bin="${e##*:}"
    log "reactor-lf $s: motet-lf build $f (release, as its build-type asks)"
    rm -f "$LB/bin/$bin"
    if exe="$(cd "$LB" && flock -s "$LOCK" "$MOTET_LF" --out "$LB/gen" build "src/$f" 2> "$LB/$s.build.log")" \
       && [ -x "$exe" ] && cp "$exe" "$LB/bin/$bin"; then
      log "reactor-lf $s: ok"
    else
      tail -20 "$LB/$s.build.log" >&2; log "reactor-lf $s: FAILED (log: .build/lfbench/$s.build.log)"; failed="$failed reactor-lf:$s"
    fi
  done
fi

{
  [ -z "$LF_C" ] || echo "lingua-franca $LF_C"
  [ -z "$RS_C" ] || echo "reactor-rs $RS_C (crossbeam fork $CB_C); $(rustc --version)"
  [ -z "$MOTET_C" ] || echo "motet (motet-lf, reactor-lf) $MOTET_C; $(rustc --version)"
  [ -z "$RC_C" ] || echo "reactor-cpp $RC_C"
  echo "benchmarks-lingua-franca $BE_C"
  [ -z "$LFC_VERSION" ] || echo "$LFC_VERSION"
  if [ "$NEED_LFC" = 1 ]; then
    java -version 2>&1 | head -1
    g++ --version | head -1
    cmake --version | head -1
  fi
} > "$B/VERSIONS"
[ -z "$failed" ] || die "programs that failed to build:$failed"
log "done; binaries in .build/{cppbench,rsbench,lfbench}/bin"
