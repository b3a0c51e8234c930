package acpref

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Schema v2 (upstream's "ACP schema v2", commit 4695f60) adds a declared
// primary deliverable: a Markdown document of a known type, drafted before
// the proposal, frozen (with its SHA-256) before readiness passes, and
// referenced by the conclusion; plus optional supporting deliverables and
// attachments. This file holds what v2 checks about them, following
// upstream's scripts at HEAD.

// DeliverableType is a built-in deliverable type and its required sections.
type DeliverableType struct {
	Title       string
	DefaultFile string
	Sections    []string
}

// DeliverableTypes are v2's built-in types; "custom" takes its sections
// from the declaration's checklist.
var DeliverableTypes = map[string]DeliverableType{
	"adr":                 {"Architecture Decision Record", "adr.md", []string{"Status", "Context", "Decision", "Alternatives Considered", "Consequences", "Follow-ups"}},
	"design-spec":         {"Design Spec", "design-spec.md", []string{"Problem", "Goals", "Non-goals", "Proposed Design", "Interfaces / Contracts", "Failure Modes", "Validation Plan", "Open Questions"}},
	"implementation-plan": {"Implementation Plan", "implementation-plan.md", []string{"Scope", "Phases", "Tasks", "Dependencies", "Rollout / Migration", "Tests", "Risks", "Exit Criteria"}},
	"decision-memo":       {"Decision Memo", "decision-memo.md", []string{"Question", "Recommendation", "Options", "Tradeoffs", "Decision", "Next Action"}},
	"review-report":       {"Review Report", "review-report.md", []string{"Scope", "Findings", "Risks", "Required Changes", "Open Questions", "Recommendation"}},
	"test-plan":           {"Test Plan", "test-plan.md", []string{"Scope", "Test Matrix", "Fixtures", "Automation", "Manual Tests", "Exit Criteria"}},
}

// DeliverableTypeNames lists every type name, sorted (custom included).
func DeliverableTypeNames() []string {
	names := []string{"custom"}
	for n := range DeliverableTypes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

var deliverableStatuses = []string{"Draft", "In Review", "Frozen"}

func dict(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func deliverables(p Protocol) map[string]any { return dict(p["deliverables"]) }

// PrimaryDeliverable is the declaration of the primary deliverable.
func (p Protocol) PrimaryDeliverable() map[string]any { return dict(deliverables(p)["primary"]) }

func supporting(p Protocol) []map[string]any {
	list, _ := deliverables(p)["supporting"].([]any)
	var out []map[string]any
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// pyPath joins path parts as Python's pathlib does: empty and "."
// components vanish, ".." stays.
func pyPath(parts ...string) string {
	var out []string
	abs := false
	for i, p := range parts {
		if strings.HasPrefix(p, "/") {
			out, abs = nil, true
		}
		for _, c := range strings.Split(p, "/") {
			if c != "" && c != "." {
				out = append(out, c)
			}
		}
		_ = i
	}
	s := strings.Join(out, "/")
	if abs {
		return "/" + s
	}
	if s == "" {
		return "."
	}
	return s
}

func pathHasEscape(v string) bool {
	if strings.HasPrefix(v, "/") {
		return true
	}
	return slices.Contains(strings.Split(v, "/"), "..")
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return PyStr(v)
}

func getStr(m map[string]any, key, def string) string {
	v, ok := m[key]
	if !ok {
		return def
	}
	return str(v)
}

// DeliverableRef is how events, readiness and the conclusion name a
// deliverable file: "<dir>/<file>" inside the folder, "external:<file>"
// in external mode.
func (p Protocol) DeliverableRef(file string) string {
	d := deliverables(p)
	if getStr(d, "mode", "internal") == "external" {
		return "external:" + file
	}
	return pyPath(getStr(d, "dir", "deliverables"), file)
}

// PrimaryRef is the primary deliverable's reference.
func (p Protocol) PrimaryRef() string {
	return p.DeliverableRef(getStr(p.PrimaryDeliverable(), "file", ""))
}

// deliverableBase is the directory deliverable files live in.
func deliverableBase(folder string, p Protocol) (string, error) {
	d := deliverables(p)
	if getStr(d, "mode", "internal") == "external" {
		root, ok := p["repoRoot"].(string)
		if !ok {
			return "", refuse("repoRoot is required for external deliverables")
		}
		return resolvePath(filepath.Join(folder, root, getStr(d, "dir", ""))), nil
	}
	return filepath.Join(folder, getStr(d, "dir", "deliverables")), nil
}

// resolvePath is Path.resolve(): absolute, symbolic links followed as far
// as the path exists.
func resolvePath(p string) string {
	abs, _ := filepath.Abs(p)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	dir, base := filepath.Split(abs)
	if dir != "" && dir != "/" && dir != abs {
		return filepath.Join(resolvePath(strings.TrimSuffix(dir, "/")), base)
	}
	return abs
}

func deliverablePath(folder string, p Protocol, file string) (string, error) {
	base, err := deliverableBase(folder, p)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, file), nil
}

// deliverableFile finds the declared file an event's doc names.
func deliverableFile(p Protocol, doc, role string) (string, error) {
	if role == "primary" {
		file := getStr(p.PrimaryDeliverable(), "file", "")
		if doc != p.DeliverableRef(file) {
			return "", refuse("doc must reference the primary deliverable")
		}
		return file, nil
	}
	for _, item := range supporting(p) {
		file := getStr(item, "file", "")
		if doc == p.DeliverableRef(file) {
			return file, nil
		}
	}
	return "", refuse("doc must reference a declared supporting deliverable")
}

var lowerHex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func isSHA256(v any) bool {
	s, ok := v.(string)
	return ok && lowerHex64.MatchString(s)
}

// FileSHA256 is the lowercase hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// DeliverableSections lists the sections a declaration requires.
func DeliverableSections(d map[string]any) []string {
	if d["type"] == "custom" {
		var out []string
		switch list := d["checklist"].(type) {
		case []any:
			for _, item := range list {
				if s, ok := item.(string); ok && strings.TrimFunc(s, pySpace) != "" {
					out = append(out, strings.TrimFunc(s, pySpace))
				}
			}
		case string:
			for _, r := range list {
				if !pySpace(r) {
					out = append(out, string(r))
				}
			}
		}
		return out
	}
	if t, ok := d["type"].(string); ok {
		if spec, ok := DeliverableTypes[t]; ok {
			return spec.Sections
		}
	}
	return nil
}

var statusLine = regexp.MustCompile(`(?m)^Status:` + ws + `*(Draft|In Review|Frozen)` + ws + `*$`)

func deliverableStatus(text string) string {
	if m := statusLine.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// sectionHasContent is upstream's "the section under ## heading is not
// empty": the text up to the next level-2 heading, stripped.
func sectionHasContent(text, heading string) bool {
	h := pattern(`(?m)^##` + ws + `+` + regexp.QuoteMeta(heading) + ws + `*$`)
	loc := h.FindStringIndex(text)
	if loc == nil {
		return false
	}
	rest := text[loc[1]:]
	if next := nextHeading2.FindStringIndex(rest); next != nil {
		rest = rest[:next[0]]
	}
	return strings.TrimFunc(rest, pySpace) != ""
}

var nextHeading2 = regexp.MustCompile(`(?m)^##` + ws + `+`)

// schemaErrors is upstream's validate_deliverables_schema.
func (t *Tools) schemaErrors(p Protocol, folder string) []string {
	d := deliverables(p)
	if len(d) == 0 {
		return []string{"protocol.json deliverables.primary is required"}
	}
	var errs []string
	mode := d["mode"]
	if mode != "internal" && mode != "external" {
		errs = append(errs, "deliverables.mode must be internal or external")
	}
	if _, has := p["repoRoot"]; mode == "internal" && has {
		errs = append(errs, "repoRoot is not allowed for internal deliverables")
	}
	if mode == "external" {
		root, ok := p["repoRoot"].(string)
		switch {
		case !ok || strings.TrimFunc(root, pySpace) == "":
			errs = append(errs, "repoRoot is required for external deliverables")
		case strings.HasPrefix(root, "/"):
			errs = append(errs, "repoRoot must be relative")
		default:
			resolved := resolvePath(filepath.Join(folder, root))
			folderAbs := resolvePath(folder)
			st, err := os.Stat(resolved)
			switch {
			case err != nil || !st.IsDir():
				errs = append(errs, "repoRoot must resolve to an existing directory")
			case resolved == "/": // upstream compares a Path with a str here, so it never refuses
				errs = append(errs, "repoRoot must not resolve to filesystem root")
			case !isAncestorOrSelf(resolved, folderAbs):
				errs = append(errs, "collaboration folder must be inside repoRoot")
			}
		}
	}
	if dir, ok := d["dir"].(string); !ok || strings.TrimFunc(dir, pySpace) == "" {
		errs = append(errs, "deliverables.dir is required")
	} else if pathHasEscape(dir) {
		errs = append(errs, "deliverables.dir must be relative and must not contain ..")
	}
	primary, ok := d["primary"].(map[string]any)
	if !ok {
		return append(errs, "protocol.json deliverables.primary is required")
	}
	typeOK := func(v any) bool { s, ok := v.(string); return ok && slices.Contains(DeliverableTypeNames(), s) }
	if !typeOK(primary["type"]) {
		errs = append(errs, "primary deliverable type is invalid")
	}
	if file, ok := primary["file"].(string); !ok || !strings.HasSuffix(file, ".md") {
		errs = append(errs, "primary deliverable file must be Markdown")
	} else if pathHasEscape(file) {
		errs = append(errs, "primary deliverable file must be relative and must not contain ..")
	}
	if primary["type"] == "custom" && len(DeliverableSections(primary)) == 0 {
		errs = append(errs, "custom primary deliverable requires checklist")
	}
	seen := map[string]bool{}
	for _, item := range supporting(p) {
		if !typeOK(item["type"]) {
			errs = append(errs, "supporting deliverable type is invalid")
		}
		file, ok := item["file"].(string)
		switch {
		case !ok || !strings.HasSuffix(file, ".md"):
			errs = append(errs, "supporting deliverable file must be Markdown")
		case pathHasEscape(file):
			errs = append(errs, "supporting deliverable file must be relative and must not contain ..")
		case seen[file]:
			errs = append(errs, "supporting deliverable files must be unique")
		case pyEq(file, primary["file"]):
			errs = append(errs, "supporting deliverable must not reuse the primary deliverable file")
		default:
			seen[file] = true
		}
	}
	if list, ok := d["attachments"].([]any); ok {
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				errs = append(errs, "attachments must be objects")
				continue
			}
			if file, ok := m["file"].(string); !ok || file == "" {
				errs = append(errs, "attachment file is required")
			} else if pathHasEscape(file) {
				errs = append(errs, "attachment file must be relative and must not contain ..")
			}
		}
	}
	return errs
}

func isAncestorOrSelf(dir, p string) bool {
	for {
		if p == dir {
			return true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// primaryContentErrors is upstream's validate_primary_deliverable_content.
func primaryContentErrors(p Protocol, folder string, requireFrozen bool) []string {
	primary := p.PrimaryDeliverable()
	ref := p.PrimaryRef()
	path, err := deliverablePath(folder, p, getStr(primary, "file", ""))
	if err != nil {
		return []string{err.Error()}
	}
	if _, err := os.Stat(path); err != nil {
		return []string{"primary deliverable missing: " + ref}
	}
	text := readPath(path)
	var errs []string
	status := deliverableStatus(text)
	if !slices.Contains(deliverableStatuses, status) {
		errs = append(errs, "primary deliverable must include Status: Draft, In Review, or Frozen")
	}
	if requireFrozen && status != "Frozen" {
		errs = append(errs, "primary deliverable status must be Frozen")
	}
	for _, s := range DeliverableSections(primary) {
		if !hasHeading2(text, s) {
			errs = append(errs, "primary deliverable missing required section: "+s)
		} else if requireFrozen && !sectionHasContent(text, s) {
			errs = append(errs, "primary deliverable section must not be empty when frozen: "+s)
		}
	}
	return errs
}

func readPath(path string) string {
	raw, _ := os.ReadFile(path)
	return universalNewlines(strings.ToValidUTF8(string(raw), "\uFFFD"))
}

// supportingContentErrors is upstream's validate_supporting_deliverables_content.
func supportingContentErrors(p Protocol, folder string, frozen map[string]bool) []string {
	var errs []string
	for _, item := range supporting(p) {
		file := getStr(item, "file", "")
		ref := p.DeliverableRef(file)
		path, err := deliverablePath(folder, p, file)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if _, err := os.Stat(path); err != nil {
			errs = append(errs, "supporting deliverable missing: "+ref)
			continue
		}
		text := readPath(path)
		status := deliverableStatus(text)
		if !slices.Contains(deliverableStatuses, status) {
			errs = append(errs, fmt.Sprintf("supporting deliverable %s must include Status", ref))
		}
		requireFrozen := truthy(item["frozen"]) || frozen[ref]
		if requireFrozen && status != "Frozen" {
			errs = append(errs, fmt.Sprintf("supporting deliverable %s status must be Frozen", ref))
		}
		for _, s := range DeliverableSections(item) {
			if !hasHeading2(text, s) {
				errs = append(errs, fmt.Sprintf("supporting deliverable %s missing required section: %s", ref, s))
			} else if requireFrozen && !sectionHasContent(text, s) {
				errs = append(errs, fmt.Sprintf("supporting deliverable %s section must not be empty when frozen: %s", ref, s))
			}
		}
	}
	return errs
}

var (
	decisionHeading = regexp.MustCompile(`(?m)^###` + ws + `+(.+)$`)
	decisionID      = regexp.MustCompile(`^(D\p{Nd}+)\.` + ws + `+.+`)
	nextHeading3    = regexp.MustCompile(`(?m)^###` + ws + `+`)
)

// decisionsErrors is upstream's validate_decisions_document: stable,
// sequential D<n> IDs, each with Decision and a Reflected in pointing at a
// declared deliverable.
func decisionsErrors(folder string, p Protocol) []string {
	if !exists(folder, "decisions.md") {
		return []string{"missing decisions.md"}
	}
	text := readText(folder, "decisions.md")
	var errs []string
	seen := map[string]bool{}
	primaryRef := p.PrimaryRef()
	for i, m := range decisionHeading.FindAllStringSubmatch(text, -1) {
		heading := m[1]
		id := fmt.Sprintf("D%d", i+1)
		if dm := decisionID.FindStringSubmatch(heading); dm == nil {
			errs = append(errs, "accepted decision headings must use D<number>")
		} else {
			id = dm[1]
			if seen[id] {
				errs = append(errs, "duplicate accepted decision id "+id)
			}
			seen[id] = true
			if id != fmt.Sprintf("D%d", i+1) {
				errs = append(errs, "accepted decision ids must be sequential")
			}
		}
		body := ""
		block := regexp.MustCompile(`(?m)^###` + ws + `+` + regexp.QuoteMeta(heading) + ws + `*$`)
		if loc := block.FindStringIndex(text); loc != nil {
			body = text[loc[1]:]
			if next := nextHeading3.FindStringIndex(body); next != nil {
				body = body[:next[0]]
			}
		}
		if !strings.Contains(body, "- Decision:") {
			errs = append(errs, fmt.Sprintf("accepted decision %s requires Decision", id))
		}
		if !strings.Contains(body, "- Reflected in:") {
			errs = append(errs, fmt.Sprintf("accepted decision %s requires Reflected in", id))
		} else if !reflected(p, body, primaryRef) {
			errs = append(errs, fmt.Sprintf("accepted decision %s Reflected in must point to declared deliverable", id))
		}
	}
	return errs
}

func reflected(p Protocol, body, primaryRef string) bool {
	if strings.Contains(body, primaryRef) {
		return true
	}
	for _, item := range supporting(p) {
		if strings.Contains(body, p.DeliverableRef(getStr(item, "file", ""))) {
			return true
		}
	}
	return false
}

// deliverableEventErrors is upstream's validate_deliverable_events: each
// deliverable event names a declared deliverable, each freeze carries the
// file's current SHA-256; it returns the frozen refs.
func (t *Tools) deliverableEventErrors(folder string, p Protocol, events []Event) ([]string, map[string]bool) {
	var errs []string
	frozen := map[string]bool{}
	primaryFreezes := 0
	for _, e := range events {
		name, ok := e.Fields["event"].(string)
		if !ok || !strings.HasPrefix(name, "deliverable_") {
			continue
		}
		seq := e.SeqLabel()
		role, _ := e.Fields["role"].(string)
		doc, docOK := e.Fields["doc"].(string)
		if (role != "primary" && role != "supporting") || !docOK {
			continue
		}
		file, err := deliverableFile(p, doc, role)
		var path string
		if err == nil {
			path, err = deliverablePath(folder, p, file)
		}
		if err != nil {
			errs = append(errs, "seq "+seq+": "+err.Error())
			continue
		}
		if name != "deliverable_frozen" {
			continue
		}
		if !isSHA256(e.Fields["sha256"]) {
			errs = append(errs, "seq "+seq+": deliverable_frozen requires sha256")
			continue
		}
		if _, err := os.Stat(path); err != nil {
			errs = append(errs, "seq "+seq+": deliverable_frozen doc does not exist")
			continue
		}
		if sum, _ := FileSHA256(path); sum != e.Fields["sha256"] && !t.faults[FaultFreezeHashUnchecked] {
			errs = append(errs, "seq "+seq+": deliverable_frozen sha256 does not match current file")
		}
		frozen[doc] = true
		if role == "primary" {
			primaryFreezes++
		}
	}
	if primaryFreezes > 1 && !t.faults[FaultRefreeze] {
		errs = append(errs, "primary deliverable can be frozen only once")
	}
	for _, item := range supporting(p) {
		ref := p.DeliverableRef(getStr(item, "file", ""))
		if truthy(item["frozen"]) && !frozen[ref] {
			errs = append(errs, "supporting deliverable requires deliverable_frozen: "+ref)
		}
		if !truthy(item["frozen"]) && frozen[ref] {
			errs = append(errs, "supporting deliverable has freeze event but is not marked frozen: "+ref)
		}
	}
	return errs, frozen
}

// attachmentErrors is upstream's validate_attachments.
func attachmentErrors(p Protocol, folder string) []string {
	var errs []string
	list, _ := deliverables(p)["attachments"].([]any)
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		file, ok := m["file"].(string)
		if !ok {
			continue
		}
		path, err := deliverablePath(folder, p, file)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if _, err := os.Stat(path); err != nil {
			errs = append(errs, "attachment missing: "+file)
		}
	}
	return errs
}
