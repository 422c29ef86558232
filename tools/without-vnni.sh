#!/usr/bin/env bash
# Run a command as it would run on an AVX2-only CPU: AVX-512 and VNNI hidden from it by
# tools/cpuid-mask.c (see there for how, and what the figures mean). For example
#   bash tools/without-vnni.sh augur bench vision --images 200 --tiers hard --detector density --no-video
# --keep-avx-vnni hides AVX-512 alone, as on the Intel laptop CPUs that have AVX-VNNI without it
# (the CPU must have AVX-VNNI to keep). Needs a C compiler and a CPU whose /proc/cpuinfo lists
# cpuid_fault; says so and exits 3 if not.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage="usage: bash tools/without-vnni.sh [--keep-avx-vnni] COMMAND [ARG ...]"
export AUGUR_CPUID_KEEP_AVX_VNNI=0
if [ "${1:-}" = "--keep-avx-vnni" ]; then
  shift
  if ! grep -qw avx_vnni /proc/cpuinfo 2>/dev/null; then
    echo "without-vnni: this CPU has no AVX-VNNI to keep (no avx_vnni in /proc/cpuinfo)" >&2; exit 3
  fi
  AUGUR_CPUID_KEEP_AVX_VNNI=1
fi
if [ $# -eq 0 ]; then
  echo "$usage" >&2; exit 2
fi
if ! grep -qw cpuid_fault /proc/cpuinfo 2>/dev/null; then
  echo "without-vnni: this CPU or kernel cannot make CPUID fault (no cpuid_fault in /proc/cpuinfo)" >&2
  exit 3
fi
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null; then
  echo "without-vnni: no C compiler ($cc) to build tools/cpuid-mask.c" >&2; exit 3
fi
build="${AUGUR_CACHE:-$HOME/.cache/augur}"        # where augur keeps its other cached files
mkdir -p "$build"
lib="$build/cpuid-mask.so"
if [ ! -f "$lib" ] || [ "$here/cpuid-mask.c" -nt "$lib" ]; then
  "$cc" -O2 -shared -fPIC -Wall -o "$lib.$$" "$here/cpuid-mask.c"
  mv "$lib.$$" "$lib"
fi
export LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}"
exec "$@"
