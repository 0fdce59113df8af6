package backup

import (
	"testing"
	"time"
)

func TestBackupStateOverdue(t *testing.T) {
	now := time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC)
	old := now.Add(-72 * time.Hour)
	recent := now.Add(-24 * time.Hour)
	for _, c := range []struct {
		name string
		b    State
		want bool
	}{
		{"daily, last 3 days ago", State{Enabled: true, Scheduled: []string{"daily", "weekly"}, LastBackup: &StateBackup{At: old}}, true},
		{"daily, last yesterday", State{Enabled: true, Scheduled: []string{"daily"}, LastBackup: &StateBackup{At: recent}}, false},
		{"none, memory 3 days old", State{Enabled: true, Scheduled: []string{"daily"}, MemorySince: &old}, true},
		{"none, memory new", State{Enabled: true, Scheduled: []string{"daily"}, MemorySince: &recent}, false},
		{"weekly only, 3 days", State{Enabled: true, Scheduled: []string{"weekly"}, LastBackup: &StateBackup{At: old}}, false},
		{"weekly only, 9 days", State{Enabled: true, Scheduled: []string{"weekly"}, LastBackup: &StateBackup{At: now.Add(-9 * 24 * time.Hour)}}, true},
		{"disabled", State{Enabled: false, Scheduled: nil, LastBackup: &StateBackup{At: old}}, false},
	} {
		if got, _ := c.b.Overdue(now); got != c.want {
			t.Errorf("%s: overdue %v, want %v", c.name, got, c.want)
		}
	}
}
