//go:build fbstorage_no_pkgconfig

package fbstorage

// Without pkg-config: the library from CGO_LDFLAGS ("-L<dir> -Wl,-rpath,<dir>") or the system.

/*
#cgo LDFLAGS: -lfbstorage
*/
import "C"
