# common.sh — sourced by run.sh and variant-unit-test.sh after they set `here` (this folder):
# the repository, the library folder (FBS_LIBDIR), a work folder removed on exit, and
# build_sdk_test OUTPUT SOURCE [COMPILER FLAGS...], which compiles one of the SDK's GoogleTest
# sources (its warnings off: the source is not ours) against fbstorage's headers and
# libfbstorage-cpp.a (`make cpp` first).
repo=$(cd "$here/../../.." && pwd)
libdir=${FBS_LIBDIR:-$repo/build/lib}
[ -f /usr/include/gmock/gmock.h ] || { echo "GoogleMock is missing: apt-get install libgmock-dev"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_sdk_test() {
  local output=$1 source=$2
  shift 2
  ${CXX:-g++} -std=c++17 -w -O1 "$@" -I"$repo/include" -o "$output" "$source" \
    "$repo/build/lib/libfbstorage-cpp.a" -L"$libdir" -Wl,-rpath,"$libdir" -lfbstorage -lgmock_main -lgmock -lgtest -lpthread
}
