#!/usr/bin/env bash
# Rebuild the Verona BoC Savina ports (ic-slurp/verona-benchmarks, the OOPSLA 2023 artifact) offline.
#
# usage: build.sh [BENCH_GIT [VERONA_RT_GIT [SNMALLOC_GIT [CMAKE_UTILS_GIT]]]]
#   Each argument is a git directory (a bare mirror or a checkout's .git) of, in order:
#     ic-slurp/verona-benchmarks, microsoft/verona-rt, microsoft/snmalloc, mjp41/cmake_utils.
#   Instead of arguments, the same can be given as environment variables:
#     VERONA_BENCH_GIT, VERONA_RT_GIT, SNMALLOC_GIT, CMAKE_UTILS_GIT   (arguments win).
# Other environment knobs:
#   RT2023=1       also build the paper's pinned runtime (verona-rt@19c01dff + snmalloc@d8f174c7) into .build/rt2023
#   RT2026=0       skip the main build (current runtime verona-rt@c4c53e82 + snmalloc@3fca4c87)
#   JOBS=2         ninja parallelism (keep <= 2 on the shared 2-core machine)
#   CXX=g++        C++ compiler (measured with Debian 12's g++ 12.2)
#   BENCH_COMMIT, RT_COMMIT, SNMALLOC_COMMIT, CMAKE_UTILS_COMMIT, RT2023_COMMIT, SNMALLOC2023_COMMIT
#                  override the pinned commits (see README.md)
# Output: .build/bin/savina-rt2026 (and savina-rt2023), .build/<variant>/BUILD-INFO.
# The compile holds `flock -s ../.bench.lock` so that other peers' timed runs are not disturbed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$HERE/.build"
LOCK="$HERE/../.bench.lock"

BENCH_GIT="${1:-${VERONA_BENCH_GIT:-}}"
RT_GIT="${2:-${VERONA_RT_GIT:-}}"
SN_GIT="${3:-${SNMALLOC_GIT:-}}"
CU_GIT="${4:-${CMAKE_UTILS_GIT:-}}"

BENCH_COMMIT="${BENCH_COMMIT:-4238a9e0217495af95caf361fe9829bb82cca581}"        # ic-slurp/verona-benchmarks main, 2023-07-13
RT_COMMIT="${RT_COMMIT:-c4c53e82a145fba09ab24999f6ad4ac42ed7c77b}"              # microsoft/verona-rt, 2026-06-23 ("rt2026")
SNMALLOC_COMMIT="${SNMALLOC_COMMIT:-3fca4c8732b14614163f06330cb0e3148a017d0c}"  # pinned by verona-rt@c4c53e82
CMAKE_UTILS_COMMIT="${CMAKE_UTILS_COMMIT:-28490f85c91053dc501f96a7f8224e8191156ec9}" # pinned by verona-rt@c4c53e82
RT2023_COMMIT="${RT2023_COMMIT:-19c01dff5e6abc60d8c56998c66fbfa8f2f9be81}"      # pinned by the artifact ("rt2023")
SNMALLOC2023_COMMIT="${SNMALLOC2023_COMMIT:-d8f174c717500a834229da5f1f6bfe888442e81a}" # pinned by verona-rt@19c01dff

JOBS="${JOBS:-2}"
CXX="${CXX:-g++}"
RT2023="${RT2023:-0}"
RT2026="${RT2026:-1}"

die() { echo "build.sh: $*" >&2; exit 1; }

if [ -z "$BENCH_GIT" ] || [ -z "$RT_GIT" ] || [ -z "$SN_GIT" ]; then
  die "need the git directories of ic-slurp/verona-benchmarks, microsoft/verona-rt, microsoft/snmalloc (and mjp41/cmake_utils for rt2026); see the header of this script"
fi
[ "$RT2026" = 0 ] || [ -n "$CU_GIT" ] || die "rt2026 needs CMAKE_UTILS_GIT (mjp41/cmake_utils)"

# ---- system packages (idempotent) -------------------------------------------------------------
need_pkgs=()
for p in cmake ninja-build g++ git patch time python3 util-linux; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_pkgs+=("$p")
done
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  echo "build.sh: installing ${need_pkgs[*]}" >&2
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need_pkgs[@]}"
fi

# ---- sources ------------------------------------------------------------------------------------
have_commit() { git --git-dir="$1" cat-file -e "$2^{commit}" 2>/dev/null; }
extract() { # extract GITDIR COMMIT DEST
  local gd="$1" c="$2" dest="$3"
  have_commit "$gd" "$c" || die "commit $c not in $gd (use a git directory that holds it, or override the *_COMMIT variable with the closest commit present)"
  rm -rf "$dest"; mkdir -p "$dest"
  git --git-dir="$gd" archive --format=tar "$c" | tar -x -C "$dest"
}

mkdir -p "$BUILD/src" "$BUILD/bin"
touch "$LOCK"

build_variant() { # build_variant NAME RT_COMMIT SNMALLOC_COMMIT WITH_CMAKE_UTILS(0/1) APPLY_PATCHES(0/1)
  local name="$1" rtc="$2" snc="$3" with_cu="$4" patches="$5"
  local src="$BUILD/src" bdir="$BUILD/$name"
  local bench="$src/verona-benchmarks-$name" rt="$src/verona-rt-${rtc:0:12}" sn="$src/snmalloc-${snc:0:12}"
  echo "build.sh: [$name] extracting sources" >&2
  extract "$BENCH_GIT" "$BENCH_COMMIT" "$bench"
  extract "$RT_GIT" "$rtc" "$rt"
  extract "$SN_GIT" "$snc" "$sn"
  local extra=()
  if [ "$with_cu" = 1 ]; then
    local cu="$src/cmake_utils-${CMAKE_UTILS_COMMIT:0:12}"
    extract "$CU_GIT" "$CMAKE_UTILS_COMMIT" "$cu"
    extra+=("-DFETCHCONTENT_SOURCE_DIR_CMAKE_UTILS=$cu")
  fi
  if [ "$patches" = 1 ]; then
    for p in "$HERE"/patches/*.patch; do
      echo "build.sh: [$name] applying $(basename "$p")" >&2
      patch -d "$bench" -p1 --forward --quiet < "$p"
    done
  fi
  rm -rf "$bdir"
  (
    # shared lock while compiling: exclusive timed runs of any peer wait for us, we wait for them
    exec 9>>"$LOCK"
    flock -s 9
    echo "build.sh: [$name] configuring" >&2
    cmake -S "$bench" -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$CXX" \
      -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
      -DFETCHCONTENT_SOURCE_DIR_VERONA="$rt" \
      -DFETCHCONTENT_SOURCE_DIR_SNMALLOC="$sn" \
      "${extra[@]}" > "$BUILD/$name-cmake.log" 2>&1 || { tail -40 "$BUILD/$name-cmake.log" >&2; exit 1; }
    echo "build.sh: [$name] compiling (ninja -j$JOBS savina)" >&2
    ninja -C "$bdir" -j "$JOBS" savina > "$BUILD/$name-ninja.log" 2>&1 || { tail -60 "$BUILD/$name-ninja.log" >&2; exit 1; }
  )
  cp "$bdir/savina/savina" "$BUILD/bin/savina-$name"
  {
    echo "variant=$name"
    echo "verona-benchmarks=$BENCH_COMMIT"
    echo "verona-rt=$rtc"
    echo "snmalloc=$snc"
    [ "$with_cu" = 1 ] && echo "cmake_utils=$CMAKE_UTILS_COMMIT"
    if [ "$patches" = 1 ]; then
      echo "patches=$(cd "$HERE/patches" && find . -name '*.patch' -printf '%f ' | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')"
    else
      echo "patches=none"
    fi
    echo "cxx=$("$CXX" --version | head -1)"
    echo "cmake=$(cmake --version | head -1)"
    echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } > "$bdir/BUILD-INFO"
  echo "build.sh: [$name] done: .build/bin/savina-$name" >&2
}

[ "$RT2026" = 0 ] || build_variant rt2026 "$RT_COMMIT" "$SNMALLOC_COMMIT" 1 1
[ "$RT2023" = 1 ] && build_variant rt2023 "$RT2023_COMMIT" "$SNMALLOC2023_COMMIT" 0 0
"$BUILD/bin/savina-rt2026" --list >/dev/null 2>&1 || [ "$RT2026" = 0 ] || die "built binary does not run"
echo "build.sh: ok" >&2
