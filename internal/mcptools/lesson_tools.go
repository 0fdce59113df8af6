package mcptools

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/memory"
)

// A lesson the model stores is a proposal until the user confirms it
// (memory/lessons.go says why): store_memory keeps source "lesson" as
// proposed_lesson, with where it came from in its speaker; update_memory
// with confirm_lesson makes it a lesson on the user's word.

// proposedNote is what store_memory says when it keeps a proposal.
const proposedNote = "Stored as a proposed lesson: it is not applied in later sessions until the user confirms it. Tell the user what you proposed; if they want to keep it, call update_memory with its memory_id and confirm_lesson true."

// isLesson reports whether a store asks for source lesson.
func isLesson(source string) bool {
	return strings.EqualFold(strings.TrimSpace(source), memory.SourceLesson)
}

// lessonOrigin says where a proposal came from: the MCP client that
// stored it (as the client names itself).
func lessonOrigin(ctx context.Context) string {
	name := "an MCP client"
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		if n := strings.TrimSpace(s.GetClientInfo().Name); n != "" {
			name = n
		}
	}
	origin := "proposed via " + name
	if len(origin) > 64 {
		origin = shortenTo(origin, 64)
	}
	return strings.Join(strings.Fields(origin), " ")
}

// shortenTo cuts s to at most n bytes on a character boundary.
func shortenTo(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:min(n, len(s))]
}
