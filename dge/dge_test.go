package dge

import (
	"math/rand"
	"testing"
)

func TestRandomAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	kinds := map[Kind]int{}
	for i := 0; i < 600; i++ {
		mode := "move"
		if i%2 == 1 {
			mode = "any"
		}
		c := randCase(rng, mode)
		p := checkCase(t, rng, c)
		kinds[p.Kind]++
	}
	t.Logf("kinds: %v", kinds)
}
