//go:build amd64 && !purego

#include "textflag.h"

// The StreamTranspose kernels (transpose_amd64.go) for 4-, 2- and 1-byte cells in SSE2, which
// every amd64 CPU has, so no feature check is needed: blocks of cells are transposed with PUNPCK,
// the src rows are read in place (a pointer per row) with software prefetch PD bytes ahead, the
// dst rows are written with 16-byte stores, non-temporal ones on request.

// PD is how far ahead of the tile being read the src lines are prefetched (measured:
// 512 and 2048 bytes equal within noise, 4096 as slow as none at full size).
#define PD 512

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

// LOAD loads 16 bytes at R9 of src row j (its pointer at s[j], s in SI) into X.
#define LOAD(j, X) \
	MOVQ  ((j)*8)(SI), AX; \
	MOVOU (AX)(R9*1), X

// BLOCK reads column cells 4i..4i+3 (R9 = their byte offset) of src rows 8k..8k+7 and stores
// them with ST as cells 8k..8k+7 of dst rows 4i..4i+3 (R10..R13 at the tile): 32 bytes of each,
// so two BLOCKs fill one 64-byte line of each of the four rows.
#define BLOCK(k, ST) \
	LOAD(8*k+0, X0);               \
	LOAD(8*k+1, X1);               \
	LOAD(8*k+2, X2);               \
	LOAD(8*k+3, X3);               \
	LOAD(8*k+4, X4);               \
	LOAD(8*k+5, X5);               \
	LOAD(8*k+6, X6);               \
	LOAD(8*k+7, X7);               \
	TR4(X0, X1, X2, X3, X8, X9);   \
	TR4(X4, X5, X6, X7, X10, X11); \
	ST    X1, (32*k)(R10);         \
	ST    X5, (32*k+16)(R10);      \
	ST    X8, (32*k)(R11);         \
	ST    X10, (32*k+16)(R11);     \
	ST    X3, (32*k)(R12);         \
	ST    X7, (32*k+16)(R12);      \
	ST    X0, (32*k)(R13);         \
	ST    X4, (32*k+16)(R13)

// ROWS writes dst rows 4i..4i+3 of one tile with ST: R8 = 32i bytes into d (DI) and s (SI),
// DX = the tile's byte offset in every row, R9 = DX+16i.
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

// PREFETCH2 prefetches the two lines PD bytes past the tile (DX) of src row 4i+r (R8 = 32i).
#define PREFETCH2(r) \
	MOVQ       ((r)*8)(SI)(R8*1), AX; \
	PREFETCHT0 PD(AX)(DX*1);        \
	PREFETCHT0 (PD+64)(AX)(DX*1)

// TRB8 transposes 8 rows (X0..X7) of 16 byte cells using X8..X11: column pair m (cells 2m and
// 2m+1 of rows 0..7, 8 bytes each) ends up in X0, X2, X1, X6, X8, X9, X3, X11 for m = 0..7.
#define TRB8 \
	MOVO      X0, X8;   \
	PUNPCKLBW X1, X0;   \
	PUNPCKHBW X1, X8;   \
	MOVO      X2, X9;   \
	PUNPCKLBW X3, X2;   \
	PUNPCKHBW X3, X9;   \
	MOVO      X4, X10;  \
	PUNPCKLBW X5, X4;   \
	PUNPCKHBW X5, X10;  \
	MOVO      X6, X11;  \
	PUNPCKLBW X7, X6;   \
	PUNPCKHBW X7, X11;  \
	MOVO      X0, X1;   \
	PUNPCKLWL X2, X0;   \
	PUNPCKHWL X2, X1;   \
	MOVO      X8, X3;   \
	PUNPCKLWL X9, X8;   \
	PUNPCKHWL X9, X3;   \
	MOVO      X4, X5;   \
	PUNPCKLWL X6, X4;   \
	PUNPCKHWL X6, X5;   \
	MOVO      X10, X7;  \
	PUNPCKLWL X11, X10; \
	PUNPCKHWL X11, X7;  \
	MOVO      X0, X2;   \
	PUNPCKLLQ X4, X0;   \
	PUNPCKHLQ X4, X2;   \
	MOVO      X1, X6;   \
	PUNPCKLLQ X5, X1;   \
	PUNPCKHLQ X5, X6;   \
	MOVO      X8, X9;   \
	PUNPCKLLQ X10, X8;  \
	PUNPCKHLQ X10, X9;  \
	MOVO      X3, X11;  \
	PUNPCKLLQ X7, X3;   \
	PUNPCKHLQ X7, X11

// LOAD8 loads the 16 cells at R9 of src rows j..j+7 into X0..X7.
#define LOAD8(j) \
	LOAD(j+0, X0); \
	LOAD(j+1, X1); \
	LOAD(j+2, X2); \
	LOAD(j+3, X3); \
	LOAD(j+4, X4); \
	LOAD(j+5, X5); \
	LOAD(j+6, X6); \
	LOAD(j+7, X7)

// PAIR8 writes column pair m of rows j..j+15 (first 8 rows saved at 16m(SP), last 8 in X) as 16
// bytes at h of dst rows c+2m and c+2m+1 (R8 = 8c bytes into d), with ST.
#define PAIR8(m, X, h, ST) \
	MOVOU      (16*m)(SP), X12;              \
	MOVO       X12, X13;                     \
	PUNPCKLQDQ X, X12;                       \
	PUNPCKHQDQ X, X13;                       \
	MOVQ       ((2*m)*8)(DI)(R8*1), AX;      \
	ST         X12, (h)(AX)(DX*1);           \
	MOVQ       ((2*m+1)*8)(DI)(R8*1), AX;    \
	ST         X13, (h)(AX)(DX*1)

// HALF8 transposes cells c..c+15 (R9) of src rows j..j+15 into bytes j..j+15 of dst rows
// c..c+15 of the tile (DX), with ST.
#define HALF8(j, ST) \
	LOAD8(j);                 \
	TRB8;                     \
	MOVOU X0, 0(SP);          \
	MOVOU X2, 16(SP);         \
	MOVOU X1, 32(SP);         \
	MOVOU X6, 48(SP);         \
	MOVOU X8, 64(SP);         \
	MOVOU X9, 80(SP);         \
	MOVOU X3, 96(SP);         \
	MOVOU X11, 112(SP);       \
	LOAD8(j+8);               \
	TRB8;                     \
	PAIR8(0, X0, j, ST);      \
	PAIR8(1, X2, j, ST);      \
	PAIR8(2, X1, j, ST);      \
	PAIR8(3, X6, j, ST);      \
	PAIR8(4, X8, j, ST);      \
	PAIR8(5, X9, j, ST);      \
	PAIR8(6, X3, j, ST);      \
	PAIR8(7, X11, j, ST)

// ARGS loads the arguments of tile32sse, tile16sse and tile8sse (d: DI, s: SI, off: DX, n: CX, nt: BX)
// and sets the flags for n <= 0.
#define ARGS \
	MOVQ    d+0(FP), DI;    \
	MOVQ    s+8(FP), SI;    \
	MOVQ    off+16(FP), DX; \
	MOVQ    n+24(FP), CX;   \
	MOVBQZX nt+32(FP), BX;  \
	TESTQ   CX, CX

// STEP moves to the next column cells (R9), the next dst rows (R8, by rs bytes of d) until the
// tile is done, then to the next tile (DX, by tb bytes) until n tiles are done.
#define STEP(rs, tb) \
	ADDQ $16, R9;   \
	ADDQ rs, R8;    \
	CMPQ R8, $256;  \
	JNE  rows;      \
	ADDQ tb, DX;    \
	DECQ CX;        \
	JNE  tile

// FENCE orders the non-temporal stores (weakly ordered) before returning, if there were any. No
// test can see it missing; without it another goroutine that synchronises with this one (a
// WaitGroup) could still read stale dst bytes. Keep it.
#define FENCE \
	TESTQ BX, BX; \
	JZ    done;   \
	SFENCE

// func tile32sse(d, s *[32]*byte, off uintptr, n int, nt bool)
//
// d and s hold the 32 dst and src row pointers, off the byte offset of the first tile in every
// row, n the number of tiles; nt selects non-temporal stores.
TEXT ·tile32sse(SB), NOSPLIT, $0-33
	ARGS
	JLE done

tile:
	MOVQ DX, R9
	XORQ R8, R8

rows:
	// Prefetching may reach past a row's end; PREFETCH never faults.
	PREFETCH2(0)
	PREFETCH2(1)
	PREFETCH2(2)
	PREFETCH2(3)
	TESTQ BX, BX
	JNZ   rowsnt
	ROWS(MOVOU)
	JMP   next

rowsnt:
	ROWS(MOVNTO)

next:
	STEP($32, $128)

	FENCE

done:
	RET

// TR8 transposes the 8x8 block of 16-bit cells in X0..X7 (row k in Xk) using X8..X11; column
// c of the block (cells c of rows 0..7) ends up in X0, X2, X1, X6, X8, X9, X3, X11 for c = 0..7.
#define TR8 \
	MOVO       X0, X8;  \
	PUNPCKLWL  X1, X0;  \
	PUNPCKHWL  X1, X8;  \
	MOVO       X2, X9;  \
	PUNPCKLWL  X3, X2;  \
	PUNPCKHWL  X3, X9;  \
	MOVO       X4, X10; \
	PUNPCKLWL  X5, X4;  \
	PUNPCKHWL  X5, X10; \
	MOVO       X6, X11; \
	PUNPCKLWL  X7, X6;  \
	PUNPCKHWL  X7, X11; \
	MOVO       X0, X1;  \
	PUNPCKLLQ  X2, X0;  \
	PUNPCKHLQ  X2, X1;  \
	MOVO       X8, X3;  \
	PUNPCKLLQ  X9, X8;  \
	PUNPCKHLQ  X9, X3;  \
	MOVO       X4, X5;  \
	PUNPCKLLQ  X6, X4;  \
	PUNPCKHLQ  X6, X5;  \
	MOVO       X10, X7; \
	PUNPCKLLQ  X11, X10; \
	PUNPCKHLQ  X11, X7; \
	MOVO       X0, X2;  \
	PUNPCKLQDQ X4, X0;  \
	PUNPCKHQDQ X4, X2;  \
	MOVO       X1, X6;  \
	PUNPCKLQDQ X5, X1;  \
	PUNPCKHQDQ X5, X6;  \
	MOVO       X8, X9;  \
	PUNPCKLQDQ X10, X8; \
	PUNPCKHQDQ X10, X9; \
	MOVO       X3, X11; \
	PUNPCKLQDQ X7, X3;  \
	PUNPCKHQDQ X7, X11

// STORE16 stores X with ST at byte 16k of the tile (DX) in dst row 8i+c (R8 = 64i bytes into d).
#define STORE16(c, k, X, ST) \
	MOVQ ((c)*8)(DI)(R8*1), AX; \
	ST   X, (16*k)(AX)(DX*1)

// BLOCK16 reads column cells 8i..8i+7 (R9 = their byte offset) of src rows 8k..8k+7 and stores
// them with ST as cells 8k..8k+7 of dst rows 8i..8i+7: 16 bytes of each.
#define BLOCK16(k, ST) \
	LOAD(8*k+0, X0);           \
	LOAD(8*k+1, X1);           \
	LOAD(8*k+2, X2);           \
	LOAD(8*k+3, X3);           \
	LOAD(8*k+4, X4);           \
	LOAD(8*k+5, X5);           \
	LOAD(8*k+6, X6);           \
	LOAD(8*k+7, X7);           \
	TR8;                       \
	STORE16(0, k, X0, ST);     \
	STORE16(1, k, X2, ST);     \
	STORE16(2, k, X1, ST);     \
	STORE16(3, k, X6, ST);     \
	STORE16(4, k, X8, ST);     \
	STORE16(5, k, X9, ST);     \
	STORE16(6, k, X3, ST);     \
	STORE16(7, k, X11, ST)

// PREFETCH1 prefetches the line PD bytes past the tile (DX) of src row R8/8+r (tile16sse: R8 =
// 64i, rows 8i..; tile8sse: R8 = 8c, rows c..).
#define PREFETCH1(r) \
	MOVQ       ((r)*8)(SI)(R8*1), AX; \
	PREFETCHT0 PD(AX)(DX*1)

// STAGE16 parks X as bytes 16k..16k+15 of stage row c (64 bytes a row, on the stack).
#define STAGE16(c, k, X) \
	MOVOU X, ((c)*64+16*(k))(SP)

// BLOCK16S is BLOCK16 into the stage rows instead of the dst rows.
#define BLOCK16S(k) \
	LOAD(8*k+0, X0);      \
	LOAD(8*k+1, X1);      \
	LOAD(8*k+2, X2);      \
	LOAD(8*k+3, X3);      \
	LOAD(8*k+4, X4);      \
	LOAD(8*k+5, X5);      \
	LOAD(8*k+6, X6);      \
	LOAD(8*k+7, X7);      \
	TR8;                  \
	STAGE16(0, k, X0);    \
	STAGE16(1, k, X2);    \
	STAGE16(2, k, X1);    \
	STAGE16(3, k, X6);    \
	STAGE16(4, k, X8);    \
	STAGE16(5, k, X9);    \
	STAGE16(6, k, X3);    \
	STAGE16(7, k, X11)

// LINE16 writes stage row c as the tile's 64 bytes (DX) of dst row 8i+c (R8 = 64i bytes into
// d): four non-temporal stores in a row, so the write-combining buffer sends a whole line.
#define LINE16(c) \
	MOVQ   ((c)*8)(DI)(R8*1), AX;  \
	MOVOU  ((c)*64)(SP), X0;       \
	MOVOU  ((c)*64+16)(SP), X1;    \
	MOVOU  ((c)*64+32)(SP), X2;    \
	MOVOU  ((c)*64+48)(SP), X3;    \
	MOVNTO X0, (AX)(DX*1);         \
	MOVNTO X1, 16(AX)(DX*1);       \
	MOVNTO X2, 32(AX)(DX*1);       \
	MOVNTO X3, 48(AX)(DX*1)

// func tile16sse(d, s *[32]*byte, off uintptr, n int, nt bool)
//
// tile32sse for 2-byte cells: 64 bytes per tile and row, in 8x8 blocks. With non-temporal
// stores the four blocks of eight dst rows are staged on the stack and each row's line is then
// written whole: written block by block, eight lines stood open at once, and the write-combining
// buffers flushed them half full (at full size, on a loaded host, 0.09-0.5x copy() between runs).
TEXT ·tile16sse(SB), NOSPLIT, $512-33
	ARGS
	JLE done

tile:
	MOVQ DX, R9
	XORQ R8, R8

rows:
	PREFETCH1(0)
	PREFETCH1(1)
	PREFETCH1(2)
	PREFETCH1(3)
	PREFETCH1(4)
	PREFETCH1(5)
	PREFETCH1(6)
	PREFETCH1(7)
	TESTQ BX, BX
	JNZ   rowsnt
	BLOCK16(0, MOVOU)
	BLOCK16(1, MOVOU)
	BLOCK16(2, MOVOU)
	BLOCK16(3, MOVOU)
	JMP   next

rowsnt:
	BLOCK16S(0)
	BLOCK16S(1)
	BLOCK16S(2)
	BLOCK16S(3)
	LINE16(0)
	LINE16(1)
	LINE16(2)
	LINE16(3)
	LINE16(4)
	LINE16(5)
	LINE16(6)
	LINE16(7)

next:
	STEP($64, $64)

	FENCE

done:
	RET

// func tile8sse(d, s *[32]*byte, off uintptr, n int, nt bool)
//
// tile32sse for 1-byte cells: 32 bytes per tile and row, in blocks of 16 cells of 16 rows (two
// 8x16 byte transposes, the first parked in 128 bytes of stack).
TEXT ·tile8sse(SB), NOSPLIT, $128-33
	ARGS
	JLE done

tile:
	MOVQ DX, R9
	XORQ R8, R8

rows:
	PREFETCH1(0)
	PREFETCH1(1)
	PREFETCH1(2)
	PREFETCH1(3)
	PREFETCH1(4)
	PREFETCH1(5)
	PREFETCH1(6)
	PREFETCH1(7)
	PREFETCH1(8)
	PREFETCH1(9)
	PREFETCH1(10)
	PREFETCH1(11)
	PREFETCH1(12)
	PREFETCH1(13)
	PREFETCH1(14)
	PREFETCH1(15)
	TESTQ BX, BX
	JNZ   rowsnt
	HALF8(0, MOVOU)
	HALF8(16, MOVOU)
	JMP   next

rowsnt:
	HALF8(0, MOVNTO)
	HALF8(16, MOVNTO)

next:
	STEP($128, $32)

	FENCE

done:
	RET

// func copyNT(dst, src *byte, n int)
//
// Copies n bytes (a multiple of 64; dst 16-byte aligned) with non-temporal stores, then fences.
TEXT ·copyNT(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $6, CX
	JZ   fence

line:
	MOVOU  0(SI), X0
	MOVOU  16(SI), X1
	MOVOU  32(SI), X2
	MOVOU  48(SI), X3
	MOVNTO X0, 0(DI)
	MOVNTO X1, 16(DI)
	MOVNTO X2, 32(DI)
	MOVNTO X3, 48(DI)
	ADDQ   $64, SI
	ADDQ   $64, DI
	DECQ   CX
	JNZ    line

fence:
	// As FENCE in the kernels: needed for other goroutines to see the bytes, and untestable.
	SFENCE
	RET
