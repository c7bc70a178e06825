#!/usr/bin/env bash
# variant-unit-test.sh SDK_CHECKOUT — compiles the Firebase C++ SDK's own Variant unit test
# (SDK_CHECKOUT/app/tests/variant_test.cc) against fbstorage's firebase/variant.h and
# libfbstorage-cpp.a, and runs it. Two edits, made on a copy: the include path of the header, and
# the test's VariantInternal, which reads the SDK's private members (the inline small-string
# type): here it reports type(), and a small string is a mutable string (see variant.h).
# A manual check (the SDK's source is not part of this repository): `make cpp` first; needs
# GoogleTest and GoogleMock (libgtest-dev, libgmock-dev). FBS_LIBDIR as for make test-cpp.
# Exits with the test's status.
set -euo pipefail
sdk=${1:?usage: variant-unit-test.sh FIREBASE_CPP_SDK_CHECKOUT}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
libdir=${FBS_LIBDIR:-$repo/build/lib}
[ -f /usr/include/gmock/gmock.h ] || { echo "GoogleMock is missing: apt-get install libgmock-dev"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  echo '#define DEATHTEST_SIGABRT ""'
  sed -e 's|"app/src/include/firebase/variant.h"|"firebase/variant.h"|' \
      -e 's|= *Variant::kInternalTypeSmallString;|= Variant::kTypeMutableString;|' \
      -e 's|^\( *\)Variant::kInternalTypeSmallString;|\1Variant::kTypeMutableString;|' \
      -e 's|return v\.type_;|return v.type();|' \
      "$sdk/app/tests/variant_test.cc"
} > "$work/variant_test.cc"
${CXX:-g++} -std=c++17 -w -O1 -I"$repo/include" -o "$work/variant_test" "$work/variant_test.cc" \
  "$repo/build/lib/libfbstorage-cpp.a" -L"$libdir" -Wl,-rpath,"$libdir" -lfbstorage -lgmock_main -lgmock -lgtest -lpthread
"$work/variant_test"
