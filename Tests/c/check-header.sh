#!/usr/bin/env bash
# check-header.sh INCLUDE_DIR LIB_DIR — the header compiles cleanly as C11 and C++11 (also
# linked and run from C++: extern "C" works), the library's version matches the header's, and
# fbs_constant() lists every integer constant the header defines (bindings check theirs with it).
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
# Each area's header compiles on its own (it includes what it needs), as C and as C++.
for header in "$inc"/fbstorage/*.h; do
  name=${header#"$inc"/}
  run "$name compiles alone as c11 and c++17 -Wall -Wextra -Werror -pedantic" bash -c \
    "gcc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -x c '$header' && g++ -std=c++17 -Wall -Wextra -Werror -pedantic -fsyntax-only -x c++ '$header'"
done
run "C program: fbs_version() == FBS_VERSION_STRING, fbs_abi_version() == FBS_ABI_VERSION" \
  bash -c "gcc -std=c11 -I'$inc' '$tmp/version.c' -L'$lib' -Wl,-rpath,'$lib' -lfbstorage -o '$tmp/vc' && '$tmp/vc'"
run "C++ program links and runs (extern \"C\")" \
  bash -c "g++ -std=c++11 -I'$inc' '$tmp/version.cpp' -L'$lib' -Wl,-rpath,'$lib' -lfbstorage -o '$tmp/vcpp' && '$tmp/vcpp'"
cat > "$tmp/constants.c" <<'C'
#include <fbstorage.h>
#include <stdio.h>
int main(void) {
    const char *name;
    for (size_t i = 0; (name = fbs_constant(i, NULL)) != NULL; i++) puts(name);
    return 0;
}
C
# The header's integer constants: macros whose value is not a string, and enumerators.
{ gcc -E -dM -x c "$inc/fbstorage.h" | sed -nE 's/^#define (FBS_[A-Z0-9_]+) [^"].*/\1/p'
  gcc -E -P -x c "$inc/fbstorage.h" | grep -oE '\bFBS_[A-Z0-9_]+\s*=' | sed -E 's/\s*=$//'
} | sort -u > "$tmp/declared"
run "fbs_constant() lists the header's $(wc -l < "$tmp/declared") integer constants, no more" \
  bash -c "gcc -std=c11 -I'$inc' '$tmp/constants.c' -L'$lib' -Wl,-rpath,'$lib' -lfbstorage -o '$tmp/constants' \
           && '$tmp/constants' | sort | diff '$tmp/declared' -"
exit $status
