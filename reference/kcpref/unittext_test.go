package kcpref

import (
	"reflect"
	"sync"
	"testing"
)

const keptTextManifest = `project: p
version: "1"
units:
  - id: tides
    path: Harbour/Tides.md
    intent: "Tide tables for the HARBOUR"
    triggers: ["Berth", "schedule"]
  - id: weather
    path: weather.md
    intent: "Weather at sea"
`

// TestKeptTextFollowsTheManifest plans a manifest until its text is kept,
// then edits the units in place (the same slice) and plans again: every
// plan must be the plan of the manifest as it is then, as a fresh copy
// of it plans.
func TestKeptTextFollowsTheManifest(t *testing.T) {
	m := mustParse(t, keptTextManifest)
	o := Options{AsOf: "2026-06-01"}
	fresh := func() Manifest { // the same units in a slice of their own
		c := m
		c.Units = append([]Unit(nil), m.Units...)
		return c
	}
	check := func(step, task string) {
		t.Helper()
		for range 3 { // the second plan keeps the text, the third uses it
			if got, want := Plan(task, m, o), Plan(task, fresh(), o); !reflect.DeepEqual(got.Selected, want.Selected) || !reflect.DeepEqual(got.Skipped, want.Skipped) {
				t.Fatalf("%s: planned %+v / %+v, want %+v / %+v", step, got.Selected, got.Skipped, want.Selected, want.Skipped)
			}
			Plan(task, m, o)
		}
	}
	check("as parsed", "harbour berth")
	m.Units[0].Intent = "Currents only"
	check("intent edited", "harbour berth")
	m.Units[0].Triggers = []string{"WEATHER"}
	check("triggers replaced", "weather")
	m.Units[0].Triggers[0] = "Tides"
	check("a trigger edited in place", "weather tides")
	m.Units[1].ID, m.Units[1].Path = "Harbour", "HARBOUR.md"
	check("id and path edited", "harbour")
}

// TestKeptTextUnderConcurrentPlans plans two manifests from many
// goroutines at once (go test -race): each plan must be its own
// manifest's.
func TestKeptTextUnderConcurrentPlans(t *testing.T) {
	a, b := mustParse(t, keptTextManifest), mustParse(t, keptTextManifest)
	b.Units[0].Intent, b.Units[0].Path = "Nothing to see", "x.md"
	o := Options{AsOf: "2026-06-01"}
	wantA, wantB := len(Plan("harbour", a, o).Selected), len(Plan("harbour", b, o).Selected)
	if wantA == wantB {
		t.Fatalf("the two manifests plan alike (%d selected): the test needs them to differ", wantA)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				m, want := a, wantA
				if g%2 == 1 {
					m, want = b, wantB
				}
				if got := len(Plan("harbour", m, o).Selected); got != want {
					t.Errorf("a plan selected %d units, want %d", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
