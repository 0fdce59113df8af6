package content

import (
	"crypto/sha256"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKeyASCIIPassMatchesFold: the one-pass key of an ASCII text is the
// hash of Fold's text, for every ASCII byte in every position among words
// and runs of spaces; non-ASCII text takes Fold itself.
func TestKeyASCIIPassMatchesFold(t *testing.T) {
	slow := func(s string) [16]byte {
		sum := sha256.Sum256([]byte(Fold(s)))
		var k [16]byte
		copy(k[:], sum[:16])
		return k
	}
	var cases []string
	for c := range 128 {
		for _, tmpl := range []string{"%", "a%b", " %x ", "Ab%%Cd", "%  Z", "word %\tWORD\n"} {
			cases = append(cases, strings.ReplaceAll(tmpl, "%", string(rune(c))))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "aZ09 \t\n\v\f\r\x00\x1c\x1f.-'\x7f"
	for range 20000 {
		n := rng.IntN(40)
		var sb strings.Builder
		for range n {
			sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, sb.String())
	}
	cases = append(cases, "", "   ", strings.Repeat("Long TEXT ", 200), "café au LAIT", "x\u00a0y", "a\u0085b", "İstanbul")
	for _, s := range cases {
		if got, want := Key(s), slow(s); got != want {
			t.Fatalf("Key(%q) = %x, want %x (Fold %q)", s, got, want, Fold(s))
		}
	}
	if _, ok := asciiKey("café"); ok {
		t.Fatal("asciiKey took a non-ASCII text")
	}
}
