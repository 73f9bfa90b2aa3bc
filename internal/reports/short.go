package reports

import "strings"

// WarningDetail is how many characters of a warning line stderr shows
// before its remedy: the cause and its first figures; a 300-600 character
// line per problem buried the causes of three benchmarks in fifteen lines.
const WarningDetail = 140

// ShortLine cuts line's part before its remedy ("; remedy: ") to at most
// max characters, at a clause or word boundary, marked "…"; the remedy
// stays whole.
func ShortLine(line string, max int) string {
	head, remedy, ok := strings.Cut(line, "; remedy: ")
	if r := []rune(head); len(r) > max {
		cut := string(r[:max])
		if i := strings.LastIndexAny(cut, ";,("); i > max/2 {
			cut = cut[:i]
		} else if i := strings.LastIndex(cut, " "); i > max/2 {
			cut = cut[:i]
		}
		head = strings.TrimRight(cut, " ;,") + " …"
	}
	if ok {
		head += "; remedy: " + remedy
	}
	return head
}
