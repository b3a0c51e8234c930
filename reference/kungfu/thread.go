package kungfu

import "time"

// threadState is the derived state of every thread (§6).
type threadState struct{}

var threadActions = map[string]handler{}

var threadViews = map[string]view{}

func (s *Service) applyThread(f Fact) error { return nil }

func (s *Service) threadObligations(agentID string) []obligation { return nil }

func (s *Service) threadOpportunities(agentID string) []any { return nil }

func (s *Service) threadDeadlines(now time.Time) []Fact { return nil }
