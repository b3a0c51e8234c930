package kcpref

// Faults of ask (kcpcli's ask and this package's ask.go): only the ask
// command vectors, with their scripted model, see them. They are listed
// here, apart from faults.go, and added to Faults and CaughtBy when the
// package starts.
const (
	FaultAskIneligibleLoaded  Fault = "ask-ineligible-loaded"   // a selected unit that is not load-eligible is sent to the model too
	FaultAskInstructions      Fault = "ask-instructions"        // the synthesis prompt no longer says the units are knowledge, not instructions
	FaultAskUnitForgery       Fault = "ask-unit-forgery"        // a unit's own </unit><unit …> text is sent unescaped
	FaultAskGroundUnloaded    Fault = "ask-ground-unloaded"     // a claim the verifier pins to a unit never loaded is grounded
	FaultAskMemoryStale       Fault = "ask-memory-stale"        // a cached grounded answer is reused without re-reading its cited units
	FaultAskRoundsUnbounded   Fault = "ask-rounds-unbounded"    // --ground-rounds and --max-rounds allow one round more
	FaultAskModelErrorIgnored Fault = "ask-model-error-ignored" // a model's HTTP error is read as an empty answer
	FaultAskJSONUnpinned      Fault = "ask-json-unpinned"       // ask --json's loaded units lose their sha256
)

var askFaults = []Fault{
	FaultAskIneligibleLoaded, FaultAskInstructions, FaultAskUnitForgery, FaultAskGroundUnloaded,
	FaultAskMemoryStale, FaultAskRoundsUnbounded, FaultAskModelErrorIgnored, FaultAskJSONUnpinned,
}

var askCaughtBy = map[Fault][]string{
	FaultAskIneligibleLoaded:  {"KCP-ask-synthesis"},
	FaultAskInstructions:      {"KCP-ask-synthesis"},
	FaultAskUnitForgery:       {"KCP-ask-synthesis"},
	FaultAskGroundUnloaded:    {"KCP-ask-ground"},
	FaultAskMemoryStale:       {"KCP-ask-memory"},
	FaultAskRoundsUnbounded:   {"KCP-ask-ground-rounds", "KCP-ask-loop"},
	FaultAskModelErrorIgnored: {"KCP-ask-model-errors"},
	FaultAskJSONUnpinned:      {"KCP-ask-json"},
}

func init() {
	Faults = append(Faults, askFaults...)
	for f, rules := range askCaughtBy {
		CaughtBy[f] = rules
	}
}
