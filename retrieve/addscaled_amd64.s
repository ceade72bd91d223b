#include "textflag.h"

// func addScaledAVX(v, x *float32, n int, w float32), n a multiple of 8
TEXT ·addScaledAVX(SB), NOSPLIT, $0-28
	MOVQ         v+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS w+24(FP), Y0

avx32:
	CMPQ    CX, $32
	JLT     avx8
	VMULPS  (SI), Y0, Y1
	VMULPS  32(SI), Y0, Y2
	VMULPS  64(SI), Y0, Y3
	VMULPS  96(SI), Y0, Y4
	VADDPS  (DI), Y1, Y1
	VADDPS  32(DI), Y2, Y2
	VADDPS  64(DI), Y3, Y3
	VADDPS  96(DI), Y4, Y4
	VMOVUPS Y1, (DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y3, 64(DI)
	VMOVUPS Y4, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $32, CX
	JMP     avx32

avx8:
	CMPQ    CX, $8
	JLT     avxdone
	VMULPS  (SI), Y0, Y1
	VADDPS  (DI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     avx8

avxdone:
	VZEROUPPER
	RET

// func addScaledSSE(v, x *float32, n int, w float32), n a multiple of 4
TEXT ·addScaledSSE(SB), NOSPLIT, $0-28
	MOVQ   v+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   n+16(FP), CX
	MOVSS  w+24(FP), X0
	SHUFPS $0x00, X0, X0

sse16:
	CMPQ   CX, $16
	JLT    sse4
	MOVUPS (SI), X1
	MOVUPS 16(SI), X2
	MOVUPS 32(SI), X3
	MOVUPS 48(SI), X4
	MULPS  X0, X1
	MULPS  X0, X2
	MULPS  X0, X3
	MULPS  X0, X4
	MOVUPS (DI), X5
	MOVUPS 16(DI), X6
	MOVUPS 32(DI), X7
	MOVUPS 48(DI), X8
	ADDPS  X1, X5
	ADDPS  X2, X6
	ADDPS  X3, X7
	ADDPS  X4, X8
	MOVUPS X5, (DI)
	MOVUPS X6, 16(DI)
	MOVUPS X7, 32(DI)
	MOVUPS X8, 48(DI)
	ADDQ   $64, SI
	ADDQ   $64, DI
	SUBQ   $16, CX
	JMP    sse16

sse4:
	CMPQ   CX, $4
	JLT    ssedone
	MOVUPS (SI), X1
	MULPS  X0, X1
	MOVUPS (DI), X5
	ADDPS  X1, X5
	MOVUPS X5, (DI)
	ADDQ   $16, SI
	ADDQ   $16, DI
	SUBQ   $4, CX
	JMP    sse4

ssedone:
	RET
