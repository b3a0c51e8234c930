package kcpcli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// askStore is ask --memory's episode store: a directory of <id>.json
// entries, each a grounded answer without any unit's bytes, addressed by
// the sha256 of its artifact (its compact JSON), as kcp-agent keeps them.
// An entry whose address does not match its artifact is never reused.
type askStore struct {
	dir    string
	key    string // the options key of this ask
	faults []kcpref.Fault
}

// episode is a memory entry as stored.
type episode struct {
	ID             string          `json:"id"`
	Kind           string          `json:"kind"`
	Task           string          `json:"task"`
	ManifestSource string          `json:"manifestSource"`
	ManifestSHA    string          `json:"manifestSha"`
	OptionsKey     string          `json:"optionsKey"`
	RecordedAt     string          `json:"recordedAt"`
	Artifact       json.RawMessage `json:"artifact"`
}

// record stores the grounded answer: its plan, its synthesis with each
// loaded unit reduced to id, path and sha256, and its grounding.
func (st *askStore) record(p kcpref.AgentPlan, sig kcpref.SignatureResult, syn kcpref.Synthesis, g kcpref.Grounding, now time.Time) error {
	loaded := make([]any, len(syn.Loaded))
	for i, u := range syn.Loaded {
		loaded[i] = kcpref.NewAskJSON().With("id", u.ID).With("path", u.Path).With("sha256", u.SHA256)
	}
	unavailable := make([]any, len(syn.Unavailable))
	for i, u := range syn.Unavailable {
		unavailable[i] = kcpref.NewAskJSON().With("id", u.ID).With("path", u.Path).With("reason", u.Reason)
	}
	artifact := kcpref.CompactJSON(kcpref.NewAskJSON().With("plan", kcpref.AskPlanJSON(p, sig)).
		With("synthesis", kcpref.NewAskJSON().With("answer", syn.Answer).With("model", syn.Model).With("unitsLoaded", loaded).With("unitsUnavailable", unavailable)).
		With("grounding", kcpref.GroundingJSON(g)))
	sum := sha256.Sum256([]byte(artifact))
	e := episode{ID: hex.EncodeToString(sum[:]), Kind: "grounded-answer", Task: p.Task, ManifestSource: p.Manifest.Source,
		ManifestSHA: p.Manifest.SHA256, OptionsKey: st.key, RecordedAt: now.UTC().Format("2006-01-02T15:04:05.000Z"), Artifact: json.RawMessage(artifact)}
	if err := os.MkdirAll(st.dir, 0o755); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	raw, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(st.dir, e.ID+".json"), raw, 0o644)
}

// hit is what the store found for an ask.
type hit struct {
	reused, drifted bool
	id, recordedAt  string
	detail          string
	artifact        json.RawMessage
	answer          string
	units           int
	grounding       *kcpref.Grounding
}

// json is the reused answer as ask --json prints it: reused (the episode's
// id), then the artifact's members.
func (h hit) json() []byte {
	var b bytes.Buffer
	_ = json.Indent(&b, h.artifact, "", "  ")
	body := strings.TrimPrefix(b.String(), "{")
	id, _ := json.Marshal(h.id)
	return []byte("{\n  \"reused\": " + string(id) + "," + body + "\n")
}

// storedAnswer is what reuse reads of an artifact.
type storedAnswer struct {
	Plan struct {
		Manifest struct {
			Source string `json:"source"`
		} `json:"manifest"`
	} `json:"plan"`
	Synthesis struct {
		Answer      string `json:"answer"`
		UnitsLoaded []struct {
			ID, Path, SHA256 string
		} `json:"unitsLoaded"`
	} `json:"synthesis"`
	Grounding struct {
		Status string `json:"status"`
		Claims []struct {
			Claim    string `json:"claim"`
			Grounded bool   `json:"grounded"`
			UnitID   string `json:"unitId"`
			SHA256   string `json:"sha256"`
			Reason   string `json:"reason"`
		} `json:"claims"`
		GapsTruncated int `json:"gapsTruncated"`
	} `json:"grounding"`
}

// reuse finds the latest intact episode of this task, manifest and
// options, and re-reads every unit a grounded claim cites: it is reused
// only when each still has its pinned sha256.
func (st *askStore) reuse(task, source string) (hit, error) {
	entries, err := os.ReadDir(st.dir)
	if os.IsNotExist(err) {
		return hit{}, nil
	} else if err != nil {
		return hit{}, fmt.Errorf("memory: %w", err)
	}
	var found []episode
	for _, de := range entries {
		if !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(st.dir, de.Name()))
		if err != nil {
			continue
		}
		var e episode
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		var compact bytes.Buffer
		if json.Compact(&compact, e.Artifact) != nil {
			continue
		}
		sum := sha256.Sum256(compact.Bytes())
		if hex.EncodeToString(sum[:]) != e.ID || e.Task != task || e.ManifestSource != source || e.OptionsKey != st.key || e.Kind != "grounded-answer" {
			continue
		}
		e.Artifact = compact.Bytes()
		found = append(found, e)
	}
	if len(found) == 0 {
		return hit{}, nil
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].RecordedAt > found[j].RecordedAt })
	e := found[0]
	var art storedAnswer
	if err := json.Unmarshal(e.Artifact, &art); err != nil {
		return hit{drifted: true, id: e.ID, recordedAt: e.RecordedAt, detail: "the episode is unreadable"}, nil
	}
	paths := map[string]string{}
	for _, u := range art.Synthesis.UnitsLoaded {
		paths[u.ID] = u.Path
	}
	stale := 0
	for _, c := range art.Grounding.Claims {
		if !c.Grounded || c.UnitID == "" || kcpref.HasFault(st.faults, kcpref.FaultAskMemoryStale) {
			continue
		}
		p, ok := paths[c.UnitID]
		if !ok || c.SHA256 == "" || !safeUnitPath(p) {
			stale++
			continue
		}
		raw, err := os.ReadFile(filepath.Join(filepath.Dir(art.Plan.Manifest.Source), filepath.FromSlash(p)))
		sum := sha256.Sum256(raw)
		if err != nil || hex.EncodeToString(sum[:]) != c.SHA256 {
			stale++
		}
	}
	h := hit{id: e.ID, recordedAt: e.RecordedAt, artifact: e.Artifact, answer: art.Synthesis.Answer, units: len(art.Synthesis.UnitsLoaded)}
	if stale > 0 {
		h.drifted, h.detail = true, fmt.Sprintf("%d cited unit(s) drifted or gone", stale)
		return h, nil
	}
	h.reused, h.detail = true, "every cited unit holds its pinned bytes"
	g := kcpref.Grounding{Status: art.Grounding.Status, GapsTruncated: art.Grounding.GapsTruncated}
	for _, c := range art.Grounding.Claims {
		cl := kcpref.Claim{Claim: c.Claim, Grounded: c.Grounded, UnitID: c.UnitID, SHA256: c.SHA256, Reason: c.Reason}
		g.Claims = append(g.Claims, cl)
		if !c.Grounded && len(g.Gaps) < kcpref.MaxGaps {
			g.Gaps = append(g.Gaps, cl)
		}
	}
	h.grounding = &g
	return h, nil
}

// safeUnitPath is a relative path that stays inside the manifest's
// directory.
func safeUnitPath(p string) bool {
	return p != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "//") && !strings.Contains(p, "://") &&
		!strings.Contains("/"+p+"/", "/../")
}
