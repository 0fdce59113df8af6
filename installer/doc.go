// Package installer owns installation on the user's machine: the per-user
// login service and the registration of infmem in Claude Desktop's config.
//
// Install registers `infmem daemon --data-dir <root>` as a login service (a
// systemd user unit on Linux and a LaunchAgent on macOS, both through
// kardianos/service with this package's own unit and plist templates; a
// Scheduled Task with a logon trigger on Windows, see schtask.go for why) and
// adds mcpServers.infmem to claude_desktop_config.json. Uninstall removes
// both and leaves the data root alone. Both are idempotent, check everything
// before changing anything, and with Options.DryRun only print the plan.
//
// Claude Desktop's config belongs to the user: it is edited in place, member
// by member, so that every other byte survives; it is written atomically and
// the previous version is kept as claude_desktop_config.json.bak-<UTC time>
// whenever the content changes. A config infmem cannot parse is never
// touched.
package installer
