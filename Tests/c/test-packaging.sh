#!/usr/bin/env bash
# test-packaging.sh REPO — `make install PREFIX=tmp`, then build the C examples the way a user
# would (installed header + pkg-config) and run upload + list against an emulator. The installed
# library is versioned (SONAME libfbstorage.so.<ABI major>), stripped, its debug info in
# lib/.debug for gdb and valgrind, which both work on it as installed.
set -uo pipefail
repo=$(cd "${1:?usage: test-packaging.sh repo-dir}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
check() {  # name, command...
  local name=$1; shift
  if out=$("$@" 2>&1); then echo "ok   $name"; else echo "FAIL $name"; echo "$out" | tail -20 | sed 's/^/  /'; status=1; fi
}
check "make install PREFIX=\$tmp" make -s -C "$repo" install PREFIX="$tmp"
check "installed: include/fbstorage.h include/fbstorage/*.h lib/libfbstorage.so lib/pkgconfig/fbstorage.pc" \
  test -f "$tmp/include/fbstorage.h" -a -f "$tmp/include/fbstorage/common.h" -a -f "$tmp/lib/libfbstorage.so" -a -f "$tmp/lib/pkgconfig/fbstorage.pc"
export PKG_CONFIG_PATH="$tmp/lib/pkgconfig"
check "pkg-config --modversion fbstorage matches the header" bash -c \
  "test \"\$(pkg-config --modversion fbstorage)\" = \"\$(sed -n 's/^#define FBS_VERSION_STRING \"\\(.*\\)\"/\\1/p' '$tmp/include/fbstorage/common.h')\""
for ex in upload list; do
  check "examples/c/$ex.c builds with -std=c11 -Wall -Wextra -Werror -pedantic and pkg-config" bash -c \
    "cc -std=c11 -Wall -Wextra -Werror -pedantic -o '$tmp/$ex' '$repo/examples/c/$ex.c' \$(pkg-config --cflags --libs fbstorage)"
done
check "installed C++: fbstorage.hpp, firebase/*.h, libfbstorage-cpp.a, fbstorage-cpp.pc" \
  test -f "$tmp/include/fbstorage.hpp" -a -f "$tmp/include/firebase/storage/storage_reference.h" -a -f "$tmp/include/firebase/auth.h" \
    -a -f "$tmp/lib/libfbstorage-cpp.a" -a -f "$tmp/lib/pkgconfig/fbstorage-cpp.pc"
check "examples/cpp/upload.cc builds with -std=c++17 -Wall -Wextra -Werror and pkg-config fbstorage-cpp" bash -c \
  "c++ -std=c++17 -Wall -Wextra -Werror -o '$tmp/upload-cpp' '$repo/examples/cpp/upload.cc' \$(pkg-config --cflags --libs fbstorage-cpp)"
check "the example loads the installed library" bash -c "ldd '$tmp/upload' | grep -q '$tmp/lib/libfbstorage.so'"
lib=$tmp/lib
soname=libfbstorage.so.$(sed -n 's/^#define FBS_ABI_VERSION \([0-9]*\)/\1/p' "$repo/include/fbstorage/common.h")
check "lib/libfbstorage.so is a symlink to $soname, the library's SONAME, which the example needs" bash -c \
  "test \"\$(readlink '$lib/libfbstorage.so')\" = '$soname' && readelf -d '$lib/$soname' | grep -qF 'Library soname: [$soname]' \
   && readelf -d '$tmp/upload' | grep -qF 'Shared library: [$soname]'"
check "installed stripped; its .gnu_debuglink names lib/.debug/$soname.debug, which holds the debug info" bash -c \
  "! readelf -S '$lib/$soname' | grep -qE '\.debug_info|\.symtab' && readelf -p .gnu_debuglink '$lib/$soname' | grep -qF '$soname.debug' \
   && readelf -S '$lib/.debug/$soname.debug' | grep -q '\.debug_info'"
check "gdb finds the library's source lines through the debuglink" bash -c \
  "gdb -batch -nx -ex 'info line fbs_version' '$lib/$soname' 2>&1 | grep -q 'of \"[^\"]*header_constants.c'"
check "valgrind runs the example as is: it reads the debug info, memcheck finds no error" bash -c \
  "valgrind -q --error-exitcode=99 '$tmp/upload' /nonexistent/file --emulator 127.0.0.1:9 > '$tmp/valgrind.out' 2>&1; \
   test \$? = 1 && ! grep -qiE 'debuginfo|dwarf|giving up' '$tmp/valgrind.out' || { cat '$tmp/valgrind.out'; false; }"
head -c 3000000 /dev/urandom > "$tmp/payload.bin"
check "upload example against the emulator (progress, pause, metadata, URL)" bash -c \
  "'$here/with-emulator.sh' bash -c '\"$tmp/upload\" \"$tmp/payload.bin\" --path pkg/payload.bin --quiet > \"$tmp/out\" && \"$tmp/list\" pkg >> \"$tmp/out\"' \
   && grep -q 'size          3000000 bytes' '$tmp/out' && grep -q 'download URL  http://127.0.0.1' '$tmp/out' && grep -q '  pkg/payload.bin' '$tmp/out' || { cat '$tmp/out'; false; }"
# The README's leak check: exit 0 on a correct program, 9 on a program that leaks.
supp=$(pkg-config --variable=valgrind_suppressions fbstorage)
leakcheck="valgrind -q --leak-check=full --error-exitcode=9 --suppressions=$supp"
check "pkg-config names the installed valgrind suppressions" test -f "$supp" -a "$supp" = "$tmp/share/fbstorage/valgrind.supp"
check "valgrind --leak-check=full with the suppressions: the upload example exits 0" bash -c \
  "'$here/with-emulator.sh' $leakcheck '$tmp/upload' '$tmp/payload.bin' --path vg/payload.bin --quiet > '$tmp/vg.out' 2>&1 || { cat '$tmp/vg.out'; false; }"
cat > "$tmp/leaks.c" <<'LEAK'
#include <fbstorage.h>
#include <stdio.h>
#include <stdlib.h>
void *volatile kept;
int main(void) {
    printf("%s\n", fbs_version());   /* the library is loaded and used */
    kept = malloc(4096);
    kept = NULL;                      /* a real leak of the program's own */
    return 0;
}
LEAK
check "the same command still reports a real leak (exit 9)" bash -c \
  "cc -O0 -o '$tmp/leaks' '$tmp/leaks.c' \$(pkg-config --cflags --libs fbstorage) && { $leakcheck '$tmp/leaks' > '$tmp/leak.out' 2>&1; test \$? = 9 && grep -q 'definitely lost' '$tmp/leak.out'; } || { cat '$tmp/leak.out'; false; }"
check "upload example exits non-zero on failure (missing file)" bash -c "! '$tmp/upload' /nonexistent/file --emulator 127.0.0.1:9"
exit $status
