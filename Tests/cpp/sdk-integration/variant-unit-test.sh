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
. "$here/common.sh"
{
  echo '#define DEATHTEST_SIGABRT ""'
  sed -e 's|"app/src/include/firebase/variant.h"|"firebase/variant.h"|' \
      -e 's|= *Variant::kInternalTypeSmallString;|= Variant::kTypeMutableString;|' \
      -e 's|^\( *\)Variant::kInternalTypeSmallString;|\1Variant::kTypeMutableString;|' \
      -e 's|return v\.type_;|return v.type();|' \
      "$sdk/app/tests/variant_test.cc"
} > "$work/variant_test.cc"
build_sdk_test "$work/variant_test" "$work/variant_test.cc"
"$work/variant_test"
