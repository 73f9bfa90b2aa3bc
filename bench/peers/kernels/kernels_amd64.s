//go:build amd64

#include "textflag.h"

// The chains take their operand from a register that was loaded from the
// argument frame, so that no core can know its value at rename: Golden
// Cove-class Intel cores fold ADD reg, small-immediate (and INC, LEA) chains
// at rename (about 0.2 cycles per op), while ADD reg, reg is 1 cycle and
// IMUL reg, reg 3 cycles on every x86-64 core. 16 links per iteration, then
// one at a time; the loop counters (DX, CX) form chains of their own that run
// beside the measured one.

// func AddChain(x, inc uint64, n int) uint64
TEXT ·AddChain(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), AX
	MOVQ inc+8(FP), BX
	MOVQ n+16(FP), CX
	MOVQ CX, DX
	SHRQ $4, DX
	ANDQ $15, CX
	TESTQ DX, DX
	JZ   addrem
addloop:
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	DECQ DX
	JNZ  addloop
addrem:
	TESTQ CX, CX
	JZ   adddone
addone:
	ADDQ BX, AX
	DECQ CX
	JNZ  addone
adddone:
	MOVQ AX, ret+24(FP)
	RET

// func ImulChain(x, mul uint64, n int) uint64
TEXT ·ImulChain(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), AX
	MOVQ mul+8(FP), BX
	MOVQ n+16(FP), CX
	MOVQ CX, DX
	SHRQ $4, DX
	ANDQ $15, CX
	TESTQ DX, DX
	JZ   mulrem
mulloop:
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	DECQ DX
	JNZ  mulloop
mulrem:
	TESTQ CX, CX
	JZ   muldone
mulone:
	IMULQ BX, AX
	DECQ CX
	JNZ  mulone
muldone:
	MOVQ AX, ret+24(FP)
	RET
