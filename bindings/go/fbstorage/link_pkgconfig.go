//go:build !fbstorage_no_pkgconfig

package fbstorage

// The library's flags from fbstorage.pc (PKG_CONFIG_PATH=<build>/lib/pkgconfig, or installed).

/*
#cgo pkg-config: fbstorage
*/
import "C"
