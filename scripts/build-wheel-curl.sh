#!/usr/bin/env bash
# build-wheel-curl.sh PREFIX — a libcurl for the wheel: Debian's own source of the installed
# libcurl4 (its security patches included, so the same ABI as the headers the library was
# compiled against), configured for HTTP(S) over OpenSSL only. Debian's libcurl4 also links
# librtmp (and through it GnuTLS, nettle, gmp, p11-kit, libunistring), LDAP, SASL, Kerberos,
# libssh2, libpsl, libidn2, brotli and zstd: vendored by auditwheel they made the wheel 10 MB.
# The library never uses them (http/https, HTTP/1.1, no compression asked for).
# The source comes through apt with a private sources list and lists directory under PREFIX,
# so the machine's apt configuration is left alone.
set -euo pipefail
prefix=$(realpath -m "${1:?usage: build-wheel-curl.sh PREFIX}")
work=$prefix/src
sudo=$([ "$(id -u)" = 0 ] || echo sudo)
need=()
for package in dpkg-dev libssl-dev make gcc; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || need+=("$package")
done
if [ ${#need[@]} -gt 0 ]; then
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
. /etc/os-release
version=$(dpkg-query -W -f='${source:Version}' libcurl4)
rm -rf "$work" && mkdir -p "$work/lists/partial"
cat > "$work/sources.list" <<SOURCES
deb-src http://deb.debian.org/debian $VERSION_CODENAME main
deb-src http://deb.debian.org/debian $VERSION_CODENAME-updates main
deb-src http://deb.debian.org/debian-security $VERSION_CODENAME-security main
SOURCES
apt=(apt-get -qq -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root)
"${apt[@]}" update
(cd "$work" && "${apt[@]}" source --download-only "curl=$version" >/dev/null)
tar -xzf "$work"/curl_*.orig.tar.gz -C "$work"
tar -xJf "$work"/curl_*.debian.tar.xz -C "$work"
source_dir=$(find "$work" -maxdepth 1 -type d -name 'curl-*' | head -1)
# Debian's patches but its GnuTLS and NSS flavors' (which rename the library).
grep -v -e '^#' -e '^$' -e 90_gnutls -e 99_nss "$work/debian/patches/series" | while read -r patch; do
  patch -d "$source_dir" -p1 -s < "$work/debian/patches/$patch"
done
cd "$source_dir"
# Versioned symbols as Debian's (CURL_OPENSSL_4): libfbstorage.so was linked against those.
./configure --quiet --prefix="$prefix" --disable-static --enable-shared --enable-versioned-symbols --with-openssl \
  --without-nghttp2 --without-libidn2 --without-libpsl --without-librtmp --without-libssh2 \
  --without-brotli --without-zstd --without-gssapi --disable-ldap --disable-ldaps --disable-rtsp \
  --disable-dict --disable-telnet --disable-tftp --disable-pop3 --disable-imap --disable-smtp \
  --disable-gopher --disable-mqtt --disable-smb --disable-ftp --disable-file --disable-manual \
  --disable-ntlm --disable-unix-sockets \
  --with-ca-bundle=/etc/ssl/certs/ca-certificates.crt --with-ca-path=/etc/ssl/certs
make --quiet -j"$(nproc)" -C lib >/dev/null
make --quiet -C lib install >/dev/null
echo "build-wheel-curl: $(ls "$prefix"/lib/libcurl.so.4*) (curl $version: http and https over OpenSSL)"
