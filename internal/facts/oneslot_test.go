package facts

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A statement with slots (%s), each a subject slot (whose or which thing
// it is) or a value slot, and the values a slot takes.
type slot struct {
	subject bool
	values  []string
}

// slotPair is an older statement and its newer form, over the same slots.
type slotPair struct {
	older, newer string
	slots        []slot
}

var (
	slotNames    = []string{"Hughes", "Fenwick", "Alvarez", "Okafor", "Jensen", "Priya", "Mensah", "Osei"}
	slotProjects = []string{"Apollo", "Orion", "Hermes", "Mercury", "Atlas", "Juno"}
	slotPlaces   = []string{"Lisbon", "Leeds", "Toronto", "Bath", "Kyoto", "Porto"}
	slotMonths   = []string{"January", "March", "June", "October", "December"}
	slotDays     = func() []string {
		var d []string
		for i := 1; i <= 28; i++ {
			d = append(d, fmt.Sprint(i))
		}
		return d
	}()
)

// changeOneSlot draws n pairs (pairs in turn, random values from the
// seed) that change one slot between the older and the newer statement,
// and checks relate on each: a changed subject is Unrelated, a changed
// value an update; both kinds must have been drawn.
func changeOneSlot(t *testing.T, seed uint64, n int, pairs []slotPair, relate func(older, newer string) Relation) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	updates, others := 0, 0
	for i := 0; i < n; i++ {
		p := pairs[i%len(pairs)]
		args := make([]any, len(p.slots))
		for j, s := range p.slots {
			args[j] = s.values[rng.IntN(len(s.values))]
		}
		j := rng.IntN(len(p.slots))
		changed := slices.Clone(args)
		for changed[j] == args[j] {
			changed[j] = p.slots[j].values[rng.IntN(len(p.slots[j].values))]
		}
		older, newer := fmt.Sprintf(p.older, args...), fmt.Sprintf(p.newer, changed...)
		r := relate(older, newer)
		switch {
		case p.slots[j].subject && r.Kind != Unrelated:
			t.Fatalf("%q then %q: another subject called %v %v", older, newer, r.Kind, r.DiffersIn)
		case !p.slots[j].subject && r.Kind != Updates:
			t.Fatalf("%q then %q: its value changed, yet %v", older, newer, r.Kind)
		case p.slots[j].subject:
			others++
		default:
			updates++
		}
	}
	if updates == 0 || others == 0 {
		t.Fatalf("updates %d, other subjects %d", updates, others)
	}
}
