package main

import (
	"bytes"
	"os"
	"testing"
)

// TestWeightsSumFile checks that ../weights_sum.go is what gen writes for
// the blob in ../model, so that go generate leaves it unchanged.
func TestWeightsSumFile(t *testing.T) {
	blob, err := os.ReadFile("../model/use-lite.bin")
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../weights_sum.go")
	if err != nil {
		t.Fatal(err)
	}
	if want := weightsSum(blob); !bytes.Equal(have, want) {
		t.Errorf("../weights_sum.go is\n%s\ngen writes\n%s", have, want)
	}
}
