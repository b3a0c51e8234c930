package kungfu

import "time"

// taskState is the derived state of every Task (§7).
type taskState struct{}

var taskActions = map[string]handler{}

var taskViews = map[string]view{}

func (s *Service) applyTask(f Fact) error { return nil }

func (s *Service) taskObligations(agentID string) []obligation { return nil }

func (s *Service) taskOpportunities(agentID string) []any { return nil }

func (s *Service) taskDeadlines(now time.Time) []Fact { return nil }
