// Package daemon owns the infmem service: one constructor (NewRuntime,
// and Open for `infmem daemon`) builds everything that runs beside the
// memory, for the daemon, `infmem mcp --in-process`, a terminal command
// that runs maintenance without a daemon (Options.OneShot) and the tests.
//
// A Runtime is the memory of one data root inside one process. It opens
// the database in the background (retrying with back-off) and builds the
// scopes and the memory engine on it; its states and the moves between
// them are the transitions table. It serves the MCP tools (package
// mcptools) and gives each tool call the memory through Deps.Memory, the
// one place a call waits: for the database, then for the index, within
// CallWait, answering "try again" when that runs out. It pauses for a
// restore and closes everything in order.
//
// Beside the memory a Runtime runs its services (services.go): the
// scheduler of nightly maintenance and scheduled backups
// (maintenance.go), the backups and exports terminal commands and the
// backup_memory / export_memory tools ask for, with their limits
// (backups.go), and the GC target. Terminal commands reach them through
// the jobs of the control socket (JobBackup, JobExport, JobMaintain,
// JobMaintenanceLog); Status reports the backup and maintenance state,
// typed (backup.State, maintenance.State).
//
// A Daemon is `infmem daemon`: it holds the data root's lock (one daemon
// per root), listens on the MCP socket, where every connection is an MCP
// session of its own, and on the control socket for terminal commands
// (see package control; both placed by package sockdir and talking only
// to processes of the same user), writes run/daemon.json, and stops
// gracefully. It implements kardianos/service's Interface. Given a
// ConfigSource it reads its configuration again when the file changes,
// on SIGHUP and on a control client's reload: Runtime.Reconfigure applies
// the keys that may change while it runs (config.Live) to the services;
// the others wait for a restart, which status says. On a control
// client's ui request it serves the local web UI (package webui, ui.go) on
// 127.0.0.1 until it is idle.
package daemon
