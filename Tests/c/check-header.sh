#!/usr/bin/env bash
# check-header.sh INCLUDE_DIR LIB_DIR — the header compiles cleanly as C11 and C++11 (also
# linked and run from C++: extern "C" works), and the library's version matches the header's.
set -euo pipefail
inc=${1:?usage: check-header.sh include-dir lib-dir}
lib=${2:?usage: check-header.sh include-dir lib-dir}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
cat > "$tmp/version.c" <<'C'
#include <fbstorage.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    int ok = strcmp(fbs_version(), FBS_VERSION_STRING) == 0 && fbs_abi_version() == FBS_ABI_VERSION;
    printf("library %s (ABI %d), header %s (ABI %d)\n", fbs_version(), fbs_abi_version(),
           FBS_VERSION_STRING, FBS_ABI_VERSION);
    fbs_storage *s = NULL;
    ok = ok && fbs_storage_new("b", &s) == FBS_OK;
    fbs_storage_free(s);
    return ok ? 0 : 1;
}
C
cp "$tmp/version.c" "$tmp/version.cpp"
run() {  # name, command...
  local name=$1; shift
  if out=$("$@" 2>&1); then echo "ok   $name"; else echo "FAIL $name"; echo "$out" | sed 's/^/  /'; status=1; fi
}
for std in c11 c17; do
  run "header compiles as $std -Wall -Wextra -Werror -pedantic" \
    gcc -std=$std -Wall -Wextra -Werror -pedantic -I"$inc" -c "$tmp/version.c" -o "$tmp/v-$std.o"
done
for std in c++11 c++17; do
  run "header compiles as $std -Wall -Wextra -Werror -pedantic" \
    g++ -std=$std -Wall -Wextra -Werror -pedantic -I"$inc" -c "$tmp/version.cpp" -o "$tmp/v-$std.o"
done
run "C program: fbs_version() == FBS_VERSION_STRING, fbs_abi_version() == FBS_ABI_VERSION" \
  bash -c "gcc -std=c11 -I'$inc' '$tmp/version.c' -L'$lib' -Wl,-rpath,'$lib' -lfbstorage -o '$tmp/vc' && '$tmp/vc'"
run "C++ program links and runs (extern \"C\")" \
  bash -c "g++ -std=c++11 -I'$inc' '$tmp/version.cpp' -L'$lib' -Wl,-rpath,'$lib' -lfbstorage -o '$tmp/vcpp' && '$tmp/vcpp'"
exit $status
