//go:build amd64 && !purego

package embed

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// A CPU with AVX-512 runs the AVX-512 softmax and layer-norm loops (the
// tests comparing them with Go's skip themselves otherwise).
func TestAVX512LoopsOn(t *testing.T) {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && !asm512 {
		t.Fatal("the CPU has AVX-512 but the AVX-512 loops are off")
	}
}
