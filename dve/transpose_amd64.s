//go:build amd64 && !purego

#include "textflag.h"

// SSE2 kernels for 32x32 tiles of 4-byte cells staged at row stride stRS (transpose_staged.go);
// SSE2 is part of every amd64 CPU, so no feature check is needed. See transpose_amd64.go.

#define RS 32832

// TR4 transposes the 4x4 block of 32-bit cells in a..d (row k in register k) using t0 and t1;
// the rows of the result end up in b, t0, d, a.
#define TR4(a, b, c, d, t0, t1) \
	MOVO       a, t0;  \
	PUNPCKLLQ  b, t0;  \
	PUNPCKHLQ  b, a;   \
	MOVO       c, t1;  \
	PUNPCKLLQ  d, t1;  \
	PUNPCKHLQ  d, c;   \
	MOVO       t0, b;  \
	PUNPCKLQDQ t1, b;  \
	PUNPCKHQDQ t1, t0; \
	MOVO       a, d;   \
	PUNPCKLQDQ c, d;   \
	PUNPCKHQDQ c, a

// BLOCK reads column cells 4i..4i+3 (at R9) of src rows 8k..8k+7 and stores them with ST as
// cells 8k..8k+7 of dst rows 4i..4i+3 (R10..R13): 32 bytes of each, so two BLOCKs fill one
// 64-byte line of each of the four rows.
#define BLOCK(k, ST) \
	MOVOU ((8*k+0)*RS)(R9), X0;   \
	MOVOU ((8*k+1)*RS)(R9), X1;   \
	MOVOU ((8*k+2)*RS)(R9), X2;   \
	MOVOU ((8*k+3)*RS)(R9), X3;   \
	MOVOU ((8*k+4)*RS)(R9), X4;   \
	MOVOU ((8*k+5)*RS)(R9), X5;   \
	MOVOU ((8*k+6)*RS)(R9), X6;   \
	MOVOU ((8*k+7)*RS)(R9), X7;   \
	TR4(X0, X1, X2, X3, X8, X9);   \
	TR4(X4, X5, X6, X7, X10, X11); \
	ST    X1, (32*k)(R10);        \
	ST    X5, (32*k+16)(R10);     \
	ST    X8, (32*k)(R11);        \
	ST    X10, (32*k+16)(R11);    \
	ST    X3, (32*k)(R12);        \
	ST    X7, (32*k+16)(R12);     \
	ST    X0, (32*k)(R13);        \
	ST    X4, (32*k+16)(R13)

// ROWS writes dst rows 4i..4i+3 of one tile with ST: R8 = 32i bytes into d (DI), R9 = column
// cells 4i..4i+3 of the tile's staged row 0, DX = the tile's byte offset in every dst row.
#define ROWS(ST) \
	MOVQ 0(DI)(R8*1), R10;  \
	ADDQ DX, R10;           \
	MOVQ 8(DI)(R8*1), R11;  \
	ADDQ DX, R11;           \
	MOVQ 16(DI)(R8*1), R12; \
	ADDQ DX, R12;           \
	MOVQ 24(DI)(R8*1), R13; \
	ADDQ DX, R13;           \
	BLOCK(0, ST);           \
	BLOCK(1, ST);           \
	BLOCK(2, ST);           \
	BLOCK(3, ST)

// func tile32sse(d *[32]*byte, off uintptr, s *byte, n int, nt bool)
//
// d holds the 32 dst row pointers, off the byte offset of the first tile in every dst row, s
// the first tile's staged cells (row j at s+j*stRS), n the number of tiles; nt selects
// non-temporal stores.
TEXT ·tile32sse(SB), NOSPLIT, $0-33
	MOVQ  d+0(FP), DI
	MOVQ  off+8(FP), DX
	MOVQ  s+16(FP), SI
	MOVQ  n+24(FP), CX
	MOVBQZX nt+32(FP), BX
	TESTQ CX, CX
	JLE   done

tile:
	MOVQ SI, R9
	XORQ R8, R8

rows:
	TESTQ BX, BX
	JNZ   rowsnt
	ROWS(MOVOU)
	JMP   next

rowsnt:
	ROWS(MOVNTO)

next:
	ADDQ $16, R9
	ADDQ $32, R8
	CMPQ R8, $256
	JNE  rows
	ADDQ $128, SI
	ADDQ $128, DX
	DECQ CX
	JNE  tile

	// Non-temporal stores are weakly ordered: fence them before returning.
	TESTQ BX, BX
	JZ    done
	SFENCE

done:
	RET
