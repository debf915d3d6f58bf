//go:build !amd64 || purego

package dve

const haveTile32Asm = false

func tile32sse(d, s *[32]*byte, off uintptr, n int, nt bool) {
	panic("dve: no assembly kernel in this build")
}

func copyNT(dst, src *byte, n int) { panic("dve: no assembly kernel in this build") }

func tile16sse(d, s *[32]*byte, off uintptr, n int, nt bool) {
	panic("dve: no assembly kernel in this build")
}

func tile8sse(d, s *[32]*byte, off uintptr, n int, nt bool) {
	panic("dve: no assembly kernel in this build")
}
