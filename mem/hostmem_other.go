//go:build !linux

package mem

// hostAlloc returns n zero bytes for a bank's host storage (see hostmem_linux.go).
func hostAlloc(n int, _ bool) []byte { return make([]byte, n) }

// hugeAligned: hostAlloc does not align banks here.
const hugeAligned = false
