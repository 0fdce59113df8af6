package sockdir

import "io/fs"

// Windows has no unix modes or uids; the per-user temp dir's ACL guards
// the folder.
const privateModeMatters = false

func ownerUID(fs.FileInfo) (int, bool) { return 0, false }
