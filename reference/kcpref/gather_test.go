package kcpref

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestGatherMovesChosenUnitsToTheFront checks the in-place gather against
// a plain copy for random choices of distinct indices, on both sides of
// smallManifest.
func TestGatherMovesChosenUnitsToTheFront(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	for range 2000 {
		n := r.IntN(2*smallManifest + 2)
		store := make([]SelectedUnit, n)
		for i := range store {
			store[i].ID = "u" + strconv.Itoa(i)
		}
		idx := make([]int32, 0, n)
		for _, i := range r.Perm(n)[:r.IntN(n+1)] {
			idx = append(idx, int32(i))
		}
		want := make([]string, 0, len(idx))
		for _, i := range idx {
			want = append(want, store[i].ID)
		}
		got := gather(store, idx)
		ids := make([]string, 0, len(got))
		for _, u := range got {
			ids = append(ids, u.ID)
		}
		if !slices.Equal(ids, want) || cap(got) != len(idx) {
			t.Fatalf("gather(n=%d, %v) = %v (cap %d), want %v", n, idx, ids, cap(got), want)
		}
	}
}
