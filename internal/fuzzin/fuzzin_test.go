package fuzzin

import (
	"bytes"
	"testing"
)

func TestRandom(t *testing.T) {
	a, b := Random(1, 2, 200, 16), Random(1, 2, 200, 16)
	lens := map[int]bool{}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("input %d differs between two calls with the same seeds", i)
		}
		if len(a[i]) > 16 {
			t.Fatalf("input %d has %d bytes, more than 16", i, len(a[i]))
		}
		lens[len(a[i])] = true
	}
	if len(lens) != 17 {
		t.Fatalf("200 inputs of 0-16 bytes have only %d distinct lengths", len(lens))
	}
	if c := Random(1, 3, 200, 16); bytes.Equal(bytes.Join(a, nil), bytes.Join(c, nil)) {
		t.Fatal("other seeds give the same inputs")
	}
}
