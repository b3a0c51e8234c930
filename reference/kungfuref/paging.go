package kungfuref

import "fmt"

// defaultPage is the page size of every list view when none is asked for.
const defaultPage = 50

// pageParams reads the paging parameters every list view takes: limit (1 to
// 100, default 50) and cursor (a value returned as next_cursor). Every read
// is bounded (§8).
func pageParams(params map[string]any) (limit, cursor int, rej *Rejection) {
	limit, given, err := intParam(params, "limit")
	if err != nil || given && (limit < 1 || limit > 100) {
		return 0, 0, rejection(ReasonInvalidParams, "retry", "limit must be a whole number from 1 to 100")
	}
	if !given {
		limit = defaultPage
	}
	if c, ok := params["cursor"].(string); ok && c != "" {
		if _, err := fmt.Sscanf(c, "%d", &cursor); err != nil || cursor < 0 {
			return 0, 0, rejection(ReasonInvalidParams, "retry", "cursor must be a value returned as next_cursor")
		}
	}
	return limit, cursor, nil
}

// offsetPager collects one page of a filtered walk over a list: the walk
// offers each matching item in order, and the pager keeps those on the page
// and notes whether more follow.
type offsetPager struct {
	limit, start, matched int
	items                 []any
	next                  string
}

func newOffsetPager(limit, start int) *offsetPager {
	return &offsetPager{limit: limit, start: start, items: []any{}}
}

// offer adds a matching item (built only if it is on the page). It returns
// false once the page is full and the walk can stop.
func (p *offsetPager) offer(item func() any) bool {
	p.matched++
	if p.matched <= p.start {
		return true
	}
	if len(p.items) == p.limit {
		p.next = fmt.Sprint(p.start + p.limit)
		return false
	}
	p.items = append(p.items, item())
	return true
}
