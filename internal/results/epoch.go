package results

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// SourceDateEpoch reads SOURCE_DATE_EPOCH (seconds since 1970, the
// reproducible-builds convention). When it is set, the evidence sifu writes
// carries that time and no durations (Run.Reproducible), and a declaration
// is dated by it; otherwise at is now.
func SourceDateEpoch() (at time.Time, set bool, err error) {
	v, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok || v == "" {
		return time.Now(), false, nil
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	if err != nil || secs < 0 {
		return time.Time{}, false, fmt.Errorf("SOURCE_DATE_EPOCH=%q: give whole seconds since 1970, e.g. $(git log -1 --format=%%ct)", v)
	}
	return time.Unix(secs, 0).UTC(), true, nil
}
