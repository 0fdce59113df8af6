//go:build windows

package dataroot

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/windows"
)

// mkdirPrivate creates dir, private to the current user from its first
// moment: the security descriptor of PrivateSDDL goes to CreateDirectory
// itself, so there is no window in which the directory carries what its
// parent hands down. The DACL is then set once more by name, marked
// protected, so that it holds even on a file system that merged the
// parent's inheritable entries into the one given at creation. An existing
// dir yields an error matching os.ErrExist and is left as it is.
func mkdirPrivate(dir string) error {
	user, err := currentUserSID()
	if err != nil {
		return err
	}
	sddl, err := PrivateSDDL(user)
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		return fmt.Errorf("cannot build the access list for %s: %w", dir, err)
	}
	name, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	sa := windows.SecurityAttributes{
		Length:             uint32(unsafe.Sizeof(windows.SecurityAttributes{})),
		SecurityDescriptor: sd,
	}
	if err := windows.CreateDirectory(name, &sa); err != nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	dacl, _, err := sd.DACL()
	if err == nil {
		err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
			windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION,
			nil, nil, dacl, nil)
	}
	runtime.KeepAlive(sd)
	if err != nil {
		os.Remove(dir) // just made and empty: do not leave it open to others
		return fmt.Errorf("cannot make %s private to you: %w\nhint: put the data root on an NTFS volume, via --data-dir or INFMEM_DATA_DIR", dir, err)
	}
	return nil
}

// checkPrivate refuses a directory whose access list lets another account
// change it, or that another account owns, as perm_unix.go refuses a
// directory writable by group or others. One that others can only read is
// accepted here and reported by doctor (CheckAccessList).
func checkPrivate(dir string, _ os.FileInfo) error {
	v, err := verdictFor(dir)
	if err != nil {
		return err
	}
	if v.Exposure == Writable {
		return v.Err(dir, lookupAccount)
	}
	return nil
}

// CheckAccessList reports, as an error with a "hint:" line, any account
// other than you, SYSTEM and Administrators that dir's access list lets read
// or change it; nil when there is none.
func CheckAccessList(dir string) error {
	v, err := verdictFor(dir)
	if err != nil {
		return err
	}
	return v.Err(dir, lookupAccount)
}

func verdictFor(dir string) (ACLVerdict, error) {
	user, err := currentUserSID()
	if err != nil {
		return ACLVerdict{}, err
	}
	d, err := readDACL(dir)
	if err != nil {
		return ACLVerdict{}, fmt.Errorf("cannot read the access list of %s: %w\nhint: use a directory you own, via --data-dir or INFMEM_DATA_DIR", dir, err)
	}
	return CheckDACL(user, d), nil
}

// currentUserSID is the SID of the account this process runs as.
func currentUserSID() (string, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("cannot tell which account infmem runs as: %w", err)
	}
	return tu.User.Sid.String(), nil
}

// readDACL reads dir's owner and DACL into the form CheckDACL takes.
func readDACL(dir string) (DACL, error) {
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return DACL{}, err
	}
	if sd == nil {
		// No security descriptor at all: nothing restricts access.
		return DACL{Null: true}, nil
	}
	d, err := summarize(sd)
	runtime.KeepAlive(sd) // the owner and DACL point into sd
	return d, err
}

func summarize(sd *windows.SECURITY_DESCRIPTOR) (DACL, error) {
	var d DACL
	if owner, _, err := sd.Owner(); err == nil && owner != nil {
		d.Owner = owner.String()
	}
	acl, _, err := sd.DACL()
	switch {
	case errors.Is(err, windows.ERROR_OBJECT_NOT_FOUND), err == nil && acl == nil:
		// No DACL, or a NULL one: both let everyone in.
		d.Null = true
		return d, nil
	case err != nil:
		return DACL{}, err
	}
	for i := range uint32(acl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(acl, i, &ace); err != nil {
			return DACL{}, fmt.Errorf("entry %d: %w", i, err)
		}
		e := ACE{Type: ace.Header.AceType, Flags: ace.Header.AceFlags, Mask: uint32(ace.Mask)}
		switch e.Type {
		case AceAllowed, AceDenied, AceAllowedCallback, AceDeniedCallback:
			// These put the SID right after the mask. Object entries put
			// GUIDs first; their SID stays empty and CheckDACL counts an
			// allowing one against privacy.
			e.SID = (*windows.SID)(unsafe.Pointer(&ace.SidStart)).String()
		}
		d.ACEs = append(d.ACEs, e)
	}
	return d, nil
}

// lookupAccount names a SID as DOMAIN\account, or "" when Windows cannot.
func lookupAccount(s string) string {
	sid, err := windows.StringToSid(s)
	if err != nil {
		return ""
	}
	account, domain, _, err := sid.LookupAccount("")
	if err != nil || account == "" {
		return ""
	}
	if domain == "" {
		return account
	}
	return domain + `\` + account
}
