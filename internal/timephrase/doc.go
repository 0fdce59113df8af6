// Package timephrase owns turning a natural-language time reference, as a
// user says it ("what did we talk about last week?"), into a half-open time
// range [From, To) in the user's time zone. The MCP tools recall_memory_by_time
// (time_query) and retrieve_memory (time filters) use it.
//
// # How a phrase is read
//
// The phrase is lowercased and split into words; punctuation, possessives and
// a trailing full stop are dropped. Rules (rules.go) recognise simple
// expressions at any word; combinators (ranges.go) join them into "yesterday
// evening", "monday at 5pm", "from X to Y", "since X" and the like. The
// reading that accounts for the most words wins, so words around the time
// reference are ignored. Phrases the rules do not know go to
// github.com/olebedev/when (fallback.go), whose answer is used only if it
// accounts for more words; its instant becomes the hour containing it when it
// names a time of day or a sub-day offset, otherwise the day containing it.
//
// # Supported forms (examples for Wednesday 2025-05-14 15:04)
//
// Days are calendar days from midnight to midnight, 23 or 25 hours long when
// the clocks change. Weeks start on Monday (WithWeekStart changes this).
//
//	today, yesterday, tomorrow            that day
//	the day before yesterday / after tomorrow
//	this morning/afternoon/evening        05–12, 12–17, 17–24 today (also "in the evening")
//	tonight, last night                   18:00 to 05:00 next day, today / yesterday
//	<day> morning|in the evening|night    "yesterday evening", "monday morning"
//	<day> at 5pm, 5pm on <day>            the hour the time falls in on that day
//	at 5pm, 17:30, noon, midnight         the latest such hour that has begun (at 15:04,
//	                                      "5pm" is yesterday's)
//	between 9am and 5pm, <day> from 10pm to 2am
//	                                      a clock time ending a range is an instant
//	                                      (17:00); the end follows the start past midnight
//	this/last/next week|month|year        the calendar unit
//	the past week, the last month,        from midnight one unit back until now
//	past year, (the) last hour            ("the past week": May 7 00:00 until now)
//	the past/last N units, within N units from midnight N days/weeks/months/years back until
//	                                      now; exactly N hours/minutes/seconds back
//	N units ago, a week ago, an hour ago  the whole calendar unit containing now − N units
//	                                      ("2 weeks ago": the week of Apr 28)
//	in N units, N units from now          likewise, forward
//	a few/several units ago               units 2 to 5 back; "the past few days": 5 days
//	the other day                         the six days before yesterday (May 7 to May 13)
//	Monday, on Monday, last Monday        the latest Monday before today (May 12); on a
//	                                      Wednesday, "Wednesday" is a week ago
//	this Friday                           Friday of the current week, even if to come
//	Monday of last week, last week's Monday, Tuesday next week
//	the weekend, over the weekend         Saturday–Sunday under way, else the latest
//	last/this past weekend                the latest finished one
//	this weekend / next weekend           the one under way or coming / the one after
//	March, in March                       the latest March that has begun (this May in May)
//	last March                            the latest March that has ended
//	this March, next March                the current year's / the first after now
//	March 2023, Mar 2023, 2023-03, 03/2023, March of last year
//	2023, in 2023, the year 1850          the year (a lone number only if 1900–2199)
//	May 5, May 5th, 5 May, the 5th of May, May the fifth, 5/5
//	                                      the latest such day not after today
//	May 5 2023, May 5, 2023, 5 May 2023, 2023-05-05, 2023/05/05, 5/5/2023, 5/5/23
//	5/5/2023 is month/day/year (US); "25/12/2023" is read day first because 25 cannot
//	                                      be a month; a 2-digit year takes the nearest century
//	the 5th, on the 31st                  the latest such day of a month
//	2023-03-05T10:00:00Z, ...T10:00, ...T10, 2023-03-05 10:00
//	                                      the second, minute or hour named; a zone
//	                                      (Z, +02:00) is honoured, else the user's zone
//	from X to Y, between X and Y, X - Y, X through Y, X until Y, March 1-15
//	                                      both ends whole; ends without a year or week
//	                                      are placed to give the shortest range
//	since X, X onwards, from X on         X's start until now
//	after X                               X's end until now ("after 3pm": from 15:00)
//	before X, prior to X                  the zero time until X's start
//	until X, till X, up to X, through X   the zero time until X's end ("until 3pm": 15:00)
//	from X until now                      X's start until now
//
// Every error wraps ErrUnrecognized, including for phrases that name no
// time ("February 30", "since tomorrow": a range would end before it
// starts) and for phrases over 1000 bytes.
//
// Read by the fallback (olebedev/when): "next Tuesday", "next Tue at 5pm",
// "tmr", "half an hour ago", "in half an hour".
//
// Not understood (an error wrapping ErrUnrecognized): vague words such as
// "recently" or "a while ago", quarters, ISO weeks, and a weak word that is
// also ordinary English ("may", "march", "sat", "sun", "wed", "jan") inside
// a sentence without a preposition or range word next to it. Some phrases
// are read only in part: "this time last year" as last year, "the last week
// of March" as the past week, "Q1 2023" as 2023.
package timephrase
