// Package timephrase owns turning a natural-language time reference, as a
// user says it ("what did we talk about last week?"), into a half-open time
// range in the user's time zone.
package timephrase
