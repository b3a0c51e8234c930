package acpref

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchFolder is a folder in decision_review whose log has n events:
// proposal, review, revision, then blocked-free question_classified rounds.
func benchFolder(b *testing.B, tools *Tools, n int) string {
	b.Helper()
	dir := initFolder(b, tools)
	steps := []AppendRequest{
		{Participant: "server", Event: "proposal_submitted", Summary: "s", ReplyTo: one(1)},
		{Participant: "reader", Event: "review_submitted", Summary: "s", ReplyTo: one(2)},
		{Participant: "server", Event: "proposal_revised", Summary: "s", ReplyTo: one(3)},
	}
	for _, s := range steps {
		if _, err := tools.Append(dir, s); err != nil {
			b.Fatal(err)
		}
	}
	writeFile(b, dir, "review.md", "## t - reader - seq 3\n\nContext:\nPosition:\nConcerns:\nRequired Changes:\nQuestions:\n")
	for seq := 4; seq < n; seq++ {
		if _, err := tools.Append(dir, AppendRequest{Participant: "server", Event: "decision_proposed", Summary: "again", ReplyTo: one(seq)}); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkAppend appends to logs of growing length: each append replays
// the whole log and replaces both files, so it grows linearly.
func BenchmarkAppend(b *testing.B) {
	for _, sync := range []bool{false, true} {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("events=%d/fsync=%v", n, sync), func(b *testing.B) {
				tools := newTools(func(o *Options) { o.NoSync = !sync })
				dir := benchFolder(b, tools, n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := tools.Append(dir, AppendRequest{Participant: "server", Event: "decision_proposed", Summary: "again", ReplyTo: one(n)}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkValidate validates folders with logs of growing length.
func BenchmarkValidate(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			tools := newTools()
			dir := benchFolder(b, tools, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if r := tools.Validate(dir); r.Exit() == 2 {
					b.Fatal(r.Text())
				}
			}
		})
	}
}

func writeFile(b *testing.B, dir, name, text string) {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
}
