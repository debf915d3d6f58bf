//go:build linux

package mem

import (
	"syscall"
	"unsafe"
)

// hugePage is the transparent huge page size of x86-64 and arm64 Linux.
const hugePage = 2 << 20

// hostAlloc returns n zero bytes for a bank's host storage. With huge, banks of at least one
// huge page are placed on a 2 MiB boundary and marked MADV_HUGEPAGE, so that with transparent
// huge pages in "madvise" mode (the common default) the kernel backs them with 2 MiB pages (see
// Options.HugePages). Where the advice is refused (no THP, "never") the memory is the same, only
// slower.
func hostAlloc(n int, huge bool) []byte {
	if !huge || n < hugePage {
		return make([]byte, n)
	}
	raw := make([]byte, n+hugePage)
	off := (hugePage - int(uintptr(unsafe.Pointer(&raw[0]))%hugePage)) % hugePage
	b := raw[off : off+n : off+n]
	span := (n + hugePage - 1) / hugePage * hugePage
	if off+span > len(raw) {
		span = len(raw) - off
	}
	_ = syscall.Madvise(raw[off:off+span], madvHugepage)
	return b
}

// madvHugepage is MADV_HUGEPAGE (asm-generic/mman-common.h).
const madvHugepage = 14

// hugeAligned: hostAlloc places huge banks on a 2 MiB boundary here.
const hugeAligned = true
