package acpref

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// isoPattern accepts the ISO-8601 forms Python 3.11's fromisoformat reads:
// extended or basic date, an optional time after T or a space (hours,
// minutes, seconds, a fraction), and an optional offset.
var isoPattern = regexp.MustCompile(`^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?)?$`)

// Timestamp is a parsed `at` value.
type Timestamp struct {
	Time   time.Time
	Aware  bool   // it carries an offset
	Offset string // the offset as written ("Z", "+08:00"), "" when naive
}

// ParseTimestamp reads an ISO-8601 timestamp. ok is false when the text is
// not ISO-8601 at all.
func ParseTimestamp(s string) (Timestamp, bool) {
	m := isoPattern.FindStringSubmatch(s)
	if m == nil {
		return Timestamp{}, false
	}
	num := func(i int) int {
		if m[i] == "" {
			return 0
		}
		n, _ := strconv.Atoi(m[i])
		return n
	}
	nanos := 0
	if m[7] != "" {
		frac := (m[7] + "000000000")[:9]
		nanos, _ = strconv.Atoi(frac)
	}
	y, mo, d, h, mi, sec := num(1), num(2), num(3), num(4), num(5), num(6)
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return Timestamp{}, false
	}
	loc := time.UTC
	ts := Timestamp{Offset: m[8]}
	if m[8] != "" {
		ts.Aware = true
		if m[8] != "Z" {
			off := strings.ReplaceAll(m[8][1:], ":", "")
			hh, _ := strconv.Atoi(off[:2])
			mm := 0
			if len(off) >= 4 {
				mm, _ = strconv.Atoi(off[2:4])
			}
			secs := hh*3600 + mm*60
			if hh > 23 || mm > 59 {
				return Timestamp{}, false
			}
			if m[8][0] == '-' {
				secs = -secs
			}
			loc = time.FixedZone(m[8], secs)
		}
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nanos, loc)
	if t.Day() != d { // 31 February and the like
		return Timestamp{}, false
	}
	ts.Time = t
	return ts, true
}

// UTC reports whether an aware timestamp is written in UTC.
func (t Timestamp) UTC() bool {
	switch t.Offset {
	case "Z", "+00:00", "+0000", "+00", "-00:00", "-0000", "-00":
		return true
	}
	return false
}

// FormatTime writes a timestamp as the tools stamp events: UTC, whole seconds.
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
