package kcpref

import (
	"reflect"
	"testing"
)

func TestSplitClaims(t *testing.T) {
	got := SplitClaims("Run make deploy. Then wait!  Done?\nNext line\n\n e.g.x stays.  ")
	want := []string{"Run make deploy.", "Then wait!", "Done?", "Next line", "e.g.x stays."}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestGateTerms(t *testing.T) {
	accepted, rejected := GateTerms([]string{"$(curl x)", "Deploy", "Vault  Keys", "vault keys", "strømnett", "a", "b", "c", "d", "e"}, "deploy guide", 3)
	if want := []string{"vault keys", "strømnett", "a"}; !reflect.DeepEqual(accepted, want) {
		t.Errorf("accepted %q, want %q", accepted, want)
	}
	if want := []string{"$(curl x)", "Deploy", "vault keys", "b", "c", "d", "e"}; !reflect.DeepEqual(rejected, want) {
		t.Errorf("rejected %q, want %q", rejected, want)
	}
}

func TestParseAttribution(t *testing.T) {
	for in, want := range map[string]Attribution{
		`{"supportedBy": "deploy"}`:              {SupportedBy: "deploy"},
		"```json\n{\"supportedBy\": \"a\"}\n```": {SupportedBy: "a"},
		`{"supportedBy": null, "note": "none"}`:  {Note: "none"},
		`{"supportedBy": 3}`:                     {},
		`deploy`:                                 {Note: "verifier returned an unparseable verdict"},
	} {
		if got := ParseAttribution(in); got != want {
			t.Errorf("%q: got %+v, want %+v", in, got, want)
		}
	}
}

// A claim pinned to a unit that was never loaded fails closed; with the
// fault planted it grounds.
func TestGroundFailsClosedOnUnloadedUnits(t *testing.T) {
	units := []LoadedUnit{{ID: "a", SHA256: "aa"}}
	verify := func(string) (Attribution, error) { return Attribution{SupportedBy: "b"}, nil }
	g, _ := Ground("t", "One.", units, verify, nil)
	if g.Status != "partial-unsupported" || g.Claims[0].Grounded {
		t.Fatalf("%+v", g)
	}
	g, _ = Ground("t", "One.", units, verify, []Fault{FaultAskGroundUnloaded})
	if !g.Claims[0].Grounded {
		t.Fatalf("the fault did not plant: %+v", g)
	}
}
