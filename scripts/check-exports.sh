#!/usr/bin/env bash
# check-exports.sh SO HEADER — the .so exports exactly the fbs_ functions the header declares,
# nothing else, and does not depend on the Swift runtime's shared libraries.
set -euo pipefail
so=${1:?usage: check-exports.sh libfbstorage.so fbstorage.h}
header=${2:?usage: check-exports.sh libfbstorage.so fbstorage.h}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Declared: function names followed by "(" in the header (comments stripped, typedefs excluded).
gcc -E -P -x c "$header" 2>/dev/null \
  | tr '\n' ' ' | sed 's/;/;\n/g' | grep -v '^\s*typedef' \
  | grep -oE '\bfbs_[a-z0-9_]+\s*\(' | sed 's/\s*($//' | sort -u > "$tmp/declared"
# Exported: defined dynamic text symbols starting with fbs_.
nm -D --defined-only "$so" | awk '$2 ~ /^[TtWi]$/ && $3 ~ /^fbs_/ {print $3}' | sort -u > "$tmp/exported"

status=0
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then echo "FAIL declared in $header but not exported by $so:"; echo "$missing" | sed 's/^/  /'; status=1; fi
if [ -n "$extra" ]; then echo "FAIL exported by $so but not declared in $header:"; echo "$extra" | sed 's/^/  /'; status=1; fi
[ $status = 0 ] && echo "ok   exports: $(wc -l < "$tmp/declared") functions declared and exported, both ways"

# Nothing else is global: Swift symbols exported from two libraries in one process could clash.
others=$(nm -D --defined-only "$so" | awk '$2 ~ /^[A-Z]$/ && $3 !~ /^fbs_/ {print $3}')
if [ -n "$others" ]; then
  echo "FAIL $so exports $(echo "$others" | wc -l) symbols besides fbs_*, e.g.:"; echo "$others" | head -5 | sed 's/^/  /'; status=1
else
  echo "ok   no global symbol besides fbs_*"
fi

if ldd "$so" | grep -q 'libswift\|libFoundation\|libdispatch\|libBlocksRuntime'; then
  echo "FAIL $so needs Swift runtime libraries:"; ldd "$so" | grep 'libswift\|libFoundation\|libdispatch\|libBlocksRuntime' | sed 's/^/  /'; status=1
else
  echo "ok   ldd: no libswift*/Foundation/dispatch dependency"
fi
exit $status
