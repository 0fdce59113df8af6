//go:build windows

package diskfree

import "golang.org/x/sys/windows"

// Stat measures the volume holding dir.
func Stat(dir string) (Space, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return Space{}, err
	}
	var free, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &free, &total, &totalFree); err != nil {
		return Space{}, err
	}
	return Space{Free: free, Total: total}, nil
}
