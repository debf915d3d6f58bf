//go:build amd64 && !purego

package dve

// The 4-byte tile kernels in SSE2 assembly (transpose_amd64.s), with the plain-Go tile32d kept
// as the kernel of every other platform and of the purego build tag, and as the reference the
// tests hold these to byte for byte.

// tile32sse transposes n 32x32 tiles of 4-byte cells staged at s (row j at s+j*stRS) into the
// dst rows d[i]+off, 128 bytes per tile and row, with 16-byte stores: non-temporal ones
// (MOVNTDQ, then an SFENCE) if nt, which needs every d[i]+off 16-byte aligned.
//
//go:noescape
func tile32sse(d *[32]*byte, off uintptr, s *byte, n int, nt bool)

const haveTile32Asm = true
