//go:build amd64 && !purego

package dve

// tile32sse (transpose_amd64.s) transposes n 32x32 tiles of 4-byte cells from the src rows s[j]
// into the dst rows d[i], from byte offset off of every row, 128 bytes per tile and row, with
// 16-byte stores: non-temporal ones (MOVNTDQ, then an SFENCE) if nt, which needs every d[i]+off
// 16-byte aligned. The caller checks that every row holds off+128n bytes (tileAsm).
//
//go:noescape
func tile32sse(d, s *[32]*byte, off uintptr, n int, nt bool)

// tile16sse is tile32sse for 2-byte cells (64 bytes per tile and row).
//
//go:noescape
func tile16sse(d, s *[32]*byte, off uintptr, n int, nt bool)

// tile8sse is tile32sse for 1-byte cells (32 bytes per tile and row).
//
//go:noescape
func tile8sse(d, s *[32]*byte, off uintptr, n int, nt bool)

const haveTile32Asm = true

// copyNT copies n bytes from src to dst with non-temporal stores (MOVNTDQ) and an SFENCE; n is
// a multiple of 64 and dst 16-byte aligned (copyOut checks both).
//
//go:noescape
func copyNT(dst, src *byte, n int)
