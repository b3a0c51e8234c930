package kungfu

// Faults planted in the Thread profile (§6, §8 responses and assignments).
const (
	FaultNoDeadlines Fault = "no-deadlines" // assignment deadlines never pass
)

func init() { Faults = append(Faults, FaultNoDeadlines) }
