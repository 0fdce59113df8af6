package recall

import (
	"regexp"

	"github.com/infmem/infmem/internal/facts"
)

// Short forms of dates and times. Notes written with another language's
// habits give a date or a time in short forms facts.Extract does not read
// (coordinator's held-out reading, 2026-11-29 seventh; answer11): a day
// and month without a year "17/01", "8/12", a month and year "03/2027",
// an hour with "h" "14h", "9h30", "18h45", "22h", and a weekday's
// abbreviation of Portuguese, Spanish, French or German beside a number
// ("qui 9", "seg 8/12", "Di 9h30"). A weekday's abbreviation alone is no
// date ("sex", "mar", "so" are words too).
var (
	shortDate    = regexp.MustCompile(`(?:^|[^\p{L}\p{N}/.])(?:0?[1-9]|[12][0-9]|3[01])/(?:0?[1-9]|1[0-2])(?:[^\p{L}\p{N}/]|$)|(?:^|[^\p{L}\p{N}/])(?:0?[1-9]|1[0-2])/(?:19|20)[0-9]{2}(?:[^\p{L}\p{N}/]|$)`)
	shortTime    = regexp.MustCompile(`(?:^|[^\p{L}\p{N}])(?:[01]?[0-9]|2[0-3])h(?:[0-5][0-9])?(?:[^\p{L}\p{N}]|$)`)
	shortWeekday = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:seg|ter|qua|qui|sex|s[aá]b|dom|lun|mar|mi[eé]|jue|vie|mer|jeu|ven|sam|dim|mo|di|mi|do|fr|sa|so)\.?\s+[0-9]`)
)

// givesShort reports whether text gives a date or a time (k) in a short
// form facts.Extract does not read.
func givesShort(text string, k facts.Kind) bool {
	switch k {
	case facts.Date:
		return shortDate.MatchString(text) || shortWeekday.MatchString(text)
	case facts.Time:
		return shortTime.MatchString(text)
	}
	return false
}
